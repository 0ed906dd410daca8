package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.StoreFiles;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Relationships 1 and 3 of docs/relationships.md: what encodings and compressions do to the size of
 * the seeds' table on disk and in the block cache (seeds 000 and 002). Sizes are the store file
 * bytes of the same {@value SeedTables#ROWS} rows after a major compaction, 64 KB blocks.
 */
public class SizeRelationsIT extends ClusterTestBase {
  private static final List<String> ENCODINGS =
      List.of("NONE", "PREFIX", "FAST_DIFF", "ROW_INDEX_V1");
  private static final List<String> COMPRESSIONS = List.of("NONE", "SNAPPY", "GZ", "ZSTD");
  private static final Map<String, Long> SIZE = new LinkedHashMap<>();

  @BeforeClass
  public static void loadEveryCombination() throws Exception {
    for (String e : ENCODINGS) {
      for (String c : COMPRESSIONS) {
        String config = c.equals("NONE") ? e : e + "+" + c;
        String table = SeedTables.get(cluster, config);
        SIZE.put(config, SeedTables.storeFileBytes(cluster.regions(TableName.valueOf(table))));
      }
    }
    System.out.println("store file bytes of " + SeedTables.ROWS + " seed rows: " + SIZE);
  }

  private static long size(String encoding, String compression) {
    return SIZE.get(compression.equals("NONE") ? encoding : encoding + "+" + compression);
  }

  /**
   * Seed 000, TL;DR 1: "Not using compression or encoding is not an option"; every compression
   * shrinks every encoding's files.
   */
  @Test
  public void everyCompressionIsSmallerThanNoneForTheSameEncoding() {
    for (String e : ENCODINGS) {
      for (String c : COMPRESSIONS.subList(1, COMPRESSIONS.size())) {
        assertTrue(
            e + "+" + c + " " + size(e, c) + " < " + e + " " + size(e, "NONE"),
            size(e, c) < size(e, "NONE"));
      }
    }
  }

  /** Seed 002: "zSTD offers the best compression, followed by GZ, and SNAPPY." */
  @Test
  public void zstdIsNoLargerThanGzWhichIsNoLargerThanSnappy() {
    for (String e : ENCODINGS) {
      assertTrue(
          e + ": ZSTD " + size(e, "ZSTD") + " <= GZ " + size(e, "GZ"),
          size(e, "ZSTD") <= size(e, "GZ"));
      assertTrue(
          e + ": GZ " + size(e, "GZ") + " <= SNAPPY " + size(e, "SNAPPY"),
          size(e, "GZ") <= size(e, "SNAPPY"));
    }
  }

  /** Seed 002: "The ROW_INDEX adds a bit more data (~3% for these small Cells)." */
  @Test
  public void rowIndexV1IsAFewPercentLargerThanNone() {
    double ratio = (double) size("ROW_INDEX_V1", "NONE") / size("NONE", "NONE");
    assertTrue("ROW_INDEX_V1 / NONE = " + ratio, ratio > 1.0 && ratio < 1.10);
  }

  /** Seed 000: 875 MB FAST_DIFF against 2922 MB NONE, 30%. */
  @Test
  public void fastDiffIsFarSmallerThanNone() {
    double ratio = (double) size("FAST_DIFF", "NONE") / size("NONE", "NONE");
    assertTrue("FAST_DIFF / NONE = " + ratio, ratio < 0.5);
  }

  /**
   * Seed 000's footprint table: GZIP 595 MB, FAST_DIFF 875, SNAPPY 993, PREFIX 1739, NONE 2922. On
   * this data SNAPPY comes out smaller than FAST_DIFF (docs/relationships.md gives the figures);
   * the rest of the order holds. The test pins the order measured here so that a change of it is
   * noticed.
   */
  @Test
  public void seed000FootprintOrderAsMeasuredHere() {
    List<String> order = new ArrayList<>(List.of("GZ", "SNAPPY", "FAST_DIFF", "PREFIX", "NONE"));
    List<Long> sizes = new ArrayList<>();
    for (String config : order) {
      sizes.add(
          config.equals("GZ") || config.equals("SNAPPY")
              ? size("NONE", config)
              : size(config, "NONE"));
    }
    for (int i = 1; i < sizes.size(); i++) {
      assertTrue(order + " should be ascending: " + sizes, sizes.get(i - 1) < sizes.get(i));
    }
  }

  /**
   * Seed 000, TL;DR 6: FAST_DIFF "will allow more data to fit into the block cache, since the data
   * is cached in its encoded form"; and "all schemes except FAST_DIFF/PREFIX store the blocks in
   * uncompressed form", so GZ takes as much cache as NONE.
   */
  @Test
  public void encodedBlocksHoldTheSameRowsInFewerCacheBytes() throws Exception {
    long none = cachedDataBytesAfterScan("NONE");
    long fastDiff = cachedDataBytesAfterScan("FAST_DIFF");
    long prefix = cachedDataBytesAfterScan("PREFIX");
    long gz = cachedDataBytesAfterScan("GZ");
    System.out.println(
        "block cache bytes of the seed rows: NONE "
            + none
            + ", FAST_DIFF "
            + fastDiff
            + ", PREFIX "
            + prefix
            + ", GZ "
            + gz);
    assertTrue("FAST_DIFF " + fastDiff + " < NONE " + none + " / 2", fastDiff < none / 2);
    assertTrue("PREFIX " + prefix + " < NONE " + none, prefix < none);
    double gzRatio = (double) gz / none;
    assertTrue(
        "GZ blocks are cached decompressed: GZ / NONE = " + gzRatio,
        gzRatio > 0.95 && gzRatio < 1.05);
  }

  /** Scans a seed table into a cold cache and sums the heap size of its cached data blocks. */
  private static long cachedDataBytesAfterScan(String config) throws Exception {
    String table = SeedTables.get(cluster, config);
    List<HRegion> regions = cluster.regions(TableName.valueOf(table));
    BlockCache cache = cluster.blockCache();
    StoreFiles.evict(cache, regions);
    assertEquals(
        SeedTables.ROWS,
        SeedTables.queryLong(cluster, "SELECT /*+ SERIAL */ COUNT(*) FROM " + table));
    List<String> files = StoreFiles.names(regions);
    long bytes = 0;
    long blocks = 0;
    for (CachedBlock b : cache) {
      if (files.contains(b.getFilename()) && b.getBlockType().isData()) {
        bytes += b.getSize();
        blocks++;
      }
    }
    assertEquals(
        config + ": every data block was cached",
        SeedTables.dataBlocksAndCells(regions)[0],
        blocks);
    return bytes;
  }
}
