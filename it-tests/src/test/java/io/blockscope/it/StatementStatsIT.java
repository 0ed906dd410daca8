package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;

import io.blockscope.coprocessor.accounting.StatementStats;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.testsupport.ProfileCalls;
import io.blockscope.workloads.RawTable;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.security.User;
import org.junit.Test;

/**
 * The region server's statements by user on the shared embedded cluster: plain HBase clients name
 * their scans' statement ({@code blockscope.statement}), and each (user, statement) keeps exactly
 * the costs of its scans, their rows and scans, and its text; values that are not fingerprints and
 * oversized texts are not stored.
 */
public class StatementStatsIT extends ClusterTestBase {
  private static final int ROWS = 2_000;

  private static StatementStats statements() {
    return cluster.diagnostics().statements();
  }

  /** A statement's costs now, as a snapshot; zero if it is not kept. */
  private static CostSnapshot costs(String user, String fingerprint) {
    return accountCosts(statement(user, fingerprint));
  }

  private static StatementStats.Statement statement(String user, String fingerprint) {
    StatementStats.User u = statements().user(user);
    return u == null ? null : u.statements().account(fingerprint);
  }

  private static Connection connect(User user) throws Exception {
    return user.runAs(
        (PrivilegedExceptionAction<Connection>)
            () -> ConnectionFactory.createConnection(cluster.conf()));
  }

  /** Scans {@code range} of {@code t} naming {@code fingerprint} (and {@code text}); its rows. */
  private static long scan(Connection c, TableName t, Scan range, String fingerprint, byte[] text)
      throws Exception {
    range.setAttribute(Attributes.STATEMENT, fingerprint.getBytes(StandardCharsets.US_ASCII));
    if (text != null) {
      range.setAttribute(Attributes.STATEMENT_TEXT, text);
    }
    return ProfileCalls.scanRows(c, t, range);
  }

  /**
   * erin scans the whole table cold as statement A, frank then scans its first 100 rows warm as B:
   * each (user, statement) grows by exactly what the region counted while it read, and not at all
   * while the other read.
   */
  @Test
  public void eachStatementKeepsExactlyTheCostsOfItsScans() throws Exception {
    TableName t = newTable("statement_stats_exact");
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(t).blockSize(4096).encoding(DataBlockEncoding.FAST_DIFF));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, ROWS, 7);
    HRegion region = onlyRegion(t);
    String a = "00000000000000a1";
    String b = "00000000000000b2";
    User erin = User.createUserForTesting(cluster.conf(), "erin", new String[0]);
    User frank = User.createUserForTesting(cluster.conf(), "frank", new String[0]);
    try (Connection ec = connect(erin);
        Connection fc = connect(frank)) {
      for (Connection c : List.of(ec, fc)) {
        try (Table table = c.getTable(t)) {
          table.get(new Get(RawTable.seedRow(0))); // the region's location, before the count
        }
      }
      cluster.admin().clearBlockCache(t);

      CostSnapshot regionBefore = regionCosts(region);
      byte[] text = "SCAN STATEMENT_STATS_EXACT".getBytes(StandardCharsets.UTF_8);
      assertEquals(ROWS, scan(ec, t, new Scan(), a, text));
      CostSnapshot scanned = regionCosts(region).minus(regionBefore);
      long[] file = StoreFiles.trailerDataBlocksAndCells(List.of(region));
      assertEquals(scanned.toString(), file[0], scanned.get("blockCache.miss.data"));
      assertEquals(scanned.toString(), file[1], scanned.get("decode.FAST_DIFF.cells"));
      assertEquals("erin's statement A: her scan", scanned, costs("erin", a));
      StatementStats.Statement sa = statement("erin", a);
      assertEquals("one region scanner", 1, sa.scans());
      assertEquals(ROWS, sa.rows());
      assertEquals("SCAN STATEMENT_STATS_EXACT", sa.text());

      regionBefore = regionCosts(region);
      assertEquals(100, scan(fc, t, new Scan().withStopRow(RawTable.seedRow(100)), b, null));
      CostSnapshot got = regionCosts(region).minus(regionBefore);
      assertEquals(
          "frank's warm scan hits each data block through row 99's once: " + got,
          SeedTables.dataBlocksThrough(List.of(region), RawTable.seedRow(99)),
          got.get("blockCache.hit.data"));
      assertEquals(got.toString(), 0, misses(got));
      assertEquals("frank's statement B: his scan", got, costs("frank", b));
      assertEquals("erin's statement while frank read", scanned, costs("erin", a));
      assertEquals(100, statement("frank", b).rows());
      assertNull("no text was sent for B", statement("frank", b).text());
      assertNull("statements are each user's own", statement("erin", b));
    }
  }

  /**
   * A value that is not 16 lower-case hex digits names no statement and is reported once; a text
   * over 4,096 bytes is not kept, its statement is.
   */
  @Test
  public void malformedValuesAreNotStored() throws Exception {
    TableName t = newTable("statement_stats_bad");
    RawTable.create(cluster.admin(), new RawTable.Spec(t).blockSize(4096));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, 200, 7);
    Connection c = cluster.connection();
    String user = User.getCurrent().getShortName();
    int before = statements().statements().size();
    for (String bad : new String[] {"00000000000000A1", "0000000000000a1", "zzzzzzzzzzzzzzzz"}) {
      assertEquals(200, scan(c, t, new Scan(), bad, null));
      assertNull(bad, statement(user, bad));
    }
    assertEquals("no statement kept for them", before, statements().statements().size());
    assertEquals(
        "reported once",
        1,
        cluster.diagnostics().problems().stream()
            .filter(p -> p.contains("not 16 lower-case hex digits"))
            .count());

    String fp = "0000000000000bad";
    byte[] tooLong = new byte[StatementStats.MAX_TEXT_BYTES + 1];
    assertEquals(200, scan(c, t, new Scan(), fp, tooLong));
    assertNotNull("the statement is kept", statement(user, fp));
    assertNull("its oversized text is not", statement(user, fp).text());
  }
}
