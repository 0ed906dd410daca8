package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.RawTable;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/**
 * blockscope's per-region counts checked against ground truth that HBase keeps independently: its
 * CacheStats, the blocks its cache holds, the cells a scan returns.
 */
public class ReadCostIT extends ClusterTestBase {
  private static final int ROWS = 20_000;

  private TableName table(RawTable.Spec spec, int rows) throws Exception {
    RawTable.create(cluster.admin(), spec);
    RawTable.loadSeed(cluster.connection(), cluster.admin(), spec.name(), rows, 42);
    StoreFiles.evict(cluster.blockCache(), cluster.regions(spec.name()));
    return spec.name();
  }

  /**
   * A full scan with HBase's scan metrics on: the cells it returned and the scan's {@code
   * BLOCK_BYTES_SCANNED}, which HBase's StoreScanner adds up as each block's uncompressed size
   * without its header ({@code HFileBlock.getUncompressedSizeWithoutHeader}), once for each block
   * whose cells the scan reaches, cached or not. The cold scans read by pread throughout: with the
   * default read type a scan past four blocks' worth of bytes switches to stream reads, reopening
   * its file scanners, and HBase 2.6.1 then counts the block it was in a second time; the warm
   * scans, with the default read type, print what that does.
   */
  private static long[] scanWithMetrics(TableName t, Scan.ReadType readType) throws Exception {
    long cells = 0;
    try (Table table = cluster.connection().getTable(t);
        ResultScanner rs =
            table.getScanner(new Scan().setScanMetricsEnabled(true).setReadType(readType))) {
      for (Result r : rs) {
        cells += r.rawCells().length;
      }
      ScanMetrics m = rs.getScanMetrics();
      assertTrue("HBase reports BLOCK_BYTES_SCANNED", m.countOfBlockBytesScanned.get() > 0);
      return new long[] {cells, m.countOfBlockBytesScanned.get()};
    }
  }

  private static void printBlockBytes(TableName t, CostSnapshot cold, long pread, long byDefault) {
    System.out.printf(
        Locale.ROOT,
        "%s: BLOCK_BYTES_SCANNED %,d by pread (cold, %,d data blocks read), %,d with the default"
            + " read type (warm)%n",
        t,
        pread,
        cold.get("fs.read.blocks.data"),
        byDefault);
  }

  @Test
  public void coldScanMissesMatchCacheStatsAndTheBlocksItCached() throws Exception {
    TableName t = table(new RawTable.Spec(newTable("cold")).blockSize(4096), ROWS);
    BlockCache cache = cluster.blockCache();
    List<HRegion> regions = cluster.regions(t);
    long statsMissesBefore = cache.getStats().getMissCount();
    CostSnapshot serverBefore = serverCosts();
    CostSnapshot before = tableCosts(t);

    long[] scanned = scanWithMetrics(t, Scan.ReadType.PREAD);

    CostSnapshot cold = tableCosts(t).minus(before);
    assertEquals(2L * ROWS, scanned[0]);
    long cachedData = StoreFiles.cachedDataBlocks(cache, regions);
    assertTrue("a 4 KB block size gives many data blocks, got " + cachedData, cachedData > 50);
    assertEquals(cachedData, cold.get("blockCache.miss.data"));
    assertEquals(cachedData, cold.get("fs.read.blocks.data"));
    assertEquals(0, cold.get("blockCache.hit.data"));
    // An uncompressed block on disk is its header, its data and a checksum per chunk: what HBase's
    // scan metrics say the scan went through is what blockscope saw read, less those.
    assertEquals(
        "BLOCK_BYTES_SCANNED = fs bytes - headers - checksums: " + cold,
        scanned[1],
        cold.get("fs.read.bytes.data")
            - (long) HConstants.HFILEBLOCK_HEADER_SIZE * cold.get("fs.read.blocks.data")
            - (long) Bytes.SIZEOF_INT * cold.get("checksum.chunks")); // a CRC32C per chunk
    assertEquals(
        "every miss HBase's CacheStats counted, blockscope counted",
        cache.getStats().getMissCount() - statsMissesBefore,
        misses(serverCosts().minus(serverBefore)));

    CostSnapshot beforeWarm = tableCosts(t);
    long[] warmScanned = scanWithMetrics(t, Scan.ReadType.DEFAULT);
    CostSnapshot warm = tableCosts(t).minus(beforeWarm);
    printBlockBytes(t, cold, scanned[1], warmScanned[1]);
    assertEquals(cachedData, warm.get("blockCache.hit.data"));
    assertEquals(0, misses(warm));
    assertEquals(0, warm.sumKinds("fs.read.blocks"));
  }

  @Test
  public void gzTableDecompressesEveryBlockItReadsFromTheFileSystem() throws Exception {
    TableName t =
        table(
            new RawTable.Spec(newTable("gz")).compression(Compression.Algorithm.GZ).blockSize(8192),
            ROWS);
    CostSnapshot before = tableCosts(t);
    long[] scanned = scanWithMetrics(t, Scan.ReadType.PREAD);
    CostSnapshot cold = tableCosts(t).minus(before);

    long fsBlocks = cold.sumKinds("fs.read.blocks");
    assertEquals(
        StoreFiles.cachedDataBlocks(cluster.blockCache(), cluster.regions(t)),
        cold.get("fs.read.blocks.data"));
    assertEquals(fsBlocks, cold.get("fs.read.blocks.data"));
    assertEquals(fsBlocks, cold.get("decompress.GZ.blocks"));
    // what GZ produced is what HBase's scan metrics say the scan went through
    assertEquals(
        "BLOCK_BYTES_SCANNED = GZ's output: " + cold,
        scanned[1],
        cold.get("decompress.GZ.bytesOut"));
    assertTrue(cold.get("decompress.GZ.bytesOut") > cold.get("decompress.GZ.bytesIn"));
    assertEquals(0, cold.get("decompress.GZ.nanos")); // COUNT level: no timings
    assertEquals(fsBlocks, cold.sumOver("decompress", "blocks"));

    CostSnapshot beforeWarm = tableCosts(t);
    long[] warmScanned = scanWithMetrics(t, Scan.ReadType.DEFAULT);
    CostSnapshot warm = tableCosts(t).minus(beforeWarm);
    printBlockBytes(t, cold, scanned[1], warmScanned[1]);
    assertEquals(
        "blocks are cached uncompressed: a warm scan decompresses nothing",
        0,
        warm.sumOver("decompress", "blocks"));
  }

  @Test
  public void fastDiffDecodesEveryCellTheScanVisitsAndNoneDecodesNothing() throws Exception {
    TableName fast =
        table(new RawTable.Spec(newTable("fastdiff")).encoding(DataBlockEncoding.FAST_DIFF), ROWS);
    TableName none = table(new RawTable.Spec(newTable("noenc")), ROWS);

    CostSnapshot fastBefore = tableCosts(fast);
    long fastCells = RawTable.scanCells(cluster.connection(), fast, new Scan());
    CostSnapshot f = tableCosts(fast).minus(fastBefore);
    assertEquals(2L * ROWS, fastCells);
    assertEquals(fastCells, f.get("decode.FAST_DIFF.cells"));
    assertEquals(fastCells, f.sumOver("decode", "cells"));

    CostSnapshot noneBefore = tableCosts(none);
    long noneCells = RawTable.scanCells(cluster.connection(), none, new Scan());
    CostSnapshot n = tableCosts(none).minus(noneBefore);
    assertEquals(2L * ROWS, noneCells);
    assertEquals(0, n.sumOver("decode", "cells"));
    assertEquals(0, n.sumOver("decode", "seeks"));
  }

  @Test
  public void aRepeatedGetIsACacheHit() throws Exception {
    TableName t = table(new RawTable.Spec(newTable("get")), ROWS);
    try (Table table = cluster.connection().getTable(t)) {
      Get get = new Get(RawTable.seedRow(ROWS / 2));
      CostSnapshot before = tableCosts(t);
      Result first = table.get(get);
      CostSnapshot cold = tableCosts(t).minus(before);
      assertEquals(2, first.size());
      assertEquals(1, cold.get("blockCache.miss.data"));
      assertEquals(1, cold.get("fs.read.blocks.data"));
      assertEquals(0, cold.get("blockCache.hit.data"));

      CostSnapshot mid = tableCosts(t);
      Result second = table.get(get);
      CostSnapshot warm = tableCosts(t).minus(mid);
      assertEquals(first.toString(), second.toString());
      assertEquals(1, warm.get("blockCache.hit.data"));
      assertEquals(0, misses(warm));
      assertEquals(0, warm.sumKinds("fs.read.blocks"));
    }
  }
}
