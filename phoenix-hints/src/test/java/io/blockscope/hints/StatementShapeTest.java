package io.blockscope.hints;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.Test;

public class StatementShapeTest {
  /** Each statement and the shape text it has; the first five are docs/hints.md's table. */
  private static final String[][] SHAPES = {
    {"select count(*) from t where v1 > 0.5", "SELECT COUNT (*) FROM T WHERE V1 > ?"},
    {"SELECT COUNT(*)  FROM T WHERE v1>0.25;", "SELECT COUNT (*) FROM T WHERE V1 > ?"},
    {
      "select pk from s.t where k in (1, 2, 3) limit 10",
      "SELECT PK FROM S.T WHERE K IN (?, ...) LIMIT ?"
    },
    {"select /*+  no_cache */ v from \"t\" -- note", "SELECT /*+ NO_CACHE */ V FROM \"t\""},
    {
      "select v from t where name like 'a%' and k <> -7",
      "SELECT V FROM T WHERE NAME LIKE ? AND K <> ?"
    },
    {"select * from t where k = 1", "SELECT * FROM T WHERE K = ?"},
    {"SELECT *\n  FROM t\tWHERE k='a''b';", "SELECT * FROM T WHERE K = ?"},
    {
      "select a,b from s.t where x >= -1.5e3 and y<>?",
      "SELECT A, B FROM S.T WHERE X >= ? AND Y <> ?"
    },
    {"select a - 1, a-1, -a from t", "SELECT A - ?, A - ?, - A FROM T"},
    {"select * from t where k in (1, 2, 3)", "SELECT * FROM T WHERE K IN (?, ...)"},
    {"select * from t where k in (?)", "SELECT * FROM T WHERE K IN (?)"},
    {"upsert into t (k, v) values ('x', 2)", "UPSERT INTO T (K, V) VALUES (?, ...)"},
    {"select \"MixedCase\".\"v\" from \"t\"", "SELECT \"MixedCase\".\"v\" FROM \"t\""},
    {"select /*+  no_cache\n serial */ v from t", "SELECT /*+ NO_CACHE SERIAL */ V FROM T"},
    {"-- why\nselect /* a note */ v from t limit 10", "SELECT V FROM T LIMIT ?"},
    {
      "select v from t where k = :1 and d = date '2024-01-01'",
      "SELECT V FROM T WHERE K = ? AND D = DATE ?"
    },
    {
      "select v from t where b is not null and c = true",
      "SELECT V FROM T WHERE B IS NOT NULL AND C = TRUE"
    },
    {"select count(*) from t", "SELECT COUNT (*) FROM T"},
    {"select v from t where k = 'unterminated", "SELECT V FROM T WHERE K = ?"},
    {"", ""},
  };

  @Test
  public void eachStatementHasItsShape() {
    for (String[] c : SHAPES) {
      assertEquals(c[0], c[1], StatementShape.of(c[0]).text());
    }
  }

  /** Pairs that differ in literals, binds, case, comments or white space only. */
  private static final String[][] SAME = {
    {"select v from t where k = 1", "SELECT V FROM T WHERE K = 42"},
    {"select v from t where k = 'a'", "select v from t where k = ?"},
    {"select v from t where k = -1", "select v from t where k = +7.25"},
    {"select v from t where k in (1, 2)", "select v from t where k in (?, ?, ?, ?)"},
    {"select v  from\tt", "SELECT V FROM T -- the usual"},
    {"select v from t;", "select v from t"},
    {"select /*+ NO_CACHE */ v from t", "SELECT /*+   no_cache   */ v FROM t"},
    {"select v from t where k = :1", "select v from t where k = ?"},
  };

  /** Pairs that differ in shape. */
  private static final String[][] DIFFERENT = {
    {"select v from t where k = 1", "select v from u where k = 1"},
    {"select v from t where k = 1", "select w from t where k = 1"},
    {"select v from t where k = 1", "select v from t where k > 1"},
    {"select v from t where k = 1", "select v from t where k = 1 limit 5"},
    {"select v from t", "select /*+ NO_CACHE */ v from t"},
    {"select v from t where k in (1)", "select v from t where k in (1, 2)"},
    {"select v from \"t\"", "select v from \"T\" where 1 = 1"},
    {"select v from t where a - 1 = 0", "select v from t where a = 0"},
    {"select v from t where b is null", "select v from t where b is not null"},
  };

  @Test
  public void statementsThatDifferInValuesCaseOrSpacingShareAFingerprint() {
    for (String[] p : SAME) {
      assertEquals(
          p[0] + " | " + p[1],
          StatementShape.of(p[0]).fingerprint(),
          StatementShape.of(p[1]).fingerprint());
    }
  }

  @Test
  public void statementsThatDifferInShapeDoNot() {
    for (String[] p : DIFFERENT) {
      assertNotEquals(
          p[0] + " | " + p[1],
          StatementShape.of(p[0]).fingerprint(),
          StatementShape.of(p[1]).fingerprint());
    }
  }

  @Test
  public void theFingerprintIsSixteenHexDigitsOfTheWholeText() {
    String shape = StatementShape.of("select v from t where k = 1").fingerprint();
    assertTrue(shape, shape.matches("[0-9a-f]{16}"));
    // SHA-256 of the empty string starts e3b0c442 98fc1c14
    assertEquals("e3b0c44298fc1c14", StatementShape.of("  -- nothing\n").fingerprint());

    StringBuilder longer = new StringBuilder("select v from t where k in (");
    for (int i = 0; i < 3000; i++) {
      longer.append("a").append(i).append(", ");
    }
    String a = longer + "z1)";
    String b = longer + "z2)";
    StatementShape sa = StatementShape.of(a);
    assertEquals(StatementShape.MAX_TEXT, sa.text().length());
    assertTrue(sa.text().endsWith("..."));
    assertEquals("cut texts are equal", sa.text(), StatementShape.of(b).text());
    assertNotEquals(
        "the fingerprint is of the whole text",
        sa.fingerprint(),
        StatementShape.of(b).fingerprint());
  }

  /**
   * Random statements built of names, operators and values: changing every value (and the case and
   * spacing of everything else) keeps the shape; changing one name does not.
   */
  @Test
  public void randomStatementsKeepTheirShapeUnderNewValues() {
    Random random = new Random(59);
    for (int n = 0; n < 2000; n++) {
      List<String[]> parts = new ArrayList<>();
      parts.add(new String[] {"select", "SELECT"});
      parts.add(new String[] {"c" + random.nextInt(5), null});
      parts.add(new String[] {"from", "FROM"});
      parts.add(new String[] {"t" + random.nextInt(5), null});
      parts.add(new String[] {"where", "WHERE"});
      int terms = 1 + random.nextInt(4);
      for (int k = 0; k < terms; k++) {
        if (k > 0) {
          parts.add(new String[] {random.nextBoolean() ? "and" : "or", null});
        }
        parts.add(new String[] {"c" + random.nextInt(5), null});
        parts.add(new String[] {new String[] {"=", ">", "<=", "<>"}[random.nextInt(4)], null});
        parts.add(new String[] {null, null}); // a value
      }
      String a = render(parts, random, false);
      String b = render(parts, random, true);
      assertEquals(
          a + " | " + b, StatementShape.of(a).fingerprint(), StatementShape.of(b).fingerprint());
      int name = 1 + 2 * random.nextInt(2); // the selected column or the table
      parts.get(name)[0] = parts.get(name)[0] + "x";
      String c = render(parts, random, false);
      assertNotEquals(
          a + " | " + c, StatementShape.of(a).fingerprint(), StatementShape.of(c).fingerprint());
    }
  }

  private static String render(List<String[]> parts, Random random, boolean upper) {
    String[] values = {"1", "-2", "3.5", "'x'", "'it''s'", "?", ":3", "1e9", ".5"};
    StringBuilder s = new StringBuilder();
    for (String[] p : parts) {
      String word = p[0] == null ? values[random.nextInt(values.length)] : p[0];
      s.append(upper ? word.toUpperCase(java.util.Locale.ROOT) : word);
      s.append(random.nextBoolean() ? " " : random.nextBoolean() ? "\n  " : "\t");
    }
    return s.toString();
  }

  @Test
  public void aStatementsTextGoesWithItsFirstExecutionAndAgainAfterTheInterval() {
    long[] now = {0};
    StatementShape.Sent sent = new StatementShape.Sent(2, 100, () -> now[0]);
    StatementShape a = StatementShape.of("select v from t where k = 1");
    StatementShape b = StatementShape.of("select w from t");
    StatementShape c = StatementShape.of("select x from t");
    assertTrue("first", sent.tag(a).sendsText());
    assertFalse(
        "same shape, other values",
        sent.tag(StatementShape.of("SELECT v FROM t WHERE k=2")).sendsText());
    now[0] = 99;
    assertFalse(sent.tag(a).sendsText());
    now[0] = 100;
    assertTrue("the interval passed", sent.tag(a).sendsText());
    assertTrue(sent.tag(b).sendsText());
    assertTrue(sent.tag(c).sendsText()); // a is the least recently run of three: forgotten
    assertFalse(sent.tag(b).sendsText());
    assertTrue("forgotten, so sent again", sent.tag(a).sendsText());
  }

  @Test
  public void aScanWhoseServerIsKnownCarriesTheTextIfThatServerHadItNotLately() {
    long[] now = {0};
    StatementShape.Sent sent = new StatementShape.Sent(2, 100, () -> now[0]);
    StatementShape a = StatementShape.of("select v from t where k = 1");
    String f = a.fingerprint();
    assertNull("a statement this process never ran", sent.dueAt(f, "rs1,16020,1"));
    assertFalse(sent.knows(f));
    sent.tag(a);
    assertTrue(sent.knows(f));
    assertArrayEquals(a.text().getBytes(StandardCharsets.UTF_8), sent.dueAt(f, "rs1,16020,1"));
    assertNull("the same server again", sent.dueAt(f, "rs1,16020,1"));
    assertNotNull("another server", sent.dueAt(f, "rs2,16020,1"));
    assertNotNull("the first, restarted (a new start code)", sent.dueAt(f, "rs1,16020,2"));
    now[0] = 99;
    assertNull(sent.dueAt(f, "rs1,16020,1"));
    now[0] = 100;
    assertNotNull("the interval passed", sent.dueAt(f, "rs1,16020,1"));
    assertNull(sent.dueAt(f, "rs1,16020,1"));
    // eight (statement, server) pairs are kept at most (4 x 2): the eldest forgotten
    for (int i = 0; i < 8; i++) {
      assertNotNull(sent.dueAt(f, "other" + i + ",16020,1"));
    }
    assertNotNull("forgotten, so sent again", sent.dueAt(f, "rs1,16020,1"));
  }
}
