package io.blockscope.hints;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.blockscope.hints.QueryExtensions.Profile;
import java.sql.SQLException;
import java.util.List;
import org.junit.Test;

public class QueryExtensionsTest {
  @Test
  public void theSeedsStatementsAsWritten() throws SQLException {
    QueryExtensions a = QueryExtensions.parse("select /*+ NO_CACHE */ count(*) from test;");
    assertTrue(a.noCache());
    assertFalse(a.serial());
    QueryExtensions b = QueryExtensions.parse("SELECT /*+ SERIAL */ COUNT(*) FROM t");
    assertTrue(b.serial());
    assertFalse(b.noCache());
  }

  @Test
  public void wordsMixWithPhoenixHintsInAnyCase() throws SQLException {
    QueryExtensions e =
        QueryExtensions.parse(
            "  -- a comment\n /* not a hint */ Select /*+ index(t t_v2) no_cache  Serial "
                + "profile(time) SMALL */ pk FROM t");
    assertTrue(e.noCache());
    assertTrue(e.serial());
    assertEquals(Profile.TIME, e.profile());
    assertEquals(3, e.explainLines(List.of()).size());
  }

  @Test
  public void profileWithoutArgumentCountsAndExplainIsSeen() throws SQLException {
    QueryExtensions e = QueryExtensions.parse("EXPLAIN UPSERT /*+PROFILE*/ INTO t SELECT * FROM s");
    assertEquals(Profile.COUNT, e.profile());
    assertTrue(e.explain());
    assertEquals(
        Profile.COUNT, QueryExtensions.parse("DELETE /*+ PROFILE ( count ) */ FROM t").profile());
  }

  @Test
  public void noHintOrAHintPhoenixWouldNotReadMeansNoExtension() throws SQLException {
    assertFalse(QueryExtensions.parse("SELECT * FROM t").any());
    assertFalse(QueryExtensions.parse("SELECT /* NO_CACHE */ * FROM t").any());
    assertFalse(
        "Phoenix reads a hint only after the first keyword",
        QueryExtensions.parse("SELECT * FROM t /*+ NO_CACHE */").any());
    assertFalse(QueryExtensions.parse("SELECT /*+ NOCACHE FULL_SCAN */ * FROM t").any());
    assertFalse(
        "a comma is not a separator, as in Phoenix",
        QueryExtensions.parse("SELECT /*+ NO_CACHE,SERIAL */ * FROM t").any());
    assertFalse(QueryExtensions.parse(null).any());
  }

  @Test
  public void oneTrailingSemicolonIsDropped() {
    assertEquals("select 1", QueryExtensions.withoutTerminator("select 1 ;  \n"));
    assertEquals("select ';'", QueryExtensions.withoutTerminator("select ';'"));
    assertEquals("select 1;", QueryExtensions.withoutTerminator("select 1;;"));
    assertEquals("select 1", QueryExtensions.withoutTerminator("select 1"));
  }

  @Test
  public void malformedArgumentsAreSyntaxErrors() {
    for (String hint :
        new String[] {
          "PROFILE(FAST)",
          "PROFILE()",
          "PROFILE(COUNT",
          "SERIAL(2)",
          "NO_CACHE(t)",
          "PROFILE(COUNT TIME)"
        }) {
      SQLException e =
          assertThrows(
              hint,
              SQLException.class,
              () -> QueryExtensions.parse("SELECT /*+ " + hint + " */ * FROM t"));
      assertEquals(QueryExtensions.SYNTAX_ERROR, e.getSQLState());
      assertTrue(e.getMessage(), e.getMessage().startsWith("blockscope: malformed hint /*+ "));
    }
  }
}
