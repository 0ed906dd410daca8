package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.RawTable;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
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
import org.apache.hadoop.hbase.io.hfile.CacheStats;
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

  /**
   * GZ, SNAPPY and ZSTD alike: every block read from the file system is decompressed once, taking
   * in its on-disk data less header and checksums and giving out its uncompressed size, as each
   * block's own header in the file says; blocks are cached uncompressed, so a warm scan
   * decompresses nothing.
   */
  @Test
  public void everyAlgorithmDecompressesEveryBlockItReadsFromTheFileSystem() throws Exception {
    for (Compression.Algorithm alg :
        List.of(
            Compression.Algorithm.GZ, Compression.Algorithm.SNAPPY, Compression.Algorithm.ZSTD)) {
      String name = alg.name();
      TableName t =
          table(
              new RawTable.Spec(newTable(name.toLowerCase(Locale.ROOT)))
                  .compression(alg)
                  .blockSize(8192),
              ROWS);
      CostSnapshot before = tableCosts(t);
      long[] scanned = scanWithMetrics(t, Scan.ReadType.PREAD);
      CostSnapshot cold = tableCosts(t).minus(before);

      List<StoreFiles.Block> data =
          StoreFiles.blocks(cluster.regions(t)).stream().filter(StoreFiles.Block::isData).toList();
      assertEquals(
          name + " data blocks in the files", data.size(), cold.get("fs.read.blocks.data"));
      assertEquals(
          name + ": every block read from the file system is a data block",
          cold.get("fs.read.blocks.data"),
          cold.sumKinds("fs.read.blocks"));
      assertEquals(
          name + " blocks decompressed", data.size(), cold.get("decompress." + name + ".blocks"));
      assertEquals(
          name + "'s input: each block's on-disk data, less header and checksums",
          data.stream().mapToLong(StoreFiles.Block::compressedSize).sum(),
          cold.get("decompress." + name + ".bytesIn"));
      assertEquals(
          name + "'s output: each block's uncompressed size",
          data.stream().mapToLong(StoreFiles.Block::uncompressedSizeWithoutHeader).sum(),
          cold.get("decompress." + name + ".bytesOut"));
      // what the codec produced is what HBase's scan metrics say the scan went through
      assertEquals(
          "BLOCK_BYTES_SCANNED = " + name + "'s output: " + cold,
          scanned[1],
          cold.get("decompress." + name + ".bytesOut"));
      assertEquals(0, cold.get("decompress." + name + ".nanos")); // COUNT level: no timings
      assertEquals(data.size(), cold.sumOver("decompress", "blocks"));

      CostSnapshot beforeWarm = tableCosts(t);
      long[] warmScanned = scanWithMetrics(t, Scan.ReadType.DEFAULT);
      CostSnapshot warm = tableCosts(t).minus(beforeWarm);
      printBlockBytes(t, cold, scanned[1], warmScanned[1]);
      assertEquals(
          name + " blocks are cached uncompressed: a warm scan decompresses nothing",
          0,
          warm.sumOver("decompress", "blocks"));
    }
  }

  /**
   * A store file with a three-level block index (index blocks of at most 1 KB): point gets look up
   * its intermediate and leaf index blocks in the block cache, and blockscope counts each hit and
   * miss of each kind as HBase's own {@code CacheStats} does (the server's figures; nothing else
   * here reads a file with a multi-level index). A full scan starts at the file's first data block
   * without the index and reads the leaf index blocks between data blocks as it passes them, not
   * knowing their kind beforehand: {@code CacheStats} counts those misses in its total only,
   * blockscope as leaf index misses, one per leaf block before the file's last data block. The scan
   * reads by pread: a scan that switches to stream reads reseeks its files through the index after
   * its RPC's response ({@code StoreScanner.shipped}), outside any read blockscope attributes.
   */
  @Test
  public void aMultiLevelIndexsLeafAndIntermediateBlocksCountAsCacheStatsCountsThem()
      throws Exception {
    TableName t = newTable("multilevel");
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(t)
            .blockSize(1024)
            .familyConfiguration("hfile.index.block.max.size", "1024"));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, ROWS, 42);
    List<HRegion> regions = cluster.regions(t);
    List<StoreFiles.Block> blocks = StoreFiles.blocks(regions);
    Map<String, Long> byMagic = new TreeMap<>();
    blocks.forEach(b -> byMagic.merge(b.magic(), 1L, Long::sum));
    long lastData =
        blocks.stream()
            .filter(StoreFiles.Block::isData)
            .mapToLong(b -> b.offset())
            .max()
            .getAsLong();
    long leavesPassed =
        blocks.stream().filter(b -> b.magic().equals("IDXLEAF2") && b.offset() < lastData).count();
    System.out.println(
        "a store file with a multi-level index, blocks by kind: "
            + byMagic
            + "; leaf index blocks before its last data block: "
            + leavesPassed);
    assertTrue(byMagic.toString(), byMagic.getOrDefault("IDXINTE2", 0L) > 0);
    assertTrue(byMagic.toString(), leavesPassed > 10);

    StoreFiles.evict(cluster.blockCache(), regions);
    CacheStats stats = cluster.blockCache().getStats();
    long[] statsBefore = indexStats(stats);
    CostSnapshot before = serverCosts();
    assertEquals(2L * ROWS, scanWithMetrics(t, Scan.ReadType.PREAD)[0]);
    try (Table table = cluster.connection().getTable(t)) {
      for (int pk = 0; pk < ROWS; pk += ROWS / 200) {
        assertEquals(2, table.get(new Get(RawTable.seedRow(pk))).size());
      }
    }
    CostSnapshot read = serverCosts().minus(before);
    long[] statsAfter = indexStats(stats);
    System.out.println(
        "a scan and 200 gets: blockscope's "
            + read.nonZero()
            + "; CacheStats' intermediate misses, hits, leaf misses, hits, all misses: "
            + java.util.Arrays.toString(statsBefore)
            + " -> "
            + java.util.Arrays.toString(statsAfter));
    long[] counted = {
      read.get("blockCache.miss.intermediateIndex"),
      read.get("blockCache.hit.intermediateIndex"),
      read.get("blockCache.miss.leafIndex") - leavesPassed,
      read.get("blockCache.hit.leafIndex"),
      misses(read)
    };
    String[] what = {
      "intermediate index misses",
      "intermediate index hits",
      "leaf index misses, less the leaf blocks the scan passed",
      "leaf index hits",
      "misses of every kind"
    };
    for (int i = 0; i < what.length; i++) {
      assertEquals(
          what[i] + " as CacheStats counts them", statsAfter[i] - statsBefore[i], counted[i]);
    }
    assertTrue(read.nonZero().toString(), counted[0] > 0 && counted[1] > 0 && counted[3] > 0);
  }

  private static long[] indexStats(CacheStats s) {
    return new long[] {
      s.getIntermediateIndexMissCount(),
      s.getIntermediateIndexHitCount(),
      s.getLeafIndexMissCount(),
      s.getLeafIndexHitCount(),
      s.getMissCount()
    };
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
