package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.workloads.RawTable;
import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.CacheStats;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code blockscope advise} against the shared embedded cluster through ZooKeeper and a region
 * server's {@code /jmx}, as against a real cluster: each refusal with its own exit code and no
 * scratch table left, a window's gets and scans counted exactly as the test drove them, and a
 * replay on a sample spread over the table's regions that leaves the user's table as it was.
 */
public class AdviseIT {
  private static EmbeddedCluster cluster;
  private static JVMClusterUtil.RegionServerThread withInfoPort;
  private static final TableName READ = TableName.valueOf("advise_read");
  private static final TableName QUIET = TableName.valueOf("advise_quiet");
  private static final TableName OFF = TableName.valueOf("advise_off");
  private static final TableName ELSEWHERE = TableName.valueOf("advise_elsewhere");
  private static final TableName GETS = TableName.valueOf("advise_gets");
  private static final TableName SCANS = TableName.valueOf("advise_scans");
  private static final int ROWS = 6_000;

  @BeforeClass
  public static void start() throws Exception {
    cluster = EmbeddedCluster.shared();
    cluster.admin().balancerSwitch(false, true); // the tables stay where the test puts them
    // a block cache of about 8 MB (of the test JVM's 2 GB heap), so that a scan can flood it
    withInfoPort = InfoPortServer.start(cluster, Map.of("hfile.block.cache.size", "0.004"));
    ServerName readable = withInfoPort.getRegionServer().getServerName();
    Admin admin = cluster.admin();
    RawTable.create(
        admin,
        new RawTable.Spec(READ)
            .level(PerfLevel.TIME)
            .splits(RawTable.seedRow(ROWS / 3), RawTable.seedRow(2 * ROWS / 3)));
    RawTable.create(admin, new RawTable.Spec(QUIET));
    RawTable.create(admin, new RawTable.Spec(OFF).level("off"));
    RawTable.create(admin, new RawTable.Spec(ELSEWHERE));
    for (TableName t : List.of(READ, QUIET, OFF)) {
      for (RegionInfo r : admin.getRegions(t)) {
        admin.move(r.getEncodedNameAsBytes(), readable);
      }
    }
    ServerName other = cluster.regionServer().getServerName();
    for (RegionInfo r : admin.getRegions(ELSEWHERE)) {
      admin.move(r.getEncodedNameAsBytes(), other);
    }
    for (TableName t : List.of(READ, QUIET, OFF, ELSEWHERE)) {
      awaitAvailable(t);
    }
    RawTable.loadSeed(cluster.connection(), admin, READ, ROWS, 3);
    RawTable.loadSeed(cluster.connection(), admin, QUIET, 1_000, 4);
  }

  @AfterClass
  public static void stop() throws Exception {
    for (TableName t : List.of(READ, QUIET, OFF, ELSEWHERE, GETS, SCANS)) {
      if (!cluster.admin().tableExists(t)) {
        continue;
      }
      cluster.admin().disableTable(t);
      cluster.admin().deleteTable(t);
    }
    InfoPortServer.stop(cluster, withInfoPort);
    cluster.admin().balancerSwitch(true, true);
  }

  /**
   * Waits until the table's regions are online, from hbase:meta only: HBaseTestingUtility's
   * waitTableAvailable scans the table, and that scan would count in a window of HBase's request
   * metrics read up to a metrics period (10 s) later.
   */
  private static void awaitAvailable(TableName t) throws Exception {
    cluster.util().waitFor(60_000, 100, () -> cluster.admin().isTableAvailable(t));
  }

  private static String zk() {
    return cluster.zkAddress();
  }

  /** Runs the command line; its exit code, and its standard output and error after a newline. */
  private static Object[] advise(String... given) throws Exception {
    // each run's report goes to a directory of its own, not the working directory
    String[] args = java.util.Arrays.copyOf(given, given.length + 2);
    args[given.length] = "--out";
    args[given.length + 1] = Files.createTempDirectory("advise-it").toString();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = BlockscopeCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Object[] {code, out + "\n" + err};
  }

  private static List<TableName> scratch() throws Exception {
    return List.of(cluster.admin().listTableNames(EvaluationRunner.SCRATCH_TABLES));
  }

  @Test(timeout = 300_000)
  public void eachRefusalHasItsOwnCodeAndLeavesNothing() throws Exception {
    Object[] missing = advise("advise", "--zk", zk(), "no_such_table", "--no-replay");
    assertEquals(missing[1].toString(), Advise.MISSING_TABLE, missing[0]);
    assertTrue(missing[1].toString(), missing[1].toString().contains("no table 'no_such_table'"));

    Object[] off = advise("advise", "--zk", zk(), OFF.getNameAsString());
    assertEquals(off[1].toString(), Advise.NO_BLOCKSCOPE, off[0]);
    assertTrue(off[1].toString(), off[1].toString().contains("blockscope level OFF"));

    Object[] elsewhere = advise("advise", "--zk", zk(), ELSEWHERE.getNameAsString());
    assertEquals(elsewhere[1].toString(), Advise.NO_BLOCKSCOPE, elsewhere[0]);
    assertTrue(elsewhere[1].toString(), elsewhere[1].toString().contains("has no info port"));

    Object[] quiet =
        advise("advise", "--zk", zk(), QUIET.getNameAsString(), "--window", "10s", "--no-replay");
    assertEquals(quiet[1].toString(), Advise.EMPTY_WINDOW, quiet[0]);
    assertTrue(quiet[1].toString(), quiet[1].toString().contains("had no reads in the 10s window"));

    Object[] badWindow = advise("advise", "--zk", zk(), READ.getNameAsString(), "--window", "5");
    assertEquals(badWindow[1].toString(), BlockscopeCli.BAD_INPUT, badWindow[0]);

    Object[] noCluster = advise("advise", READ.getNameAsString());
    assertEquals(noCluster[1].toString(), BlockscopeCli.BAD_INPUT, noCluster[0]);

    assertEquals(List.of(), scratch());
    assertFalse(List.of(cluster.admin().listNamespaces()).contains(EvaluationRunner.SCHEMA));
  }

  @Test(timeout = 600_000)
  public void theWindowCountsWhatWasReadAndTheReplayLeavesTheTableAsItWas() throws Exception {
    long described = cluster.admin().getDescriptor(READ).hashCode();
    Path out = Files.createTempDirectory("advise");
    AtomicInteger code = new AtomicInteger(-1);
    StringWriter text = new StringWriter();
    PrintWriter console = new PrintWriter(text, true);
    StringWriter err = new StringWriter();
    Thread run =
        new Thread(
            () ->
                code.set(
                    BlockscopeCli.execute(
                        new String[] {
                          "advise",
                          "--zk",
                          zk(),
                          READ.getNameAsString(),
                          "--window",
                          "20s",
                          "--rows",
                          "3000",
                          "--runs",
                          "2",
                          "--configs",
                          "NONE@16K@ROWCOL,FAST_DIFF,PREFIX,DIFF,ROW_INDEX_V1",
                          // the sample, two loads and the trial already take about that
                          "--budget",
                          "10s",
                          "--out",
                          out.toString()
                        },
                        console,
                        new PrintWriter(err, true))));
    ScheduledExecutorService exports = Executors.newSingleThreadScheduledExecutor();
    run.start();
    cluster
        .util()
        .waitFor(
            120_000, 50, () -> text.toString().contains("Watching the reads") || !run.isAlive());
    assertTrue(text + "\n" + err, text.toString().contains("Watching the reads"));
    BlockCache cache = withInfoPort.getRegionServer().getBlockCache().orElseThrow();
    CacheStats stats = cache.getStats();
    // gets that find the table's blocks out of the cache and leave them out: the window's data hit
    // ratio is low, so the replay runs the cold variants and ranks at the expected hit ratios
    StoreFiles.evict(cache, cluster.regions(READ));
    long lookedUp = stats.getHitCount() + stats.getMissCount();
    int gets = 300;
    int scans = 4;
    Random random = new Random(5);
    try (Table t = cluster.connection().getTable(READ)) {
      for (int i = 0; i < gets; i++) {
        t.get(new Get(RawTable.seedRow(random.nextInt(ROWS))).setCacheBlocks(false));
      }
    }
    for (int i = 0; i < scans; i++) {
      // one region's rows, in one RPC
      RawTable.scanCells(
          cluster.connection(),
          READ,
          new Scan()
              .withStartRow(RawTable.seedRow(0))
              .withStopRow(RawTable.seedRow(100))
              .setCaching(1000));
    }
    // HBase's own count of the block cache lookups the reads made on the table's one server
    lookedUp = stats.getHitCount() + stats.getMissCount() - lookedUp;
    // the series of these reads registered, then showing them; and the replay, which waits for
    // three export refreshes per cost reading, does not wait for the 10 s export clock
    ScheduledFuture<?> refreshing =
        exports.scheduleWithFixedDelay(
            () -> cluster.diagnostics().refreshExport(), 0, 200, TimeUnit.MILLISECONDS);
    try {
      run.join(540_000);
    } finally {
      refreshing.cancel(false);
      exports.shutdownNow();
    }
    assertEquals(text + "\n" + err, 0, code.get());
    System.out.println(text);

    JsonObject json =
        JsonParser.parseString(
                Files.readString(out.resolve(READ.getNameAsString()).resolve("results.json")))
            .getAsJsonObject();
    JsonObject advice = json.getAsJsonObject("advice");
    JsonObject mix = advice.getAsJsonObject("mix");
    assertEquals(mix.toString(), gets, mix.get("gets").getAsLong());
    assertEquals(mix.toString(), scans, mix.get("scanRpcs").getAsLong());
    JsonObject series = mix.getAsJsonObject("series");
    long lookups = 0;
    for (String k : series.keySet()) {
      if (k.startsWith("blockCache.hit.") || k.startsWith("blockCache.miss.")) {
        lookups += series.get(k).getAsLong();
      }
    }
    assertEquals(
        "the window's cache lookups, every block kind, are HBase's CacheStats': " + series,
        lookedUp,
        lookups);
    JsonObject sample = json.getAsJsonObject("sample");
    assertEquals(sample.toString(), 3, sample.get("regionsRead").getAsInt());
    assertEquals(sample.toString(), 3000, sample.get("rows").getAsLong());
    List<String> ranked = new ArrayList<>();
    advice
        .getAsJsonArray("ranking")
        .forEach(e -> ranked.add(e.getAsJsonObject().get("config").getAsString()));
    List<String> left = new ArrayList<>();
    json.getAsJsonArray("notReplayed").forEach(e -> left.add(e.getAsString()));
    // the budget: the current setting and the first candidate run, the last ones are left out
    List<String> asked =
        List.of("NONE", "NONE@16K@ROWCOL", "FAST_DIFF", "PREFIX", "DIFF", "ROW_INDEX_V1");
    assertFalse(ranked + " " + left, left.isEmpty());
    assertEquals(ranked + " " + left, asked.subList(asked.size() - left.size(), 6), left);
    assertEquals(ranked + " " + left, 6, ranked.size() + left.size());
    assertTrue(ranked.toString(), ranked.contains("NONE") && ranked.contains("NONE@16K@ROWCOL"));
    assertTrue(
        text.toString(),
        text.toString().contains("Note: not replayed within --budget 10s: " + left.get(0)));
    // each setting's warm full scan: the data blocks it found in the cache
    long blocks64k = 0;
    long blocks16k = 0;
    for (var c : json.getAsJsonArray("configs")) {
      // the costs of one run, exactly: the replay reads every table's costs once a round, and a
      // get of the one-file table at 64K with a ROW bloom looks its bloom up once
      JsonObject get = c.getAsJsonObject().getAsJsonObject("results").getAsJsonObject("raw.get");
      JsonObject getCosts = get.getAsJsonObject("costs");
      if (c.getAsJsonObject().get("config").getAsString().equals("NONE")) {
        long bloom = 0;
        for (String k : List.of("blockCache.hit.bloom", "blockCache.miss.bloom")) {
          bloom += getCosts.has(k) ? getCosts.get(k).getAsLong() : 0;
        }
        assertEquals(getCosts.toString(), get.get("rows").getAsLong(), bloom);
      }
      JsonObject costs =
          c.getAsJsonObject()
              .getAsJsonObject("results")
              .getAsJsonObject("raw.scan")
              .getAsJsonObject("costs");
      long blocks =
          costs.has("blockCache.hit.data") ? costs.get("blockCache.hit.data").getAsLong() : 0;
      String config = c.getAsJsonObject().get("config").getAsString();
      if (config.equals("NONE")) {
        blocks64k = blocks;
      } else if (config.equals("NONE@16K@ROWCOL")) {
        blocks16k = blocks;
      }
    }
    // exactly the data blocks of each setting's store file: the same sample, written by HBase
    // into tables of the same two settings, counted from their files' trailers
    assertEquals(
        "a warm full scan of the 64K table finds each of its data blocks once",
        sampleDataBlocks("NONE"),
        blocks64k);
    assertEquals(
        "and of the 16K table's, about four times as many",
        sampleDataBlocks("NONE@16K@ROWCOL"),
        blocks16k);
    // the live cache: each setting ranked at the window's data hit ratio over its blocks' cache
    // footprint against the current setting's (the bytes its cold full scan put through)
    double live = mix.get("dataHitRatio").getAsDouble();
    assertTrue(mix.toString(), live < Advise.COLD_BELOW);
    assertTrue(
        text.toString(), text.toString().contains("Ranked at each setting's expected data hit"));
    Map<String, Long> cacheBytes = new java.util.HashMap<>();
    for (var c : json.getAsJsonArray("configs")) {
      cacheBytes.put(
          c.getAsJsonObject().get("config").getAsString(),
          c.getAsJsonObject().get("cacheBytes").getAsLong());
    }
    for (var r : advice.getAsJsonArray("ranking")) {
      String config = r.getAsJsonObject().get("config").getAsString();
      double expected =
          Math.min(1, live * cacheBytes.get("NONE") / (double) cacheBytes.get(config));
      assertEquals(
          config + " " + cacheBytes,
          expected,
          r.getAsJsonObject().get("expectedHitRatio").getAsDouble(),
          2e-6 * expected); // results.json's figures have six significant digits
    }
    boolean keep = advice.get("keep").getAsBoolean();
    assertEquals(advice.toString(), keep, advice.getAsJsonArray("alter").isEmpty());
    assertTrue(Files.exists(out.resolve(READ.getNameAsString()).resolve("report.html")));

    assertEquals(List.of(), scratch());
    assertEquals(described, cluster.admin().getDescriptor(READ).hashCode());
    assertEquals(
        "the user's table is as it was: every row's two cells",
        2L * ROWS,
        RawTable.scanCells(cluster.connection(), READ, new Scan()));
  }

  /**
   * The data blocks, from its store file's trailer, of a table with READ's families at {@code
   * setting} holding the sample advise replays (its first 3,000 rows spread over READ's regions, as
   * {@code RawTable.copySample} takes them), flushed and major compacted as the replay's are.
   */
  private static long sampleDataBlocks(String setting) throws Exception {
    Admin admin = cluster.admin();
    TableName t = TableName.valueOf("advise_truth");
    RawTable.create(
        admin,
        t,
        List.of(admin.getDescriptor(READ).getColumnFamilies()),
        TableConfig.parse(setting));
    try {
      RawTable.copySample(cluster.connection(), READ, t, 3000, 64L << 20, 7);
      admin.flush(t);
      admin.majorCompact(t);
      Workload.awaitCompaction(admin, t);
      return StoreFiles.trailerDataBlocksAndCells(cluster.regions(t))[0];
    } finally {
      admin.disableTable(t);
      admin.deleteTable(t);
    }
  }

  /**
   * Seed 004's shape on the small-cache server: a get table whose blocks fill 70 % of the cache,
   * and a scan table four times the cache, read with caching. advise tells the scan table to stop
   * caching, from its own unread evictions; following it, the get table keeps every block it reads.
   */
  @Test(timeout = 600_000)
  public void scansThatEvictUnreadAreToldNoCacheAndFollowingItKeepsTheGetTablesBlocks()
      throws Exception {
    BlockCache cache = withInfoPort.getRegionServer().getBlockCache().orElseThrow();
    long bytes = cache.getMaxSize();
    int getRows = (int) (0.7 * bytes / 1_100); // a PE row: 1,000-byte value, key, cell overhead
    int scanRows = (int) (4 * bytes / 1_100);
    Admin admin = cluster.admin();
    ServerName readable = withInfoPort.getRegionServer().getServerName();
    for (TableName t : List.of(GETS, SCANS)) {
      RawTable.create(
          admin,
          t,
          List.of(ColumnFamilyDescriptorBuilder.of(RawTable.PE_FAMILY)),
          TableConfig.parse("NONE"));
      for (RegionInfo r : admin.getRegions(t)) {
        admin.move(r.getEncodedNameAsBytes(), readable);
      }
      awaitAvailable(t);
    }
    RawTable.loadPe(cluster.connection(), GETS, getRows, 1);
    RawTable.loadPe(cluster.connection(), SCANS, scanRows, 2);
    admin.flush(GETS);
    admin.flush(SCANS);

    long[] polluted = rounds(getRows, true);
    for (int i = 0; i < 3; i++) { // the tables' series registered, then showing their figures
      cluster.diagnostics().refreshExport();
    }
    Object[] scans =
        advise("advise", "--zk", zk(), SCANS.getNameAsString(), "--no-replay", "--window", "start");
    assertEquals(scans[1].toString(), 0, scans[0]);
    String said = scans[1].toString();
    assertTrue(said, said.contains("evicted without a single hit"));
    assertTrue(said, said.contains("Scan.setCacheBlocks(false)"));
    assertTrue(said, said.contains("BLOCKCACHE => false"));
    Object[] gets =
        advise("advise", "--zk", zk(), GETS.getNameAsString(), "--no-replay", "--window", "start");
    assertEquals(gets[1].toString(), 0, gets[0]);
    assertFalse(gets[1].toString(), gets[1].toString().contains("evicted without a single hit"));

    // the scans' blocks leave the cache (as they would in time), and the scans stop caching
    StoreFiles.evict(cache, cluster.regions(SCANS));
    long[] followed = rounds(getRows, false);
    System.out.printf(
        "cache %,d bytes; get table %,d rows, scan table %,d rows; get misses per round of %d"
            + " gets: scans caching %s, scans not caching %s%n",
        bytes,
        getRows,
        scanRows,
        GETS_PER_ROUND,
        java.util.Arrays.toString(polluted),
        java.util.Arrays.toString(followed));
    assertTrue(java.util.Arrays.toString(polluted), polluted[1] > 0 && polluted[2] > 0);
    assertEquals(
        "nothing evicts the get table's blocks once the scans stop caching",
        List.of(0L, 0L),
        List.of(followed[1], followed[2]));
  }

  private static final int GETS_PER_ROUND = 2_000;

  /**
   * Three rounds, each of {@value #GETS_PER_ROUND} random gets of the get table and a full scan of
   * the scan table; the get table's data block misses in each round's gets (the engine's count).
   */
  private static long[] rounds(int getRows, boolean scansCache) throws Exception {
    long[] misses = new long[3];
    Random random = new Random(11);
    try (Table t = cluster.connection().getTable(GETS)) {
      CacheStats stats = withInfoPort.getRegionServer().getBlockCache().orElseThrow().getStats();
      for (int round = 0; round < misses.length; round++) {
        long before = missesOf(GETS);
        long all = allMissesOf(GETS);
        long hbase = stats.getMissCount();
        for (int i = 0; i < GETS_PER_ROUND; i++) {
          t.get(new Get(RawTable.peRow(random.nextInt(getRows))));
        }
        misses[round] = missesOf(GETS) - before;
        assertEquals(
            "round " + round + "'s misses, every block kind, are HBase's CacheStats'",
            stats.getMissCount() - hbase,
            allMissesOf(GETS) - all);
        RawTable.scanCells(
            cluster.connection(), SCANS, new Scan().setCaching(100).setCacheBlocks(scansCache));
      }
    }
    return misses;
  }

  /**
   * The {@code ALTER TABLE} advise prints for a Phoenix table runs in Phoenix and gives every
   * family of the HBase table the advised setting: a table in a schema, with lower-case quoted
   * names and two column families.
   */
  @Test
  public void thePhoenixAlterItPrintsAppliesTheSettingToEveryFamily() throws Exception {
    try (java.sql.Connection c = cluster.phoenix();
        java.sql.Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE \"advS\".\"advPhx\" (K VARCHAR PRIMARY KEY, A.X VARCHAR, B.Y VARCHAR)");
      try {
        Admin admin = cluster.admin();
        TableName hbase =
            admin.tableExists(TableName.valueOf("advS:advPhx"))
                ? TableName.valueOf("advS:advPhx")
                : TableName.valueOf("advS.advPhx");
        List<String> families = new ArrayList<>();
        for (ColumnFamilyDescriptor f : admin.getDescriptor(hbase).getColumnFamilies()) {
          families.add(f.getNameAsString());
        }
        assertEquals(List.of("A", "B"), families);
        List<String> statements =
            Advise.alter(hbase, families, true, TableConfig.parse("ROW_INDEX_V1+GZ"));
        assertEquals(
            "ALTER TABLE \"advS\".\"advPhx\" SET DATA_BLOCK_ENCODING='ROW_INDEX_V1',"
                + " COMPRESSION='GZ'",
            statements.get(1));
        st.execute(statements.get(1));
        for (ColumnFamilyDescriptor f : admin.getDescriptor(hbase).getColumnFamilies()) {
          assertEquals(
              f.getNameAsString(), DataBlockEncoding.ROW_INDEX_V1, f.getDataBlockEncoding());
          assertEquals(f.getNameAsString(), Compression.Algorithm.GZ, f.getCompressionType());
        }
      } finally {
        st.execute("DROP TABLE \"advS\".\"advPhx\"");
      }
    }
  }

  private static long missesOf(TableName t) {
    CostSnapshot s = cluster.diagnostics().registry().tableSnapshot(t.getNameAsString());
    return s == null ? 0 : s.get("blockCache.miss.data");
  }

  private static long allMissesOf(TableName t) {
    CostSnapshot s = cluster.diagnostics().registry().tableSnapshot(t.getNameAsString());
    return s == null ? 0 : s.sumKinds("blockCache.miss");
  }
}
