package io.blockscope.release;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.stock.ClusterFiles;
import io.blockscope.harness.stock.RegionServer;
import io.blockscope.harness.stock.StockCluster;
import io.blockscope.harness.stock.StockCluster.Deployment;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.ServerMetric;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The release installed cluster-wide, as docs/deploy.md and docs/encoder.md say, where {@link
 * StockDeployIT} (stock HBase 2.6.1 on the local file system) does not reach: stock HBase 2.5.13
 * and 2.6.4 (hadoop3 builds, their server class paths from stock-hbase/versions/), and 2.6.1 with
 * its root directory on HDFS run as processes of their own (a NameNode and two DataNodes). Each is
 * ZooKeeper, a master and a region server, each a process of its own.
 *
 * <p>On each: the HBase version of the master (as the cluster reports it) and of each region server
 * (as its process logged it), the engine's start line with every probe, a cold scan counted exactly
 * against the store file as HBase's block reader walks it in the test's JVM (blocks missed = blocks
 * read from the file system = its data blocks, bytes read = their on-disk sizes, every byte
 * checksummed by HBase, GZ blocks decompressed, cells decoded), and {@code bin/blockscope evaluate
 * --zk} from the release, its tables checked against their files the same way. The encoder as
 * docs/compatibility.md says: registered on 2.5.13 and 2.6.4, where a BLOCKSCOPE_V1 table is
 * created, read and counted.
 */
public class StockMatrixIT {
  private static Path release;
  private static DeployPage page;

  @BeforeClass
  public static void readPages() throws Exception {
    release = Path.of(System.getProperty("blockscope.release"));
    page = new DeployPage(release.resolve("docs"));
  }

  @Test
  public void hbase_2_5_13() throws Exception {
    try (StockCluster cluster = start("2.5.13", 0, false)) {
      StockChecks checks = new StockChecks(cluster);
      RegionServer rs = commonChecks(cluster, checks, "2.5.13", true);
      encoderRegisteredAndCounted(cluster, checks, rs);
      // not public on 2.5: said in the log, and the server keeps its settings until a restart
      assertTrue(
          rs.log().toString(),
          Files.readString(rs.log())
              .contains("live configuration reload (update_config) unavailable on this HBase"));
    }
  }

  @Test
  public void hbase_2_6_4() throws Exception {
    try (StockCluster cluster = start("2.6.4", 0, true)) {
      StockChecks checks = new StockChecks(cluster);
      RegionServer rs = commonChecks(cluster, checks, "2.6.4", false);
      encoderRegisteredAndCounted(cluster, checks, rs);
      reloadTakesTheLevel(cluster, checks, rs);
      new ThousandTables(cluster, checks, rs).check(release);
    }
  }

  /**
   * Live reload on 2.6 (HBase's update_config): {@code blockscope.level} set to TIME in the
   * server's hbase-site.xml and reloaded, the server's settings gauge reads 2 and a cold scan of a
   * new table records its checksum, decompression and decoding times, where the COUNT scan before
   * recorded none; the log never says the reload is unavailable.
   */
  private static void reloadTakesTheLevel(StockCluster cluster, StockChecks checks, RegionServer rs)
      throws Exception {
    TableName counted = TableName.valueOf("versions_plain");
    String countedRegion = checks.regionOf(counted).getEncodedName();
    Map<String, Long> atCount = checks.exportedRegionCounts(rs, counted, countedRegion);
    assertEquals(1L, rs.beans().serverValue(ServerMetric.SETTINGS_LEVEL).orElse(-1));
    // the region's series are there (a missing one would read 0 below too)
    assertEquals(
        atCount.toString(), 6_000L, (long) atCount.getOrDefault("decode.FAST_DIFF.cells", 0L));
    for (String timed : TIMES) {
      assertEquals(timed + " at COUNT: " + atCount, 0L, (long) atCount.getOrDefault(timed, 0L));
    }
    checks.reloadLevel(rs, PerfLevel.TIME);
    TableName t = TableName.valueOf("versions_reloaded");
    checks.load(checks.table(t).build(), 3_000);
    cluster.moveTo(t, rs);
    assertEquals(6_000, checks.count(t));
    String region = checks.regionOf(t).getEncodedName();
    ClusterFiles.DataSection file = checks.dataSection(t);
    checks.assertRegionCount(rs, t, region, "decompress.GZ.blocks", file.blocks());
    Map<String, Long> atTime = checks.exportedRegionCounts(rs, t, region);
    for (String timed : TIMES) {
      assertTrue(timed + " at TIME: " + atTime, atTime.getOrDefault(timed, 0L) > 0);
    }
    String log = Files.readString(rs.log());
    assertTrue(rs.log().toString(), !log.contains("update_config) unavailable"));
  }

  /** The times a cold FAST_DIFF+GZ scan records at TIME and none at COUNT. */
  private static final List<String> TIMES =
      List.of("checksum.nanos", "decompress.GZ.nanos", "decode.FAST_DIFF.nanos");

  /**
   * The region server registered BLOCKSCOPE_V1 (its log says so and has no refusal), the master's
   * guard lets a table of it be created, and the region server reads it: a cold count of its 6,000
   * cells misses and reads from the file system exactly the store file's data blocks and decodes
   * each cell once.
   */
  private static void encoderRegisteredAndCounted(
      StockCluster cluster, StockChecks checks, RegionServer rs) throws Exception {
    String log = Files.readString(rs.log());
    assertTrue(
        rs.log().toString(),
        log.contains("blockscope: data block encoding BLOCKSCOPE_V1 (id 64) registered"));
    assertTrue(rs.log().toString(), !log.contains("cannot register data block encoding"));
    // the test's own reading of the trailers takes the encoding in this JVM too
    try (var loader =
        new java.net.URLClassLoader(
            new java.net.URL[] {release.resolve(page.encoderJar).toUri().toURL()},
            StockMatrixIT.class.getClassLoader())) {
      loader
          .loadClass("io.blockscope.encoding.BlockscopeEncoding")
          .getMethod("register")
          .invoke(null);
    }
    TableName enc = TableName.valueOf("versions_encoded");
    checks.load(encoded(enc), 3_000);
    long cells = checks.count(enc);
    assertEquals(6_000, cells);
    String region = checks.regionOf(enc).getEncodedName();
    long blocks = cluster.dataBlocks(enc, "f");
    checks.assertRegionCount(rs, enc, region, "blockCache.miss.data", blocks);
    checks.assertRegionCount(rs, enc, region, "fs.read.blocks.data", blocks);
    checks.assertRegionCount(rs, enc, region, "decode.BLOCKSCOPE_V1.cells", cells);
  }

  /**
   * HBase 2.6.1 on HDFS processes: store files are read from the DataNodes over HDFS's own
   * protocol. Region server 1 runs with HBase's own checksums (hbase.regionserver.checksum.verify,
   * on by default; HDFS's are then skipped), and its figures are those the local file system and
   * the embedded cluster's HDFS give: every block missed is read once, every byte read is
   * checksummed by HBase. Region server 2 leaves checksums to HDFS (the setting off): the same
   * blocks and bytes, and no byte checksummed by HBase. HDFS is shown, not assumed: the NameNode
   * lists the store file on the cluster's DataNodes, and the DataNodes' own BytesRead rises by at
   * least its data section across the cold scan.
   */
  @Test
  public void hbase_2_6_1_onHdfsProcesses() throws Exception {
    try (StockCluster cluster = start("2.6.1", 2, false)) {
      StockChecks checks = new StockChecks(cluster);
      RegionServer rs = commonChecks(cluster, checks, "2.6.1-hdfs", true);
      assertTrue(
          rs.log().toString(),
          Files.readString(rs.log())
              .contains("blockscope: data block encoding BLOCKSCOPE_V1 (id 64) registered"));

      // added after evaluate, whose scratch tables must all read with HBase's checksums
      RegionServer hdfsChecksums =
          cluster.addRegionServer(
              withSite(rs.deployment(), "hbase.regionserver.checksum.verify", "false"));
      checks.assertVersions("2.6.1");
      TableName t = TableName.valueOf("hdfs_checksums");
      checks.load(checks.table(t).build(), 3_000);
      cluster.moveTo(t, hdfsChecksums);
      String region = checks.regionOf(t).getEncodedName();
      ClusterFiles files = cluster.files();
      org.apache.hadoop.fs.Path storeFile = files.storeFiles(t, "f").get(0);
      ClusterFiles.DataSection file = files.dataSection(storeFile);
      // the store file is on HDFS: the NameNode lists it, with its length, its blocks on the
      // cluster's DataNodes
      Map<String, Long> listed = files.nameNodeListing(storeFile.getParent().toUri().getPath());
      long length = storeFile.getFileSystem(cluster.clientConf()).getFileStatus(storeFile).getLen();
      assertEquals(Map.of(storeFile.getName(), length), listed);
      java.util.Set<String> locations = files.blockLocations(storeFile);
      assertTrue(
          locations + " on " + files.dataNodeAddresses(),
          !locations.isEmpty() && files.dataNodeAddresses().containsAll(locations));
      // and the cold scan read it from the DataNodes: they sent at least its data section
      long sentBefore = files.dataNodesBytesReadSettled();
      assertEquals(6_000, checks.count(t));
      long[] sent = {0};
      cluster.await(
          "the DataNodes' BytesRead up by " + file.bytes(),
          30,
          () -> {
            try {
              sent[0] = files.dataNodesBytesRead() - sentBefore;
              return sent[0] >= file.bytes();
            } catch (Exception e) {
              return false;
            }
          });
      System.out.printf(
          "hdfs_checksums: the DataNodes sent %d bytes for the cold scan of a %d-byte store file"
              + " (data section %s)%n",
          sent[0], length, file);
      checks.assertRegionCount(hdfsChecksums, t, region, "blockCache.miss.data", file.blocks());
      checks.assertRegionCount(hdfsChecksums, t, region, "fs.read.blocks.data", file.blocks());
      checks.assertRegionCount(hdfsChecksums, t, region, "fs.read.bytes.data", file.bytes());
      checks.assertRegionCount(hdfsChecksums, t, region, "decompress.GZ.blocks", file.blocks());
      checks.assertRegionCount(hdfsChecksums, t, region, "checksum.bytes", 0);
      checks.assertRegionCount(hdfsChecksums, t, region, "checksum.chunks", 0);
    }
  }

  /**
   * The checks every version passes; returns its one region server. The engine names every probe; a
   * FAST_DIFF+GZ table's cold scan is counted exactly against its trailer; with {@code evaluate},
   * evaluate --zk from the release reads blockscope's costs from the server's /jmx (run where it
   * adds to StockDeployIT's: on another HBase line and over HDFS, not on 2.6.4, for CI's time).
   */
  private static RegionServer commonChecks(
      StockCluster cluster, StockChecks checks, String version, boolean evaluate) throws Exception {
    RegionServer rs = cluster.regionServers().get(0);
    checks.assertVersions(version.replace("-hdfs", ""));
    assertEquals(version + ": " + rs.log(), page.probes, checks.engineLine(rs));
    checks.assertEngineBuild(rs, page.version(), page.libName);
    TableName t = TableName.valueOf("versions_plain");
    checks.load(checks.table(t).build(), 3_000);
    cluster.moveTo(t, rs);
    checks.assertColdScanCounted(rs, t, 3_000);
    if (!evaluate) {
      return rs;
    }
    List<org.apache.hbase.thirdparty.com.google.gson.JsonObject> pe =
        ReleaseClients.evaluate(
            cluster,
            release,
            "evaluate-" + version,
            List.of("--zk", cluster.zkQuorum()),
            ReleaseClients.PE_RUN);
    assertEquals(2, pe.size());
    ReleaseClients.assertColdScansCounted(cluster, pe);
    return rs;
  }

  private static TableDescriptor encoded(TableName t) {
    return TableDescriptorBuilder.newBuilder(t)
        .setColumnFamily(
            ColumnFamilyDescriptorBuilder.newBuilder(StockChecks.F)
                .setBlocksize(4096)
                // by name, as HBase's shell and Phoenix's DDL pass it: this JVM may not know it
                .setValue("DATA_BLOCK_ENCODING", "BLOCKSCOPE_V1")
                .build())
        .build();
  }

  /**
   * docs/deploy.md's agent, and with {@code exporter} docs/dashboards.md's exporter agent with the
   * shipped configuration and a heap for a thousand regions.
   */
  private static List<String> jvmOptions(boolean exporter) {
    List<String> options = new java.util.ArrayList<>();
    options.add("-javaagent:${lib}/" + page.agentJar);
    if (exporter) {
      Path agent = Path.of(System.getProperty("blockscope.prometheus.agent"));
      Path config = release.resolve("docs/prometheus").resolve(page.exporterConfig);
      assertTrue(config + " in the release", Files.isRegularFile(config));
      options.add("-javaagent:" + agent + "=${prometheus.port}:" + config);
      // ThousandTables: a stock region server's 640 MB ran into back-to-back full GCs (flushes of
      // 4 to 16 s each) as its thousand regions were written
      options.add("-Xmx2g");
    }
    return options;
  }

  private static Deployment withSite(Deployment d, String key, String value) {
    Map<String, String> site = new java.util.HashMap<>(d.site());
    site.put(key, value);
    return new Deployment(d.libJars(), site, d.jvmOptions());
  }

  /**
   * A jar of the {@code hbase-webapps/} resources (the info servers' web.xml and static files) of
   * 2.6.1's hbase-server jar. HBase's binary install carries them in its hbase-server jar; the
   * 2.5.13-hadoop3 and 2.6.4-hadoop3 hbase-server jars this build machine's Maven serves lack them
   * (their compiled JSP classes are there), and without them a master or region server stops at
   * start ({@code hbase-webapps/regionserver not found in CLASSPATH}). Put in each server's {@code
   * lib/}, they stand in for that version's own.
   */
  private static Path webapps() throws Exception {
    Path jar = Path.of(System.getProperty("blockscope.work") + "-webapps.jar");
    if (Files.isRegularFile(jar)) {
      return jar;
    }
    String hbaseServer = null;
    for (String e :
        Files.readString(Path.of(System.getProperty("blockscope.server.classpath")))
            .trim()
            .split(":")) {
      if (e.contains("/hbase-server-")) {
        hbaseServer = e;
      }
    }
    assertTrue("2.6.1's hbase-server jar on the stock class path", hbaseServer != null);
    Files.createDirectories(jar.getParent());
    try (java.util.zip.ZipFile in = new java.util.zip.ZipFile(hbaseServer);
        java.util.zip.ZipOutputStream out =
            new java.util.zip.ZipOutputStream(Files.newOutputStream(jar))) {
      for (java.util.zip.ZipEntry e : java.util.Collections.list(in.entries())) {
        if (e.getName().startsWith("hbase-webapps/")) {
          out.putNextEntry(new java.util.zip.ZipEntry(e.getName()));
          if (!e.isDirectory()) {
            try (java.io.InputStream is = in.getInputStream(e)) {
              is.transferTo(out);
            }
          }
          out.closeEntry();
        }
      }
    }
    return jar;
  }

  /**
   * ZooKeeper, a master with docs/encoder.md's guard and one region server with docs/deploy.md's
   * cluster-wide deployment and the encoder's registrar, on HBase {@code version}'s class path;
   * with {@code dataNodes} above 0, on HDFS processes; with {@code exporter}, the region server
   * runs docs/dashboards.md's exporter agent too.
   */
  private static StockCluster start(String version, int dataNodes, boolean exporter)
      throws Exception {
    Path classpath =
        version.equals("2.6.1")
            ? Path.of(System.getProperty("blockscope.server.classpath"))
            : Path.of(
                System.getProperty("blockscope.stock.dir"),
                "versions",
                "hbase-" + version,
                "target",
                "server-classpath.txt");
    assertTrue(classpath + " (stock-hbase/versions builds it)", Files.isRegularFile(classpath));
    Path webapps = webapps();
    Deployment master =
        new Deployment(
            List.of(release.resolve(page.encoderJar), webapps),
            Map.of("hbase.coprocessor.master.classes", page.guard),
            List.of());
    Deployment server =
        new Deployment(
            List.of(page.libJarInstalled(release), release.resolve(page.encoderJar), webapps),
            Map.of(
                page.siteName,
                page.siteValue + "," + page.registrar,
                "blockscope.export.interval.ms",
                "1000"),
            jvmOptions(exporter));
    return StockCluster.start(
        Path.of(
            System.getProperty("blockscope.work") + "-" + version + (dataNodes > 0 ? "-hdfs" : "")),
        StockInstalls.of(classpath),
        master,
        List.of(server),
        null,
        dataNodes);
  }
}
