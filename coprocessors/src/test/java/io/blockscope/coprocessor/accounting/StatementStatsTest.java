package io.blockscope.coprocessor.accounting;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.CostLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.Test;

/**
 * Statements by user against the truth each test keeps beside them: the bounds of both levels, the
 * exact sums, and a user who floods the server with distinct statements or names.
 */
public class StatementStatsTest {
  private final CostAccumulator.Lane lane = new CostAccumulator.Lane();

  /** The truth by user, then by statement; and of every read. */
  private final Map<String, Map<String, long[]>> truth = new HashMap<>();

  private final long[] all = new long[CostLayout.SIZE];

  private void read(StatementStats stats, String user, String statement, long[] costs) {
    StatementStats.Statement s = stats.acquire(user, statement, lane);
    s.add(costs, lane);
    s.release(lane);
    long[] t =
        truth
            .computeIfAbsent(user, u -> new HashMap<>())
            .computeIfAbsent(statement, x -> new long[CostLayout.SIZE]);
    for (int k = CostLayout.FIRST_COST; k < CostLayout.SIZE; k++) {
      t[k] += costs[k];
      all[k] += costs[k];
    }
  }

  private static long[] costs(Random random) {
    return UserAccountsTest.costs(random);
  }

  private static long accesses(long[] costs) {
    return CostLayout.activity(k -> costs[k]);
  }

  /** Zipf-like index in [0, n): i about 1/(i+1) as likely as 0. */
  private static int zipf(Random random, double[] cumulative) {
    int i =
        Arrays.binarySearch(cumulative, random.nextDouble() * cumulative[cumulative.length - 1]);
    return i >= 0 ? i : -i - 1;
  }

  private static double[] cumulative(int n) {
    double[] c = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += 1.0 / (i + 1);
      c[i] = sum;
    }
    return c;
  }

  /** Every sum the class promises, and each kept statement within its bound. */
  private void checkAgainstTheTruth(StatementStats stats, int maxStatements) {
    assertTrue(
        "statements kept: " + stats.statements().size(),
        stats.statements().size() <= maxStatements);
    for (int k = CostLayout.FIRST_COST; k < CostLayout.SIZE; k++) {
      assertEquals("all statements, slot " + k, all[k], stats.total(k));
      long users = stats.other(k);
      for (StatementStats.User u : stats.users()) {
        long statements = u.statements().other(k);
        for (StatementStats.Statement s : u.statements().accounts()) {
          statements += s.get(k);
        }
        assertEquals("a user is its statements, slot " + k, u.get(k), statements);
        users += u.get(k);
      }
      assertEquals("users and (other), slot " + k, all[k], users);
    }
    for (StatementStats.Statement s : stats.statements()) {
      long[] t = truth.get(s.user().user()).get(s.fingerprint());
      for (int k = CostLayout.FIRST_COST; k < CostLayout.SIZE; k++) {
        assertTrue("never more than the truth", s.get(k) <= t[k]);
      }
      long uncounted = accesses(t) - CostLayout.activity(s::get);
      assertTrue(
          s.user().user() + "/" + s.fingerprint() + " left out " + uncounted,
          uncounted <= StatementStats.uncountedMax(s));
    }
  }

  @Test
  public void aSkewedStreamIsCountedWithinTheBoundsAndSumsExactly() {
    StatementStats stats = new StatementStats(20, 25);
    Random random = new Random(59);
    double[] users = cumulative(200);
    double[] statements = cumulative(300);
    for (int i = 0; i < 200_000; i++) {
      read(
          stats,
          "u" + zipf(random, users),
          String.format("%016x", zipf(random, statements)),
          costs(random));
    }
    checkAgainstTheTruth(stats, 20 * 25);
    assertTrue("users were let go", stats.usersLetGo() > 0);
    // the busiest user's busiest statement is kept, exactly or within its bound
    assertNotNull(stats.user("u0"));
    assertNotNull(stats.user("u0").statements().account(String.format("%016x", 0)));
  }

  @Test
  public void aUserWhoSendsTenThousandStatementsLetsGoOnlyHisOwn() {
    StatementStats stats = new StatementStats(20, 25);
    Random random = new Random(7);
    for (int i = 0; i < 5; i++) {
      for (int r = 0; r < 10; r++) {
        read(stats, "alice", String.format("%016x", i), costs(random));
      }
    }
    Map<String, long[]> aliceBefore = new HashMap<>();
    for (StatementStats.Statement s : stats.user("alice").statements().accounts()) {
      long[] c = new long[CostLayout.SIZE];
      for (int k = CostLayout.FIRST_COST; k < CostLayout.SIZE; k++) {
        c[k] = s.get(k);
      }
      aliceBefore.put(s.fingerprint(), c);
    }
    assertEquals(5, aliceBefore.size());
    for (int i = 0; i < 10_000; i++) {
      read(stats, "bob", String.format("%016x", 1_000_000 + i), costs(random));
      assertTrue(stats.user("bob").statements().accounts().size() <= 25);
    }
    assertNotNull("alice is kept", stats.user("alice"));
    for (Map.Entry<String, long[]> e : aliceBefore.entrySet()) {
      StatementStats.Statement s = stats.user("alice").statements().account(e.getKey());
      assertNotNull("alice's statement is still kept: " + e.getKey(), s);
      for (int k = CostLayout.FIRST_COST; k < CostLayout.SIZE; k++) {
        assertEquals("and exact", e.getValue()[k], s.get(k));
      }
      assertEquals(0, s.inherited());
    }
    checkAgainstTheTruth(stats, 20 * 25);
  }

  @Test
  public void tenThousandUserNamesKeepTheTablesBounded() {
    StatementStats stats = new StatementStats(20, 25);
    Random random = new Random(11);
    for (int i = 0; i < 10_000; i++) {
      read(stats, "user" + i, String.format("%016x", i % 7), costs(random));
      assertTrue(stats.users().size() <= 20);
    }
    checkAgainstTheTruth(stats, 20 * 25);
    assertEquals(10_000 - 20, stats.usersLetGo());
  }

  @Test
  public void aStatementKeepsItsFirstTextItsScansRowsAndWhenItWasSeen() {
    long[] now = {1_000};
    StatementStats stats = new StatementStats(20, 25, () -> now[0]);
    StatementStats.Statement s = stats.acquire("alice", "00000000000000aa", lane);
    s.release(lane);
    assertNull(s.text());
    s.scanOpened(null);
    now[0] = 2_000;
    s.scanOpened("SELECT V FROM T WHERE K = ?".getBytes(StandardCharsets.UTF_8));
    s.scanOpened("something else".getBytes(StandardCharsets.UTF_8));
    byte[] tooLong = new byte[StatementStats.MAX_TEXT_BYTES + 1];
    StatementStats.Statement t = stats.acquire("alice", "00000000000000bb", lane);
    t.release(lane);
    t.scanOpened(tooLong);
    s.rowsReturned(7);
    s.rowsReturned(3);
    assertEquals("SELECT V FROM T WHERE K = ?", s.text());
    assertNull("an oversized text is not kept", t.text());
    assertEquals(3, s.scans());
    assertEquals(10, s.rows());
    assertEquals(1_000, s.firstSeen());
    assertEquals(2_000, s.lastSeen());
  }

  @Test
  public void aReadInFlightOnAUserLetGoIsCountedOnce() {
    StatementStats stats = new StatementStats(1, 2);
    Random random = new Random(3);
    long[] c = costs(random);
    StatementStats.Statement held = stats.acquire("carol", "00000000000000cc", lane);
    read(stats, "dave", "00000000000000dd", costs(random)); // lets carol go
    assertNull(stats.user("carol"));
    held.add(c, lane);
    held.release(lane);
    long[] t =
        truth
            .computeIfAbsent("carol", u -> new HashMap<>())
            .computeIfAbsent("00000000000000cc", x -> new long[CostLayout.SIZE]);
    for (int k = CostLayout.FIRST_COST; k < CostLayout.SIZE; k++) {
      t[k] += c[k];
      all[k] += c[k];
    }
    checkAgainstTheTruth(stats, 2);
  }
}
