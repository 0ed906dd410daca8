package io.blockscope.hints;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.profile.StatementTotals;
import io.blockscope.metrics.profile.StatementsWire;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/** The driver's SHOW and RESET BLOCKSCOPE STATEMENTS: what they parse to, and their result. */
public class StatementsQueryTest {
  @Test
  public void eachFormParsesInAnyCase() throws SQLException {
    StatementsQuery own = StatementsQuery.parse("show blockscope statements");
    assertNull(own.user);
    assertFalse(own.all);
    assertFalse(own.reset);
    assertEquals(
        "alice", StatementsQuery.parse("SHOW BLOCKSCOPE STATEMENTS FOR USER 'alice'").user);
    assertEquals(
        "svc.etl", StatementsQuery.parse("  Show  Blockscope\nStatements for user svc.etl ").user);
    StatementsQuery all = StatementsQuery.parse("SHOW BLOCKSCOPE STATEMENTS FOR ALL USERS");
    assertTrue(all.all);
    assertNull(all.user);
    StatementsQuery reset = StatementsQuery.parse("reset blockscope statements");
    assertTrue(reset.all);
    assertTrue(reset.reset);
  }

  @Test
  public void otherStatementsAreNotTheDrivers() throws SQLException {
    for (String sql :
        new String[] {
          "SHOW TABLES", "SHOW SCHEMAS", "SELECT * FROM BLOCKSCOPE", "SHOWBLOCKSCOPE STATEMENTS"
        }) {
      assertNull(sql, StatementsQuery.parse(sql));
    }
  }

  @Test
  public void aMalformedOneIsASyntaxErrorThatSaysTheForms() {
    for (String sql :
        new String[] {
          "SHOW BLOCKSCOPE",
          "SHOW BLOCKSCOPE STATEMENT",
          "SHOW BLOCKSCOPE STATEMENTS FOR",
          "SHOW BLOCKSCOPE STATEMENTS FOR USER",
          "SHOW BLOCKSCOPE STATEMENTS FOR USER ''",
          "SHOW BLOCKSCOPE STATEMENTS FOR ALL",
          "SHOW BLOCKSCOPE STATEMENTS FOR USER 'a' 'b'",
          "RESET BLOCKSCOPE STATEMENTS FOR USER 'a'",
          "RESET BLOCKSCOPE"
        }) {
      SQLException e = assertThrows(sql, SQLException.class, () -> StatementsQuery.parse(sql));
      assertEquals(sql, "42601", e.getSQLState());
      assertTrue(e.getMessage(), e.getMessage().contains("SHOW BLOCKSCOPE STATEMENTS [FOR USER"));
    }
  }

  @Test
  public void theResultHasTheSumsThenEveryCost() throws SQLException {
    List<String> columns = new ArrayList<>();
    columns.add(StatementsWire.SCANS);
    columns.add(StatementsWire.EXECUTIONS);
    columns.add("blockCache.miss.data");
    columns.add("blockCache.miss.leafIndex");
    columns.add("decode.FAST_DIFF.cells");
    byte[] bytes =
        new StatementsWire.ResponseWriter("rs1", columns)
            .row("alice", "00112233445566ff", "SELECT * FROM T", new long[] {3, 2, 7, 1, 500})
            .row("bob", "ffeeddccbbaa9988", "", new long[] {1, 1, 0, 0, 0})
            .bytes();
    List<StatementsWire.Response> answers = new ArrayList<>();
    answers.add(StatementsWire.parseResponse(bytes));
    ResultSet rs = StatementsQuery.rows(StatementTotals.sum(answers, null, "misses"));
    ResultSetMetaData meta = rs.getMetaData();
    assertEquals(16 + CostLayout.SIZE - CostLayout.FIRST_COST, meta.getColumnCount());
    assertEquals("USER", meta.getColumnLabel(1));
    assertEquals(Types.VARCHAR, meta.getColumnType(3));
    assertEquals(Types.BIGINT, meta.getColumnType(5));
    assertEquals("BLOCKCACHE_HIT_DATA", meta.getColumnLabel(17));
    assertTrue(rs.next());
    assertEquals("alice", rs.getString("USER"));
    assertEquals(3, rs.getLong("SCANS"));
    assertEquals(2, rs.getLong("EXECUTIONS"));
    assertEquals("a column no server sent", 0, rs.getLong("REGIONS"));
    assertEquals("data and leaf index", 8, rs.getLong("MISSES"));
    assertEquals(7, rs.getLong("BLOCKCACHE_MISS_DATA"));
    assertEquals(500, rs.getLong("CELLS"));
    assertEquals(500, rs.getLong("DECODE_FAST_DIFF_CELLS"));
    assertEquals(1, rs.getLong("SERVERS"));
    assertTrue(rs.next());
    assertEquals("bob", rs.getString(1));
    assertNull("no text reached the server", rs.getString("TEXT"));
    assertTrue(rs.wasNull());
    assertFalse(rs.next());
  }
}
