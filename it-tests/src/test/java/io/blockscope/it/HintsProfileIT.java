package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.StoreFiles;
import io.blockscope.hints.BlockscopePhoenix;
import io.blockscope.hints.BlockscopeResultSet;
import io.blockscope.hints.QueryProfile;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.CostSnapshot;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * PROFILE through blockscope's JDBC driver on a table split into four regions: a query's profile
 * holds, region by region, exactly what that region's blockscope metrics rose by while the query
 * ran, and two queries running at once each get their own.
 */
public class HintsProfileIT extends ClusterTestBase {
  private static final String TABLE = "HINTS_PROFILE";
  private static final int ROWS = 20_000;

  @BeforeClass
  public static void load() throws Exception {
    SeedTables.createSplit(cluster, TABLE, ROWS, 13, "BLOCKSIZE=8192");
  }

  private static List<HRegion> regions() {
    return cluster.regions(TableName.valueOf(TABLE));
  }

  private static Map<String, CostSnapshot> snapshots() {
    Map<String, CostSnapshot> m = new HashMap<>();
    for (HRegion r : regions()) {
      m.put(r.getRegionInfo().getEncodedName(), regionCosts(r));
    }
    return m;
  }

  private static HRegion region(String encodedName) {
    for (HRegion r : regions()) {
      if (r.getRegionInfo().getEncodedName().equals(encodedName)) {
        return r;
      }
    }
    throw new AssertionError("no region " + encodedName + " in " + TABLE);
  }

  /**
   * What the HFile trailers of a profile's regions say a full scan of them reads from a cold cache:
   * each region's data blocks missed and read from the file system once, none hit, and its cells
   * decoded (see {@link #assertCells}).
   */
  private static void assertAFullColdScan(QueryProfile p) {
    for (QueryProfile.Region r : p.regions()) {
      long[] truth = SeedTables.dataBlocksAndCells(List.of(region(r.region())));
      String where = r.region() + " " + p.toText();
      assertEquals(where, truth[0], r.get("blockCache.miss.data"));
      assertEquals(where, truth[0], r.get("fs.read.blocks.data"));
      assertEquals(where, 0, r.get("blockCache.hit.data"));
      assertCells(truth[1], r.get("decode.FAST_DIFF.cells"), where);
    }
  }

  /**
   * A scan decodes every cell of its regions, and a few again: Phoenix's filters skip to the next
   * row or column by seeking, and a FAST_DIFF seek that lands in a new block decodes from its start
   * (measured: 15,135 cells per 15,000-cell region for COUNT(*), 15,274 for the filtered scan,
   * +0.9% and +1.8%); bounded here at 5% more.
   */
  private static void assertCells(long cells, long decoded, String where) {
    assertTrue(
        "every cell decoded, and at most 5% again: " + decoded + " for " + cells + " " + where,
        decoded >= cells && decoded <= cells * 21 / 20);
  }

  /**
   * Block cache misses so far as HBase's own CacheStats counts them, and as blockscope counts them
   * over the whole server. (CacheStats' per-type counts miss the blocks whose type HBase learns
   * only after reading them, and its hits include the reads Phoenix's endpoints make outside any
   * RPC frame, so all-kind misses are what the two can agree on exactly.)
   */
  private static long[] misses() {
    return new long[] {cluster.blockCache().getStats().getMissCount(), misses(serverCosts())};
  }

  private static void assertMissesAsCacheStats(long[] before) {
    long[] after = misses();
    assertEquals(
        "block cache misses blockscope counted = HBase's CacheStats",
        after[0] - before[0],
        after[1] - before[1]);
  }

  /** Runs a query to its end through blockscope and returns its profile and row count. */
  @SuppressWarnings("try") // closed before the profile is read, which needs it closed
  private static QueryProfile profiled(Connection c, String sql, long[] rowsOut) throws Exception {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      long n = 0;
      while (rs.next()) {
        n++;
      }
      if (rowsOut != null) {
        rowsOut[0] = n;
      }
      rs.close();
      return rs.unwrap(BlockscopeResultSet.class).profile();
    }
  }

  /** Every cost of every region: the sum of the profiles that touched it = what it rose by. */
  private static void assertProfilesAddUp(
      Map<String, CostSnapshot> before, Map<String, CostSnapshot> after, QueryProfile... profiles) {
    for (Map.Entry<String, CostSnapshot> e : after.entrySet()) {
      CostSnapshot rose = e.getValue().minus(before.get(e.getKey()));
      for (int slot = CostLayout.FIRST_COST; slot < CostLayout.SIZE; slot++) {
        String name = CostLayout.name(slot);
        long profiled = 0;
        for (QueryProfile p : profiles) {
          for (QueryProfile.Region r : p.regions()) {
            if (r.region().equals(e.getKey())) {
              profiled += r.get(name);
            }
          }
        }
        assertEquals(e.getKey() + " " + name, rose.get(name), profiled);
      }
    }
  }

  @Test
  public void aScansProfileIsWhatEachRegionSpentOnIt() throws Exception {
    StoreFiles.evict(cluster.blockCache(), regions());
    long[] rows = new long[1];
    Map<String, CostSnapshot> before = snapshots();
    long[] missesBefore = misses();
    QueryProfile p;
    try (Connection c = SeedTables.blockscope(cluster)) {
      p = profiled(c, "SELECT /*+ PROFILE */ pk, v1 FROM " + TABLE + " WHERE v2 < 0.5", rows);
    }
    Map<String, CostSnapshot> after = snapshots();
    System.out.println(p.toText());
    assertMissesAsCacheStats(missesBefore);
    assertEquals(4, p.regions().size());
    assertEquals("rows the region scanners returned", rows[0], p.rows());
    assertAFullColdScan(p);
    assertProfilesAddUp(before, after, p);
  }

  @Test
  @SuppressWarnings("try") // closed before the profile is read, which needs it closed
  public void pointSelectsAreProfiledInTheOneRegionTheyRead() throws Exception {
    try (Connection c = SeedTables.blockscope(cluster);
        PreparedStatement ps =
            c.prepareStatement("SELECT /*+ PROFILE */ pk, v1 FROM " + TABLE + " WHERE pk = ?")) {
      for (int pk : new int[] {7, 5_003, 12_345, 19_999}) {
        ps.setInt(1, pk);
        Map<String, CostSnapshot> before = snapshots();
        long[] missesBefore = misses();
        QueryProfile p;
        try (ResultSet rs = ps.executeQuery()) {
          assertTrue(rs.next());
          assertEquals(pk, rs.getInt(1));
          rs.close();
          p = rs.unwrap(BlockscopeResultSet.class).profile();
        }
        Map<String, CostSnapshot> after = snapshots();
        assertEquals(p.toText(), 1, p.regions().size());
        assertEquals(1, p.rows());
        assertEquals(
            "a three-cell row is in one data block: " + p.toText(),
            1,
            p.total("blockCache.hit.data") + p.total("blockCache.miss.data"));
        assertMissesAsCacheStats(missesBefore);
        assertProfilesAddUp(before, after, p);
      }
    }
  }

  @Test
  public void twoQueriesAtOnceGetTheirOwnCosts() throws Exception {
    StoreFiles.evict(cluster.blockCache(), regions());
    String count = "SELECT /*+ PROFILE */ COUNT(*) FROM " + TABLE;
    String filtered = "SELECT /*+ PROFILE */ pk FROM " + TABLE + " WHERE v1 < 0.3";
    long matching =
        SeedTables.queryLong(cluster, "SELECT COUNT(*) FROM " + TABLE + " WHERE v1 < 0.3");
    Map<String, CostSnapshot> before = snapshots();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    QueryProfile a;
    QueryProfile b;
    long[] rowsB = new long[1];
    try (Connection c1 = SeedTables.blockscope(cluster);
        Connection c2 = SeedTables.blockscope(cluster)) {
      Future<QueryProfile> fa = pool.submit(() -> profiled(c1, count, null));
      Future<QueryProfile> fb = pool.submit(() -> profiled(c2, filtered, rowsB));
      a = fa.get();
      b = fb.get();
    } finally {
      pool.shutdown();
    }
    Map<String, CostSnapshot> after = snapshots();
    assertTrue(!a.queryId().equals(b.queryId()));
    assertEquals("COUNT(*) read every row", ROWS, a.rows());
    assertEquals("the filtered scan returned its own rows", matching, rowsB[0]);
    assertEquals(matching, b.rows());
    long[] truth = SeedTables.dataBlocksAndCells(regions());
    assertCells(truth[1], a.total("decode.FAST_DIFF.cells"), a.toText());
    assertCells(truth[1], b.total("decode.FAST_DIFF.cells"), b.toText());
    assertEquals(
        "every data block is read by both queries, from the file system or the cache",
        2 * truth[0],
        a.total("blockCache.hit.data")
            + a.total("blockCache.miss.data")
            + b.total("blockCache.hit.data")
            + b.total("blockCache.miss.data"));
    assertProfilesAddUp(before, after, a, b);
  }

  @Test
  public void timeIsMeasuredForTheProfiledQueryOnly() throws Exception {
    StoreFiles.evict(cluster.blockCache(), regions());
    QueryProfile timed;
    QueryProfile counted;
    try (Connection c = SeedTables.blockscope(cluster)) {
      timed = profiled(c, "SELECT /*+ PROFILE(TIME) */ COUNT(*) FROM " + TABLE, null);
      counted = profiled(c, "SELECT /*+ PROFILE */ COUNT(*) FROM " + TABLE, null);
    }
    assertTrue(timed.toText(), timed.total("decode.FAST_DIFF.nanos") > 0);
    assertTrue(timed.toText(), timed.total("checksum.nanos") > 0);
    assertAFullColdScan(timed);
    assertEquals(0, counted.total("decode.FAST_DIFF.nanos"));
    assertEquals(0, counted.total("checksum.nanos"));
    long[] truth = SeedTables.dataBlocksAndCells(regions());
    assertEquals(counted.toText(), truth[0], counted.total("blockCache.hit.data"));
    assertCells(truth[1], counted.total("decode.FAST_DIFF.cells"), counted.toText());
  }

  @Test
  public void anUnknownOrMalformedIdGivesAnEmptyProfile() throws Exception {
    try (Connection c = SeedTables.blockscope(cluster)) {
      assertTrue(
          BlockscopePhoenix.fetchProfile(c, TABLE, "0123456789abcdef0123456789abcdef")
              .regions()
              .isEmpty());
      assertTrue(BlockscopePhoenix.fetchProfile(c, TABLE, "not an id").regions().isEmpty());
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + TABLE)) {
        SQLException e =
            assertThrows(SQLException.class, () -> rs.unwrap(BlockscopeResultSet.class).profile());
        assertTrue(e.getMessage(), e.getMessage().contains("no PROFILE hint"));
      }
    }
  }
}
