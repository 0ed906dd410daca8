package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.StoreFiles;
import io.blockscope.hints.BlockscopePhoenix;
import io.blockscope.metrics.CostSnapshot;
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

  /**
   * What one statement did to the cache, read cold: data blocks cached, CacheStats deltas (caching
   * misses, misses), blockscope's (the table's data-block misses, the server's misses of every
   * kind), the rows and the first row's first column.
   */
  private record CacheEffect(
      long cachedBlocks,
      long cachingMisses,
      long misses,
      long dataMisses,
      long serverMisses,
      long rows,
      String first) {}

  private static CacheEffect run(Connection c, String sql) throws Exception {
    TableName t = TableName.valueOf(TABLE);
    List<HRegion> regions = cluster.regions(t);
    BlockCache cache = cluster.blockCache();
    StoreFiles.evict(cache, regions);
    CacheStats stats = cache.getStats();
    long cachingMisses = stats.getMissCachingCount();
    long misses = stats.getMissCount();
    CostSnapshot table = tableCosts(t);
    CostSnapshot server = serverCosts();
    long rows = 0;
    String first = null;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        if (rows++ == 0) {
          first = rs.getString(1);
        }
      }
    }
    CacheEffect e =
        new CacheEffect(
            StoreFiles.cachedDataBlocks(cache, regions),
            stats.getMissCachingCount() - cachingMisses,
            stats.getMissCount() - misses,
            tableCosts(t).minus(table).get("blockCache.miss.data"),
            misses(serverCosts().minus(server)),
            rows,
            first);
    assertEquals(
        sql + ": every miss HBase's CacheStats counted, blockscope counted: " + e,
        e.misses(),
        e.serverMisses());
    return e;
  }

  /** The table's data blocks, from its store files' trailers. */
  private static long dataBlocks() {
    return SeedTables.dataBlocksAndCells(cluster.regions(TableName.valueOf(TABLE)))[0];
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
      long blocks = dataBlocks();
      for (int i = 0; i < SHAPES.length; i++) {
        String sql = SHAPES[i];
        CacheEffect e = run(c, sql);
        // every shape reads the whole table from a cold cache; the UNION ALL's branches meet at
        // pk 7000, whose block both read (the first to find the end of its range)
        long read = i == 4 ? blocks + 1 : blocks;
        assertEquals(sql + " read every data block: " + e, read, e.dataMisses());
        assertEquals(sql + " cached nothing: " + e, 0, e.cachedBlocks());
        assertEquals(sql + ": CacheStats counted no caching miss: " + e, 0, e.cachingMisses());
      }
      CacheEffect cached = run(c, SHAPES[0].replace("/*+ NO_CACHE */ ", ""));
      assertEquals(
          "without the hint the same scan caches every data block: " + cached,
          blocks,
          cached.cachedBlocks());
      assertEquals(cached.toString(), blocks, cached.dataMisses());
      assertEquals(
          "every miss of the unhinted scan asked to cache: " + cached,
          cached.misses(),
          cached.cachingMisses());
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
      assertEquals(Integer.toString(ROWS), e.first());
      assertEquals(e.toString(), dataBlocks(), e.dataMisses());
      assertEquals(0, e.cachedBlocks());
      assertEquals(0, e.cachingMisses());
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
