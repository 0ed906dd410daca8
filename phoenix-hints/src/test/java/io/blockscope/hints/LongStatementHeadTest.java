package io.blockscope.hints;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.sql.SQLException;
import org.junit.Test;

/**
 * The hint parser reads the white space and comments before a statement in time linear in their
 * length and in a constant stack: 100 KB of leading white space, one long comment, thousands of
 * comments. A regular expression with a repeated group backtracked there (100 KB of white space
 * before a statement without hint took 377 s: 5 KB 1.2 s, 20 KB 15 s) and recursed once per
 * comment, throwing {@link StackOverflowError} out of {@code Statement.execute}. Each test gives
 * the parse 10 s, far more than the linear scan needs on a loaded machine.
 */
public class LongStatementHeadTest {
  private static final int KB100 = 100_000;

  @Test(timeout = 10_000)
  public void whiteSpaceBeforeAStatementWithoutHint() throws SQLException {
    assertFalse(QueryExtensions.parse(" ".repeat(KB100) + "SELECT * FROM t").any());
    assertFalse(
        QueryExtensions.parse(" \t\r\n\f\u000B".repeat(KB100 / 6) + "SELECT * FROM t").any());
    assertFalse(
        "a hint after the table is not read",
        QueryExtensions.parse(" ".repeat(KB100) + "SELECT * FROM t /*+ SERIAL */").any());
  }

  @Test(timeout = 10_000)
  public void whiteSpaceBeforeAHintedStatement() throws SQLException {
    QueryExtensions e =
        QueryExtensions.parse(
            "\n".repeat(KB100)
                + "EXPLAIN"
                + " ".repeat(KB100)
                + "SELECT"
                + " ".repeat(KB100)
                + "/*+"
                + " ".repeat(KB100)
                + "SERIAL"
                + " ".repeat(KB100)
                + "*/ * FROM t");
    assertTrue(e.serial());
    assertTrue(e.explain());
  }

  @Test(timeout = 10_000)
  public void oneLongCommentBeforeTheStatement() throws SQLException {
    String comment = "/*" + "x".repeat(KB100) + "*/";
    assertFalse(QueryExtensions.parse(comment + "SELECT * FROM t").any());
    assertTrue(QueryExtensions.parse(comment + "SELECT /*+ NO_CACHE */ * FROM t").noCache());
  }

  @Test(timeout = 10_000)
  public void manyCommentsBeforeTheStatement() throws SQLException {
    String lines = "-- a script's header\n".repeat(KB100 / 21);
    String blocks = "/* c */ ".repeat(KB100 / 8);
    assertTrue(QueryExtensions.parse(lines + "SELECT /*+ SERIAL */ * FROM t").serial());
    assertTrue(QueryExtensions.parse(blocks + "SELECT /*+ SERIAL */ * FROM t").serial());
    assertTrue(
        QueryExtensions.parse(
                    lines + blocks + " \n".repeat(KB100) + "delete /*+ PROFILE(time) */ FROM t")
                .profile()
            == QueryExtensions.Profile.TIME);
    assertFalse(QueryExtensions.parse(blocks + "SELECT * FROM t").any());
    assertFalse(QueryExtensions.parse("/**/".repeat(KB100 / 4) + "SELECT /*+").any());
  }

  @Test(timeout = 10_000)
  public void unterminatedCommentsMeanNoHint() throws SQLException {
    assertFalse(QueryExtensions.parse("/*" + " ".repeat(KB100)).any());
    assertFalse(QueryExtensions.parse("/*".repeat(KB100 / 2)).any());
    assertFalse(
        QueryExtensions.parse("/* ".repeat(KB100 / 3) + "SELECT /*+ SERIAL */ * FROM t").any());
    assertFalse(
        "a line comment that no newline ends",
        QueryExtensions.parse("--" + " ".repeat(KB100) + "SELECT /*+ SERIAL */ * FROM t").any());
    assertFalse(QueryExtensions.parse("SELECT /*+ SERIAL" + " ".repeat(KB100)).any());
    assertFalse(
        "a stray end of comment after many comments",
        QueryExtensions.parse("/* a */ ".repeat(KB100 / 8) + "*/ SELECT /*+ SERIAL */ 1").any());
  }

  /**
   * The expression could stretch a comment over a later end of comment to find a hint; Phoenix's
   * lexer ends a comment at its first one, and so does the scan.
   */
  @Test
  public void aCommentEndsAtItsFirstEnd() throws SQLException {
    assertFalse(QueryExtensions.parse("/* a */ b */ SELECT /*+ SERIAL */ * FROM t").any());
    assertTrue(QueryExtensions.parse("/* a **/SELECT/*+SERIAL*/ * FROM t").serial());
    assertFalse(
        "the end of a comment is not its start",
        QueryExtensions.parse("/*/ SELECT /*+ SERIAL */ * FROM t").any());
  }

  @Test(timeout = 10_000)
  public void malformedArgumentsAfterALongHeadAreStillSyntaxErrors() {
    SQLException e =
        assertThrows(
            SQLException.class,
            () ->
                QueryExtensions.parse(
                    " ".repeat(KB100)
                        + "-- x\n".repeat(KB100 / 5)
                        + "SELECT /*+ PROFILE(FAST) */ 1"));
    assertEquals(QueryExtensions.SYNTAX_ERROR, e.getSQLState());
    assertEquals(
        "blockscope: malformed hint /*+ PROFILE(FAST) */: unknown PROFILE argument"
            + " 'FAST': use COUNT or TIME",
        e.getMessage());
  }
}
