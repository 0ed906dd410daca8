package io.blockscope.hints;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.profile.ProfileWire;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.Map;
import org.junit.Test;

public class ExplainAnalyzeTest {
  private static final String Q = "SELECT pk FROM t WHERE v < 0.5";

  @Test
  public void theDefaultIsTextAtCount() throws SQLException {
    ExplainAnalyze.Request r = ExplainAnalyze.parse("explain analyze " + Q);
    assertEquals(ExplainAnalyze.Format.TEXT, r.format());
    assertEquals(PerfLevel.COUNT, r.level());
    assertEquals(Q, r.query());
    assertEquals(QueryExtensions.Profile.COUNT, r.extensions().profile());
  }

  @Test
  public void optionsInAnyCaseAndOrder() throws SQLException {
    ExplainAnalyze.Request r =
        ExplainAnalyze.parse("-- why\n EXPLAIN\tAnalyze( format  json , time )" + Q);
    assertEquals(ExplainAnalyze.Format.JSON, r.format());
    assertEquals(PerfLevel.TIME, r.level());
    assertEquals(Q, r.query());
  }

  @Test
  public void postgresqlsSpellingWithAnalyzeInTheOptionList() throws SQLException {
    ExplainAnalyze.Request r = ExplainAnalyze.parse("EXPLAIN (ANALYZE, FORMAT JSON) " + Q);
    assertEquals(ExplainAnalyze.Format.JSON, r.format());
    assertEquals(PerfLevel.COUNT, r.level());
    assertEquals(Q, r.query());
    r = ExplainAnalyze.parse("explain ( format text, analyze true, time )\n" + Q);
    assertEquals(ExplainAnalyze.Format.TEXT, r.format());
    assertEquals(PerfLevel.TIME, r.level());
    assertEquals(Q, r.query());
    r = ExplainAnalyze.parse("EXPLAIN(analyze on)" + Q);
    assertEquals(ExplainAnalyze.Format.TEXT, r.format());
    assertEquals(Q, r.query());
  }

  @Test
  public void theQuerysOwnHintsHoldAndItsProfileTimeWins() throws SQLException {
    QueryExtensions e =
        ExplainAnalyze.parse("EXPLAIN ANALYZE SELECT /*+ NO_CACHE SERIAL PROFILE(TIME) */ 1 FROM t")
            .extensions();
    assertTrue(e.noCache() && e.serial());
    assertEquals(QueryExtensions.Profile.TIME, e.profile());
    assertEquals(
        QueryExtensions.Profile.TIME,
        ExplainAnalyze.parse("EXPLAIN ANALYZE (TIME) SELECT /*+ PROFILE */ 1 FROM t")
            .extensions()
            .profile());
  }

  @Test
  public void otherStatementsAreNotOurs() throws SQLException {
    assertNull(ExplainAnalyze.parse(Q));
    assertNull(ExplainAnalyze.parse("EXPLAIN " + Q));
    assertNull(ExplainAnalyze.parse("EXPLAIN ANALYZED " + Q));
    assertNull(ExplainAnalyze.parse("EXPLAINANALYZE " + Q));
    assertNull(ExplainAnalyze.parse(null));
  }

  private static SQLException refused(String sql) {
    return assertThrows(sql, SQLException.class, () -> ExplainAnalyze.parse(sql));
  }

  @Test
  public void badOptionsAreSyntaxErrorsThatNameThem() {
    String[][] cases = {
      {"EXPLAIN ANALYZE (FAST) " + Q, "unknown option 'FAST'"},
      {"EXPLAIN ANALYZE (FORMAT XML) " + Q, "unknown FORMAT 'XML': use TEXT or JSON"},
      {"EXPLAIN ANALYZE (FORMAT) " + Q, "FORMAT takes one word"},
      {"EXPLAIN ANALYZE (COUNT, TIME) " + Q, "the level is given twice (COUNT, TIME)"},
      {"EXPLAIN ANALYZE (FORMAT JSON, FORMAT TEXT) " + Q, "FORMAT is given twice"},
      {"EXPLAIN ANALYZE (TIME " + Q, "no closing parenthesis"},
      {"EXPLAIN ANALYZE (TIME,) " + Q, "unknown option ''"},
      {"EXPLAIN ANALYZE ", "no query follows"},
      {"EXPLAIN ANALYZE (TIME)", "no query follows"},
      {"EXPLAIN ANALYZE (ANALYZE) " + Q, "unknown option 'ANALYZE': use COUNT"},
      {"EXPLAIN (FORMAT JSON) " + Q, "only with ANALYZE among its options"},
      {"EXPLAIN (ANALYZE FALSE) " + Q, "without ANALYZE, use Phoenix's plain EXPLAIN"},
      {"EXPLAIN (ANALYZE, ANALYZE) " + Q, "ANALYZE is given twice"},
      {"EXPLAIN (ANALYZE, VERBOSE) " + Q, "unknown option 'VERBOSE': use ANALYZE, COUNT"},
      {"EXPLAIN (ANALYZE " + Q, "no closing parenthesis"},
      {"EXPLAIN (ANALYZE)", "no query follows"},
    };
    for (String[] c : cases) {
      SQLException e = refused(c[0]);
      assertEquals(c[0], QueryExtensions.SYNTAX_ERROR, e.getSQLState());
      assertTrue(e.getMessage(), e.getMessage().contains(c[1]));
      assertTrue(
          e.getMessage(), e.getMessage().startsWith("blockscope: malformed EXPLAIN ANALYZE"));
    }
  }

  @Test
  public void onlyQueriesRunBecauseOthersWouldChangeData() {
    for (String sql :
        List.of(
            "EXPLAIN ANALYZE UPSERT INTO t VALUES (1)",
            "EXPLAIN ANALYZE DELETE FROM t",
            "EXPLAIN ANALYZE /* a comment */ DROP TABLE t")) {
      SQLException e = refused(sql);
      assertEquals(sql, ExplainAnalyze.NOT_SUPPORTED, e.getSQLState());
      assertTrue(e.getMessage(), e.getMessage().contains("runs SELECT queries only"));
    }
  }

  /** A SELECT that takes NEXT VALUE FOR advances its sequence each time it runs. */
  @Test
  public void aQueryThatAdvancesASequenceIsNotRun() {
    for (String sql :
        List.of(
            "EXPLAIN ANALYZE SELECT NEXT VALUE FOR s",
            "EXPLAIN ANALYZE SELECT next value for s, k FROM t",
            "EXPLAIN ANALYZE SELECT NEXT /* c */ VALUE\n FOR my_schema.s FROM t",
            // Phoenix's lexer keeps a backslash-quote inside a string: the sequence is outside it
            "EXPLAIN ANALYZE SELECT '\\'', NEXT VALUE FOR s, 'x' FROM t",
            "EXPLAIN ANALYZE SELECT 'a\\\\', NEXT VALUE FOR s, 'x' FROM t",
            // // comments to the end of the line, quotes and all
            "EXPLAIN ANALYZE SELECT 1 // it's\n, NEXT VALUE FOR s FROM t",
            // NEXT n VALUES FOR takes n values at once
            "EXPLAIN ANALYZE SELECT NEXT 10 VALUES FOR s FROM t",
            "EXPLAIN ANALYZE SELECT NEXT ? VALUES FOR s FROM t",
            "EXPLAIN ANALYZE SELECT NEXT :1 VALUES FOR s FROM t")) {
      SQLException e = refused(sql);
      assertEquals(sql, ExplainAnalyze.NOT_SUPPORTED, e.getSQLState());
      assertTrue(e.getMessage(), e.getMessage().contains("NEXT VALUE FOR would advance"));
    }
    for (String sql :
        List.of(
            "SELECT CURRENT VALUE FOR s FROM t",
            "SELECT 'NEXT VALUE FOR s' FROM t",
            "SELECT \"NEXT VALUE FOR\" FROM t",
            "SELECT next_value, for_x FROM t -- NEXT VALUE FOR s",
            "SELECT NEXT, VALUE, FOR FROM t",
            "SELECT 'it''s', '\\' NEXT VALUE FOR s' FROM t",
            "SELECT 1 // NEXT VALUE FOR s\nFROM t")) {
      assertFalse(sql, ExplainAnalyze.takesSequenceValues(sql));
    }
  }

  /**
   * The guard cuts queries into words as Phoenix's own lexer does: over generated queries of
   * strings with every escape, quoted names, comments of each kind and the words of NEXT [n]
   * VALUE(S) FOR, it finds sequence values exactly where PhoenixSQLLexer's tokens say them.
   */
  @Test
  public void theGuardLexesAsPhoenixDoes() {
    String[] pieces = {
      "SELECT",
      "NEXT",
      "VALUE",
      "VALUES",
      "FOR",
      "s",
      "t",
      "10",
      "1.5e3",
      "_x1",
      "?",
      ":1",
      ",",
      "(",
      ")",
      "'",
      "\\'",
      "''",
      "\\\\",
      "\\",
      "\"",
      "\"\"",
      "--",
      "//",
      "/*",
      "*/",
      "/*+",
      "\n",
      "it's",
      "x",
      "NEXT VALUE FOR s",
      "NEXT 10 VALUES FOR s",
      "NEXT :n VALUES FOR s"
    };
    java.util.Random random = new java.util.Random(20261128L);
    int compared = 0;
    int taking = 0;
    for (int i = 0; i < 100_000; i++) {
      StringBuilder q = new StringBuilder("SELECT ");
      int length = 3 + random.nextInt(12);
      for (int j = 0; j < length; j++) {
        q.append(pieces[random.nextInt(pieces.length)]);
        if (random.nextInt(3) > 0) {
          q.append(' ');
        }
      }
      Boolean phoenix = PhoenixTokens.takesSequenceValues(q.toString());
      if (phoenix == null) {
        continue; // Phoenix's lexer refuses it: the query never runs
      }
      compared++;
      taking += phoenix ? 1 : 0;
      assertEquals(q.toString(), phoenix, ExplainAnalyze.takesSequenceValues(q.toString()));
    }
    // the corpus holds both answers, many times
    assertTrue("compared " + compared, compared > 10_000);
    assertTrue("taking " + taking, taking > 100 && taking < compared - 100);
  }

  private static final Map<String, Long> BUSY =
      Map.of(
          "blockCache.miss.data", 58L,
          "blockCache.miss.leafIndex", 1L,
          "fs.read.blocks.data", 58L,
          "fs.read.blocks.leafIndex", 1L,
          "fs.read.bytes.data", 168_478L,
          "checksum.bytes", 168_478L,
          "checksum.chunks", 58L,
          "decode.FAST_DIFF.cells", 15_274L,
          "decode.FAST_DIFF.nanos", 2_500_000L);
  private static final Map<String, Long> QUIET =
      Map.of("blockCache.hit.data", 3L, "decode.FAST_DIFF.cells", 40L);

  private static ExplainAnalyze.Outcome outcome(
      String sql, PerfLevel level, QueryProfile.Region... regions) throws SQLException {
    return new ExplainAnalyze.Outcome(
        ExplainAnalyze.parse(sql),
        level,
        List.of("CLIENT 2-CHUNK PARALLEL 2-WAY FULL SCAN OVER T"),
        List.of("BLOCKSCOPE NO_CACHE: every scan of this query runs with block caching off"),
        new QueryProfile("q1", List.of(regions), new QueryProfile.Read(2, 1, 3_400_000L)),
        1,
        84_200_000L);
  }

  @Test
  public void textIsThePlanThenTotalSkewAndRegionsBusiestFirst() throws SQLException {
    List<String> lines =
        ExplainAnalyze.render(
            outcome(
                "EXPLAIN ANALYZE " + Q,
                PerfLevel.COUNT,
                new QueryProfile.Region("T", "quiet", 7, QUIET),
                new QueryProfile.Region("T", "busy", 2_495, BUSY)));
    assertEquals("CLIENT 2-CHUNK PARALLEL 2-WAY FULL SCAN OVER T", lines.get(0));
    assertTrue(lines.get(1), lines.get(1).startsWith("BLOCKSCOPE NO_CACHE"));
    assertEquals(
        "BLOCKSCOPE ANALYZE (COUNT): 1 row returned in 84.2 ms; 2 regions of 1 table read 2,502"
            + " rows; query q1",
        lines.get(2));
    assertEquals(
        "  total: rows=2,502; cache hits=3 misses=59 (data=58 leafIndex=1); fs blocks=59"
            + " (data=58 leafIndex=1) bytes=168,478; checksum bytes=168,478 chunks=58;"
            + " decode FAST_DIFF cells=15,314 seeks=0",
        lines.get(3));
    assertEquals(
        "  skew: by blocks read (block cache hits + misses), max/median 19.67 (max 59, median 3);"
            + " busiest: T/busy (59), T/quiet (3)",
        lines.get(4));
    assertTrue(lines.get(5), lines.get(5).startsWith("  region T/busy: rows=2,495;"));
    assertEquals(
        "  region T/quiet: rows=7; cache hits=3 misses=0; fs blocks=0 bytes=0;"
            + " decode FAST_DIFF cells=40 seeks=0",
        lines.get(6));
    assertEquals("  profile read: 2 regions asked in 1 call, 3.4 ms", lines.get(7));
    assertEquals(8, lines.size());
  }

  @Test
  public void atTimeRegionsRankByProbeTimeAndTimesAreShown() throws SQLException {
    List<String> lines =
        ExplainAnalyze.render(
            outcome(
                "EXPLAIN ANALYZE (TIME) " + Q,
                PerfLevel.TIME,
                new QueryProfile.Region("T", "busy", 2_495, BUSY)));
    assertTrue(lines.get(2), lines.get(2).startsWith("BLOCKSCOPE ANALYZE (TIME): "));
    assertTrue(lines.get(3), lines.get(3).contains("checksum bytes=168,478 chunks=58 time=0.0 ms"));
    assertTrue(
        lines.get(3), lines.get(3).contains("decode FAST_DIFF cells=15,274 seeks=0 time=2.5"));
    assertTrue(lines.get(4), lines.get(4).startsWith("  skew: by probe time"));
    assertTrue(lines.get(4), lines.get(4).contains("max/median 1.00 (max 2.5 ms, median 2.5 ms)"));
  }

  @Test
  public void jsonIsOneDocumentWithEveryFigure() throws SQLException {
    List<String> rows =
        ExplainAnalyze.render(
            outcome(
                "EXPLAIN ANALYZE (FORMAT JSON) " + Q,
                PerfLevel.COUNT,
                new QueryProfile.Region("T", "quiet", 7, QUIET),
                new QueryProfile.Region("T", "busy", 2_495, BUSY)));
    assertEquals(1, rows.size());
    String json = rows.get(0);
    assertTrue(json, json.startsWith("{\n  \"version\": 1,\n  \"query\": \"" + Q + "\","));
    assertTrue(json, json.contains("\"wallNanos\": 84200000,"));
    assertTrue(json, json.contains("\"rowsReturned\": 1,"));
    assertTrue(
        json, json.contains("\"plan\": [\"CLIENT 2-CHUNK PARALLEL 2-WAY FULL SCAN OVER T\"]"));
    assertTrue(json, json.contains("\"decode.FAST_DIFF.cells\": 15314"));
    assertTrue(
        json, json.contains("\"measure\": \"blocks\",\n    \"max\": 59,\n    \"median\": 3"));
    // regions busiest first, each with every cost it recorded
    assertTrue(json, json.indexOf("\"region\": \"busy\"") < json.indexOf("\"region\": \"quiet\""));
    assertTrue(json, json.contains("\"fs.read.bytes.data\": 168478"));
    assertTrue(
        json,
        json.contains(
            "\"profileRead\": {\n    \"regionsAsked\": 2,\n    \"calls\": 1,\n    \"nanos\":"
                + " 3400000\n  }"));
    assertTrue(json, json.endsWith("}"));
  }

  @Test
  public void eachRegionSaysTheLevelItMeasuredAtAndWhy() throws SQLException {
    QueryProfile.Region capped =
        new QueryProfile.Region("T", "capped", 7, QUIET, 1, ProfileWire.CAPPED);
    QueryProfile.Region off =
        new QueryProfile.Region("T", "off", 5, Map.of(), 0, ProfileWire.REGION_OFF);
    List<String> lines =
        ExplainAnalyze.render(outcome("EXPLAIN ANALYZE (TIME) " + Q, PerfLevel.TIME, capped, off));
    assertTrue(
        lines.toString(),
        lines.contains(
            "  region T/capped: rows=7; cache hits=3 misses=0; fs blocks=0 bytes=0;"
                + " decode FAST_DIFF cells=40 seeks=0 time=0.0 ms; measured at COUNT (capped by the"
                + " region server's blockscope.query.max.level)"));
    assertTrue(
        lines.toString(),
        lines.stream()
            .anyMatch(
                l ->
                    l.startsWith("  region T/off: ")
                        && l.endsWith(
                            "; measured at OFF (the region is at OFF: its table's or its"
                                + " server's blockscope.level)")));
    String json =
        ExplainAnalyze.render(
                outcome("EXPLAIN ANALYZE (TIME, FORMAT JSON) " + Q, PerfLevel.TIME, capped))
            .get(0);
    assertTrue(json, json.contains("\"level\": \"COUNT\","));
    assertTrue(
        json,
        json.contains(
            "\"levelReason\": \"capped by the region server's blockscope.query.max.level\""));
    // a region server of an earlier blockscope says nothing of it
    assertEquals(
        "", ExplainAnalyzeText.appliedLevel(new QueryProfile.Region("T", "old", 7, QUIET)));
  }

  @Test
  public void theResultIsOnePlanColumnToolsCanDescribe() throws SQLException {
    try (ResultSet rs = ExplainResults.lines(List.of("a", "b"))) {
      ResultSetMetaData m = rs.getMetaData();
      assertEquals(1, m.getColumnCount());
      assertEquals("PLAN", m.getColumnLabel(1));
      assertEquals(Types.VARCHAR, m.getColumnType(1));
      assertTrue(rs.next());
      assertEquals("a", rs.getString("plan"));
      assertTrue(rs.next());
      assertEquals("b", rs.getObject(1));
      assertTrue(!rs.next());
    }
  }
}
