package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.BlockscopeRegionObserver;
import io.blockscope.coprocessor.Diagnostics;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CacheReuse;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.workloads.RawTable;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import javax.management.AttributeNotFoundException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Waiter;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.hfile.CombinedBlockCache;
import org.apache.hadoop.hbase.io.hfile.bucket.BucketCache;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The fault campaign (docs/reliability.md), in the style of HBase's chaos monkey, on a cluster of
 * its own: three region servers in this JVM with an off-heap BucketCache. Client threads read
 * (gets, short scans, tagged query scans) while regions split, merge, move and compact and a region
 * server aborts and is replaced; a scraper reads every blockscope server and table counter over JMX
 * every 200 ms. Runs in its own surefire execution (its own JVM).
 *
 * <p>{@code -Dblockscope.campaign.seconds=600} runs the long form; the default is the short form CI
 * runs. The faults go on past that time until every kind (split, merge, move, compaction, flush, a
 * region server's abort) has been carried out at least once, so that a slow or busy machine proves
 * the same faults as a quiet one (for at most four times as long); a fault HBase declines counts
 * only as the refusal its kind may meet. All three region servers share this JVM's one blockscope
 * engine, so server series here are the sum over them.
 */
public class FaultCampaignIT {
  private static final int ROWS = 20_000;
  private static final long SECONDS = Long.getLong("blockscope.campaign.seconds", 60);
  private static final String PHOENIX_TABLE = "CHAOS_P";

  /**
   * Region server aborts per run: each replacement allocates an off-heap BucketCache of its own,
   * and in one JVM an aborted server's is not given back (the long form ran out of direct memory
   * after four with -XX:MaxDirectMemorySize=512m).
   */
  private static final int MAX_ABORTS = 6;

  /** Every tenth step of the campaign tries a region server's abort. */
  private static final int ABORT_EVERY = 10;

  /** Incremented as each fault starts and ends: odd while one is in progress. */
  private static final AtomicLong EPOCH = new AtomicLong();

  private static final int PHOENIX_ROWS = 8_000;

  /**
   * How long a closed region's costs are kept here ({@code blockscope.export.retain.ms}): short, so
   * that the drop phase sees a dropped table's series go; a series that is gone for longer than
   * this may come back from zero.
   */
  private static final long RETAIN_MS = 15_000;

  /** Rows of the chaos table that the batched query scans read, each in two Results. */
  private static final int BATCHED_ROWS = 50;

  private static EmbeddedCluster cluster;

  @BeforeClass
  public static void start() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set(
        "hbase.coprocessor.region.classes",
        ShippedCounter.class.getName()
            + ","
            + BlockscopeRegionObserver.class.getName()
            + ","
            + io.blockscope.encoding.EncodingRegistrar.class.getName());
    conf.set("hbase.bucketcache.ioengine", "offheap");
    conf.set("hbase.bucketcache.size", "64");
    conf.set("blockscope.export.interval.ms", "1000");
    conf.set("blockscope.export.retain.ms", Long.toString(RETAIN_MS));
    conf.set("hbase.regionserver.handler.count", "6");
    // Phoenix's statistics collector reads SYSTEM.CATALOG from inside compactions; one running
    // while the cluster shuts down retried for minutes and held the region servers' close
    conf.set("phoenix.stats.collection.enabled", "false");
    cluster = EmbeddedCluster.start(conf, 3);
  }

  @AfterClass
  public static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Diagnostics engine() {
    return cluster.diagnostics();
  }

  private static long serverCounter(String name) {
    return engine().registry().metrics().getCounters().get(MetricKeys.server(name)).getCount();
  }

  /**
   * With blockscope measuring a compaction, HBase's Compactor must call shipped() on the store
   * scanner exactly as often as when blockscope leaves the compaction alone (a table at OFF), with
   * an off-heap BucketCache holding the blocks the compaction reads.
   */
  @Test
  public void aMeasuredCompactionShipsAsOftenAsAnUnmeasuredOne() throws Exception {
    Map<String, Long> shipped = new HashMap<>();
    for (String level : List.of("COUNT", "OFF")) {
      TableName t = TableName.valueOf("ship_" + level.toLowerCase(Locale.ROOT));
      RawTable.create(
          cluster.admin(),
          new RawTable.Spec(t).level(level).blockSize(4096).encoding(DataBlockEncoding.FAST_DIFF));
      for (int file = 0; file < 3; file++) {
        RawTable.loadSeed(cluster.connection(), cluster.admin(), t, 30_000, file);
      }
      RawTable.scanCells(cluster.connection(), t, new Scan()); // the blocks in the BucketCache
      cluster.admin().majorCompact(t);
      Waiter.waitFor(
          cluster.conf(),
          120_000,
          200,
          () ->
              cluster.regions(t).stream()
                  .allMatch(
                      r -> r.getStores().stream().allMatch(s -> s.getStorefilesCount() == 1)));
      shipped.put(level, ShippedCounter.SHIPPED.get(t.getNameAsString()).get());
      assertEquals(
          "BucketCache blocks still referenced by a reader after the compaction",
          0,
          heldBucketBlocks());
    }
    System.out.println("shipped() calls reaching the store scanner: " + shipped);
    assertTrue("the compaction ships at all: " + shipped, shipped.get("OFF") > 0);
    assertEquals(
        "shipped() calls reaching the StoreScanner, COUNT vs OFF",
        shipped.get("OFF"),
        shipped.get("COUNT"));
  }

  @Test
  public void countersStayMonotonicAndNothingLeaksWhileTheClusterMisbehaves() throws Exception {
    TableName t = TableName.valueOf("chaos");
    byte[][] splits = {RawTable.seedRow(5_000), RawTable.seedRow(10_000), RawTable.seedRow(15_000)};
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(t).blockSize(4096).encoding(DataBlockEncoding.FAST_DIFF).splits(splits));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, ROWS, 7);
    // the fault observer on the chaos table: gets whose own read from a coprocessor's pool thread,
    // short-circuited onto that thread, is refused
    cluster
        .admin()
        .modifyTable(
            TableDescriptorBuilder.newBuilder(cluster.admin().getDescriptor(t))
                .setCoprocessor(FaultInjectingObserver.class.getName())
                .build());
    SeedTables.createSplit(cluster, PHOENIX_TABLE, PHOENIX_ROWS, 5, "");
    TableName phoenix = TableName.valueOf(PHOENIX_TABLE);

    AtomicBoolean stop = new AtomicBoolean();
    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    AtomicLong reads = new AtomicLong();
    AtomicLong readErrors = new AtomicLong();
    AtomicLong scrapes = new AtomicLong();
    AtomicLong seriesChecked = new AtomicLong();
    List<String> faults = Collections.synchronizedList(new ArrayList<>());
    List<Thread> threads = new ArrayList<>();
    Map<String, AtomicLong> work = new TreeMap<>();
    for (int c = 0; c < 3; c++) {
      final int seed = c;
      AtomicLong mine = new AtomicLong();
      work.put("client-" + c, mine);
      threads.add(
          new Thread(
              () -> readLoop(t, seed, stop, reads, readErrors, mine, violations), "client-" + c));
    }
    AtomicLong queries = new AtomicLong();
    AtomicLong queryErrors = new AtomicLong();
    AtomicLong quietProfiles = new AtomicLong();
    threads.add(
        new Thread(
            () -> phoenixLoop(stop, queries, queryErrors, quietProfiles, violations), "phoenix"));
    work.put("phoenix", queries);
    threads.forEach(Thread::start);
    ScheduledExecutorService scraper = Executors.newSingleThreadScheduledExecutor();
    Map<ObjectName, Scraped> lastScraped = new HashMap<>();
    var unusedScrapes =
        scraper.scheduleWithFixedDelay(
            () -> scrape(lastScraped, violations, scrapes, seriesChecked),
            0,
            200,
            TimeUnit.MILLISECONDS);

    long end = System.currentTimeMillis() + SECONDS * 1000;
    long latest = System.currentTimeMillis() + 4 * SECONDS * 1000;
    Random rnd = new Random(14);
    Admin admin = cluster.admin();
    int step = 0;
    // past the campaign's time until every kind of fault has been carried out once, within a bound
    while (System.currentTimeMillis() < latest
        && (System.currentTimeMillis() < end || !missingKinds(faults).isEmpty())) {
      TableName target = rnd.nextBoolean() ? t : phoenix; // the HBase table or the Phoenix one
      List<RegionInfo> regions = admin.getRegions(target);
      RegionInfo r = regions.get(rnd.nextInt(regions.size()));
      int action = step++;
      String kind = kind(action, faults);
      EPOCH.incrementAndGet(); // odd: a fault in progress
      try {
        switch (kind) {
          case "split":
            admin.splitRegionAsync(r.getRegionName()).get();
            break;
          case "merge":
            if (regions.size() < 2) {
              kind = "merge (one region)";
              break;
            }
            regions.sort(RegionInfo.COMPARATOR);
            int i = rnd.nextInt(regions.size() - 1);
            admin
                .mergeRegionsAsync(
                    new byte[][] {
                      regions.get(i).getEncodedNameAsBytes(),
                      regions.get(i + 1).getEncodedNameAsBytes()
                    },
                    false)
                .get();
            break;
          case "move":
            List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
            admin.move(r.getEncodedNameAsBytes(), servers.get(rnd.nextInt(servers.size())));
            break;
          case "compact":
            admin.majorCompactRegion(r.getRegionName());
            break;
          case "abort":
            abortAndReplaceARegionServer(rnd);
            break;
          default:
            admin.flush(target);
            break;
        }
        faults.add(kind);
      } catch (Exception e) {
        faults.add(refusal(kind, e));
      }
      cluster.util().waitUntilNoRegionsInTransition(120_000);
      EPOCH.incrementAndGet();
      // a quiet moment, so that some profiled queries run with no fault in between; until a
      // batched query scan has been checked, long enough for one to run whole in it too (a
      // moment that ends at the first quiet profile can be too short for one, and on a loaded
      // machine none fitted in a whole campaign)
      long quietBefore = quietProfiles.get();
      long batchedBefore = batchedChecked.get();
      Waiter.waitFor(
          cluster.conf(),
          5_000,
          20,
          false,
          () ->
              quietProfiles.get() > quietBefore
                  && (batchedBefore > 0 || batchedChecked.get() > batchedBefore));
    }
    stop.set(true);
    scraper.shutdown();
    assertTrue("the scraper stopped", scraper.awaitTermination(60, TimeUnit.SECONDS));
    for (Thread th : threads) {
      th.join(120_000);
      assertFalse(th.getName() + " did not stop", th.isAlive());
    }
    assertEquals(
        "fault kinds never carried out in " + step + " steps: " + summary(faults),
        List.of(),
        missingKinds(faults));
    assertEquals("refusals no fault kind expects", List.of(), unexpectedRefusals(faults));
    cluster.util().waitUntilNoRegionsInTransition(120_000);
    for (TableName table : List.of(t, phoenix)) {
      Waiter.waitFor(cluster.conf(), 300_000, 200, () -> compactionDone(admin, table));
    }

    // the drop phase: a table created, read, disabled, truncated and dropped leaves nothing
    engine().refreshExport();
    Set<ObjectName> serverBeansBefore = serverBeans();
    int openScannersBefore = engine().queries().openScanners();
    int regionsBefore = engine().registry().regions().size();
    TableName gone = TableName.valueOf("dropped");
    RawTable.create(admin, new RawTable.Spec(gone).blockSize(4096).splits(RawTable.seedRow(500)));
    RawTable.loadSeed(cluster.connection(), admin, gone, 1_000, 1);
    RawTable.scanCells(cluster.connection(), gone, taggedScan("00000000000000000000000000d0d0"));
    engine().refreshExport();
    assertTrue("the table has series while it exists", beansOf(gone).size() > 0);
    admin.disableTable(gone);
    admin.truncateTable(gone, true);
    admin.disableTable(gone);
    admin.deleteTable(gone);
    faults.add("drop");
    engine().refreshExport();
    assertTrue(
        "a dropped table's series stay for the retention period",
        beansOf(gone).stream().anyMatch(n -> "Table".equals(n.getKeyProperty("type"))));
    Waiter.waitFor(
        cluster.conf(),
        RETAIN_MS + 30_000,
        200,
        () -> {
          engine().refreshExport();
          return beansOf(gone).isEmpty();
        });
    assertEquals("the dropped table's MBeans are gone after it", Set.of(), beansOf(gone));
    assertEquals("and the server's beans are the same", serverBeansBefore, serverBeans());
    assertEquals(openScannersBefore, engine().queries().openScanners());
    assertEquals(regionsBefore, engine().registry().regions().size());
    assertEquals(0, engine().registry().closingRegions());

    Waiter.waitFor(cluster.conf(), 30_000, 50, () -> engine().openFrames() == 0);
    assertEquals(List.of(), violations);
    // reads that threw, regions closed under them, calls cut short: the accounts by user and
    // (other) still add up to the server's figures, cost by cost
    ClusterTestBase.awaitAccountsSumToTheServer(cluster);
    for (Map.Entry<String, AtomicLong> w : work.entrySet()) {
      assertTrue(w.getKey() + " did work: " + work, w.getValue().get() > 0);
    }
    assertEquals("reads that failed after the client's retries", 0, readErrors.get());
    assertEquals("Phoenix queries that failed", 0, queryErrors.get());
    assertTrue("batched query scans were checked", batchedChecked.get() > 0);
    assertEquals("hook failures", 0, serverCounter("hooks.failures"));
    for (int p = 0; p < ProbeBridge.N_PROBES; p++) {
      assertEquals(
          "probe " + ProbeBridge.PROBE_NAMES[p] + " failures", 0, engine().probeFailures(p));
    }
    for (JVMClusterUtil.RegionServerThread rs :
        cluster.util().getMiniHBaseCluster().getLiveRegionServerThreads()) {
      assertFalse("a live region server aborted", rs.getRegionServer().isAborted());
    }

    // after the chaos, each region's files as HBase wrote them: one per region once major
    // compacted, no block of them cached, then a cold scan must miss each data block of each
    // region's file once and decode each of its cells once
    cluster.util().compact(t, true); // each region's major compaction, run to its end here
    Waiter.waitFor(
        cluster.conf(),
        300_000,
        200,
        () ->
            compactionDone(admin, t)
                && cluster.regions(t).stream()
                    .allMatch(
                        r ->
                            r.getStores().stream()
                                .allMatch(
                                    st -> st.getStorefilesCount() == 1 && !st.hasReferences())));
    admin.clearBlockCache(t);
    for (JVMClusterUtil.RegionServerThread rs :
        cluster.util().getMiniHBaseCluster().getLiveRegionServerThreads()) {
      var server = rs.getRegionServer();
      List<HRegion> here = new ArrayList<>();
      for (HRegion r : server.getRegions(t)) {
        here.add(r);
      }
      assertEquals(
          server.getServerName() + " still caches blocks of " + t,
          0,
          StoreFiles.cachedDataBlocks(server.getBlockCache().orElseThrow(), here));
    }
    // after the chaos, what a table's regions add up to is what its series adds
    CostSnapshot tableBefore = engine().registry().tableSnapshot(t.getNameAsString());
    Map<String, CostSnapshot> regionsAt = new HashMap<>();
    for (HRegion r : cluster.regions(t)) {
      String e = r.getRegionInfo().getEncodedName();
      regionsAt.put(e, engine().registry().regionSnapshot(e));
    }
    RawTable.scanCells(cluster.connection(), t, new Scan());
    CostSnapshot tableDelta =
        engine().registry().tableSnapshot(t.getNameAsString()).minus(tableBefore);
    CostSnapshot regionSum = CostSnapshot.ZERO;
    for (HRegion r : cluster.regions(t)) {
      String e = r.getRegionInfo().getEncodedName();
      regionSum = regionSum.plus(engine().registry().regionSnapshot(e).minus(regionsAt.get(e)));
    }
    assertEquals(tableDelta, regionSum);
    long cells = 0;
    for (HRegion r : cluster.regions(t)) {
      String e = r.getRegionInfo().getEncodedName();
      CostSnapshot cold = engine().registry().regionSnapshot(e).minus(regionsAt.get(e));
      long[] file = StoreFiles.trailerDataBlocksAndCells(List.of(r));
      assertEquals(
          e + "'s data blocks, missed: " + cold, file[0], cold.get("blockCache.miss.data"));
      assertEquals(e + "'s cells, decoded: " + cold, file[1], cold.get("decode.FAST_DIFF.cells"));
      cells += file[1];
    }
    assertEquals("the table's cells after the chaos", 2L * ROWS, cells);

    System.out.printf(
        "fault campaign: %d s, %d reads (%d failed after the client's retries, %d batched query"
            + " scans' rows checked exactly), %d profiled Phoenix queries (%d failed, %d checked"
            + " exactly), %d faults %s, %d scrapes checking %d counter readings of %d series"
            + " (server, table, region; %d came back after a close), query ids evicted: %d,"
            + " violations: %d%n",
        SECONDS,
        reads.get(),
        readErrors.get(),
        batchedChecked.get(),
        queries.get(),
        queryErrors.get(),
        quietProfiles.get(),
        faults.size(),
        summary(faults),
        scrapes.get(),
        seriesChecked.get(),
        lastScraped.size(),
        cameBack.get(),
        engine().queries().evicted(),
        violations.size());
    assertTrue(
        "profiled queries ran, some with no fault in between: " + quietProfiles,
        quietProfiles.get() > 0);
  }

  /** The kinds of fault a campaign carries out; each must succeed at least once in a run. */
  private static final List<String> KINDS =
      List.of("split", "merge", "move", "compact", "flush", "abort");

  /**
   * What HBase may answer a fault with, by kind: the root cause's simple class name, and a pattern
   * its message must match. A split or a merge of a region that still holds references to its
   * parents' files is declined ({@code DoNotRetryIOException}, {@code MergeRegionException}), and
   * so is one of a region reopened with edits recovered from an aborted server's WAL not yet
   * flushed. The other kinds must always be carried out.
   */
  /**
   * The master's check that a region to split or merge is open ({@code
   * RegionStateNode.checkOnline}, thrown as {@code DoNotRetryRegionException}, or within a {@code
   * MergeRegionException}): a fault step that meets a region another step is moving or reopening,
   * {@code ... is not OPEN; state=OPENING}.
   */
  private static final Pattern NOT_OPEN =
      Pattern.compile(".*(is not OPEN|not online).*", Pattern.DOTALL);

  private static final Map<String, List<Map.Entry<String, Pattern>>> EXPECTED_REFUSALS =
      Map.of(
          "split",
          List.of(
              Map.entry(
                  "DoNotRetryIOException",
                  Pattern.compile(
                      ".*(NOT splittable|not splittable|Skip splitting|is not OPEN|not online).*",
                      Pattern.DOTALL)),
              Map.entry("DoNotRetryRegionException", NOT_OPEN),
              Map.entry(
                  "IOException",
                  Pattern.compile("Recovered.edits are found in Region.*", Pattern.DOTALL))),
          "merge",
          List.of(
              Map.entry(
                  "MergeRegionException",
                  Pattern.compile(
                      "(Skip merging|Unable to merge) .*|.*is not OPEN.*", Pattern.DOTALL)),
              Map.entry(
                  "DoNotRetryIOException",
                  Pattern.compile(
                      ".*(not mergeable|merge qualifier|Skip merging|Unable to merge|is not OPEN"
                          + "|not online).*",
                      Pattern.DOTALL)),
              Map.entry("DoNotRetryRegionException", NOT_OPEN),
              Map.entry(
                  "IOException",
                  Pattern.compile("Recovered.edits are found in Region.*", Pattern.DOTALL)),
              // a merge declined with a plain IOException "[<encoded name>] NOT mergeable", as a
              // split is declined "NOT splittable" (seen once in a CI run)
              Map.entry(
                  "IOException",
                  Pattern.compile("\\[[0-9a-f]+\\] NOT mergeable", Pattern.DOTALL))));

  /** Which kind of fault step {@code action} is: every tenth an abort, up to their maximum. */
  private static String kind(int action, List<String> faults) {
    int k = action % 5;
    if (k < 4) {
      return KINDS.get(k);
    }
    return action % ABORT_EVERY == ABORT_EVERY - 1
            && Collections.frequency(faults, "abort") < MAX_ABORTS
        ? "abort"
        : "flush";
  }

  /**
   * How a refused fault is recorded: {@code refused:<kind>:<root cause's simple class name>} when
   * its kind may meet that refusal ({@link #EXPECTED_REFUSALS}), else {@code
   * unexpected:<kind>:<root cause>}.
   */
  private static String refusal(String kind, Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    // a refusal sent back from a server names its exception's class
    String type =
        root instanceof org.apache.hadoop.ipc.RemoteException remote
            ? remote.getClassName().substring(remote.getClassName().lastIndexOf('.') + 1)
            : root.getClass().getSimpleName();
    String message = String.valueOf(root.getMessage()).trim();
    System.out.println("fault campaign: " + kind + " refused: " + root);
    for (Map.Entry<String, Pattern> ok : EXPECTED_REFUSALS.getOrDefault(kind, List.of())) {
      if (ok.getKey().equals(type) && ok.getValue().matcher(message).matches()) {
        return "refused:" + kind + ":" + type;
      }
    }
    return "unexpected:" + kind + ":" + root;
  }

  private static List<String> missingKinds(List<String> faults) {
    List<String> missing = new ArrayList<>();
    synchronized (faults) {
      for (String k : KINDS) {
        if (!faults.contains(k)) {
          missing.add(k);
        }
      }
    }
    return missing;
  }

  private static List<String> unexpectedRefusals(List<String> faults) {
    List<String> wrong = new ArrayList<>();
    synchronized (faults) {
      for (String f : faults) {
        if (f.startsWith("unexpected:")) {
          wrong.add(f);
        }
      }
    }
    return wrong;
  }

  /** Blocks in the region servers' BucketCaches that a reader still holds (refCnt above 1). */
  private static long heldBucketBlocks() {
    long held = 0;
    long entries = 0;
    for (JVMClusterUtil.RegionServerThread rs :
        cluster.util().getMiniHBaseCluster().getLiveRegionServerThreads()) {
      var cache = rs.getRegionServer().getBlockCache().orElseThrow();
      var l2 = ((CombinedBlockCache) cache).getSecondLevelCache();
      for (var e : ((BucketCache) l2).getBackingMap().values()) {
        entries++;
        if (e.refCnt() > 1) {
          held++;
        }
      }
    }
    assertTrue("the BucketCaches hold the blocks read", entries > 0);
    return held;
  }

  private static Map<String, Integer> summary(List<String> faults) {
    Map<String, Integer> m = new TreeMap<>();
    synchronized (faults) {
      faults.forEach(f -> m.merge(f, 1, Integer::sum));
    }
    return m;
  }

  private static void abortAndReplaceARegionServer(Random rnd) throws Exception {
    var mini = cluster.util().getMiniHBaseCluster();
    mini.startRegionServer().waitForServerOnline();
    List<JVMClusterUtil.RegionServerThread> all = mini.getRegionServerThreads();
    List<Integer> alive = new ArrayList<>();
    for (int i = 0; i < all.size() - 1; i++) { // not the one just started
      if (all.get(i).isAlive() && !all.get(i).getRegionServer().isAborted()) {
        alive.add(i);
      }
    }
    int victim = alive.get(rnd.nextInt(alive.size()));
    mini.abortRegionServer(victim);
    mini.waitOnRegionServer(victim);
  }

  private static Scan taggedScan(String query) {
    Scan s = new Scan();
    s.setAttribute(Attributes.QUERY, query.getBytes(StandardCharsets.US_ASCII));
    s.setAttribute(Attributes.PROFILE, "COUNT".getBytes(StandardCharsets.US_ASCII));
    return s;
  }

  /** Batched query scans whose rows the query's profile held exactly. */
  private static final AtomicLong batchedChecked = new AtomicLong();

  /**
   * One client: gets, 100-row scans, tagged 100-row query scans, gets whose coprocessor reads the
   * table from its own pool thread and is refused ({@link FaultInjectingObserver}), and tagged
   * scans of {@value #BATCHED_ROWS} rows with {@code setBatch(1)} and a small caching, so that
   * every row comes in two Results and RPCs end inside rows. A read that fails after the client's
   * retries is counted; anything else thrown is a violation.
   */
  private static void readLoop(
      TableName t,
      int seed,
      AtomicBoolean stop,
      AtomicLong reads,
      AtomicLong errors,
      AtomicLong mine,
      List<String> violations) {
    Random rnd = new Random(seed);
    while (!stop.get()) {
      try (Table table = cluster.connection().getTable(t)) {
        int row = rnd.nextInt(ROWS - BATCHED_ROWS);
        int kind = rnd.nextInt(10); // gets and scans most, the two slow kinds one in ten each
        switch (kind < 3 ? 0 : kind < 6 ? 1 : kind - 5) {
          case 0:
            Result r = table.get(new Get(RawTable.seedRow(row)));
            if (r.size() != 2) {
              throw new AssertionError("row " + row + " has " + r.size() + " cells");
            }
            break;
          case 1:
            try (ResultScanner s =
                table.getScanner(new Scan().withStartRow(RawTable.seedRow(row)).setLimit(100))) {
              s.forEach(x -> {});
            }
            break;
          case 2:
            Get g = new Get(RawTable.seedRow(row));
            g.setAttribute(
                FaultInjectingObserver.FAULT,
                ("shortCircuitThread:" + t.getNameAsString()).getBytes(StandardCharsets.UTF_8));
            if (table.get(g).size() != 2) {
              throw new AssertionError("row " + row + " came back incomplete");
            }
            break;
          case 3:
            batchedQueryScan(table, t, row);
            break;
          default:
            Scan q = taggedScan(String.format("%032x", rnd.nextLong() & Long.MAX_VALUE));
            q.withStartRow(RawTable.seedRow(row)).setLimit(100);
            try (ResultScanner s = table.getScanner(q)) {
              s.forEach(x -> {});
            }
            break;
        }
        reads.incrementAndGet();
        mine.incrementAndGet();
      } catch (IOException e) {
        errors.incrementAndGet(); // a region in transition beyond the client's retries
      } catch (Throwable e) {
        violations.add(Thread.currentThread().getName() + ": " + e);
      }
    }
  }

  /**
   * A tagged scan of {@value #BATCHED_ROWS} rows, one cell per Result, three Results per RPC: when
   * no fault overlapped it, the query's rows summed over the table's regions are exactly the rows
   * it returned (a row split across Results and RPCs counts once).
   */
  private static void batchedQueryScan(Table table, TableName t, int row) throws IOException {
    String id = String.format("%032x", ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    Scan q = taggedScan(id);
    q.withStartRow(RawTable.seedRow(row))
        .withStopRow(RawTable.seedRow(row + BATCHED_ROWS))
        .setBatch(1)
        .setCaching(3);
    String me = org.apache.hadoop.hbase.security.User.getCurrent().getShortName();
    long epoch = EPOCH.get();
    Set<String> rows = new HashSet<>();
    long results = 0;
    try (ResultScanner s = table.getScanner(q)) {
      for (Result r : s) {
        rows.add(Bytes.toStringBinary(r.getRow()));
        results++;
      }
    }
    if (rows.size() != BATCHED_ROWS || results != 2L * BATCHED_ROWS) {
      throw new AssertionError(
          "batched scan from row " + row + ": " + rows.size() + " rows in " + results + " Results");
    }
    long counted = 0;
    for (HRegion region : cluster.regions(t)) {
      long[] costs = engine().queryCosts(id, me, region.getRegionInfo().getEncodedName());
      counted += costs == null ? 0 : costs[CostLayout.SIZE];
    }
    if (epoch % 2 == 0 && EPOCH.get() == epoch) {
      batchedChecked.incrementAndGet();
      if (counted != BATCHED_ROWS) {
        throw new AssertionError(
            "batched query scan from row " + row + ": its profile counts " + counted + " rows");
      }
    }
  }

  /**
   * Whether no compaction of {@code table} is running, as HBase's admin says; false while it cannot
   * say. Its {@code getCompactionState} asks each region's server ({@code GetRegionInfo}) and, on
   * HBase 2.6.1, threw a NullPointerException on a null {@code GetRegionInfoResponse} for a region
   * the campaign's aborts and moves had just taken elsewhere (a local CI run): asked again, it
   * answers.
   */
  private static boolean compactionDone(Admin admin, TableName table) throws IOException {
    try {
      return admin.getCompactionState(table) == CompactionState.NONE;
    } catch (NullPointerException regionGone) {
      return false;
    }
  }

  /** The beans of no table and no user: server figures and probe health. */
  private static Set<ObjectName> serverBeans() throws Exception {
    Set<ObjectName> of = new TreeSet<>();
    for (ObjectName n : beans()) {
      // a user's series come with the user's first read, as a table's do, and the server's block
      // cache counts with their first count (a block kind first removed, say): not the server's
      if (n.getKeyProperty("table") == null
          && n.getKeyProperty("user") == null
          && CacheReuse.slotOf(n.getKeyProperty("name")) < 0) {
        of.add(n);
      }
    }
    return of;
  }

  /**
   * Profiled Phoenix queries through blockscope's driver over random ranges of the Phoenix table:
   * each count must be exact, and the profile of a query during which no fault happened must hold
   * exactly its rows (one that overlapped a split or move may count a retried scan's rows twice, or
   * miss those of a region that is gone). A query Phoenix itself gives up on (retries exhausted
   * while regions move) is counted, not a violation.
   */
  @SuppressWarnings("try") // closed before the profile is read, which needs it closed
  private static void phoenixLoop(
      AtomicBoolean stop,
      AtomicLong queries,
      AtomicLong errors,
      AtomicLong quietProfiles,
      List<String> violations) {
    Random rnd = new Random(5);
    try (Connection c = SeedTables.blockscope(cluster)) {
      while (!stop.get()) {
        int from = rnd.nextInt(PHOENIX_ROWS);
        int to = Math.min(PHOENIX_ROWS, from + 1 + rnd.nextInt(2_000));
        String sql =
            "SELECT /*+ PROFILE */ PK FROM "
                + PHOENIX_TABLE
                + " WHERE PK >= "
                + from
                + " AND PK < "
                + to;
        long epoch = EPOCH.get();
        try (Statement st = c.createStatement();
            ResultSet rs = st.executeQuery(sql)) {
          long n = 0;
          while (rs.next()) {
            n++;
          }
          rs.close();
          io.blockscope.hints.QueryProfile profile =
              rs.unwrap(io.blockscope.hints.BlockscopeResultSet.class).profile();
          boolean quiet = epoch % 2 == 0 && EPOCH.get() == epoch;
          if (n != to - from) {
            violations.add(sql + " returned " + n + " rows");
          } else if (profile == null) {
            violations.add(sql + ": no profile");
          } else if (quiet) {
            quietProfiles.incrementAndGet();
            if (profile.rows() != n) {
              violations.add(
                  sql
                      + ": profile of "
                      + profile.rows()
                      + " rows for "
                      + n
                      + " (tracker: "
                      + engine().queries().dropped()
                      + " dropped, "
                      + engine().queries().evicted()
                      + " evicted)");
            }
          }
          queries.incrementAndGet();
        } catch (SQLException e) {
          errors.incrementAndGet();
          queries.incrementAndGet();
        } catch (Throwable e) {
          violations.add(sql + ": " + e);
          queries.incrementAndGet();
        }
      }
    } catch (Throwable e) {
      violations.add("the Phoenix thread stopped: " + e);
    }
  }

  private static Set<ObjectName> beansOf(TableName t) throws Exception {
    Set<ObjectName> of = new TreeSet<>();
    for (ObjectName n : beans()) {
      if (t.getNameAsString().equals(n.getKeyProperty("table"))) {
        of.add(n);
      }
    }
    return of;
  }

  private static Set<ObjectName> beans() throws Exception {
    return new TreeSet<>(
        ManagementFactory.getPlatformMBeanServer()
            .queryNames(new ObjectName(MetricKeys.DOMAIN + ":*"), null));
  }

  /** A series' last reading: its value, and the time of the scrape that last saw it. */
  private static final class Scraped {
    long value;
    long seenAt;
    boolean gone;

    Scraped(long value, long seenAt) {
      this.value = value;
      this.seenAt = seenAt;
    }
  }

  /** Series that came back after a scrape found them gone. */
  private static final AtomicLong cameBack = new AtomicLong();

  /**
   * Reads every server, table and region counter over JMX once. A series lower than it was is a
   * violation, including one that went away (its region closed, its table's last region here
   * closed) and came back lower within the retention period: only a series gone for longer than
   * {@link #RETAIN_MS} may start again from zero.
   */
  private static void scrape(
      Map<ObjectName, Scraped> last,
      List<String> violations,
      AtomicLong scrapes,
      AtomicLong checked) {
    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    long at = System.nanoTime();
    try {
      Set<ObjectName> seen = new HashSet<>();
      for (String type : List.of("Server", "Table", "Region", "User")) {
        for (ObjectName n :
            jmx.queryNames(new ObjectName(MetricKeys.DOMAIN + ":type=" + type + ",*"), null)) {
          Object v;
          try {
            v = jmx.getAttribute(n, "Count");
          } catch (InstanceNotFoundException removed) {
            continue; // a series removed between the query and the read
          } catch (AttributeNotFoundException gauge) {
            continue;
          }
          long now = ((Number) v).longValue();
          seen.add(n);
          checked.incrementAndGet();
          Scraped before = last.get(n);
          if (before == null) {
            last.put(n, new Scraped(now, at));
            continue;
          }
          long goneMs = TimeUnit.NANOSECONDS.toMillis(at - before.seenAt);
          if (before.gone) {
            cameBack.incrementAndGet();
          }
          if (now < before.value && !(before.gone && goneMs > RETAIN_MS)) {
            violations.add(
                n
                    + " went from "
                    + before.value
                    + " to "
                    + now
                    + (before.gone ? " after " + goneMs + " ms away" : ""));
          }
          before.value = now;
          before.seenAt = at;
          before.gone = false;
        }
      }
      for (Map.Entry<ObjectName, Scraped> e : last.entrySet()) {
        if (!seen.contains(e.getKey())) {
          e.getValue().gone = true; // remembered: if it comes back, it must not be lower
        }
      }
      scrapes.incrementAndGet();
    } catch (Exception e) {
      violations.add("scrape failed: " + e);
    }
  }
}
