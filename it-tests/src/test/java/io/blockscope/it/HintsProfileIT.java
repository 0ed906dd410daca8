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
import io.blockscope.metrics.profile.ProfileWire;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * PROFILE and EXPLAIN ANALYZE through blockscope's JDBC driver on a table split into four regions:
 * a query's profile holds, region by region, exactly what that region's blockscope metrics rose by
 * while the query ran, and two queries running at once each get their own; EXPLAIN ANALYZE shows
 * the same figures as rows, in text and in JSON.
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
    Map<String, Map<String, Long>> recorded = new HashMap<>();
    for (QueryProfile p : profiles) {
      for (QueryProfile.Region r : p.regions()) {
        Map<String, Long> costs = recorded.computeIfAbsent(r.region(), k -> new HashMap<>());
        r.costs().forEach((k, v) -> costs.merge(k, v, Long::sum));
      }
    }
    assertRegionsRoseBy(before, after, recorded);
  }

  /**
   * Every cost of every region rose by what {@code recorded} says for it (a cost or a region it
   * does not name: by nothing).
   */
  private static void assertRegionsRoseBy(
      Map<String, CostSnapshot> before,
      Map<String, CostSnapshot> after,
      Map<String, Map<String, Long>> recorded) {
    for (Map.Entry<String, CostSnapshot> e : after.entrySet()) {
      CostSnapshot rose = e.getValue().minus(before.get(e.getKey()));
      Map<String, Long> costs = recorded.getOrDefault(e.getKey(), Map.of());
      for (int slot = CostLayout.FIRST_COST; slot < CostLayout.SIZE; slot++) {
        String name = CostLayout.name(slot);
        assertEquals(
            e.getKey() + " " + name, rose.get(name), costs.getOrDefault(name, 0L).longValue());
      }
    }
  }

  /** EXPLAIN ANALYZE's JSON document, from the statement's one row. */
  private static JsonObject explainAnalyzeJson(ResultSet rs) throws SQLException {
    assertTrue("one row", rs.next());
    JsonObject doc = JsonParser.parseString(rs.getString("PLAN")).getAsJsonObject();
    assertTrue("one row only", !rs.next());
    return doc;
  }

  /** Each region's costs in an EXPLAIN ANALYZE document, by encoded region name. */
  private static Map<String, Map<String, Long>> regionCosts(JsonObject doc) {
    Map<String, Map<String, Long>> m = new HashMap<>();
    for (JsonElement r : doc.getAsJsonArray("regions")) {
      Map<String, Long> costs = new HashMap<>();
      for (Map.Entry<String, JsonElement> c :
          r.getAsJsonObject().getAsJsonObject("costs").entrySet()) {
        costs.put(c.getKey(), c.getValue().getAsLong());
      }
      m.put(r.getAsJsonObject().get("region").getAsString(), costs);
    }
    return m;
  }

  /** Phoenix's own EXPLAIN of {@code query}, line by line. */
  private static List<String> phoenixExplain(String query) throws Exception {
    List<String> lines = new ArrayList<>();
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("EXPLAIN " + query)) {
      while (rs.next()) {
        lines.add(rs.getString(1));
      }
    }
    return lines;
  }

  @Test
  public void explainAnalyzeInJsonIsWhatEachRegionSpent() throws Exception {
    String query = "SELECT pk, v1 FROM " + TABLE + " WHERE v2 < 0.5";
    long matching =
        SeedTables.queryLong(cluster, "SELECT COUNT(*) FROM " + TABLE + " WHERE v2 < 0.5");
    StoreFiles.evict(cluster.blockCache(), regions());
    Map<String, CostSnapshot> before = snapshots();
    long[] missesBefore = misses();
    JsonObject doc;
    try (Connection c = SeedTables.blockscope(cluster);
        Statement s = c.createStatement()) {
      // as SQL tools run a statement: execute, then getResultSet
      assertTrue(s.execute("EXPLAIN ANALYZE (FORMAT JSON) " + query + ";"));
      try (ResultSet rs = s.getResultSet()) {
        doc = explainAnalyzeJson(rs);
      }
    }
    Map<String, CostSnapshot> after = snapshots();
    System.out.println("EXPLAIN ANALYZE (FORMAT JSON) " + query + "\n" + doc);
    assertMissesAsCacheStats(missesBefore);
    assertEquals(1, doc.get("version").getAsInt());
    assertEquals(query, doc.get("query").getAsString());
    assertEquals("COUNT", doc.get("level").getAsString());
    assertEquals(
        "the query's rows, counted and dropped", matching, doc.get("rowsReturned").getAsLong());
    assertTrue(doc.get("wallNanos").getAsLong() > 0);
    List<String> plan = new ArrayList<>();
    doc.getAsJsonArray("plan").forEach(step -> plan.add(step.getAsString()));
    assertEquals("the plan as Phoenix's EXPLAIN gives it", phoenixExplain(query), plan);
    Map<String, Map<String, Long>> recorded = regionCosts(doc);
    assertEquals(regions().size(), recorded.size());
    assertRegionsRoseBy(before, after, recorded);
    long[] truth = SeedTables.dataBlocksAndCells(regions());
    JsonObject total = doc.getAsJsonObject("total");
    assertEquals(4, total.get("regions").getAsInt());
    assertEquals(matching, total.get("rows").getAsLong());
    assertEquals(truth[0], total.getAsJsonObject("costs").get("blockCache.miss.data").getAsLong());
    assertEquals(truth[0], total.getAsJsonObject("costs").get("fs.read.blocks.data").getAsLong());
    // busiest first, by blocks read, with the median and max of the four
    JsonObject skew = doc.getAsJsonObject("skew");
    assertEquals("blocks", skew.get("measure").getAsString());
    long first = doc.getAsJsonArray("regions").get(0).getAsJsonObject().get("busyness").getAsLong();
    assertEquals(first, skew.get("max").getAsLong());
  }

  /** The number after {@code key=} in an EXPLAIN ANALYZE line ({@code cache hits=1,234}). */
  private static long figure(String line, String key) {
    Matcher m = Pattern.compile("(?:^|[ ;(])" + Pattern.quote(key) + "=([0-9,]+)").matcher(line);
    assertTrue(key + " in " + line, m.find());
    return Long.parseLong(m.group(1).replace(",", ""));
  }

  @Test
  public void explainAnalyzeInTextNamesEveryRegionWithItsRise() throws Exception {
    String query = "SELECT /*+ NO_CACHE */ COUNT(*) FROM " + TABLE;
    StoreFiles.evict(cluster.blockCache(), regions());
    Map<String, CostSnapshot> before = snapshots();
    List<String> lines = new ArrayList<>();
    try (Connection c = SeedTables.blockscope(cluster);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("explain analyze " + query)) {
      assertEquals("PLAN", rs.getMetaData().getColumnLabel(1));
      while (rs.next()) {
        lines.add(rs.getString(1));
      }
    }
    Map<String, CostSnapshot> after = snapshots();
    System.out.println("EXPLAIN ANALYZE " + query + "\n" + String.join("\n", lines));
    List<String> plan = phoenixExplain(query);
    assertEquals(plan, lines.subList(0, plan.size()));
    assertEquals(
        "BLOCKSCOPE NO_CACHE: every scan of this query runs with block caching off",
        lines.get(plan.size()));
    String head = lines.get(plan.size() + 1);
    assertTrue(head, head.startsWith("BLOCKSCOPE ANALYZE (COUNT): 1 row returned in "));
    assertTrue(head, head.contains("; 4 regions of 1 table read "));
    assertTrue(lines.get(plan.size() + 2), lines.get(plan.size() + 2).startsWith("  total: "));
    assertTrue(lines.get(plan.size() + 3), lines.get(plan.size() + 3).startsWith("  skew: "));
    // the last line says what reading the profile took: the table's four regions, one call
    String read = lines.get(lines.size() - 1);
    assertTrue(read, read.startsWith("  profile read: 4 regions asked in 1 call, "));
    List<String> regionLines = lines.subList(plan.size() + 4, lines.size() - 1);
    assertEquals(4, regionLines.size());
    long missesSum = 0;
    for (HRegion r : regions()) {
      String name = r.getRegionInfo().getEncodedName();
      String line =
          regionLines.stream()
              .filter(l -> l.startsWith("  region " + TABLE + "/" + name + ": "))
              .findFirst()
              .orElseThrow(() -> new AssertionError(name + " in " + regionLines));
      CostSnapshot rose = after.get(name).minus(before.get(name));
      long truth = SeedTables.dataBlocksAndCells(List.of(r))[0];
      assertEquals(line, truth, figure(line, "misses"));
      assertEquals(line, misses(rose), figure(line, "misses"));
      assertEquals(
          line,
          rose.get("fs.read.bytes.data")
              + rose.get("fs.read.bytes.leafIndex")
              + rose.get("fs.read.bytes.intermediateIndex")
              + rose.get("fs.read.bytes.rootIndex")
              + rose.get("fs.read.bytes.bloom")
              + rose.get("fs.read.bytes.other"),
          figure(line, "bytes"));
      assertEquals(line, rose.get("decode.FAST_DIFF.cells"), figure(line, "cells"));
      missesSum += figure(line, "misses");
    }
    assertEquals(missesSum, figure(lines.get(plan.size() + 2), "misses"));
    // NO_CACHE held: the cold scan left nothing in the cache for the next one
    assertEquals(0, StoreFiles.cachedDataBlocks(cluster.blockCache(), regions()));
  }

  @Test
  public void explainAnalyzeTimeTimesTheQueryAndAPreparedOneReadsOneRegion() throws Exception {
    StoreFiles.evict(cluster.blockCache(), regions());
    try (Connection c = SeedTables.blockscope(cluster)) {
      JsonObject timed;
      try (Statement s = c.createStatement();
          ResultSet rs =
              // PostgreSQL's spelling of EXPLAIN ANALYZE (TIME, FORMAT JSON)
              s.executeQuery(
                  "EXPLAIN (ANALYZE, TIME, FORMAT JSON) SELECT COUNT(*) FROM " + TABLE)) {
        timed = explainAnalyzeJson(rs);
      }
      assertEquals("TIME", timed.get("level").getAsString());
      for (JsonElement r : timed.getAsJsonArray("regions")) {
        // the level each region measured the query at, and why, as its server said
        assertEquals(r.toString(), "TIME", r.getAsJsonObject().get("level").getAsString());
        assertEquals(
            r.toString(),
            ProfileWire.LEVEL_REASONS[ProfileWire.AS_ASKED],
            r.getAsJsonObject().get("levelReason").getAsString());
      }
      assertEquals("probeNanos", timed.getAsJsonObject("skew").get("measure").getAsString());
      for (Map<String, Long> costs : regionCosts(timed).values()) {
        assertTrue(costs.toString(), costs.getOrDefault("decode.FAST_DIFF.nanos", 0L) > 0);
        assertTrue(costs.toString(), costs.getOrDefault("checksum.nanos", 0L) > 0);
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "EXPLAIN ANALYZE (FORMAT JSON) SELECT v1 FROM " + TABLE + " WHERE pk = ?")) {
        for (int pk : new int[] {7, 19_999}) {
          ps.setInt(1, pk);
          Map<String, CostSnapshot> before = snapshots();
          JsonObject doc;
          try (ResultSet rs = ps.executeQuery()) {
            doc = explainAnalyzeJson(rs);
          }
          Map<String, CostSnapshot> after = snapshots();
          assertEquals(doc.toString(), 1, doc.get("rowsReturned").getAsLong());
          assertEquals(doc.toString(), 1, doc.getAsJsonArray("regions").size());
          assertEquals("COUNT", doc.get("level").getAsString());
          assertRegionsRoseBy(before, after, regionCosts(doc));
        }
      }
    }
  }

  @Test
  public void explainAnalyzeRefusesWhatItCannotRunAndTheConnectionGoesOn() throws Exception {
    try (Connection c = SeedTables.blockscope(cluster);
        Statement s = c.createStatement()) {
      String[][] cases = {
        {"EXPLAIN ANALYZE (FORMAT YAML) SELECT COUNT(*) FROM " + TABLE, "42601", "FORMAT 'YAML'"},
        {"EXPLAIN ANALYZE (SLOW) SELECT COUNT(*) FROM " + TABLE, "42601", "option 'SLOW'"},
        {"EXPLAIN ANALYZE DELETE FROM " + TABLE, "0A000", "SELECT queries only"},
        {"EXPLAIN ANALYZE UPSERT INTO " + TABLE + " VALUES (1, 1, 1)", "0A000", "SELECT queries"},
      };
      for (String[] bad : cases) {
        SQLException e = assertThrows(bad[0], SQLException.class, () -> s.execute(bad[0]));
        assertEquals(e.getMessage(), bad[1], e.getSQLState());
        assertTrue(e.getMessage(), e.getMessage().contains(bad[2]));
      }
      SQLException e =
          assertThrows(
              SQLException.class,
              () -> s.executeUpdate("EXPLAIN ANALYZE SELECT COUNT(*) FROM " + TABLE));
      assertTrue(e.getMessage(), e.getMessage().contains("returns rows"));
      assertEquals(ROWS, SeedTables.queryLong(cluster, "SELECT COUNT(*) FROM " + TABLE));
      try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + TABLE)) {
        assertTrue(rs.next());
        assertEquals(ROWS, rs.getLong(1));
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
  @SuppressWarnings("try") // the result set is closed before its profile is read
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
    // the queries overlap by construction: the filtered one has its first row (its region scanners
    // are open, with rows still to send) when COUNT(*) starts, and reads the rest only after
    // COUNT(*) has ended
    CountDownLatch bRunning = new CountDownLatch(1);
    CountDownLatch aEnded = new CountDownLatch(1);
    long[] rowsBWhileA = new long[1];
    try (Connection c1 = SeedTables.blockscope(cluster);
        Connection c2 = SeedTables.blockscope(cluster)) {
      Future<QueryProfile> fa =
          pool.submit(
              () -> {
                assertTrue(bRunning.await(120, TimeUnit.SECONDS));
                try {
                  return profiled(c1, count, null);
                } finally {
                  aEnded.countDown();
                }
              });
      Future<QueryProfile> fb =
          pool.submit(
              () -> {
                try (Statement st = c2.createStatement();
                    ResultSet rs = st.executeQuery(filtered)) {
                  long n = 0;
                  try {
                    assertTrue("the filtered query has rows", rs.next());
                    n++;
                  } finally {
                    rowsBWhileA[0] = n;
                    bRunning.countDown();
                  }
                  assertTrue(aEnded.await(120, TimeUnit.SECONDS));
                  while (rs.next()) {
                    n++;
                  }
                  rowsB[0] = n;
                  rs.close();
                  return rs.unwrap(BlockscopeResultSet.class).profile();
                }
              });
      a = fa.get();
      b = fb.get();
    } finally {
      pool.shutdown();
    }
    assertEquals("the filtered query was under way when COUNT(*) ran", 1, rowsBWhileA[0]);
    assertTrue("and had rows left to read after it: " + rowsB[0], rowsB[0] > 1_000);
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
