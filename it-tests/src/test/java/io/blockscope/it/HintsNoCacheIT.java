package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.StoreFiles;
import io.blockscope.hints.BlockscopePhoenix;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.CacheStats;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * blockscope's NO_CACHE through its JDBC driver ({@code jdbc:blockscope:phoenix:...}) on a table
 * split into four regions: every scan of every query shape leaves the block cache as it was,
 * including the shapes where Phoenix's own NO_CACHE does not reach every scan (a UNION ALL's second
 * branch). HBase's CacheStats agrees: the scans miss without caching.
 */
public class HintsNoCacheIT extends ClusterTestBase {
  private static final String TABLE = "HINTS_NC";
  private static final int ROWS = 20_000;

  @BeforeClass
  public static void load() throws Exception {
    SeedTables.createSplit(cluster, TABLE, ROWS, 11, "BLOCKSIZE=8192");
  }

  private static Connection blockscope() throws SQLException {
    return SeedTables.blockscope(cluster);
  }

  /** What one statement did to the cache, read cold: data blocks cached, CacheStats deltas. */
  private record CacheEffect(long cachedBlocks, long cachingMisses, long misses, long rows) {}

  private static CacheEffect run(Connection c, String sql) throws Exception {
    List<HRegion> regions = cluster.regions(TableName.valueOf(TABLE));
    BlockCache cache = cluster.blockCache();
    StoreFiles.evict(cache, regions);
    CacheStats stats = cache.getStats();
    long cachingMisses = stats.getMissCachingCount();
    long misses = stats.getMissCount();
    long rows = 0;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        rows++;
      }
    }
    return new CacheEffect(
        StoreFiles.cachedDataBlocks(cache, regions),
        stats.getMissCachingCount() - cachingMisses,
        stats.getMissCount() - misses,
        rows);
  }

  private static final String[] SHAPES = {
    "SELECT /*+ NO_CACHE */ COUNT(*) FROM " + TABLE,
    "SELECT /*+ NO_CACHE */ pk, v1 FROM " + TABLE + " WHERE v2 < 0.5",
    "SELECT /*+ NO_CACHE */ pk FROM " + TABLE + " ORDER BY v1 LIMIT 10",
    "SELECT /*+ NO_CACHE */ ROUND(v1, 1), COUNT(*) FROM " + TABLE + " GROUP BY ROUND(v1, 1)",
    "SELECT /*+ NO_CACHE */ pk FROM "
        + TABLE
        + " WHERE pk < 7000 UNION ALL SELECT pk FROM "
        + TABLE
        + " WHERE pk >= 7000",
  };

  @Test
  public void noCacheLeavesTheCacheAsItWasForEveryQueryShape() throws Exception {
    try (Connection c = blockscope()) {
      for (String sql : SHAPES) {
        CacheEffect e = run(c, sql);
        assertTrue(sql + " read blocks: " + e, e.misses() > 0);
        assertEquals(sql + " cached nothing: " + e, 0, e.cachedBlocks());
        assertEquals(sql + ": CacheStats counted no caching miss: " + e, 0, e.cachingMisses());
      }
      CacheEffect cached = run(c, SHAPES[0].replace("/*+ NO_CACHE */ ", ""));
      assertTrue(
          "without the hint the same scan fills the cache: " + cached,
          cached.cachedBlocks() > 20 && cached.cachingMisses() >= cached.cachedBlocks());
    }
  }

  @Test
  public void stockPhoenixCachesTheSecondBranchOfAUnionAndBlockscopeDoesNot() throws Exception {
    String union = SHAPES[4];
    CacheEffect stock;
    try (Connection c = cluster.phoenix()) {
      stock = run(c, union);
    }
    CacheEffect ours;
    try (Connection c = BlockscopePhoenix.wrap(cluster.phoenix())) {
      ours = run(c, union);
    }
    assertEquals(ROWS, stock.rows());
    assertEquals(ROWS, ours.rows());
    assertTrue("Phoenix's NO_CACHE misses the unhinted branch: " + stock, stock.cachedBlocks() > 0);
    assertEquals(0, ours.cachedBlocks());
  }

  /** Seed 000's statement as written, trailing semicolon included. */
  @Test
  public void theSeedsStatementRunsUnchanged() throws Exception {
    try (Connection c = blockscope()) {
      CacheEffect e = run(c, "select /*+ NO_CACHE */ count(*) from " + TABLE + ";");
      assertEquals(1, e.rows());
      assertEquals(0, e.cachedBlocks());
    }
  }

  @Test
  public void explainSaysWhichExtensionsApply() throws Exception {
    List<String> plan = new ArrayList<>();
    try (Connection c = blockscope();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("EXPLAIN " + SHAPES[1])) {
      while (rs.next()) {
        plan.add(rs.getString(1));
      }
    }
    System.out.println("EXPLAIN " + SHAPES[1] + "\n" + String.join("\n", plan));
    assertTrue(plan.toString(), plan.get(0).contains("PARALLEL"));
    assertEquals(
        "BLOCKSCOPE NO_CACHE: every scan of this query runs with block caching off",
        plan.get(plan.size() - 1));
  }

  @Test
  public void badHintArgumentsAreErrorsAndUnknownHintsAreIgnored() throws Exception {
    try (Connection c = blockscope();
        Statement s = c.createStatement()) {
      SQLException e =
          assertThrows(
              SQLException.class,
              () -> s.executeQuery("SELECT /*+ NO_CACHE(yes) */ COUNT(*) FROM " + TABLE));
      assertEquals("42601", e.getSQLState());
      try (ResultSet rs =
          s.executeQuery("SELECT /*+ NO_SUCH_HINT(1) NO_CACHE */ COUNT(*) FROM " + TABLE)) {
        assertTrue(rs.next());
        assertEquals(ROWS, rs.getLong(1));
      }
    }
  }
}
