package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.accounting.StatementStats;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.profile.ProfileProtocol;
import io.blockscope.metrics.profile.StatementsWire;
import io.blockscope.testsupport.ProfileCalls;
import io.blockscope.workloads.RawTable;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.Superusers;
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

  /** A new one-region table of {@link #ROWS} seed rows in 4 KB FAST_DIFF blocks, flushed. */
  private static TableName fastDiffSeed(String name) throws Exception {
    TableName t = newTable(name);
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(t).blockSize(4096).encoding(DataBlockEncoding.FAST_DIFF));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, ROWS, 7);
    return t;
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
    TableName t = fastDiffSeed("statement_stats_exact");
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
   * over 4,096 bytes is not kept, its statement is; an execution id that is not 16 lower-case hex
   * digits counts its scan but no execution, and is reported once.
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

    // a plain client's execution ids: each distinct one is an execution of the one region, a
    // malformed one counts the scan without an execution and is reported once
    String named = "00000000000e0001";
    for (String execution :
        new String[] {"00000000000000e1", "00000000000000e1", "00000000000000e2", "E1", "e1"}) {
      Scan scan = new Scan();
      scan.setAttribute(
          Attributes.STATEMENT_EXECUTION, execution.getBytes(StandardCharsets.US_ASCII));
      assertEquals(200, scan(c, t, scan, named, null));
    }
    StatementStats.Statement s = statement(user, named);
    assertEquals(5, s.scans());
    assertEquals("two distinct execution ids", 2, s.executions());
    assertEquals("each read the one region", 2, s.regions());
    assertEquals(
        "reported once",
        1,
        cluster.diagnostics().problems().stream()
            .filter(p -> p.contains("named its statement's execution with a value that is not"))
            .count());
  }

  /** The statements endpoint's answer to {@code c}'s user, asked on {@code t}'s one region. */
  private static StatementsWire.Response ask(
      Connection c, TableName t, String user, boolean all, boolean reset) throws Throwable {
    return StatementsWire.parseResponse(
        ProfileCalls.askOneRegion(
                c,
                t,
                ProfileProtocol.GET_STATEMENTS,
                ProfileProtocol.statementsRequest(user, all, reset),
                ProfileProtocol.STATEMENTS_RESPONSE)
            .toByteArray());
  }

  private static List<StatementsWire.Row> rowsOf(StatementsWire.Response r, String user) {
    List<StatementsWire.Row> mine = new ArrayList<>();
    for (StatementsWire.Row row : r.rows) {
      if (row.user.equals(user)) {
        mine.add(row);
      }
    }
    return mine;
  }

  /** Whether HBase refused the call with its AccessDeniedException, saying {@code what}. */
  private static boolean refused(Throwable e, String what) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      String m = String.valueOf(c.getMessage());
      if ((c instanceof AccessDeniedException || m.contains(AccessDeniedException.class.getName()))
          && m.contains(what)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The rows {@code c}'s user reads with a statements request: 0 when blockscope refuses it with
   * HBase's AccessDeniedException (any other failure is thrown).
   */
  private static long rowsRead(Connection c, TableName t, String user, boolean all, boolean reset)
      throws Throwable {
    try {
      return ask(c, t, user, all, reset).rows.size();
    } catch (Throwable e) {
      if (!refused(e, "may read another user's statements, everyone's, or reset")) {
        throw e;
      }
      return 0;
    }
  }

  /**
   * The endpoint's {@code GetStatements}: gina and hugo each read their own statement, with exactly
   * the costs the server keeps for it (a cold whole-table scan's: the store file's data blocks
   * missed, its cells decoded); hugo may not read gina's, everyone's, or reset them; the region
   * server's own user (a superuser) reads everyone's, whose rows with the (other) rows add up to
   * every statement-named read the server counted, and resets them.
   */
  @Test
  public void theEndpointShowsEachUserTheirOwnAndASuperuserEveryones() throws Throwable {
    TableName t = fastDiffSeed("statement_stats_endpoint");
    HRegion region = onlyRegion(t);
    String g = "0000000000000c01";
    String h = "0000000000000c02";
    User gina = User.createUserForTesting(cluster.conf(), "gina", new String[0]);
    User hugo = User.createUserForTesting(cluster.conf(), "hugo", new String[0]);
    try (Connection gc = connect(gina);
        Connection hc = connect(hugo)) {
      try (Table table = gc.getTable(t)) {
        table.get(new Get(RawTable.seedRow(0))); // the region's location, before the count
      }
      cluster.admin().clearBlockCache(t);
      assertEquals(
          ROWS,
          scan(
              gc,
              t,
              new Scan(),
              g,
              "SCAN STATEMENT_STATS_ENDPOINT".getBytes(StandardCharsets.UTF_8)));
      assertEquals(100, scan(hc, t, new Scan().withStopRow(RawTable.seedRow(100)), h, null));

      StatementsWire.Response ginas = ask(gc, t, null, false, false);
      assertEquals(
          cluster
              .util()
              .getMiniHBaseCluster()
              .getServerHoldingRegion(t, region.getRegionInfo().getRegionName())
              .toString(),
          ginas.server);
      assertEquals("gina's own statement only: " + ginas.rows, 1, ginas.rows.size());
      StatementsWire.Row row = ginas.rows.get(0);
      assertEquals("gina", row.user);
      assertEquals(g, row.fingerprint);
      assertEquals("SCAN STATEMENT_STATS_ENDPOINT", row.text);
      assertEquals(1, row.get(StatementsWire.SCANS));
      assertEquals(ROWS, row.get(StatementsWire.ROWS));
      long[] file = StoreFiles.trailerDataBlocksAndCells(List.of(region));
      assertEquals(row.values.toString(), file[0], row.get("blockCache.miss.data"));
      assertEquals(row.values.toString(), file[1], row.get("decode.FAST_DIFF.cells"));
      StatementStats.Statement kept = statement("gina", g);
      for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
        assertEquals(CostLayout.name(i), kept.get(i), row.get(CostLayout.name(i)));
      }
      assertEquals(kept.firstSeen(), row.get(StatementsWire.FIRST_SEEN));
      assertEquals(StatementStats.uncountedMax(kept), row.get(StatementsWire.UNCOUNTED_MAX));

      StatementsWire.Response hugos = ask(hc, t, null, false, false);
      assertEquals(1, hugos.rows.size());
      assertEquals(h, hugos.rows.get(0).fingerprint);
      assertEquals("", hugos.rows.get(0).text);
      assertEquals(
          "rows of gina's hugo read by naming her", 0, rowsRead(hc, t, "gina", false, false));
      assertEquals("rows of everyone's hugo read", 0, rowsRead(hc, t, null, true, false));
      assertEquals("rows hugo read resetting", 0, rowsRead(hc, t, null, false, true));
      assertEquals(
          "hugo's own after his refused reset", 1, ask(hc, t, null, false, false).rows.size());
      assertEquals("hugo naming himself", 1, ask(hc, t, "hugo", false, false).rows.size());

      // the region server's own user, a superuser: named anew, with other groups, it would lose
      // the HDFS rights the server writes with
      try (Connection su = connect(Superusers.getSystemUser())) {
        assertEquals(
            "gina's, named by a superuser",
            row.values,
            ask(su, t, "gina", false, false).rows.get(0).values);
        StatementsWire.Response everyone = ask(su, t, null, true, false);
        assertEquals(List.of(row.fingerprint), fingerprints(rowsOf(everyone, "gina")));
        assertEquals(List.of(h), fingerprints(rowsOf(everyone, "hugo")));
        assertEquals(statements().usersLetGo(), everyone.usersLetGo);
        for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
          long sum = 0;
          for (StatementsWire.Row r : everyone.rows) {
            sum += r.get(CostLayout.name(i));
          }
          assertEquals(
              "every row, (other)s included, adds up to the server's: " + CostLayout.name(i),
              statements().total(i),
              sum);
        }

        StatementsWire.Response reset = ask(su, t, null, true, true);
        assertTrue(reset.reset);
        assertEquals("answered before it reset", everyone.rows.size(), reset.rows.size());
        assertNull("gina's statements start afresh", statements().user("gina"));
        assertEquals(0, ask(gc, t, null, false, false).rows.size());
      }
    }
  }

  private static List<String> fingerprints(List<StatementsWire.Row> rows) {
    List<String> f = new ArrayList<>();
    for (StatementsWire.Row r : rows) {
      f.add(r.fingerprint);
    }
    return f;
  }
}
