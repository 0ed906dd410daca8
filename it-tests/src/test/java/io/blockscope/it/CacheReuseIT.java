package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CacheReuse;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.workloads.RawTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.io.hfile.BlockPriority;
import org.apache.hadoop.hbase.io.hfile.CacheStats;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.io.hfile.LruBlockCache;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Blocks entering and leaving the block cache, by table (docs/metrics.md, "Block cache reuse"),
 * exact against HBase's own figures: the cache's {@code CacheStats}, its resident blocks and their
 * priorities, never blockscope's.
 */
public class CacheReuseIT extends ClusterTestBase {
  private static final int ROWS = 8_000;
  private static TableName table;

  @BeforeClass
  public static void load() throws Exception {
    assertTrue(
        "the cacheReuse probe is installed",
        cluster.diagnostics().probeInstalled(ProbeBridge.CACHE_REUSE));
    table = newTable("CACHE_REUSE");
    RawTable.create(cluster.admin(), new RawTable.Spec(table).blockSize(4096));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), table, ROWS, 5);
    SeedTables.compact(cluster, table);
  }

  @AfterClass
  public static void drop() throws Exception {
    cluster.admin().disableTable(table);
    cluster.admin().deleteTable(table);
  }

  private static long data(int counter) {
    return cacheReuse(table, CostLayout.KIND_DATA, counter);
  }

  /** The table's exported series of a counter (0 while it has none), after three refreshes. */
  private static long series(int counter) {
    for (int i = 0; i < 3; i++) {
      cluster.diagnostics().refreshExport();
    }
    var c =
        cluster
            .diagnostics()
            .registry()
            .metrics()
            .getCounters()
            .get(
                MetricKeys.table(
                    table.getNameAsString(),
                    CacheReuse.name(CacheReuse.slot(CostLayout.KIND_DATA, counter))));
    return c == null ? 0 : c.getCount();
  }

  /**
   * A cached scan through the region server puts each data block of the table into its (large)
   * block cache once, and clearing the table's blocks removes each: the table's exported series
   * against the blocks the cache holds of the table's store files.
   */
  @Test
  public void theServersCacheCountsEachBlockOfTheTableInAndOut() throws Exception {
    List<HRegion> regions = cluster.regions(table);
    StoreFiles.evict(cluster.blockCache(), regions);
    long inserted = series(CacheReuse.INSERTED);
    long removed = series(CacheReuse.REMOVED);
    long evicted = series(CacheReuse.EVICTED);

    RawTable.scanCells(cluster.connection(), table, new Scan());
    long resident = StoreFiles.cachedDataBlocks(cluster.blockCache(), regions);
    assertEquals(
        "every data block of the table is in the cache",
        SeedTables.dataBlocksAndCells(regions)[0],
        resident);
    assertEquals("inserted", resident, series(CacheReuse.INSERTED) - inserted);

    StoreFiles.evict(cluster.blockCache(), regions);
    assertEquals(0, StoreFiles.cachedDataBlocks(cluster.blockCache(), regions));
    assertEquals("removed with their files", resident, series(CacheReuse.REMOVED) - removed);
    assertEquals("none evicted to make room", 0, series(CacheReuse.EVICTED) - evicted);
  }

  /** Resident blocks of {@code cache} with {@code priority}. */
  private static long resident(LruBlockCache cache, BlockPriority priority) {
    long n = 0;
    for (CachedBlock b : cache) {
      if (b.getBlockPriority() == priority) {
        n++;
      }
    }
    return n;
  }

  /**
   * HBase's own HFile reader reads the table's store file through an LRU cache about a quarter of
   * its size, whose evictions run on the inserting thread (no eviction thread), so that every
   * figure is known when a read returns:
   *
   * <ol>
   *   <li>a cached scan of the whole file: every block is inserted (HBase's missCachingCount), the
   *       cache evicts (its evictedCount) all but the last quarter, none of them read;
   *   <li>each block still there is read once (HBase's hitCount): each becomes MULTI;
   *   <li>a cached scan of the file's first 60 %, none of which is there: the cache evicts read
   *       blocks and unread ones, and the read ones are those no longer there of the MULTI ones.
   * </ol>
   */
  @Test
  public void evictionsOfUnreadBlocksAreExactAgainstTheCachesOwnPriorities() throws Exception {
    Configuration conf = new Configuration(cluster.util().getConfiguration());
    Path file = PrivateLruRead.largestStoreFile(cluster.regions(table));
    try (PrivateLruRead read = PrivateLruRead.of(file, conf, 4)) {
      long blocks = read.blocks;
      assertTrue("the file has enough blocks: " + blocks, blocks >= 40);
      LruBlockCache cache = read.cache;
      CacheStats stats = cache.getStats();
      // 1. the whole file, cold
      long inserted = data(CacheReuse.INSERTED);
      long evicted = data(CacheReuse.EVICTED);
      long unread = data(CacheReuse.EVICTED_UNREAD);
      long unknown = data(CacheReuse.EVICTED_HIT_UNKNOWN);
      long misses = stats.getMissCachingCount();
      long evictedByHBase = stats.getEvictedCount();
      long hits = stats.getHitCount();
      read.scan(Long.MAX_VALUE);
      assertEquals("inserted: HBase's cached misses", blocks, stats.getMissCachingCount() - misses);
      assertEquals("inserted", blocks, data(CacheReuse.INSERTED) - inserted);
      assertEquals("no block was found twice", 0, stats.getHitCount() - hits);
      long firstEvictions = stats.getEvictedCount() - evictedByHBase;
      assertTrue(
          "the cache evicted most of the file: " + firstEvictions, firstEvictions > blocks / 2);
      assertEquals(
          "evicted: HBase's own count", firstEvictions, data(CacheReuse.EVICTED) - evicted);
      assertEquals(
          "evicted unread: all of them, none was read",
          firstEvictions,
          data(CacheReuse.EVICTED_UNREAD) - unread);
      assertEquals(
          "inserted less evicted: what the cache holds",
          cache.getDataBlockCount(),
          data(CacheReuse.INSERTED) - inserted - (data(CacheReuse.EVICTED) - evicted));
      assertEquals(
          "all resident blocks are unread",
          cache.getDataBlockCount(),
          resident(cache, BlockPriority.SINGLE));

      // 2. each resident block read once
      List<Long> offsets = new ArrayList<>();
      for (CachedBlock b : cache) {
        offsets.add(b.getOffset());
      }
      hits = stats.getHitCount();
      for (long offset : offsets) {
        HFileBlock b = read.reader.readBlock(offset, -1, true, true, false, true, null, null);
        b.release();
      }
      assertEquals("each was found", offsets.size(), stats.getHitCount() - hits);
      long multi = resident(cache, BlockPriority.MULTI);
      assertEquals("each is MULTI now", offsets.size(), multi);

      // 3. the first 60 % of the file, none of it resident
      evicted = data(CacheReuse.EVICTED);
      unread = data(CacheReuse.EVICTED_UNREAD);
      evictedByHBase = stats.getEvictedCount();
      hits = stats.getHitCount();
      read.scan(ROWS * 2L * 6 / 10);
      assertEquals("no block was found", 0, stats.getHitCount() - hits);
      long evictions = stats.getEvictedCount() - evictedByHBase;
      long readEvicted = multi - resident(cache, BlockPriority.MULTI);
      assertTrue("read blocks were evicted: " + readEvicted, readEvicted > 0);
      assertTrue("unread blocks were evicted", evictions > readEvicted);
      assertEquals("evicted: HBase's own count", evictions, data(CacheReuse.EVICTED) - evicted);
      assertEquals(
          "evicted unread: the evicted less the read ones gone",
          evictions - readEvicted,
          data(CacheReuse.EVICTED_UNREAD) - unread);
      assertEquals("no in-memory block", 0, data(CacheReuse.EVICTED_HIT_UNKNOWN) - unknown);

      System.out.printf(
          "CacheReuseIT: %d blocks through a cache of %d; scan 1 evicted %d unread; scan 3"
              + " evicted %d, %d of them read%n",
          blocks, offsets.size(), firstEvictions, evictions, readEvicted);

      // the file's blocks taken out with it
      long removed = data(CacheReuse.REMOVED);
      long held = cache.getDataBlockCount();
      cache.evictBlocksByHfileName(file.getName());
      assertEquals("removed", held, data(CacheReuse.REMOVED) - removed);
    }
  }
}
