package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import io.blockscope.harness.StoreFiles;
import io.blockscope.hints.BlockscopeResultSet;
import io.blockscope.hints.QueryProfile;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.HBaseScanMetrics;
import io.blockscope.workloads.RawTable;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
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
  private static final String CACHE_BYTES = "BYTES_READ_FROM_BLOCK_CACHE";

  /** True from HBase 2.6.4 on, where the server-side scan metrics count file-system reads. */
  static boolean hasReadMetrics() {
    String[] v = VersionInfo.getVersion().split("[.-]");
    int major = Integer.parseInt(v[0]);
    int minor = Integer.parseInt(v[1]);
    int patch = Integer.parseInt(v[2]);
    return major > 2 || (major == 2 && (minor > 6 || (minor == 6 && patch >= 4)));
  }

  /**
   * Ends a test where HBase has no file-system scan metrics: a skip, unless the build asks for them
   * ({@code blockscope.require.scan.metrics}, the 2.6.4 profile), where their absence fails.
   */
  private static void skipWithoutReadMetrics(boolean present) {
    String why = "HBase " + VersionInfo.getVersion() + " has no file-system scan metrics";
    if (Boolean.getBoolean("blockscope.require.scan.metrics")) {
      assertTrue(why, present);
    }
    assumeTrue(why, present);
  }

  private static Map<String, Long> scanRegion(TableName t, HRegion r) throws Exception {
    return scan(
        t,
        new Scan()
            .withStartRow(r.getRegionInfo().getStartKey())
            .withStopRow(r.getRegionInfo().getEndKey())
            .setReadType(Scan.ReadType.PREAD));
  }

  /** Runs a scan to its end with HBase's scan metrics on; returns them. */
  private static Map<String, Long> scan(TableName t, Scan scan) throws Exception {
    scan.setScanMetricsEnabled(true);
    try (Table table = cluster.connection().getTable(t);
        ResultScanner rs = table.getScanner(scan)) {
      for (Result ignored : rs) {
        // read every row
      }
      return rs.getScanMetrics().getMetricsMap();
    }
  }

  private static TableName table;

  /** The raw table the tests share: 20,000 seed rows, 4 KB blocks, two regions, flushed. */
  private static synchronized List<HRegion> regions() throws Exception {
    if (table == null) {
      table = newTable("agree");
      RawTable.create(
          cluster.admin(),
          new RawTable.Spec(table).blockSize(4096).splits(RawTable.seedRow(ROWS / 2)));
      RawTable.loadSeed(cluster.connection(), cluster.admin(), table, ROWS, 11);
    }
    List<HRegion> regions = new ArrayList<>(cluster.regions(table));
    regions.sort(Comparator.comparing(r -> r.getRegionInfo().getStartKey(), Bytes::compareTo));
    assertEquals(2, regions.size());
    return regions;
  }

  private static void print(String what, HRegion r, Map<String, Long> hbase, CostSnapshot ours) {
    Map<String, Long> shown = new TreeMap<>();
    for (String m : HBaseScanMetrics.NAMES) {
      if (hbase.containsKey(m)) {
        shown.put(m, hbase.get(m));
      }
    }
    System.out.println(
        "HBase "
            + VersionInfo.getVersion()
            + ", "
            + what
            + " of region "
            + r.getRegionInfo().getEncodedName()
            + ": HBase "
            + shown
            + "; blockscope "
            + ours.nonZero());
  }

  /**
   * Per region: a cold scan, then the same scan warm. Cold, HBase's blocks read = blockscope's
   * file-system blocks, and its bytes = blockscope's on-disk bytes + one look-ahead header. Warm,
   * every block hits, and HBase's block-cache bytes ({@code HFileReaderImpl.getCachedBlock}, the
   * method blockscope's cache probe counts hits in, adds each hit block's on-disk size with header,
   * and the next block's header when the cached block knows it) = the bytes the cold scan read +
   * one header per hit.
   */
  @Test
  public void eachRegionsColdScanReadsTheBlocksHBasesScanMetricsCount() throws Exception {
    List<HRegion> regions = regions();
    StoreFiles.evict(cluster.blockCache(), regions);
    boolean expected = hasReadMetrics();
    for (HRegion r : regions) {
      CostSnapshot before = regionCosts(r);
      Map<String, Long> hbase = scanRegion(table, r);
      CostSnapshot ours = regionCosts(r).minus(before);
      print("a cold scan", r, hbase, ours);
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
      assertEquals(0L, (long) hbase.get(CACHE_BYTES));

      CostSnapshot beforeWarm = regionCosts(r);
      Map<String, Long> warm = scanRegion(table, r);
      CostSnapshot oursWarm = regionCosts(r).minus(beforeWarm);
      print("the same scan warm", r, warm, oursWarm);
      assertEquals(
          "every block the cold scan read hits", ours.sumKinds("fs.read.blocks"), hits(oursWarm));
      assertEquals(0, oursWarm.sumKinds("fs.read.blocks"));
      assertEquals(0L, (long) warm.get(BLOCKS));
      assertEquals(
          "block-cache bytes",
          ours.sumKinds("fs.read.bytes") + hits(oursWarm) * HConstants.HFILEBLOCK_HEADER_SIZE,
          (long) warm.get(CACHE_BYTES));
    }
    skipWithoutReadMetrics(expected);
  }

  /**
   * Per region: point reads (get-shaped scans, {@code new Scan(Get)}, which carry scan metrics as a
   * Get cannot), cold and then warm, on rows far enough apart that no read starts where the one
   * before ended. Cold, each get's blocks = blockscope's file-system blocks, and its bytes =
   * blockscope's + one header (its first block's, which no read before fetched ahead). Warm, each
   * get hits what it read cold, the row bloom chunk included, and HBase's block-cache bytes = those
   * blocks' on-disk bytes + one header each.
   */
  @Test
  public void pointReadsAgreeGetByGet() throws Exception {
    List<HRegion> regions = regions();
    StoreFiles.evict(cluster.blockCache(), regions);
    boolean expected = hasReadMetrics();
    int checked = 0;
    for (HRegion r : regions) {
      int first = Bytes.compareTo(r.getRegionInfo().getStartKey(), new byte[0]) == 0 ? 0 : ROWS / 2;
      // the first get reads the region's row bloom chunk as well, and caches it for the others
      CostSnapshot beforeBloom = regionCosts(r);
      scan(table, new Scan(new Get(RawTable.seedRow(first))));
      CostSnapshot bloom = regionCosts(r).minus(beforeBloom);
      assertEquals(bloom.toString(), 1, bloom.get("fs.read.blocks.bloom"));
      for (int pk = first + 500; pk < first + ROWS / 2; pk += 500) {
        Scan get = new Scan(new Get(RawTable.seedRow(pk)));
        CostSnapshot before = regionCosts(r);
        Map<String, Long> cold = scan(table, get);
        CostSnapshot ours = regionCosts(r).minus(before);
        before = regionCosts(r);
        Map<String, Long> warm = scan(table, new Scan(new Get(RawTable.seedRow(pk))));
        CostSnapshot oursWarm = regionCosts(r).minus(before);
        if (pk == first + 500) {
          print("a cold get", r, cold, ours);
          print("the same get warm", r, warm, oursWarm);
        }
        assertEquals(expected, cold.containsKey(BLOCKS));
        if (!expected) {
          continue;
        }
        String where = "get of row " + pk + ": HBase " + cold + ", blockscope " + ours.nonZero();
        assertEquals(where, ours.sumKinds("fs.read.blocks"), (long) cold.get(BLOCKS));
        assertEquals(
            where,
            ours.sumKinds("fs.read.bytes") + HConstants.HFILEBLOCK_HEADER_SIZE,
            (long) cold.get(BYTES));
        where = "warm " + where + "; warm: HBase " + warm + ", blockscope " + oursWarm.nonZero();
        assertEquals(where, 0L, (long) warm.get(BLOCKS));
        assertEquals(where, ours.get("fs.read.blocks.data"), oursWarm.get("blockCache.hit.data"));
        assertEquals(where, 1, oursWarm.get("blockCache.hit.bloom"));
        assertEquals(
            where,
            ours.get("fs.read.bytes.data")
                + bloom.get("fs.read.bytes.bloom")
                + hits(oursWarm) * HConstants.HFILEBLOCK_HEADER_SIZE,
            (long) warm.get(CACHE_BYTES));
        checked++;
      }
    }
    skipWithoutReadMetrics(expected);
    assertEquals(38, checked);
  }

  /**
   * PROFILE through blockscope's driver: where HBase has its own scan metrics, each region's
   * profile shows them beside blockscope's under their own names ({@code hbase.*}), counted from
   * the query's scan RPCs only; where it has none, the profile has no such entry. A cold COUNT(*)
   * reads every data block of each region once: HBase's blocks read = blockscope's file-system
   * blocks, and HBase's bytes = blockscope's + one look-ahead header per scan RPC that began a read
   * (at least one per region, never more than its reads).
   */
  @Test
  @SuppressWarnings("try") // closed before the profile is read, which needs it closed
  public void aProfileShowsHBasesOwnScanMetricsBesideBlockscopes() throws Exception {
    String phoenixTable = "AGREE_PROFILE";
    SeedTables.createSplit(cluster, phoenixTable, 8_000, 17, "BLOCKSIZE=4096");
    List<HRegion> regions = cluster.regions(TableName.valueOf(phoenixTable));
    StoreFiles.evict(cluster.blockCache(), regions);
    QueryProfile p;
    try (Connection c = SeedTables.blockscope(cluster);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT /*+ PROFILE */ COUNT(*) FROM " + phoenixTable)) {
      assertTrue(rs.next());
      assertEquals(8_000, rs.getLong(1));
      assertFalse(rs.next());
      rs.close();
      p = rs.unwrap(BlockscopeResultSet.class).profile();
    }
    System.out.println(p.toText());
    assertEquals(4, p.regions().size());
    boolean expected = hasReadMetrics();
    assertEquals(p.toText(), expected, p.hasHBaseScanMetrics());
    for (QueryProfile.Region r : p.regions()) {
      long fsBlocks = 0;
      long fsBytes = 0;
      for (Map.Entry<String, Long> e : r.costs().entrySet()) {
        fsBlocks += e.getKey().startsWith("fs.read.blocks.") ? e.getValue() : 0;
        fsBytes += e.getKey().startsWith("fs.read.bytes.") ? e.getValue() : 0;
      }
      assertTrue(r.toString(), fsBlocks > 0);
      for (String m : HBaseScanMetrics.NAMES) {
        assertEquals(
            r.region() + " " + m, expected, r.costs().containsKey(HBaseScanMetrics.PREFIX + m));
      }
      if (!expected) {
        continue;
      }
      String where = r.region() + "\n" + p.toText();
      assertEquals(where, fsBlocks, r.get(HBaseScanMetrics.PREFIX + BLOCKS));
      // the region's blocks are read in order, each fetching the next one's header: one more
      // header than blockscope's on-disk bytes, as for the raw scan (measured on 2.6.4: 47 blocks,
      // 68,843 = 68,810 + 33 in each of the four regions)
      assertEquals(
          where,
          fsBytes + HConstants.HFILEBLOCK_HEADER_SIZE,
          r.get(HBaseScanMetrics.PREFIX + BYTES));
      assertEquals(where, 0, r.get(HBaseScanMetrics.PREFIX + "BYTES_READ_FROM_MEMSTORE"));
    }
    skipWithoutReadMetrics(expected);
  }
}
