package io.blockscope.release;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.release.StockCluster.Deployment;
import io.blockscope.release.StockCluster.RegionServer;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
import java.util.stream.Stream;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.FixedFileTrailer;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.util.Bytes;
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
 *   <li>a rolling restart that takes it away again.
 * </ol>
 *
 * <p>Each step checks what an operator checks: the region server's log line, the beans on its HTTP
 * {@code /jmx}, on a remote JMX connection and on the exporter's endpoint, and that a cold scan of
 * a known table costs exactly its store files' data blocks there; and that no reader saw an error
 * beyond HBase's own retries.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class StockDeployIT {
  private static final byte[] F = Bytes.toBytes("f");
  private static final Pattern ENGINE_STARTED =
      Pattern.compile(
          "blockscope: engine started at level (\\w+) exporting regions (\\S+); probes ([^;]+);");
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static Path release;
  private static DeployPage page;
  private static StockCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    release = Path.of(System.getProperty("blockscope.release"));
    page = new DeployPage(release.resolve("docs"));
    assertEquals(
        "the release directory the pages name", page.releaseDir, release.getFileName().toString());
    cluster =
        StockCluster.start(
            Path.of(System.getProperty("blockscope.work")),
            List.of(Deployment.stock(), Deployment.stock()));
  }

  @AfterClass
  public static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** docs/deploy.md's way 1 and docs/dashboards.md's exporter agent, as the pages give them. */
  private static Deployment clusterWide() {
    Path agent = Path.of(System.getProperty("blockscope.prometheus.agent"));
    assertEquals(
        "the exporter agent docs/dashboards.md names",
        page.exporterAgentJar,
        agent.getFileName().toString());
    Path exporterConfig = release.resolve("docs/prometheus").resolve(page.exporterConfig);
    assertTrue(exporterConfig + " in the release", Files.isRegularFile(exporterConfig));
    return new Deployment(
        List.of(existing(page.libJar)),
        Map.of(page.siteName, page.siteValue),
        List.of(
            "-javaagent:${lib}/" + page.agentJar,
            "-javaagent:" + agent + "=${prometheus.port}:" + exporterConfig));
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
    TableName t = TableName.valueOf("release_per_table");
    TableDescriptor td =
        table(t)
            .setCoprocessor(
                CoprocessorDescriptorBuilder.newBuilder(page.fsClass)
                    .setJarPath(fsLib.resolve(jar.getFileName()).toUri().toString())
                    .setPriority(page.fsPriority)
                    .build())
            .build();
    load(td, 3_000);
    RegionServer rs = hosting(t);
    String probes = engineLine(rs);
    assertEquals("per-table load without -javaagent", page.probes, probes);
    assertColdScanCounted(rs, t, 3_000);
  }

  @Test
  @SuppressWarnings("BanJNDI") // a JMX client of the test's own region server, on loopback
  public void t2_rollingRestartAddsTheClusterWideDeployment() throws Exception {
    TableName reads = TableName.valueOf("release_rolling");
    load(table(reads).build(), 2_000);
    Reader reader = new Reader(reads, 2_000);
    reader.start();
    for (RegionServer rs : cluster.regionServers()) {
      cluster.restart(rs, clusterWide());
    }
    reader.stopAndCheck();
    for (RegionServer rs : cluster.regionServers()) {
      assertEquals(rs.log().toString(), page.probes, engineLine(rs));
    }
    TableName t = TableName.valueOf("release_wide");
    load(table(t).build(), 4_000);
    RegionServer rs = hosting(t);
    long misses = assertColdScanCounted(rs, t, 4_000);

    String region = regionOf(t).getEncodedName();
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
    String scrape = get("http://127.0.0.1:" + rs.prometheusPort + "/metrics");
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

  @Test
  public void t3_rollingRestartRemovesIt() throws Exception {
    // the documented way back: the per-table attribute first, then the servers
    TableName perTable = TableName.valueOf("release_per_table");
    try (Admin admin = cluster.admin()) {
      TableDescriptor td = admin.getDescriptor(perTable);
      admin.modifyTable(
          TableDescriptorBuilder.newBuilder(td).removeCoprocessor(page.fsClass).build());
    }
    TableName reads = TableName.valueOf("release_rolling");
    Reader reader = new Reader(reads, 2_000);
    reader.start();
    for (RegionServer rs : cluster.regionServers()) {
      cluster.restart(rs, Deployment.stock());
    }
    reader.stopAndCheck();
    for (RegionServer rs : cluster.regionServers()) {
      String beans = get(rs.infoUrl() + "/jmx?qry=" + enc("blockscope:*"));
      assertEquals(
          rs.log() + ": " + beans,
          0,
          JsonParser.parseString(beans).getAsJsonObject().getAsJsonArray("beans").size());
      assertTrue(
          rs.log().toString(), !Files.readString(rs.log()).contains("blockscope: engine started"));
    }
    for (String name : List.of("release_per_table", "release_wide", "release_rolling")) {
      assertTrue(name + " readable", count(TableName.valueOf(name)) > 0);
    }
  }

  // --- helpers -------------------------------------------------------------------------------

  private static TableDescriptorBuilder table(TableName t) {
    return TableDescriptorBuilder.newBuilder(t)
        .setColumnFamily(
            ColumnFamilyDescriptorBuilder.newBuilder(F)
                .setBlocksize(4096)
                .setDataBlockEncoding(DataBlockEncoding.FAST_DIFF)
                .setCompressionType(Compression.Algorithm.GZ)
                .build());
  }

  /** Creates a one-region table, writes {@code rows} rows and flushes them to one store file. */
  private static void load(TableDescriptor td, int rows) throws Exception {
    try (Admin admin = cluster.admin()) {
      admin.createTable(td);
      try (Table table = cluster.connection().getTable(td.getTableName())) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
          puts.add(
              new Put(row(i))
                  .addColumn(
                      F, Bytes.toBytes("a"), Bytes.toBytes("value-" + i + "-" + "x".repeat(40)))
                  .addColumn(F, Bytes.toBytes("b"), Bytes.toBytes(i)));
        }
        table.put(puts);
      }
      admin.flush(td.getTableName());
    }
  }

  private static byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%08d", i));
  }

  private static RegionInfo regionOf(TableName t) throws IOException {
    try (Admin admin = cluster.admin()) {
      List<RegionInfo> regions = admin.getRegions(t);
      assertEquals(1, regions.size());
      return regions.get(0);
    }
  }

  private static RegionServer hosting(TableName t) throws IOException {
    ServerName sn =
        cluster
            .connection()
            .getRegionLocator(t)
            .getRegionLocation(HConstants.EMPTY_START_ROW, true)
            .getServerName();
    for (RegionServer rs : cluster.regionServers()) {
      if (rs.port == sn.getPort()) {
        return rs;
      }
    }
    throw new AssertionError(t + " is on " + sn + ", not one of the cluster's region servers");
  }

  /** The probes part of the region server's (current process's) engine-start line. */
  private static String engineLine(RegionServer rs) throws Exception {
    AtomicReference<String> probes = new AtomicReference<>();
    cluster.await(
        "blockscope's engine-start line in " + rs.log(),
        60,
        () -> {
          try {
            Matcher m = ENGINE_STARTED.matcher(Files.readString(rs.log()));
            if (m.find()) {
              probes.set(m.group(3).trim());
              return true;
            }
            return false;
          } catch (IOException e) {
            return false;
          }
        });
    return probes.get();
  }

  /**
   * A cold full scan of a freshly flushed one-region table: the region's {@code /jmx} beans must
   * count each data block of its store files once as a miss and once as a file-system read, and
   * every cell as decoded. Returns the misses.
   */
  private static long assertColdScanCounted(RegionServer rs, TableName t, int rows)
      throws Exception {
    long cells = count(t);
    assertEquals(2L * rows, cells);
    long[] truth = dataBlocks(t);
    String region = regionOf(t).getEncodedName();
    long misses = regionCount(rs, t, region, "blockCache.miss.data");
    assertEquals("data block misses of " + t + " = its store files' data blocks", truth[0], misses);
    assertEquals(truth[0], regionCount(rs, t, region, "fs.read.blocks.data"));
    assertEquals(truth[0], regionCount(rs, t, region, "decompress.GZ.blocks"));
    assertEquals(cells, regionCount(rs, t, region, "decode.FAST_DIFF.cells"));
    return misses;
  }

  private static long count(TableName t) throws IOException {
    long cells = 0;
    try (Table table = cluster.connection().getTable(t);
        ResultScanner s = table.getScanner(new Scan().setCaching(500))) {
      for (Result r : s) {
        cells += r.size();
      }
    }
    return cells;
  }

  /** The data blocks of a table's store files, from their trailers, read off the file system. */
  private static long[] dataBlocks(TableName t) throws IOException {
    Configuration conf = cluster.clientConf();
    Path family =
        cluster
            .home
            .resolve("hbase/data/default")
            .resolve(t.getQualifierAsString())
            .resolve(regionOf(t).getEncodedName())
            .resolve("f");
    FileSystem fs = FileSystem.getLocal(conf);
    long blocks = 0;
    long files = 0;
    try (Stream<Path> s = Files.list(family)) {
      for (Path p : s.toList()) {
        try (HFile.Reader r =
            HFile.createReader(
                fs, new org.apache.hadoop.fs.Path(p.toUri()), CacheConfig.DISABLED, true, conf)) {
          FixedFileTrailer trailer = r.getTrailer();
          assertEquals("single-level index in " + p, 1, trailer.getNumDataIndexLevels());
          blocks += trailer.getDataIndexCount();
          files++;
        }
      }
    }
    assertEquals("one store file in " + family, 1, files);
    return new long[] {blocks};
  }

  /**
   * A region bean's count from the server's {@code /jmx}. A region's beans appear at the engine's
   * next export (blockscope.export.interval.ms, 10 s by default), so this waits up to 30 s for it.
   */
  private static long regionCount(RegionServer rs, TableName t, String region, String name)
      throws Exception {
    String q =
        "blockscope:type=Region,table="
            + t.getNameAsString()
            + ",region="
            + region
            + ",name="
            + name;
    AtomicReference<JsonArray> beans = new AtomicReference<>();
    try {
      cluster.await(
          q + " on " + rs.infoUrl(),
          30,
          () -> {
            try {
              beans.set(
                  JsonParser.parseString(get(rs.infoUrl() + "/jmx?qry=" + enc(q)))
                      .getAsJsonObject()
                      .getAsJsonArray("beans"));
              return beans.get().size() == 1;
            } catch (Exception e) {
              return false;
            }
          });
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage() + "; its blockscope beans: " + beanNames(rs, "blockscope:*"), e);
    }
    return beans.get().get(0).getAsJsonObject().get("Count").getAsLong();
  }

  private static List<String> beanNames(RegionServer rs, String query) throws Exception {
    List<String> names = new ArrayList<>();
    JsonParser.parseString(get(rs.infoUrl() + "/jmx?qry=" + enc(query)))
        .getAsJsonObject()
        .getAsJsonArray("beans")
        .forEach(b -> names.add(b.getAsJsonObject().get("name").getAsString()));
    return names;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  static String get(String url) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(url + ": " + r.body(), 200, r.statusCode());
    return r.body();
  }

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
          Result r = t.get(new Get(row(i)));
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
