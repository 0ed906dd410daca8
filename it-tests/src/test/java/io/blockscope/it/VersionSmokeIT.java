package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.encoding.BlockscopeEncoding;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.RawTable;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.VersionInfo;
import org.junit.Test;

/**
 * What blockscope must do on every HBase version it supports (docs/compatibility.md). The default
 * build runs it on HBase 2.6.1; each version profile ({@code -Phbase-2.5}) runs it on its own
 * embedded cluster. The optional feature is expected by version: live configuration reload needs
 * HBase 2.6 ({@code HRegionServer.getConfigurationManager()} is not public before it); where it is
 * missing it must be reported by name while every region is tracked and counted all the same. The
 * BLOCKSCOPE_V1 encoder registers on 2.5 and 2.6, and its table is counted exactly on each.
 */
public class VersionSmokeIT extends ClusterTestBase {
  private static final int ROWS = 20_000;
  private static final String RELOAD_UNAVAILABLE = "live configuration reload (update_config)";

  /** True from HBase 2.6 on: the line whose configuration manager live reload uses. */
  private static boolean atLeast26() {
    String[] v = VersionInfo.getVersion().split("[.-]");
    int major = Integer.parseInt(v[0]);
    int minor = Integer.parseInt(v[1]);
    return major > 2 || (major == 2 && minor >= 6);
  }

  @Test
  public void everyProbeIsInstalledAndAColdScanCountsWhatHBaseCounts() throws Exception {
    System.out.println("HBase " + VersionInfo.getVersion());
    for (int p = 0; p < ProbeBridge.N_PROBES; p++) {
      System.out.println(
          "probe "
              + ProbeBridge.PROBE_NAMES[p]
              + ": "
              + (cluster.diagnostics().probeInstalled(p) ? "installed" : "unavailable"));
    }
    for (int p = 0; p < ProbeBridge.N_PROBES; p++) {
      assertTrue(
          "probe " + ProbeBridge.PROBE_NAMES[p] + " on HBase " + VersionInfo.getVersion(),
          cluster.diagnostics().probeInstalled(p));
    }

    TableName t = newTable("version");
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(t).encoding(DataBlockEncoding.FAST_DIFF).blockSize(4096));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, ROWS, 7);
    List<HRegion> regions = cluster.regions(t);
    StoreFiles.evict(cluster.blockCache(), regions);
    long[] truth = SeedTables.dataBlocksAndCells(regions);

    BlockCache cache = cluster.blockCache();
    long statsMissesBefore = cache.getStats().getMissCount();
    CostSnapshot serverBefore = serverCosts();
    CostSnapshot before = tableCosts(t);
    long cells =
        RawTable.scanCells(cluster.connection(), t, new Scan().setReadType(Scan.ReadType.PREAD));
    CostSnapshot cold = tableCosts(t).minus(before);
    System.out.println(
        "cold scan on HBase "
            + VersionInfo.getVersion()
            + ": "
            + truth[0]
            + " data blocks and "
            + truth[1]
            + " cells in the trailers; "
            + cold.nonZero());

    assertEquals(2L * ROWS, cells);
    assertEquals(truth[0], cold.get("blockCache.miss.data"));
    assertEquals(truth[0], cold.get("fs.read.blocks.data"));
    assertEquals(truth[1], cold.get("decode.FAST_DIFF.cells"));
    assertEquals(
        "every miss HBase's CacheStats counted, blockscope counted",
        cache.getStats().getMissCount() - statsMissesBefore,
        misses(serverCosts().minus(serverBefore)));
  }

  @Test
  public void aMissingOptionalFeatureIsReportedByNameAndTheRegionIsCountedAllTheSame()
      throws Exception {
    List<String> problems = cluster.diagnostics().problems();
    System.out.println("problems on HBase " + VersionInfo.getVersion() + ": " + problems);
    boolean reloadReported = problems.stream().anyMatch(p -> p.contains(RELOAD_UNAVAILABLE));
    assertEquals(
        "live configuration reload reported unavailable on HBase " + VersionInfo.getVersion(),
        !atLeast26(),
        reloadReported);

    // the region of a table opened after that report is tracked and its reads counted
    TableName t = newTable("degrade");
    RawTable.create(cluster.admin(), new RawTable.Spec(t));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, 1_000, 3);
    HRegion region = onlyRegion(t);
    assertNotNull(
        "region tracked",
        cluster.diagnostics().registry().region(region.getRegionInfo().getEncodedName()));
    CostSnapshot plain = coldScan(region, t);
    long[] truth = SeedTables.dataBlocksAndCells(List.of(region));
    assertEquals(truth[0], plain.get("fs.read.blocks.data"));

    // the encoder registers on 2.5 and 2.6 (their DataBlockEncoding is the same bytecode), and a
    // table of it is read and counted as every other: blocks from its trailers, cells decoded once
    DataBlockEncoding encoding = BlockscopeEncoding.register();
    System.out.println("encoder BLOCKSCOPE_V1: registered");
    TableName e = newTable("version_encoded");
    RawTable.create(cluster.admin(), new RawTable.Spec(e).encoding(encoding).blockSize(4096));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), e, 1_000, 3);
    HRegion encoded = onlyRegion(e);
    CostSnapshot read = coldScan(encoded, e);
    long[] encodedTruth = SeedTables.dataBlocksAndCells(List.of(encoded));
    System.out.println(
        "BLOCKSCOPE_V1 cold scan: "
            + read.get("fs.read.blocks.data")
            + " data blocks read (trailers: "
            + encodedTruth[0]
            + "), "
            + read.get("decode.BLOCKSCOPE_V1.cells")
            + " cells decoded (trailers: "
            + encodedTruth[1]
            + ")");
    assertEquals(read.toString(), encodedTruth[0], read.get("fs.read.blocks.data"));
    assertEquals(read.toString(), encodedTruth[1], read.get("decode.BLOCKSCOPE_V1.cells"));
  }

  /** What a full scan of {@code t}, whose one region is {@code region}, cost that region cold. */
  private static CostSnapshot coldScan(HRegion region, TableName t) throws Exception {
    StoreFiles.evict(cluster.blockCache(), List.of(region));
    CostSnapshot before = regionCosts(region);
    RawTable.scanCells(cluster.connection(), t, new Scan());
    return regionCosts(region).minus(before);
  }
}
