package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.accounting.StatementStats;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.CostSnapshot;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The statement each scan belongs to, as the region server receives it: blockscope's driver names
 * every scan of every statement with its fingerprint (of the statement's normalized text, written
 * out by hand here and hashed by the test), and sends the text with the scans of the statement's
 * first execution only. A four-region table carries {@link StatementRecordingObserver}, which keeps
 * each scan's attributes from {@code preScannerOpen}.
 */
public class StatementTagsIT extends ClusterTestBase {
  private static final String TABLE = "STMT_TAGS";
  private static Set<String> regions;

  @BeforeClass
  public static void load() throws Exception {
    SeedTables.createSplit(cluster, TABLE, 2_000, 59, "");
    TableName t = TableName.valueOf(TABLE);
    cluster
        .admin()
        .modifyTable(
            TableDescriptorBuilder.newBuilder(cluster.admin().getDescriptor(t))
                .setCoprocessor(StatementRecordingObserver.class.getName())
                .build());
    regions = new HashSet<>();
    for (HRegion r : cluster.regions(t)) {
      regions.add(r.getRegionInfo().getEncodedName());
    }
    assertEquals(4, regions.size());
  }

  /** The first 64 bits of the SHA-256 of {@code normalized}, as 16 hex digits. */
  private static String fingerprint(String normalized) throws Exception {
    byte[] d =
        MessageDigest.getInstance("SHA-256").digest(normalized.getBytes(StandardCharsets.UTF_8));
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      s.append(String.format("%02x", d[i]));
    }
    return s.toString();
  }

  /** The scans {@code run} opened on the table. */
  private static List<StatementRecordingObserver.Seen> scansOf(SqlRun run) throws Exception {
    int before = StatementRecordingObserver.SEEN.size();
    run.run();
    List<StatementRecordingObserver.Seen> seen =
        new ArrayList<>(
            StatementRecordingObserver.SEEN.subList(
                before, StatementRecordingObserver.SEEN.size()));
    assertFalse("the statement scanned the table", seen.isEmpty());
    return seen;
  }

  @FunctionalInterface
  private interface SqlRun {
    void run() throws Exception;
  }

  private static void query(Connection c, String sql) throws Exception {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        // every row, so every scan runs
      }
    }
  }

  private static Set<String> executions(List<StatementRecordingObserver.Seen> seen) {
    return seen.stream()
        .map(StatementRecordingObserver.Seen::execution)
        .collect(Collectors.toCollection(HashSet::new));
  }

  private static Set<String> fingerprints(List<StatementRecordingObserver.Seen> seen) {
    return seen.stream()
        .map(StatementRecordingObserver.Seen::fingerprint)
        .collect(Collectors.toCollection(HashSet::new));
  }

  @Test
  public void statementsThatDifferInLiteralsNameTheSameStatementAndSendItsTextOnce()
      throws Exception {
    String shape = "SELECT COUNT (*) FROM STMT_TAGS WHERE V1 > ?";
    String f = fingerprint(shape);
    try (Connection c = SeedTables.blockscope(cluster)) {
      List<StatementRecordingObserver.Seen> first =
          scansOf(() -> query(c, "select count(*) from stmt_tags where v1 > 0.5"));
      List<StatementRecordingObserver.Seen> second =
          scansOf(() -> query(c, "SELECT COUNT(*)\n  FROM STMT_TAGS WHERE v1>0.25;"));
      assertEquals(Set.of(f), fingerprints(first));
      assertEquals(Set.of(f), fingerprints(second));
      assertEquals(
          "a full count reads every region",
          regions,
          first.stream().map(StatementRecordingObserver.Seen::region).collect(Collectors.toSet()));
      // the first execution sends the text once to each region server it reads, on one scan
      Map<String, String> serverOf = new HashMap<>();
      try (RegionLocator locator =
          cluster.connection().getRegionLocator(TableName.valueOf(TABLE))) {
        for (HRegionLocation l : locator.getAllRegionLocations()) {
          serverOf.put(l.getRegion().getEncodedName(), l.getServerName().getServerName());
        }
      }
      Set<String> serversRead = new HashSet<>();
      List<String> textTo = new ArrayList<>();
      for (StatementRecordingObserver.Seen s : first) {
        serversRead.add(serverOf.get(s.region()));
        if (s.text() != null) {
          assertEquals(shape, s.text());
          textTo.add(serverOf.get(s.region()));
        }
      }
      Collections.sort(textTo);
      assertEquals(
          "one scan to each server carries the text, of " + first.size() + " scans",
          new ArrayList<>(new TreeSet<>(serversRead)),
          textTo);
      for (StatementRecordingObserver.Seen s : second) {
        assertNull("later executions' scans do not", s.text());
      }
      Set<String> firstIds = executions(first);
      Set<String> secondIds = executions(second);
      assertEquals("one execution id on every scan of the first: " + firstIds, 1, firstIds.size());
      assertEquals("and of the second: " + secondIds, 1, secondIds.size());
      assertTrue(
          "16 hex digits: " + firstIds,
          Attributes.isStatementFingerprint(
              firstIds.iterator().next().getBytes(StandardCharsets.US_ASCII)));
      assertNotEquals("each execution its own id", firstIds, secondIds);

      List<StatementRecordingObserver.Seen> other =
          scansOf(() -> query(c, "select count(*) from stmt_tags where v2 > 0.5"));
      assertEquals(
          "another column, another statement",
          Set.of(fingerprint("SELECT COUNT (*) FROM STMT_TAGS WHERE V2 > ?")),
          fingerprints(other));
    }
  }

  @Test
  public void aPreparedStatementNamesOneStatementWhateverItsBindValues() throws Exception {
    String shape = "SELECT PK FROM STMT_TAGS WHERE V1 > ? AND PK < ?";
    try (Connection c = SeedTables.blockscope(cluster);
        PreparedStatement p =
            c.prepareStatement("select pk from stmt_tags where v1 > ? and pk < ?")) {
      List<StatementRecordingObserver.Seen> seen = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int bound = 500 * (i + 1);
        seen.addAll(
            scansOf(
                () -> {
                  p.setDouble(1, 0.1);
                  p.setInt(2, bound);
                  try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                      // every row
                    }
                  }
                }));
      }
      assertEquals(Set.of(fingerprint(shape)), fingerprints(seen));
      assertTrue(
          "the text went with the first execution",
          seen.stream().anyMatch(s -> shape.equals(s.text())));
    }
  }

  @Test
  public void everyBranchOfAUnionNamesTheStatement() throws Exception {
    String shape =
        "SELECT PK FROM STMT_TAGS WHERE PK < ? UNION ALL SELECT PK FROM STMT_TAGS WHERE PK > ?";
    try (Connection c = SeedTables.blockscope(cluster)) {
      List<StatementRecordingObserver.Seen> seen =
          scansOf(
              () ->
                  query(
                      c,
                      "select pk from stmt_tags where pk < 10 "
                          + "union all select pk from stmt_tags where pk > 1990"));
      assertEquals(Set.of(fingerprint(shape)), fingerprints(seen));
      assertEquals(
          "the first and the last region, one per branch",
          2,
          seen.stream().map(StatementRecordingObserver.Seen::region).distinct().count());
    }
  }

  @Test
  public void phoenixsOwnDriverNamesNoStatement() throws Exception {
    try (Connection c = cluster.phoenix()) {
      List<StatementRecordingObserver.Seen> seen =
          scansOf(() -> query(c, "select count(*) from stmt_tags where v1 > 0.5"));
      assertEquals(Collections.singleton(null), fingerprints(seen));
    }
  }

  /**
   * The region server keeps the driver's statement for the connection's user: its costs are exactly
   * what the table counted while the query ran, its rows are the rows the region scanners returned,
   * and its text is the normalized one.
   */
  @Test
  public void theServerKeepsTheStatementsCostsRowsAndText() throws Exception {
    String shape = "SELECT PK FROM STMT_TAGS WHERE PK < ? AND V2 >= ?";
    String f = fingerprint(shape);
    String user = User.getCurrent().getShortName();
    TableName t = TableName.valueOf(TABLE);
    try (Connection c = SeedTables.blockscope(cluster)) {
      query(c, "select pk from stmt_tags where pk < 1 and v2 >= 0"); // Phoenix's metadata, warm
      StatementStats.Statement s =
          cluster.diagnostics().statements().user(user).statements().account(f);
      long scansBefore = s.scans();
      long rowsBefore = s.rows();
      long executionsBefore = s.executions();
      long regionsBefore = s.regions();
      List<HRegion> read = new ArrayList<>();
      for (HRegion r : cluster.regions(t)) {
        byte[] start = r.getRegionInfo().getStartKey();
        if (Bytes.compareTo(start, SeedTables.phoenixKey(700)) < 0) {
          read.add(r);
        }
      }
      StoreFiles.evict(cluster.blockCache(), read);
      CostSnapshot before = accountCosts(s);
      CostSnapshot tableBefore = tableCosts(t);
      long rows = 0;
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("select pk from stmt_tags where pk < 700 and v2 >= 0")) {
        while (rs.next()) {
          rows++;
        }
      }
      assertEquals(700, rows);
      CostSnapshot table = tableCosts(t).minus(tableBefore);
      assertEquals(
          "cold, the query read each data block of the first region and those of the second"
              + " through pk 699's once: "
              + table,
          SeedTables.dataBlocksThrough(read, SeedTables.phoenixKey(699)),
          table.get("blockCache.miss.data"));
      assertEquals("the statement's costs", table, accountCosts(s).minus(before));
      assertEquals("rows the region scanners returned", 700, s.rows() - rowsBefore);
      assertEquals("the two regions holding pk < 700", 2, s.scans() - scansBefore);
      assertEquals("one execution", 1, s.executions() - executionsBefore);
      assertEquals("of two regions", 2, s.regions() - regionsBefore);
      assertEquals(shape, s.text());
    }
  }

  /**
   * {@code SHOW BLOCKSCOPE STATEMENTS} through the driver returns the statement as the server keeps
   * it, for the connection's user only: every cost column, its scans, rows and text; everyone's is
   * refused to a user who is not a superuser (SQLState 42501), a malformed one is a syntax error
   * (42601), and a prepared one is not supported.
   */
  @Test
  public void showBlockscopeStatementsIsTheServersRecordOfTheUsersOwn() throws Exception {
    String shape = "SELECT COUNT (*) FROM STMT_TAGS WHERE V1 < ?";
    String f = fingerprint(shape);
    String user = User.getCurrent().getShortName();
    try (Connection c = SeedTables.blockscope(cluster)) {
      StatementStats.User mine = cluster.diagnostics().statements().user(user);
      StatementStats.Statement had = mine == null ? null : mine.statements().account(f);
      long executionsBefore = had == null ? 0 : had.executions();
      long regionsBefore = had == null ? 0 : had.regions();
      query(c, "select count(*) from stmt_tags where v1 < 0.25");
      query(c, "select count(*) from stmt_tags where v1 < 0.75");
      StatementStats.Statement s =
          cluster.diagnostics().statements().user(user).statements().account(f);
      assertEquals("two executions", 2, s.executions() - executionsBefore);
      assertEquals("each read the four regions", 8, s.regions() - regionsBefore);
      int found = 0;
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("show blockscope statements")) {
        while (rs.next()) {
          assertEquals("the connection's user's own", user, rs.getString("USER"));
          if (!rs.getString("STATEMENT").equals(f)) {
            continue;
          }
          found++;
          assertEquals(shape, rs.getString("TEXT"));
          assertEquals(s.scans(), rs.getLong("SCANS"));
          assertEquals(s.rows(), rs.getLong("ROWS"));
          assertEquals(s.executions(), rs.getLong("EXECUTIONS"));
          assertEquals(s.regions(), rs.getLong("REGIONS"));
          assertEquals(1, rs.getLong("SERVERS"));
          long misses = 0;
          for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
            String column = CostLayout.name(i).replace('.', '_').toUpperCase(Locale.ROOT);
            assertEquals(column, s.get(i), rs.getLong(column));
            if (CostLayout.name(i).startsWith("blockCache.miss.")) {
              misses += s.get(i);
            }
          }
          assertEquals(misses, rs.getLong("MISSES"));
          long dataBlocks =
              SeedTables.dataBlocksAndCells(cluster.regions(TableName.valueOf(TABLE)))[0];
          assertEquals(
              "two whole-table count queries look each data block of the four regions up twice",
              2 * dataBlocks,
              rs.getLong("BLOCKCACHE_HIT_DATA") + rs.getLong("BLOCKCACHE_MISS_DATA"));
        }
      }
      assertEquals("one row for the statement", 1, found);

      try (Statement st = c.createStatement()) {
        SQLException all =
            assertThrows(
                SQLException.class,
                () -> st.executeQuery("SHOW BLOCKSCOPE STATEMENTS FOR ALL USERS"));
        assertEquals(all.getMessage(), "42501", all.getSQLState());
        assertTrue(all.getMessage(), all.getMessage().contains("may read another user's"));
        SQLException malformed =
            assertThrows(
                SQLException.class, () -> st.execute("show blockscope statements for user"));
        assertEquals("42601", malformed.getSQLState());
      }
      assertThrows(
          SQLFeatureNotSupportedException.class,
          () -> c.prepareStatement("SHOW BLOCKSCOPE STATEMENTS"));
    }
  }
}
