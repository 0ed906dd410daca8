package io.blockscope.metrics.profile;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/**
 * How {@code blockscope statements} sums the servers' rows, filters them by table and sorts them.
 */
public class StatementTotalsTest {
  private static final List<String> COLUMNS =
      List.of(
          StatementsWire.SCANS,
          StatementsWire.FIRST_SEEN,
          StatementsWire.LAST_SEEN,
          "blockCache.hit.data",
          "blockCache.miss.data",
          "blockCache.miss.leafIndex",
          "decode.FAST_DIFF.cells",
          "decode.PREFIX.cells");

  private static StatementsWire.Response server(String name, Object[]... rows) {
    StatementsWire.ResponseWriter w = new StatementsWire.ResponseWriter(name, COLUMNS);
    for (Object[] r : rows) {
      w.row((String) r[0], (String) r[1], (String) r[2], (long[]) r[3]);
    }
    return StatementsWire.parseResponse(w.bytes());
  }

  private static Object[] row(String user, String fp, String text, long... values) {
    return new Object[] {user, fp, text, values};
  }

  private static Sum command(String sort, String table) {
    return answers -> StatementTotals.sum(answers, table, sort);
  }

  private interface Sum {
    List<StatementTotals.Summed> sum(List<StatementsWire.Response> answers);
  }

  private static List<String> keys(List<StatementTotals.Summed> rows) {
    List<String> k = new ArrayList<>();
    for (StatementTotals.Summed s : rows) {
      k.add(s.user + "/" + s.fingerprint);
    }
    return k;
  }

  private final List<StatementsWire.Response> servers =
      List.of(
          server(
              "rs1",
              row(
                  "alice",
                  "a1",
                  "SELECT * FROM ORDERS WHERE ID = ?",
                  2,
                  1000,
                  5000,
                  7,
                  3,
                  1,
                  40,
                  0),
              row("bob", "b1", "", 1, 2000, 2000, 0, 9, 0, 0, 0)),
          server(
              "rs2",
              row("alice", "a1", "", 1, 900, 4000, 1, 2, 0, 0, 5),
              row("alice", "a2", "SELECT COUNT(*) FROM \"orders_archive\"", 1, 0, 0, 0, 1, 0, 0, 0),
              row("bob", "b1", "UPSERT INTO ORDERS2 VALUES (?)", 1, 3000, 3000, 0, 1, 0, 0, 0)));

  @Test
  public void aStatementOnSeveralServersIsOneRowOfTheirSums() {
    List<StatementTotals.Summed> rows = command("misses", null).sum(servers);
    assertEquals(List.of("bob/b1", "alice/a1", "alice/a2"), keys(rows));
    StatementTotals.Summed a1 = rows.get(1);
    assertEquals(2, a1.servers);
    assertEquals(3, a1.figure(StatementsWire.SCANS));
    assertEquals(
        "the first server's text, where the second had none",
        "SELECT * FROM ORDERS WHERE ID = ?",
        a1.text);
    assertEquals("first seen: the earlier", 900, a1.figure(StatementsWire.FIRST_SEEN));
    assertEquals("last seen: the later", 5000, a1.figure(StatementsWire.LAST_SEEN));
    assertEquals(8, a1.figure("hits"));
    assertEquals("every kind's misses", 6, a1.figure("misses"));
    assertEquals("every encoding's cells", 45, a1.figure("cells"));
    assertEquals(5, a1.figure("blockCache.miss.data"));
    StatementTotals.Summed b1 = rows.get(0);
    assertEquals(
        "a server that never saw it does not make it 0",
        2000,
        b1.figure(StatementsWire.FIRST_SEEN));
    assertEquals("UPSERT INTO ORDERS2 VALUES (?)", b1.text);
  }

  @Test
  public void aTableFilterMatchesTheNameAsAWholeWordInAnyCaseQuotedOrNot() {
    assertEquals(List.of("alice/a1"), keys(command("misses", "orders").sum(servers)));
    assertEquals(List.of("alice/a2"), keys(command("misses", "ORDERS_ARCHIVE").sum(servers)));
    assertEquals(List.of("bob/b1"), keys(command("misses", "orders2").sum(servers)));
    assertEquals(List.of(), keys(command("misses", "ORD").sum(servers)));
  }

  @Test
  public void tiesAreBrokenByUserThenFingerprint() {
    assertEquals(
        List.of("alice/a1", "alice/a2", "bob/b1"),
        keys(command("blockCache.miss.leafIndex", null).sum(servers)));
  }

  private static StatementTotals.Region region(String table, boolean system) {
    return new StatementTotals.Region(table, system, new byte[] {1});
  }

  @Test
  public void aServerIsAskedThroughItsUserTablesFirstUntilOneAnswers() {
    List<String> asked = new ArrayList<>();
    StringBuilder why = new StringBuilder();
    StatementsWire.Response r =
        StatementTotals.askServer(
            "rs2",
            List.of(
                region("hbase:meta", true),
                region("t1", false),
                region("t1", false),
                region("t2", false)),
            (table, row) -> {
              asked.add(table);
              if (table.equals("t1")) {
                throw new IllegalStateException(
                    "UnknownProtocolException: No registered coprocessor service\n  at ...");
              }
              return servers;
            },
            why);
    assertEquals("rs2", r.server);
    assertEquals("each table once, user tables first", List.of("t1", "t2"), asked);
  }

  @Test
  public void aServerNoTableAnswersForIsNamedWithTheFirstReason() {
    List<StatementTotals.Region> regions = new ArrayList<>();
    regions.add(region("hbase:acl", true));
    for (int i = 0; i < 12; i++) {
      regions.add(region("t" + i, false));
    }
    List<String> asked = new ArrayList<>();
    StringBuilder why = new StringBuilder();
    StatementsWire.Response r =
        StatementTotals.askServer(
            "rs1",
            regions,
            (table, row) -> {
              asked.add(table);
              throw new RuntimeException(
                  "AccessDeniedException: Insufficient permissions for " + table + "\nstack");
            },
            why);
    assertEquals(null, r);
    assertEquals(StatementTotals.TABLES_TRIED, asked.size());
    assertEquals(
        "t0: java.lang.RuntimeException: AccessDeniedException: Insufficient permissions for t0"
            + " (and 9 more tables)",
        why.toString());
  }

  @Test
  public void blockscopesOwnRefusalEndsTheWalk() {
    List<String> asked = new ArrayList<>();
    StatementTotals.Refused e =
        assertThrows(
            StatementTotals.Refused.class,
            () ->
                StatementTotals.askServer(
                    "rs1",
                    List.of(region("t1", false), region("t2", false)),
                    (table, row) -> {
                      asked.add(table);
                      throw new RuntimeException(
                          "wrapped",
                          new IllegalStateException(
                              StatementTotals.REFUSAL + " may read another user's statements\nat"));
                    },
                    new StringBuilder()));
    assertEquals(List.of("t1"), asked);
    assertEquals(
        "AccessDeniedException: " + StatementTotals.REFUSAL + " may read another user's statements",
        e.getMessage());
  }
}
