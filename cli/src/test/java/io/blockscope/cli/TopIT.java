package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.RawTable;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.MiniHBaseCluster;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import picocli.CommandLine;

/**
 * {@code blockscope top} against the shared embedded cluster through ZooKeeper and the region
 * servers' {@code /jmx}, as against a real cluster: a second region server is started with an info
 * port (the first has none, as the embedded cluster runs it, and is reported unreadable), and a
 * cold scan between two readings shows, for its table and region, exactly what blockscope's engine
 * counted in between: every data block missed and read once, its bytes, cells and decode time.
 */
public class TopIT {
  private static EmbeddedCluster cluster;
  private static JVMClusterUtil.RegionServerThread withInfoPort;
  private static final TableName TABLE = TableName.valueOf("top_it");

  @BeforeClass
  public static void start() throws Exception {
    cluster = EmbeddedCluster.shared();
    MiniHBaseCluster mini = cluster.util().getMiniHBaseCluster();
    Configuration conf = mini.getConf(); // what a region server it starts copies
    String saved = conf.get("hbase.regionserver.info.port");
    conf.setInt("hbase.regionserver.info.port", 0); // any free port, reported to the master
    try {
      withInfoPort = mini.startRegionServerAndWait(60_000);
    } finally {
      conf.set("hbase.regionserver.info.port", saved);
    }
    // the master learns the port from the server's next report (every 3 s)
    ServerName started = withInfoPort.getRegionServer().getServerName();
    cluster
        .util()
        .waitFor(
            30_000,
            200,
            () -> {
              ServerMetrics m =
                  cluster.admin().getClusterMetrics().getLiveServerMetrics().get(started);
              return m != null && m.getInfoServerPort() > 0;
            });
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(TABLE).encoding(DataBlockEncoding.FAST_DIFF).level("TIME"));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), TABLE, 5_000, 2);
  }

  @AfterClass
  public static void stop() throws Exception {
    cluster.admin().disableTable(TABLE);
    cluster.admin().deleteTable(TABLE);
    MiniHBaseCluster mini = cluster.util().getMiniHBaseCluster();
    int index = mini.getLiveRegionServerThreads().indexOf(withInfoPort);
    mini.stopRegionServer(index);
    mini.waitOnRegionServer(index);
  }

  private static String zk() {
    Configuration c = cluster.conf();
    return c.get("hbase.zookeeper.quorum").split(",")[0]
        + ":"
        + c.get("hbase.zookeeper.property.clientPort");
  }

  @Test(timeout = 180_000)
  public void aColdScanBetweenTwoReadingsIsWhatTheTrailerHas() throws Exception {
    List<HRegion> regions = cluster.regions(TABLE);
    String region = regions.get(0).getRegionInfo().getEncodedName();
    ClusterOptions options = new ClusterOptions();
    options.zk = zk();
    options.maxReplyMb = 256;
    try (ClusterClient c = ClusterClient.connect(options)) {
      for (JVMClusterUtil.RegionServerThread rs :
          cluster.util().getMiniHBaseCluster().getLiveRegionServerThreads()) {
        rs.getRegionServer().getBlockCache().ifPresent(b -> StoreFiles.evict(b, regions));
      }
      cluster.diagnostics().refreshExport();
      CostSnapshot held = cluster.diagnostics().registry().tableSnapshot(TABLE.getNameAsString());
      List<TopView.ServerReading> before = Top.http(c);
      RawTable.scanCells(cluster.connection(), TABLE, new Scan());
      cluster.diagnostics().refreshExport();
      List<TopView.ServerReading> after = Top.http(c);
      CostSnapshot rose =
          cluster.diagnostics().registry().tableSnapshot(TABLE.getNameAsString()).minus(held);
      TopView v = TopView.between(before, after, 1_000_000_000L);
      System.out.println(v.text(TopView.Figure.MISSES, 5, "TopIT"));
      assertEquals(2, v.servers.size());
      assertEquals(
          "the embedded cluster's first server has no info port",
          1,
          v.servers.stream().filter(s -> s.error() != null).count());
      TopView.Server readable =
          v.servers.stream().filter(s -> s.error() == null).findFirst().orElseThrow();
      assertEquals(readable.toString(), ProbeBridge.N_PROBES, readable.probes());
      assertEquals(readable.toString(), ProbeBridge.N_PROBES, readable.probesInstalled());
      TopView.Row t =
          v.tables.stream()
              .filter(r -> r.table().equals(TABLE.getNameAsString()))
              .findFirst()
              .orElseThrow();
      // a cold scan: every data block missed and read once; top's counts are the engine's rise
      long misses = rose.sumKinds("blockCache.miss");
      assertTrue(rose.toString(), misses > 0);
      assertEquals(misses, rose.sumKinds("fs.read.blocks"));
      assertEquals(v.tables.toString(), misses, t.count(TopView.Figure.MISSES));
      assertEquals(misses, t.count(TopView.Figure.FS_BLOCKS));
      assertEquals(rose.sumKinds("fs.read.bytes"), t.count(TopView.Figure.FS_BYTES));
      assertEquals(rose.get("decode.FAST_DIFF.cells"), t.count(TopView.Figure.CELLS));
      assertEquals(rose.get("decode.FAST_DIFF.nanos"), t.count(TopView.Figure.DECODE));
      TopView.Row r =
          v.regions.stream().filter(x -> x.region().equals(region)).findFirst().orElseThrow();
      assertEquals(misses, r.count(TopView.Figure.MISSES));
    }
  }

  @Test(timeout = 180_000)
  public void theCommandPrintsOneViewAndExits() throws Exception {
    PrintStream saved = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code;
    try (PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      code =
          new CommandLine(new BlockscopeCli())
              .execute("top", "--zk", zk(), "--once", "--interval", "1", "--sort", "misses");
    } finally {
      System.setOut(saved);
    }
    String printed = bytes.toString(StandardCharsets.UTF_8);
    System.out.println("blockscope top --once printed:\n" + printed);
    assertEquals(printed, 0, code);
    assertTrue(printed, printed.startsWith("blockscope top: 2 region servers, "));
    assertTrue(printed, printed.contains("unreadable: no info port"));
    assertTrue(printed, printed.contains(ProbeBridge.N_PROBES + "/" + ProbeBridge.N_PROBES));
    assertTrue(printed, printed.contains("cache miss/s"));
  }
}
