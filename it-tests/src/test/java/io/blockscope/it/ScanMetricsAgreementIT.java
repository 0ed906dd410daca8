package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assume.assumeTrue;

import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.RawTable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.VersionInfo;
import org.junit.Test;

/**
 * blockscope beside HBase's own server-side scan metrics, which from HBase 2.6.4 count the blocks a
 * scan read from the file system ({@code BLOCK_READ_OPS_COUNT}) and their bytes ({@code
 * BYTES_READ_FROM_FS}), both added in {@code HFileBlock.FSReaderImpl.readBlockDataInternal}, which
 * the method blockscope's file-system probe counts ({@code readBlockData}) calls. Each region is
 * scanned on its own, so a scan's metrics are that region's. On an HBase without those metrics the
 * test checks that they are absent and stops there.
 */
public class ScanMetricsAgreementIT extends ClusterTestBase {
  private static final int ROWS = 20_000;
  private static final String BLOCKS = "BLOCK_READ_OPS_COUNT";
  private static final String BYTES = "BYTES_READ_FROM_FS";

  /** True from HBase 2.6.4 on, where the server-side scan metrics count file-system reads. */
  private static boolean hasReadMetrics() {
    String[] v = VersionInfo.getVersion().split("[.-]");
    int major = Integer.parseInt(v[0]);
    int minor = Integer.parseInt(v[1]);
    int patch = Integer.parseInt(v[2]);
    return major > 2 || (major == 2 && (minor > 6 || (minor == 6 && patch >= 4)));
  }

  private static Map<String, Long> scanRegion(TableName t, HRegion r) throws Exception {
    Scan scan =
        new Scan()
            .withStartRow(r.getRegionInfo().getStartKey())
            .withStopRow(r.getRegionInfo().getEndKey())
            .setScanMetricsEnabled(true)
            .setReadType(Scan.ReadType.PREAD);
    try (Table table = cluster.connection().getTable(t);
        ResultScanner rs = table.getScanner(scan)) {
      for (Result ignored : rs) {
        // read every row
      }
      return rs.getScanMetrics().getMetricsMap();
    }
  }

  @Test
  public void eachRegionsColdScanReadsTheBlocksHBasesScanMetricsCount() throws Exception {
    TableName t = newTable("agree");
    RawTable.create(
        cluster.admin(), new RawTable.Spec(t).blockSize(4096).splits(RawTable.seedRow(ROWS / 2)));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, ROWS, 11);
    List<HRegion> regions = new ArrayList<>(cluster.regions(t));
    regions.sort(Comparator.comparing(r -> r.getRegionInfo().getStartKey(), Bytes::compareTo));
    assertEquals(2, regions.size());
    StoreFiles.evict(cluster.blockCache(), regions);

    boolean expected = hasReadMetrics();
    for (HRegion r : regions) {
      CostSnapshot before = regionCosts(r);
      Map<String, Long> hbase = scanRegion(t, r);
      CostSnapshot ours = regionCosts(r).minus(before);
      System.out.println(
          "HBase "
              + VersionInfo.getVersion()
              + ", region "
              + r.getRegionInfo().getEncodedName()
              + ": HBase "
              + BLOCKS
              + "="
              + hbase.get(BLOCKS)
              + " "
              + BYTES
              + "="
              + hbase.get(BYTES)
              + "; blockscope "
              + ours.nonZero());
      assertEquals(
          "HBase " + VersionInfo.getVersion() + " has " + BLOCKS,
          expected,
          hbase.containsKey(BLOCKS));
      if (!expected) {
        continue;
      }
      assertEquals(
          "blocks read from the file system",
          ours.sumKinds("fs.read.blocks"),
          (long) hbase.get(BLOCKS));
      // HBase adds what each read fetched: the block's on-disk bytes less its header when the read
      // before had fetched it already, plus the next block's header, fetched ahead. A cold scan
      // reads one store file's blocks in order, so every header but the first is fetched ahead by
      // the read before: HBase's bytes are blockscope's on-disk sizes plus the last look-ahead.
      assertEquals(
          "bytes read from the file system",
          ours.sumKinds("fs.read.bytes") + HConstants.HFILEBLOCK_HEADER_SIZE,
          (long) hbase.get(BYTES));
    }
    assumeTrue("HBase " + VersionInfo.getVersion() + " has no file-system scan metrics", expected);
  }
}
