package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.SeedTable;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.io.hfile.CacheStats;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The seeds' Phoenix table, read through Phoenix with its server side loaded: blockscope sees what
 * Phoenix's {@code NO_CACHE} hint does to the block cache (seed 000).
 */
public class PhoenixNoCacheIT extends ClusterTestBase {
  private static final String TABLE = "SEED_T";
  private static final int ROWS = 20_000;

  @BeforeClass
  public static void load() throws Exception {
    // a second run of this class in this JVM (the miscount drill) takes the table as it is
    if (!cluster.admin().tableExists(TableName.valueOf(TABLE))) {
      try (Connection c = cluster.phoenix();
          Statement s = c.createStatement()) {
        s.execute(
            "CREATE TABLE "
                + TABLE
                + " (pk INTEGER PRIMARY KEY, v1 FLOAT, v2 FLOAT) BLOCKSIZE=8192");
        SeedTable.fill(c, TABLE, ROWS, 5);
      }
      cluster.admin().flush(TableName.valueOf(TABLE));
    }
    StoreFiles.evict(cluster.blockCache(), cluster.regions(TableName.valueOf(TABLE)));
  }

  private static CostSnapshot query(String sql, long expected) throws Exception {
    CostSnapshot before = tableCosts(TableName.valueOf(TABLE));
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      assertTrue(rs.next());
      assertEquals(sql, expected, rs.getLong(1));
    }
    return tableCosts(TableName.valueOf(TABLE)).minus(before);
  }

  @Test
  public void noCacheScansMissEveryTimeWhileCachedScansHitTheSecondTime() throws Exception {
    long[] truth = SeedTables.dataBlocksAndCells(cluster.regions(TableName.valueOf(TABLE)));
    long dataBlocks = truth[0];
    CacheStats stats = cluster.blockCache().getStats();
    long statsMisses = stats.getMissCount();
    long serverMisses = misses(serverCosts());
    CostSnapshot first = query("SELECT /*+ NO_CACHE */ COUNT(*) FROM " + TABLE, ROWS);
    System.out.println(
        "NO_CACHE COUNT(*) over "
            + dataBlocks
            + " data blocks, "
            + truth[1]
            + " cells: "
            + first.nonZero());
    assertEquals(
        "every data block in the trailers missed", dataBlocks, first.get("blockCache.miss.data"));
    assertEquals(
        "every miss HBase's CacheStats counted, blockscope counted",
        stats.getMissCount() - statsMisses,
        misses(serverCosts()) - serverMisses);
    assertEquals(dataBlocks, first.get("fs.read.blocks.data"));
    assertEquals(
        "HBase verified every block it read",
        first.sumKinds("fs.read.bytes"),
        first.get("checksum.bytes"));

    CostSnapshot second = query("SELECT /*+ NO_CACHE */ COUNT(*) FROM " + TABLE, ROWS);
    assertEquals(
        "NO_CACHE left nothing in the cache", dataBlocks, second.get("blockCache.miss.data"));
    assertEquals(0, second.get("blockCache.hit.data"));

    CostSnapshot caching = query("SELECT COUNT(*) FROM " + TABLE, ROWS);
    assertEquals(dataBlocks, caching.get("blockCache.miss.data"));
    CostSnapshot cached = query("SELECT COUNT(*) FROM " + TABLE, ROWS);
    assertEquals(dataBlocks, cached.get("blockCache.hit.data"));
    assertEquals(0, cached.get("blockCache.miss.data"));
    assertEquals(0, cached.sumKinds("fs.read.blocks"));

    // Phoenix's default encoding is FAST_DIFF: three cells a row (v1, v2 and Phoenix's empty
    // column). COUNT(*) skips to the next row with seeks, and a FAST_DIFF seek walks the block
    // from its start: the scan decodes every cell at least once, and some more than once.
    System.out.println("cached COUNT(*): " + cached.nonZero());
    assertEquals(3L * ROWS, truth[1]);
    // a few cells are decoded again where a seek to the next row lands in a new block (see
    // HintsProfileIT.assertCells): bounded at 5% more
    long decoded = cached.get("decode.FAST_DIFF.cells");
    assertTrue(cached.toString(), decoded >= truth[1] && decoded <= truth[1] * 21 / 20);
    assertTrue(cached.get("decode.FAST_DIFF.seeks") > 0);
  }

  @Test
  public void aPointSelectReadsOneDataBlock() throws Exception {
    query("SELECT COUNT(*) FROM " + TABLE, ROWS); // warm
    CostSnapshot point = query("SELECT COUNT(*) FROM " + TABLE + " WHERE pk = 4321", 1);
    assertEquals(1, point.get("blockCache.hit.data"));
    assertEquals(0, point.get("blockCache.miss.data"));
  }
}
