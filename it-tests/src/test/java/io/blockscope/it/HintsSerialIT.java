package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.accounting.QueryTracker;
import io.blockscope.hints.BlockscopeResultSet;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * blockscope's SERIAL through its JDBC driver on a table split into four regions, checked from the
 * servers' side: the coprocessor counts, per tagged query, the region scanners open at once.
 */
public class HintsSerialIT extends ClusterTestBase {
  private static final String TABLE = "HINTS_SERIAL";
  private static final int ROWS = 20_000;

  @BeforeClass
  public static void load() throws Exception {
    SeedTables.createSplit(cluster, TABLE, ROWS, 12, "");
  }

  private static Connection blockscope() throws SQLException {
    return SeedTables.blockscope(cluster);
  }

  /** A query's rows (first column, as text) and what the servers saw of its scanners. */
  private record Run(List<String> rows, QueryTracker.Stats servers, List<String> notApplied) {}

  private static Run run(String sql) throws Exception {
    List<String> rows = new ArrayList<>();
    String id;
    List<String> notApplied;
    try (Connection c = blockscope();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      BlockscopeResultSet b = rs.unwrap(BlockscopeResultSet.class);
      id = b.queryId();
      notApplied = b.serialNotApplied();
      while (rs.next()) {
        rows.add(rs.getString(1));
      }
    }
    return new Run(rows, cluster.diagnostics().queries().stats(id, me()), notApplied);
  }

  private static void assertSerial(String sql, int expectedRows) throws Exception {
    Run serial = run(sql);
    assertTrue(sql + ": applied everywhere " + serial.notApplied(), serial.notApplied().isEmpty());
    assertEquals(sql, expectedRows, serial.rows().size());
    assertEquals(
        sql + ": each of the four regions scanned once " + serial.servers(),
        4,
        serial.servers().scanners());
    assertEquals(
        sql + ": one scanner open at a time " + serial.servers(), 1, serial.servers().maxOpen());
    assertEquals(sql + ": all closed " + serial.servers(), 0, serial.servers().open());

    // The same query tagged but not serial: Phoenix's parallel scans.
    Run parallel = run(sql.replace("/*+ SERIAL */", "/*+ PROFILE */"));
    System.out.println(
        sql
            + ": servers saw "
            + serial.servers()
            + " with SERIAL, "
            + parallel.servers()
            + " without");
    assertEquals(serial.rows().size(), parallel.rows().size());
    assertTrue(
        sql + " without SERIAL: scanners open at once " + parallel.servers(),
        parallel.servers().maxOpen() > 1);
  }

  @Test
  public void aFilteredScanWithoutLimitRunsOneRegionAtATime() throws Exception {
    long expected =
        SeedTables.queryLong(cluster, "SELECT COUNT(*) FROM " + TABLE + " WHERE v2 < 0.5");
    assertSerial("SELECT /*+ SERIAL */ pk, v1 FROM " + TABLE + " WHERE v2 < 0.5", (int) expected);
  }

  @Test
  public void rowsComeInKeyOrder() throws Exception {
    Run serial = run("SELECT /*+ SERIAL */ pk FROM " + TABLE + " WHERE v1 < 0.2");
    assertEquals(
        SeedTables.queryLong(cluster, "SELECT COUNT(*) FROM " + TABLE + " WHERE v1 < 0.2"),
        serial.rows().size());
    assertTrue("rows in every region: " + serial.rows().size(), serial.rows().size() > 1_000);
    int last = -1;
    for (String pk : serial.rows()) {
      assertTrue(pk + " after " + last, Integer.parseInt(pk) > last);
      last = Integer.parseInt(pk);
    }
  }

  @Test
  public void aggregatesRunOneRegionAtATime() throws Exception {
    // The seeds' own statement (seed 002), unchanged.
    assertSerial("SELECT /*+ SERIAL */ COUNT(*) FROM " + TABLE, 1);
    assertSerial("SELECT /*+ SERIAL */ SUM(v1), MAX(v2) FROM " + TABLE + " WHERE v1 < 0.5", 1);
  }

  @Test
  public void orderByTheRowKeyRunsOneRegionAtATime() throws Exception {
    assertSerial(
        "SELECT /*+ SERIAL */ pk FROM " + TABLE + " WHERE v2 > 0.9 ORDER BY pk DESC",
        (int) SeedTables.queryLong(cluster, "SELECT COUNT(*) FROM " + TABLE + " WHERE v2 > 0.9"));
  }

  /** The rows of {@code sql} through stock Phoenix, first column as text. */
  private static List<String> stock(String sql) throws Exception {
    List<String> rows = new ArrayList<>();
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        rows.add(rs.getString(1));
      }
    }
    return rows;
  }

  @Test
  public void orderByOtherColumnsRunsOneRegionAtATimeAndSortsOnTheClient() throws Exception {
    for (String sql :
        new String[] {
          "SELECT /*+ SERIAL */ pk FROM " + TABLE + " ORDER BY v1 LIMIT 10",
          "SELECT /*+ SERIAL */ pk FROM " + TABLE + " WHERE v2 < 0.1 ORDER BY v1 DESC, pk",
          "SELECT /*+ SERIAL */ pk FROM " + TABLE + " ORDER BY v2 LIMIT 5 OFFSET 20"
        }) {
      List<String> expected = stock(sql.replace("/*+ SERIAL */ ", ""));
      Run serial = run(sql);
      assertTrue(sql + ": " + serial.notApplied(), serial.notApplied().isEmpty());
      assertEquals(sql, expected, serial.rows());
      assertEquals(sql + " " + serial.servers(), 1, serial.servers().maxOpen());
      assertEquals(sql + " " + serial.servers(), 4, serial.servers().scanners());
    }
  }

  @Test
  public void groupByOtherColumnsRunsOneRegionAtATimeWithTheRightGroups() throws Exception {
    String grouped =
        "SELECT /*+ SERIAL */ ROUND(v1, 1), COUNT(*) FROM " + TABLE + " GROUP BY ROUND(v1, 1)";
    List<String> expected = stock(grouped.replace("/*+ SERIAL */ ", ""));
    assertEquals("ROUND(v1, 1) of v1 in [0, 1): 0.0 to 1.0", 11, expected.size());
    Run serial = run(grouped);
    assertTrue(serial.notApplied().toString(), serial.notApplied().isEmpty());
    assertEquals(expected, serial.rows());
    assertEquals(serial.servers().toString(), 1, serial.servers().maxOpen());
    assertEquals(serial.servers().toString(), 4, serial.servers().scanners());
    // Stock Phoenix 5.2.1 honours SERIAL here and returns each region's groups unmerged; if this
    // fails, Phoenix changed.
    assertEquals(
        "stock Phoenix with SERIAL: one set of groups per region",
        4L * expected.size(),
        stock(grouped).size());
  }

  @Test
  public void hashJoinsBuildEachSideThenScanOneRegionAtATime() throws Exception {
    // The right side (filtered) becomes a hash table first, then the left side scans with it:
    // both read all four regions of the table, one scanner at a time.
    String join =
        "SELECT /*+ SERIAL */ a.pk FROM "
            + TABLE
            + " a JOIN "
            + TABLE
            + " b ON a.pk = b.pk WHERE b.v2 < 0.1";
    assertSerialAsStock(join, 8);
    String in =
        "SELECT /*+ SERIAL */ pk FROM "
            + TABLE
            + " WHERE pk IN (SELECT pk FROM "
            + TABLE
            + " WHERE v1 < 0.05)";
    assertSerialAsStock(in, 8);
  }

  @Test
  public void sortMergeJoinsReadOneSideThenTheOther() throws Exception {
    String merge =
        "SELECT /*+ USE_SORT_MERGE_JOIN SERIAL */ a.pk, b.v1 FROM "
            + TABLE
            + " a JOIN "
            + TABLE
            + " b ON a.pk = b.pk WHERE b.v2 < 0.1";
    assertSerialAsStock(merge, 8, " SERIAL */", " */");
    String full =
        "SELECT /*+ SERIAL */ a.pk, b.pk FROM "
            + TABLE
            + " a FULL OUTER JOIN "
            + TABLE
            + " b ON a.pk = b.pk + 1 WHERE a.v1 < 0.05 OR b.v1 < 0.05";
    assertSerialAsStock(full, 8);
  }

  @Test
  public void unionAllReadsItsBranchesOneAfterTheOther() throws Exception {
    String union =
        "SELECT /*+ SERIAL */ pk FROM "
            + TABLE
            + " WHERE v1 < 0.1 UNION ALL"
            + " SELECT pk FROM "
            + TABLE
            + " WHERE v2 < 0.1";
    assertSerialAsStock(union, 8);
    // LIMIT 50 in descending order: each branch's serial scan stops in the last region.
    assertSerialAsStock(union + " ORDER BY pk DESC LIMIT 50", 2);
    assertSerialAsStock(
        "SELECT /*+ SERIAL */ pk, v1 FROM "
            + TABLE
            + " WHERE v1 < 0.1"
            + " UNION ALL SELECT pk, v2 FROM "
            + TABLE
            + " WHERE v2 < 0.1 ORDER BY v1",
        8);
    // The union as a sorted derived table.
    assertSerialAsStock(
        "SELECT /*+ SERIAL */ pk FROM (SELECT pk FROM "
            + TABLE
            + " WHERE pk < 8000 UNION ALL SELECT pk FROM "
            + TABLE
            + " WHERE pk >= 12000"
            + " ORDER BY pk DESC)",
        4);
    assertSerialAsStock(
        "SELECT /*+ SERIAL */ COUNT(*) FROM (SELECT v1 FROM " + TABLE + " ORDER BY v2 LIMIT 100)",
        4);
  }

  /**
   * Runs {@code sql} with SERIAL and without any hint: the same rows (stock Phoenix returns them in
   * no particular order, SERIAL in key order, so they are compared sorted); with the hint the
   * servers saw exactly {@code scanners} scanners of the query (four per table side or branch that
   * reads every region), never two at once; without it, more than one at once.
   */
  private static void assertSerialAsStock(String sql, int scanners) throws Exception {
    assertSerialAsStock(sql, scanners, "/*+ SERIAL */ ", "");
  }

  private static void assertSerialAsStock(String sql, int scanners, String hint, String stock)
      throws Exception {
    explain(sql);
    List<String> expected = stock(sql.replace(hint, stock));
    Run serial = run(sql);
    System.out.println(
        sql + ": servers saw " + serial.servers() + ", " + expected.size() + " rows");
    assertTrue(sql + ": " + serial.notApplied(), serial.notApplied().isEmpty());
    assertEquals(sql, expected.size(), serial.rows().size());
    assertEquals(sql, sorted(expected), sorted(serial.rows()));
    assertEquals(sql + " " + serial.servers(), scanners, serial.servers().scanners());
    assertEquals(sql + " " + serial.servers(), 1, serial.servers().maxOpen());
    assertEquals(sql + " " + serial.servers(), 0, serial.servers().open());
    Run parallel = run(sql.replace(hint, stock.isEmpty() ? "/*+ PROFILE */ " : " PROFILE" + stock));
    assertTrue(sql + " without SERIAL: " + parallel.servers(), parallel.servers().maxOpen() > 1);
  }

  /** blockscope's EXPLAIN of {@code sql}, also printed. */
  private static List<String> explain(String sql) throws Exception {
    List<String> plan = new ArrayList<>();
    try (Connection c = blockscope();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
      while (rs.next()) {
        plan.add(rs.getString(1));
      }
    }
    System.out.println("EXPLAIN " + sql + "\n" + String.join("\n", plan));
    return plan;
  }

  private static List<String> sorted(List<String> rows) {
    List<String> copy = new ArrayList<>(rows);
    Collections.sort(copy);
    return copy;
  }

  @Test
  public void aSaltedTableInKeyOrderIsReportedNotSerialized() throws Exception {
    // Rows in key order from a salted table need its buckets' scans merged side by side.
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS HINTS_SALTED (pk INTEGER PRIMARY KEY, v1 FLOAT)"
              + " SALT_BUCKETS = 4");
      for (int i = 0; i < 100; i++) {
        s.execute("UPSERT INTO HINTS_SALTED VALUES (" + i + ", " + i / 100.0 + ")");
      }
      c.commit();
    }
    String sql = "SELECT /*+ SERIAL */ pk FROM HINTS_SALTED ORDER BY pk";
    String why = "rows in row-key order from a salted table or local index merge its scans";
    List<String> plan = explain(sql);
    Run run = run(sql);
    assertEquals(stock(sql.replace("/*+ SERIAL */ ", "")), run.rows());
    assertTrue(run.notApplied().toString(), run.notApplied().contains(why));
    String last = plan.get(plan.size() - 1);
    assertTrue(last, last.startsWith("BLOCKSCOPE SERIAL: not applied (") && last.contains(why));
  }

  @Test
  public void queriesWithoutSerialOrProfileCarryNoId() throws Exception {
    try (Connection c = blockscope();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT /*+ NO_CACHE */ COUNT(*) FROM " + TABLE)) {
      assertNull(rs.unwrap(BlockscopeResultSet.class).queryId());
    }
  }
}
