package io.blockscope.release;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.stock.ClusterFiles;
import io.blockscope.harness.stock.RegionServer;
import io.blockscope.harness.stock.StockCluster;
import io.blockscope.harness.stock.StockCluster.Deployment;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.ServerMetric;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CoprocessorDescriptor;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/**
 * The release installed on a stock HBase 2.6.1 whose master and two region servers are processes of
 * their own (docs/deploy.md, "Install from the release"), in the order an operator meets it:
 *
 * <ol>
 *   <li>per table, from the release's jar put on the cluster's file system, on region servers that
 *       have no blockscope in {@code lib/} and no agent (so blockscope attaches to its own JVM);
 *   <li>a rolling restart that adds the cluster-wide deployment (jar in {@code lib/}, {@code
 *       hbase.coprocessor.region.classes}, {@code -javaagent}) and the Prometheus JMX exporter's
 *       agent with the configuration the release ships, while a client reads on;
 *   <li>{@code bin/blockscope evaluate --zk} from the release against it;
 *   <li>the hints driver from the release's client jar in sqlline processes of their own;
 *   <li>a rolling restart that takes it away again.
 * </ol>
 *
 * <p>Every server carries Phoenix 5.2.1's server side in its {@code lib/} throughout, as a Phoenix
 * user's cluster does.
 *
 * <p>Each step checks what an operator checks: the region server's log line, the beans on its HTTP
 * {@code /jmx}, on a remote JMX connection and on the exporter's endpoint, and that a cold scan of
 * a known table costs exactly its store files' data blocks there; and that no reader saw an error
 * beyond HBase's own retries.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class StockDeployIT {
  private static final int ROWS_PHOENIX = 3_000;
  private static final String ENC_DDL =
      "CREATE TABLE ENC_RELEASE (PK INTEGER PRIMARY KEY, V1 VARCHAR, V2 DOUBLE)"
          + " DATA_BLOCK_ENCODING='BLOCKSCOPE_V1', BLOCKSIZE=4096";

  /** The cells of ENC_RELEASE, read in BLOCKSCOPE_V1 (t2) and again after the way back (t5). */
  private static long encodedCells;

  private static Path release;
  private static DeployPage page;
  private static StockCluster cluster;
  private static StockChecks checks;

  @BeforeClass
  public static void startCluster() throws Exception {
    release = Path.of(System.getProperty("blockscope.release"));
    page = new DeployPage(release.resolve("docs"));
    assertEquals(
        "the release directory the pages name", page.releaseDir, release.getFileName().toString());
    Deployment phoenix = phoenixOnly();
    cluster =
        StockCluster.start(
            Path.of(System.getProperty("blockscope.work")),
            StockInstalls.hbase(),
            masterWithGuard(false),
            List.of(phoenix, phoenix));
    checks = new StockChecks(cluster);
    checks.assertVersions(StockInstalls.HBASE_VERSION);
  }

  @AfterClass
  public static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** A stock HBase with Phoenix's server side in lib/, as a Phoenix user's cluster has. */
  private static Deployment phoenixOnly() throws IOException {
    return new Deployment(StockInstalls.phoenixServerJars(), Map.of(), List.of());
  }

  /**
   * The master as docs/encoder.md sets it up: the encoder jar in lib/ and the guard. With {@code
   * fastCleaner}, archived files go after 1 s and the cleaner runs every 2 s, standing for the 5
   * minutes the way back waits for HBase to delete them; only t5 needs that, and only there does
   * the master run so: on the local file system, a cleaner that removes the empty archive directory
   * every 2 s races HBase's archiver creating a directory below it ({@code
   * RawLocalFileSystem.mkdirs} then {@code chmod}), which aborted a region server closing a
   * compacted region of evaluate's scratch tables in t3, and one closing hbase:meta in t5's rolling
   * restart; t5 runs it only until the lister exits 0.
   */
  private static Deployment masterWithGuard(boolean fastCleaner) throws IOException {
    List<Path> lib = new ArrayList<>(StockInstalls.phoenixServerJars());
    lib.add(existing(page.encoderJar));
    Map<String, String> site = new java.util.HashMap<>();
    site.put("hbase.coprocessor.master.classes", page.guard);
    if (fastCleaner) {
      site.put("hbase.master.hfilecleaner.ttl", "1000");
      site.put("hbase.master.cleaner.interval", "2000");
    }
    return new Deployment(lib, site, List.of());
  }

  /**
   * docs/deploy.md's way 1, docs/encoder.md's registrar (appended to the same property, as the page
   * says) and docs/dashboards.md's exporter agent, as the pages give them.
   */
  private static Deployment clusterWide() throws IOException {
    Path agent = Path.of(System.getProperty("blockscope.prometheus.agent"));
    assertEquals(
        "the exporter agent docs/dashboards.md names",
        page.exporterAgentJar,
        agent.getFileName().toString());
    Path exporterConfig = release.resolve("docs/prometheus").resolve(page.exporterConfig);
    assertTrue(exporterConfig + " in the release", Files.isRegularFile(exporterConfig));
    List<Path> lib = new ArrayList<>(StockInstalls.phoenixServerJars());
    existing(page.libJar);
    assertFalse(
        "docs/deploy.md installs the jar under a name without the version: " + page.libName,
        page.libName.contains(page.version()));
    lib.add(page.libJarInstalled(release));
    lib.add(existing(page.encoderJar));
    assertEquals("the property both pages name", page.siteName, "hbase.coprocessor.region.classes");
    return new Deployment(
        lib,
        Map.of(
            page.siteName,
            page.siteValue + "," + page.registrar,
            // docs/evaluate.md: evaluate --zk waits for two exports per read; 1 s is the floor
            "blockscope.export.interval.ms",
            "1000",
            // files a major compaction replaced are archived within a second, not two minutes,
            // so t3 finds evaluate's kept tables down to their one store file
            "hbase.hfile.compaction.discharger.interval",
            "1000"),
        List.of(
            "-javaagent:${lib}/" + page.agentJar,
            "-javaagent:" + agent + "=${prometheus.port}:" + exporterConfig,
            // no self-attach: the probes these servers weave prove the page's -javaagent works
            "-XX:+DisableAttachMechanism",
            // t4p's table of 1,000 Phoenix regions, 500 a server: Phoenix's region observers copy
            // the server's Configuration per region, and 640 MB ran out at about 400 of them
            "-Xmx2g"));
  }

  /** A file of the release that a page names. */
  private static Path existing(String relative) {
    Path p = release.resolve(relative);
    assertTrue("the release has " + relative + ", as docs/deploy.md says", Files.isRegularFile(p));
    return p;
  }

  @Test
  public void t1_perTableFromAJarOnTheClusterFileSystem() throws Exception {
    // the cluster's file system is the local one here: docs/deploy.md's hdfs dfs -put, as cp
    Path jar = existing(page.fsJar);
    Path fsLib = cluster.home.resolve("fs/blockscope/lib");
    Files.createDirectories(fsLib);
    Files.copy(jar, fsLib.resolve(jar.getFileName()));
    // every shell line of the page reads, and makes the change HBase's shell makes of it
    TableDescriptor user = checks.table(TableName.valueOf("usertable")).build();
    TableDescriptor withIt = ShellAlter.apply(page.alterAdd, user);
    assertEquals(page.alterAdd, page.fsClass, withIt.getValue("coprocessor$1").split("\\|")[1]);
    assertTrue(
        page.alterRemove, !ShellAlter.apply(page.alterRemove, withIt).hasCoprocessor(page.fsClass));
    TableDescriptor timed = ShellAlter.apply(page.levelSet, user);
    assertEquals(page.levelSet, "TIME", timed.getValue("blockscope.level"));
    assertEquals(
        page.levelUnset,
        null,
        ShellAlter.apply(page.levelUnset, timed).getValue("blockscope.level"));

    TableName t = TableName.valueOf("release_per_table");
    checks.load(checks.table(t).build(), 3_000);
    // the page's shell line, for this table and this file system, applied as HBase's shell does
    String line =
        page.alterAdd
            .replace("'usertable'", "'" + t.getNameAsString() + "'")
            .replace("hdfs:///blockscope/lib/", fsLib.toUri().toString());
    assertTrue(line, line.contains(fsLib.resolve(jar.getFileName()).toUri().toString()));
    try (Admin admin = cluster.admin()) {
      admin.modifyTable(ShellAlter.apply(line, admin.getDescriptor(t)));
      CoprocessorDescriptor added =
          admin.getDescriptor(t).getCoprocessorDescriptors().stream()
              .filter(c -> c.getClassName().equals(page.fsClass))
              .findFirst()
              .orElseThrow(() -> new AssertionError(line + " added no " + page.fsClass));
      assertEquals(line, page.fsPriority, added.getPriority());
    }
    RegionServer rs = checks.hosting(t);
    String probes = checks.engineLine(rs);
    assertEquals("per-table load without -javaagent", page.probes, probes);
    checks.assertColdScanCounted(rs, t, 3_000);
  }

  /**
   * The pages' lines that take blockscope off a table (docs/deploy.md's way 2, and the old copy's
   * removal in docs/upgrading.md's per-table upgrade) applied, as HBase's shell applies them, to a
   * Phoenix table, whose own observers and endpoints are its {@code coprocessor$1..$n}: each of
   * Phoenix's stays, blockscope's alone goes, and Phoenix still reads the table.
   */
  @Test
  public void t1b_removingItFromAPhoenixTableLeavesPhoenixsCoprocessors() throws Exception {
    Path jar = existing(page.fsJar);
    Path fsLib = cluster.home.resolve("fs/blockscope/lib");
    Files.createDirectories(fsLib);
    Path onFs = fsLib.resolve(jar.getFileName());
    if (!Files.exists(onFs)) {
      Files.copy(jar, onFs);
    }
    phoenixTable(
        "CREATE TABLE REMOVAL_P (PK INTEGER PRIMARY KEY, V1 VARCHAR, V2 DOUBLE)"
            + " DATA_BLOCK_ENCODING='FAST_DIFF'");
    TableName t = TableName.valueOf("REMOVAL_P");
    try (Admin admin = cluster.admin()) {
      List<String> phoenixOwn = coprocessors(admin.getDescriptor(t));
      assertEquals(
          "Phoenix 5.2.1's own coprocessors on its table",
          List.of(
              "org.apache.phoenix.coprocessor.GroupedAggregateRegionObserver",
              "org.apache.phoenix.coprocessor.ScanRegionObserver",
              "org.apache.phoenix.coprocessor.ServerCachingEndpointImpl",
              "org.apache.phoenix.coprocessor.UngroupedAggregateRegionObserver",
              "org.apache.phoenix.hbase.index.IndexRegionObserver"),
          phoenixOwn);
      List<String> withIt = new ArrayList<>(phoenixOwn);
      withIt.add(page.fsClass);
      withIt.sort(null);

      alter(admin, t, page.alterAdd, onFs);
      assertEquals(page.alterAdd, withIt, coprocessors(admin.getDescriptor(t)));
      alter(admin, t, page.alterRemove, onFs);
      assertEquals(page.alterRemove, phoenixOwn, coprocessors(admin.getDescriptor(t)));

      // the per-table upgrade: the old copy out, the new one in
      alter(admin, t, page.alterAdd, onFs);
      alter(admin, t, page.upgradeRemove, onFs);
      assertEquals(page.upgradeRemove, phoenixOwn, coprocessors(admin.getDescriptor(t)));
      alter(admin, t, page.upgradeAdd, onFs);
      assertEquals(page.upgradeAdd, withIt, coprocessors(admin.getDescriptor(t)));
      alter(admin, t, page.alterRemove, onFs);
      assertEquals(page.alterRemove, phoenixOwn, coprocessors(admin.getDescriptor(t)));
    }
    try (java.sql.Connection c =
            java.sql.DriverManager.getConnection("jdbc:phoenix:127.0.0.1:" + cluster.zkPort);
        var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM REMOVAL_P")) {
      assertTrue(rs.next());
      assertEquals("Phoenix reads its table after the removals", ROWS_PHOENIX, rs.getLong(1));
    }
  }

  /** The classes of a table's coprocessors, sorted (a class twice is listed twice). */
  private static List<String> coprocessors(TableDescriptor td) {
    return td.getCoprocessorDescriptors().stream()
        .map(CoprocessorDescriptor::getClassName)
        .sorted()
        .collect(java.util.stream.Collectors.toList());
  }

  /**
   * Applies a page's {@code alter} line to table {@code t} as HBase's shell does ({@link
   * ShellAlter}), for this table and with the jar at {@code onFs} where the line names one on HDFS.
   */
  private static void alter(Admin admin, TableName t, String line, Path onFs) throws IOException {
    String applied =
        line.replace("'usertable'", "'" + t.getNameAsString() + "'")
            .replaceAll(
                "hdfs:///blockscope/lib/[^|']+\\.jar",
                Matcher.quoteReplacement(onFs.toUri().toString()));
    admin.modifyTable(ShellAlter.apply(applied, admin.getDescriptor(t)));
  }

  @Test
  @SuppressWarnings("BanJNDI") // a JMX client of the test's own region server, on loopback
  public void t2_rollingRestartAddsTheClusterWideDeployment() throws Exception {
    TableName reads = TableName.valueOf("release_rolling");
    checks.load(checks.table(reads).build(), 2_000);
    Reader reader = new Reader(reads, 2_000);
    reader.start();
    List<RegionServer> servers = cluster.regionServers();
    cluster.restart(servers.get(0), clusterWide());
    // half-way: the guard refuses a BLOCKSCOPE_V1 table, naming the server without the registrar
    try {
      phoenixTable(ENC_DDL);
      throw new AssertionError("the guard let a BLOCKSCOPE_V1 table through half-way");
    } catch (java.sql.SQLException e) {
      String why = String.valueOf(e.getMessage());
      assertTrue(why, why.contains("blockscope: refusing to create ENC_RELEASE"));
      assertTrue(why, why.contains(servers.get(1).serverName().toString()));
      assertTrue(why, !why.contains(servers.get(0).serverName().toString()));
    }
    cluster.restart(servers.get(1), clusterWide());
    reader.stopAndCheck();
    for (RegionServer rs : servers) {
      assertEquals(rs.log().toString(), page.probes, checks.engineLine(rs));
      checks.assertEngineBuild(rs, page.version(), page.libName);
      assertTrue(
          rs.log().toString(),
          Files.readString(rs.log())
              .contains("blockscope: data block encoding BLOCKSCOPE_V1 (id 64) registered"));
    }
    // now it is accepted, written, flushed and read cold, decoded by BLOCKSCOPE_V1's seeker
    phoenixTable(ENC_DDL);
    TableName enc = TableName.valueOf("ENC_RELEASE");
    try (Admin admin = cluster.admin()) {
      admin.flush(enc);
    }
    encodedCells = checks.count(enc);
    assertEquals(3L * ROWS_PHOENIX, encodedCells);
    RegionServer host = checks.hosting(enc);
    String encRegion = checks.regionOf(enc).getEncodedName();
    // reading the files' trailers here takes the encoding in this JVM too (docs/encoder.md,
    // offline tools): the release's encoder jar and its register()
    try (var loader =
        new java.net.URLClassLoader(
            new java.net.URL[] {existing(page.encoderJar).toUri().toURL()},
            StockDeployIT.class.getClassLoader())) {
      loader
          .loadClass("io.blockscope.encoding.BlockscopeEncoding")
          .getMethod("register")
          .invoke(null);
    }
    checks.assertRegionCount(
        host, enc, encRegion, "blockCache.miss.data", checks.dataBlocks(enc, "0")[0]);
    checks.assertRegionCount(host, enc, encRegion, "decode.BLOCKSCOPE_V1.cells", encodedCells);
    TableName t = TableName.valueOf("release_wide");
    checks.load(checks.table(t).build(), 4_000);
    RegionServer rs = checks.hosting(t);
    long misses = checks.assertColdScanCounted(rs, t, 4_000);

    String region = checks.regionOf(t).getEncodedName();
    String bean =
        "blockscope:type=Region,table="
            + t.getNameAsString()
            + ",region="
            + region
            + ",name=blockCache.miss.data";
    // the same figure over a remote JMX connection, as jconsole or an exporter's jmxUrl sees it
    JMXServiceURL url =
        new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + rs.jmxPort + "/jmxrmi");
    try (JMXConnector c = JMXConnectorFactory.connect(url)) {
      MBeanServerConnection mbs = c.getMBeanServerConnection();
      assertEquals(misses, ((Number) mbs.getAttribute(new ObjectName(bean), "Count")).longValue());
    }
    // and through the exporter's agent in the region server, with table and region labels
    String scrape = StockChecks.get("http://127.0.0.1:" + rs.prometheusPort + "/metrics");
    Matcher m =
        Pattern.compile("blockscope_region_block_cache_miss_total\\{([^}]*)\\} ([0-9.eE+]+)")
            .matcher(scrape);
    double scraped = -1;
    while (m.find()) {
      String labels = m.group(1);
      if (labels.contains("region=\"" + region + "\"")
          && labels.contains("table=\"" + t.getNameAsString() + "\"")
          && labels.contains("kind=\"data\"")) {
        scraped = Double.parseDouble(m.group(2));
      }
    }
    assertEquals("exporter sample for " + bean, misses, (long) scraped);
  }

  /**
   * {@code bin/blockscope evaluate --zk} from the release, as a process of its own on the release's
   * lib/ alone, against this cluster: PerformanceEvaluation's shape, two configurations, every
   * plain-HBase workload. blockscope's costs come from the region servers' {@code /jmx}, the cold
   * workloads run (Admin.clearBlockCache), and store sizes are the files' lengths.
   */
  @Test
  public void t3_evaluateFromTheRelease() throws Exception {
    // PerformanceEvaluation's shape: two configurations, every plain-HBase workload
    List<String> keep = new ArrayList<>(List.of(ReleaseClients.PE_RUN));
    keep.addAll(List.of("--workloads", "all"));
    var pe = evaluate("pe", keep.toArray(new String[0]));
    assertEquals(2, pe.size());
    // the kept tables against their store files: the cold scan read each data block once
    ReleaseClients.assertColdScansCounted(cluster, pe);
    // the seeds' Phoenix shape, one configuration, a cold parallel scan and point selects
    var seeds =
        evaluate(
            "seeds",
            "--rows",
            "2^11",
            "--configs",
            "ROW_INDEX_V1+GZ",
            "--workloads",
            "scan.parallel.cold,point.select",
            "--runs",
            "1",
            "--keep-tables");
    TableName kept = TableName.valueOf(seeds.get(0).get("hbaseTable").getAsString());
    var cold = seeds.get(0).getAsJsonObject("results").getAsJsonObject("scan.parallel.cold");
    var costs = cold.getAsJsonObject("costs");
    long blocks = costs.get("fs.read.blocks.data").getAsLong();
    ClusterFiles.DataSection file = cluster.files().dataSection(kept);
    assertEquals(kept + ": the data blocks of its store files", file.blocks(), blocks);
    assertEquals(kept + ": their bytes", file.bytes(), costs.get("fs.read.bytes.data").getAsLong());
    assertEquals(cold.toString(), blocks, costs.get("decompress.GZ.blocks").getAsLong());
    // COUNT(*) decodes every cell of the files once, and the row a seek lands on again (three
    // cells a row): a count doubled or halved falls outside; two runs read 6,330 of 6,144 cells
    // in 65 seeks
    long decoded = costs.get("decode.ROW_INDEX_V1.cells").getAsLong();
    long seeks = costs.get("decode.ROW_INDEX_V1.seeks").getAsLong();
    long cells = cluster.files().cells(kept);
    System.out.printf(
        "%s: %d data blocks, %d cells decoded in %d seeks, %d in the files%n",
        kept, blocks, decoded, seeks, cells);
    assertTrue(
        cold + ": " + decoded + " of " + cells, decoded >= cells && decoded <= cells + 3 * seeks);
    // the kept Phoenix table stays: its catalog rows go with it only through Phoenix
  }

  private static List<org.apache.hbase.thirdparty.com.google.gson.JsonObject> evaluate(
      String name, String... options) throws Exception {
    return ReleaseClients.evaluate(
        cluster, release, name, List.of("--zk", cluster.zkQuorum()), options);
  }

  /**
   * The hints driver from the release's client/ jar, in sqlline processes of their own whose class
   * path is Phoenix's client and that jar: two NO_CACHE counts leave nothing cached (the region's
   * data-block hits stay 0 and its misses are twice the store file's data blocks), then SERIAL,
   * EXPLAIN with blockscope's plan lines and EXPLAIN ANALYZE's JSON, and both processes exit 0.
   */
  @Test
  public void t4_hintsDriverFromClientProcesses() throws Exception {
    TableName t = flushedHintsTable("RELEASE_HINTS");
    int rows = ROWS_PHOENIX;
    RegionServer rs = checks.hosting(t);
    String region = checks.regionOf(t).getEncodedName();
    long blocks = checks.dataBlocks(t, "0")[0];

    String first =
        sqlline(
            "first",
            "SELECT /*+ NO_CACHE */ COUNT(*) FROM RELEASE_HINTS;",
            "SELECT /*+ NO_CACHE */ COUNT(*) FROM RELEASE_HINTS;");
    assertEquals(first, 2, first.split("'" + rows + "'", -1).length - 1);
    checks.assertRegionCount(rs, t, region, "blockCache.miss.data", 2 * blocks);
    checks.assertRegionCount(rs, t, region, "blockCache.hit.data", 0);

    String second =
        sqlline(
            "second",
            "SELECT /*+ SERIAL */ COUNT(*) FROM RELEASE_HINTS;",
            "EXPLAIN SELECT /*+ SERIAL NO_CACHE */ PK FROM RELEASE_HINTS WHERE V2 < 0.5;",
            "EXPLAIN ANALYZE (FORMAT JSON) SELECT COUNT(*) FROM RELEASE_HINTS;");
    assertEquals(second, 1, second.split("'" + rows + "'", -1).length - 1);
    assertTrue(second, second.contains("BLOCKSCOPE SERIAL: region scans run one at a time"));
    assertTrue(second, second.contains("BLOCKSCOPE NO_CACHE: every scan of this query"));
    assertTrue(second, Pattern.compile("\"version\"\\s*:\\s*1\\b").matcher(second).find());
    // EXPLAIN ANALYZE's own figures: the whole table from the cache
    assertTrue(
        second,
        Pattern.compile("\"blockCache.hit.data\"\\s*:\\s*" + blocks + "\\b")
            .matcher(second)
            .find());
    // the SERIAL count missed every block (nothing was cached) and cached them; EXPLAIN
    // ANALYZE's count hit them all
    checks.assertRegionCount(rs, t, region, "blockCache.miss.data", 3 * blocks);
    checks.assertRegionCount(rs, t, region, "blockCache.hit.data", blocks);
  }

  /**
   * A profile asks only the regions its query read, on a table of 1,000 regions over both region
   * servers: EXPLAIN ANALYZE of a point lookup calls the profile endpoint on one region, and of a
   * range over ten regions on those ten, by the servers' own count ({@code profile.requests} summed
   * over their {@code /jmx}) and by what each profile says it asked. The point lookup's profile
   * read time at 1,000 regions and at 10 is printed side by side.
   */
  @Test
  public void t4p_aProfileAsksOnlyTheRegionsItRead() throws Exception {
    String big = "RELEASE_REGIONS_1000";
    String small = "RELEASE_REGIONS_10";
    try {
      splitTable(big, 1000);
      splitTable(small, 10);
      try (Admin admin = cluster.admin()) {
        assertEquals(1000, admin.getRegions(TableName.valueOf(big)).size());
      }
      long before = profileRequests();
      // the first statement of the process builds the driver's endpoint client: a warm-up, so
      // that the two point lookups after it are timed alike
      String printed =
          sqlline(
              "regions",
              "EXPLAIN ANALYZE (FORMAT JSON) SELECT V FROM " + small + " WHERE PK = 200;",
              "EXPLAIN ANALYZE (FORMAT JSON) SELECT V FROM " + big + " WHERE PK = 500;",
              "EXPLAIN ANALYZE (FORMAT JSON) SELECT COUNT(*) FROM "
                  + big
                  + " WHERE PK >= 200 AND PK < 210;",
              "EXPLAIN ANALYZE (FORMAT JSON) SELECT V FROM " + small + " WHERE PK = 500;");
      assertEquals(printed, 1 + 1 + 10 + 1, profileRequests() - before);
      List<long[]> reads = new ArrayList<>();
      Matcher m =
          Pattern.compile(
                  "\"regionsAsked\"\\s*:\\s*(\\d+),\\s*\"calls\"\\s*:\\s*(\\d+),"
                      + "\\s*\"nanos\"\\s*:\\s*(\\d+)")
              .matcher(printed);
      while (m.find()) {
        reads.add(
            new long[] {
              Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3))
            });
      }
      assertEquals(printed, 4, reads.size());
      assertEquals(printed, 1, reads.get(0)[0]);
      assertEquals(printed, 1, reads.get(1)[0]);
      assertEquals(printed, 10, reads.get(2)[0]);
      assertEquals(printed, 1, reads.get(3)[0]);
      System.out.printf(
          "profile read of a point lookup: %.1f ms at 1,000 regions, %.1f ms at 10 (%.1f ms"
              + " for the first, which builds the endpoint client); of a range over 10 of 1,000"
              + " regions: %.1f ms in %d call(s)%n",
          reads.get(1)[2] / 1e6,
          reads.get(3)[2] / 1e6,
          reads.get(0)[2] / 1e6,
          reads.get(2)[2] / 1e6,
          reads.get(2)[1]);
      wholeTableAgainstTheRow(big);
    } finally {
      try (java.sql.Connection c =
          java.sql.DriverManager.getConnection("jdbc:phoenix:127.0.0.1:" + cluster.zkPort)) {
        c.createStatement().execute("DROP TABLE IF EXISTS " + big);
        c.createStatement().execute("DROP TABLE IF EXISTS " + small);
      }
    }
  }

  /**
   * A plain HBase client's tagged scan of the 1,000-region table's row 500, its profile read by the
   * release's {@code bin/blockscope profile}: with {@code --row}, the one region holding it is
   * asked; without, every region of the table, as every profile (PROFILE, EXPLAIN ANALYZE, the CLI)
   * was read before profiles followed the query's reads, and as the driver still reads one when it
   * cannot see the plan Phoenix ran. Both find the same one region's record.
   */
  private static void wholeTableAgainstTheRow(String table) throws Exception {
    String id = java.util.UUID.randomUUID().toString().replace("-", "");
    // Phoenix's INTEGER key 500: four bytes, big-endian, the sign bit flipped
    byte[] row = {(byte) 0x80, 0x00, 0x01, (byte) 0xF4};
    org.apache.hadoop.hbase.client.Scan scan =
        new org.apache.hadoop.hbase.client.Scan().withStartRow(row).withStopRow(row, true);
    scan.setAttribute(Attributes.QUERY, id.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    scan.setAttribute(
        Attributes.PROFILE, "COUNT".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    try (org.apache.hadoop.hbase.client.Table t =
            cluster.connection().getTable(TableName.valueOf(table));
        org.apache.hadoop.hbase.client.ResultScanner r = t.getScanner(scan)) {
      assertNotNull("row 500", r.next());
    }
    List<String> ask =
        List.of("profile", "--zk", cluster.zkQuorum(), "--table", table, "--query", id);
    long before = profileRequests();
    List<String> byRow = new ArrayList<>(ask);
    byRow.addAll(List.of("--row", "\\x80\\x00\\x01\\xF4"));
    String one = ReleaseClients.blockscope(cluster, release, "profile-row", byRow);
    assertEquals(one, 1, profileRequests() - before);
    before = profileRequests();
    String all = ReleaseClients.blockscope(cluster, release, "profile-table", ask);
    assertEquals(all, 1000, profileRequests() - before);
    Pattern read =
        Pattern.compile("1 of (\\d+) regions asked recorded it \\((\\d+) calls?, ([0-9.]+) ms\\)");
    Matcher m1 = read.matcher(one);
    Matcher mAll = read.matcher(all);
    assertTrue(one, m1.find());
    assertTrue(all, mAll.find());
    assertEquals(one, "1", m1.group(1));
    assertEquals(all, "1000", mAll.group(1));
    System.out.printf(
        "bin/blockscope profile of a scan of one row of 1,000 regions: %s ms with --row"
            + " (1 region, 1 call), %s ms without (1,000 regions in %s call(s))%n",
        m1.group(3), mAll.group(3), mAll.group(2));
  }

  /** The profile endpoint's calls so far, summed over the region servers. */
  private static long profileRequests() throws Exception {
    long n = 0;
    for (RegionServer rs : cluster.regionServers()) {
      n += rs.beans().serverValue(ServerMetric.PROFILE_REQUESTS).orElseThrow();
    }
    return n;
  }

  /**
   * A Phoenix table (PK INTEGER, V INTEGER) split into {@code regions} regions, with rows 200 to
   * 209 and 500 only: a region that takes a write holds a memstore chunk (2 MB with HBase's default
   * MSLAB), and a thousand of them do not fit the test's region servers.
   */
  private static void splitTable(String name, int regions) throws java.sql.SQLException {
    int step = 1000 / regions;
    StringBuilder splits = new StringBuilder();
    for (int k = step; k < 1000; k += step) {
      splits.append(splits.length() == 0 ? "" : ", ").append(k);
    }
    try (java.sql.Connection c =
        java.sql.DriverManager.getConnection("jdbc:phoenix:127.0.0.1:" + cluster.zkPort)) {
      c.createStatement()
          .execute(
              "CREATE TABLE "
                  + name
                  + " (PK INTEGER PRIMARY KEY, V INTEGER) SPLIT ON ("
                  + splits
                  + ")");
      try (var ps = c.prepareStatement("UPSERT INTO " + name + " VALUES (?, ?)")) {
        for (int i : new int[] {200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 500}) {
          ps.setInt(1, i);
          ps.setInt(2, i * 7);
          ps.executeUpdate();
        }
      }
      c.commit();
    }
  }

  /**
   * The hints driver beside Phoenix's shaded client jar ({@code phoenix-client-embedded-hbase-2.6},
   * built by stock-hbase/phoenix-client with Phoenix's own relocation rules, protobuf among them;
   * the output file says whether this build made it or reused it), in sqlline processes started as
   * Phoenix's {@code sqlline.py} starts them, the HBase configuration directory first on the class
   * path and no ZooKeeper quorum in the URL: NO_CACHE, SERIAL and PROFILE hold, and EXPLAIN
   * ANALYZE's figures, read through the profile endpoint with the shaded client's protobuf, are
   * exactly what the region's metrics rose by.
   */
  @Test
  public void t4s_hintsDriverBesidePhoenixsShadedClient() throws Exception {
    TableName t = flushedHintsTable("RELEASE_SHADED");
    RegionServer rs = checks.hosting(t);
    String region = checks.regionOf(t).getEncodedName();
    long blocks = checks.dataBlocks(t, "0")[0];
    Path conf = cluster.home.resolve("shaded-client-conf");
    Files.createDirectories(conf);
    Files.writeString(
        conf.resolve("hbase-site.xml"),
        "<configuration>\n"
            + "<property><name>hbase.zookeeper.quorum</name><value>127.0.0.1</value></property>\n"
            + "<property><name>hbase.zookeeper.property.clientPort</name><value>"
            + cluster.zkPort
            + "</value></property>\n"
            + "</configuration>\n");

    String first =
        ReleaseClients.sqllineShaded(
            cluster,
            release,
            "shaded-first",
            "jdbc:blockscope:phoenix",
            conf,
            "SELECT /*+ NO_CACHE */ COUNT(*) FROM RELEASE_SHADED;",
            "EXPLAIN SELECT /*+ SERIAL NO_CACHE */ PK FROM RELEASE_SHADED WHERE V2 < 0.5;",
            "SELECT /*+ PROFILE SERIAL */ COUNT(*) FROM RELEASE_SHADED;");
    assertEquals(first, 2, first.split("'" + ROWS_PHOENIX + "'", -1).length - 1);
    assertTrue(first, first.contains("BLOCKSCOPE SERIAL: region scans run one at a time"));
    assertTrue(first, first.contains("BLOCKSCOPE NO_CACHE: every scan of this query"));
    // the NO_CACHE count missed every block and cached none; the profiled count missed them again
    checks.assertRegionCount(rs, t, region, "blockCache.miss.data", 2 * blocks);
    checks.assertRegionCount(rs, t, region, "blockCache.hit.data", 0);

    // the first client's series all registered
    Map<String, Long> before = checks.exportedRegionCounts(rs, t, region);
    String second =
        ReleaseClients.sqllineShaded(
            cluster,
            release,
            "shaded-second",
            "jdbc:blockscope:phoenix",
            conf,
            "EXPLAIN ANALYZE (FORMAT JSON) SELECT COUNT(*) FROM RELEASE_SHADED;");
    org.apache.hbase.thirdparty.com.google.gson.JsonObject doc =
        JsonParser.parseString(second.substring(second.indexOf('{'), second.lastIndexOf('}') + 1))
            .getAsJsonObject();
    JsonArray regions = doc.getAsJsonArray("regions");
    assertEquals(second, 1, regions.size());
    org.apache.hbase.thirdparty.com.google.gson.JsonObject costs =
        regions.get(0).getAsJsonObject().getAsJsonObject("costs");
    assertEquals(second, region, regions.get(0).getAsJsonObject().get("region").getAsString());
    // the whole table from the cache the profiled count filled
    assertEquals(second, blocks, costs.get("blockCache.hit.data").getAsLong());
    for (String name : costs.keySet()) {
      checks.assertRegionCount(
          rs, t, region, name, before.getOrDefault(name, 0L) + costs.get(name).getAsLong());
    }
    Map<String, Long> after = checks.regionCounts(rs, t, region);
    for (Map.Entry<String, Long> e : after.entrySet()) {
      long rose = e.getValue() - before.getOrDefault(e.getKey(), 0L);
      long profiled = costs.has(e.getKey()) ? costs.get(e.getKey()).getAsLong() : 0;
      assertEquals(second + "\n" + e.getKey() + " rose by", profiled, rose);
    }
  }

  /**
   * A Phoenix table of {@link #ROWS_PHOENIX} rows in FAST_DIFF and GZ with 4 KB blocks, flushed to
   * one store file.
   */
  private static TableName flushedHintsTable(String name) throws Exception {
    phoenixTable(
        "CREATE TABLE "
            + name
            + " (PK INTEGER PRIMARY KEY, V1 VARCHAR, V2 DOUBLE)"
            + " DATA_BLOCK_ENCODING='FAST_DIFF', BLOCKSIZE=4096, COMPRESSION='GZ'");
    TableName t = TableName.valueOf(name);
    try (Admin admin = cluster.admin()) {
      admin.flush(t);
    }
    return t;
  }

  /**
   * Creates a Phoenix table through Phoenix's own driver (the DDL names it; its columns are PK
   * INTEGER, V1 VARCHAR, V2 DOUBLE) and upserts {@link #ROWS_PHOENIX} rows into it.
   */
  private static void phoenixTable(String ddl) throws java.sql.SQLException {
    String table = ddl.split("\\s+")[2];
    try (java.sql.Connection c =
        java.sql.DriverManager.getConnection("jdbc:phoenix:127.0.0.1:" + cluster.zkPort)) {
      c.createStatement().execute(ddl);
      try (var ps = c.prepareStatement("UPSERT INTO " + table + " VALUES (?, ?, ?)")) {
        for (int i = 0; i < ROWS_PHOENIX; i++) {
          ps.setInt(1, i);
          ps.setString(2, "value-" + i + "-" + "y".repeat(30));
          ps.setDouble(3, (i % 100) / 100.0);
          ps.executeUpdate();
        }
      }
      c.commit();
    }
  }

  /**
   * Runs statements in sqlline as a process of its own, through the release's hints driver as
   * docs/hints.md shows, and returns what it printed; fails unless it exits 0.
   */
  private static String sqlline(String name, String... statements) throws Exception {
    return ReleaseClients.sqlline(
        cluster,
        release,
        name,
        "jdbc:blockscope:phoenix:127.0.0.1:" + cluster.zkPort + ":/hbase",
        List.of(),
        null,
        statements);
  }

  @Test
  public void t5_rollingRestartRemovesIt() throws Exception {
    cluster.restartMaster(masterWithGuard(true));
    // the documented way back: the per-table attribute first, then the servers
    TableName perTable = TableName.valueOf("release_per_table");
    try (Admin admin = cluster.admin()) {
      String line = page.alterRemove.replace("'usertable'", "'" + perTable.getNameAsString() + "'");
      admin.modifyTable(ShellAlter.apply(line, admin.getDescriptor(perTable)));
      assertTrue(line, !admin.getDescriptor(perTable).hasCoprocessor(page.fsClass));
    }
    // docs/encoder.md, the way back: a built-in encoding, a major compaction, and the lister,
    // run as `hbase io.blockscope.encoding.EncodedFiles` runs it, until it exits 0 (the archived
    // BLOCKSCOPE_V1 file gone: the master's cleaner runs every 2 s here, files 1 s old)
    TableName enc = TableName.valueOf("ENC_RELEASE");
    try (java.sql.Connection c =
        java.sql.DriverManager.getConnection("jdbc:phoenix:127.0.0.1:" + cluster.zkPort)) {
      c.createStatement().execute("ALTER TABLE ENC_RELEASE SET DATA_BLOCK_ENCODING='FAST_DIFF'");
    }
    try (Admin admin = cluster.admin()) {
      admin.majorCompact(enc);
    }
    AtomicReference<StockCluster.Run> lister = new AtomicReference<>();
    cluster.await(
        "EncodedFiles ENC_RELEASE to find no BLOCKSCOPE_V1 file",
        180,
        () -> {
          try {
            lister.set(
                cluster.runOnServerClasspath(
                    cluster.regionServers().get(0),
                    "io.blockscope.encoding.EncodedFiles",
                    List.of("ENC_RELEASE")));
            return lister.get().status() == 0;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
    assertTrue(
        lister.get().output(),
        lister.get().output().contains("ENC_RELEASE: 0 of 1 files in BLOCKSCOPE_V1"));
    // the fast cleaner only while the lister waits: it also raced the archiving of hbase:meta's
    // compacted files when a region server closed it in the rolling restart below
    cluster.restartMaster(masterWithGuard(false));

    TableName reads = TableName.valueOf("release_rolling");
    Reader reader = new Reader(reads, 2_000);
    reader.start();
    for (RegionServer rs : cluster.regionServers()) {
      cluster.restart(rs, phoenixOnly());
    }
    reader.stopAndCheck();
    // the guard and the jar last, from the master too
    cluster.restartMaster(phoenixOnly());
    assertEquals("ENC_RELEASE read without the encoder jar", encodedCells, checks.count(enc));
    for (RegionServer rs : cluster.regionServers()) {
      Map<String, Long> beans = rs.beans().all();
      assertEquals(rs.log() + ": " + beans, 0, beans.size());
      assertTrue(
          rs.log().toString(), !Files.readString(rs.log()).contains("blockscope: engine started"));
    }
    // every cell written is read back without blockscope: two a row, three a Phoenix row
    Map<String, Long> written =
        Map.of(
            "release_per_table", 2L * 3_000,
            "release_wide", 2L * 4_000,
            "release_rolling", 2L * 2_000,
            "RELEASE_HINTS", 3L * ROWS_PHOENIX);
    for (Map.Entry<String, Long> e : written.entrySet()) {
      assertEquals(e.getKey(), (long) e.getValue(), checks.count(TableName.valueOf(e.getKey())));
    }
  }

  // --- helpers -------------------------------------------------------------------------------

  /** A client reading random rows through a rolling restart; it must never see an error. */
  private static final class Reader extends Thread {
    private final TableName table;
    private final int rows;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong reads = new AtomicLong();
    private final AtomicReference<Throwable> error = new AtomicReference<>();

    Reader(TableName table, int rows) {
      super("rolling-restart-reader");
      this.table = table;
      this.rows = rows;
    }

    @Override
    public void run() {
      try (Table t = cluster.connection().getTable(table)) {
        while (!stop.get()) {
          int i = ThreadLocalRandom.current().nextInt(rows);
          Result r = t.get(new Get(checks.row(i)));
          if (r.isEmpty()) {
            throw new AssertionError("row " + i + " missing");
          }
          reads.incrementAndGet();
        }
      } catch (Throwable e) {
        error.set(e);
      }
    }

    void stopAndCheck() throws InterruptedException {
      stop.set(true);
      join(120_000);
      if (error.get() != null) {
        throw new AssertionError("reader failed after " + reads.get() + " reads", error.get());
      }
      assertTrue("reader made progress", reads.get() > 0);
    }
  }
}
