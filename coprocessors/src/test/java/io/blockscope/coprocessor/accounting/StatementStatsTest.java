package io.blockscope.coprocessor.accounting;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.CostLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
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

  /**
   * A thousand executions of one statement, each reading 1 to {@value
   * StatementStats#RECENT_REGIONS} regions in one to three scanners a region, interleaved in random
   * order but never with an unfinished execution among those first seen more than {@value
   * StatementStats#RECENT_EXECUTIONS} starts ago: executions and regions are exact.
   */
  @Test
  public void executionsAndTheirRegionsAreExactWhileAtMostEightRunAtOnce() {
    StatementStats stats = new StatementStats(20, 25);
    StatementStats.Statement s = stats.acquire("alice", "00000000000000aa", lane);
    s.release(lane);
    Random random = new Random(29);
    ArrayDeque<long[]> started = new ArrayDeque<>(); // {id, scanners left}
    List<List<Integer>> scanners = new ArrayList<>();
    long executions = 0;
    long regions = 0;
    List<long[]> live = new ArrayList<>();
    while (executions < 1_000 || !live.isEmpty()) {
      boolean mayStart =
          executions < 1_000
              && (started.size() < StatementStats.RECENT_EXECUTIONS || started.peek()[1] == 0);
      if (mayStart && (live.isEmpty() || random.nextInt(3) == 0)) {
        if (started.size() == StatementStats.RECENT_EXECUTIONS) {
          started.poll();
        }
        int n = 1 + random.nextInt(StatementStats.RECENT_REGIONS);
        List<Integer> plan = new ArrayList<>();
        for (int r = 0; r < n; r++) {
          int region = random.nextInt(); // a region's name hash
          for (int c = 1 + random.nextInt(3); c > 0; c--) {
            plan.add(region);
          }
        }
        Collections.shuffle(plan, random);
        long[] e = {random.nextLong(), plan.size(), scanners.size()};
        scanners.add(plan);
        started.add(e);
        live.add(e);
        executions++;
        regions += new HashSet<>(plan).size();
        scan(s, e, plan, live); // started by its first scanner: the order the server sees
      } else if (!live.isEmpty()) {
        long[] e = live.get(random.nextInt(live.size()));
        scan(s, e, scanners.get((int) e[2]), live);
      }
    }
    assertEquals(1_000, executions);
    assertEquals("executions", executions, s.executions());
    assertEquals("regions, each once per execution", regions, s.regions());
  }

  /** The next scanner of execution {@code e} ({id, scanners left, plan}) opens. */
  private static void scan(
      StatementStats.Statement s, long[] e, List<Integer> plan, List<long[]> live) {
    s.executionScan(e[0], plan.get((int) (plan.size() - e[1])));
    if (--e[1] == 0) {
      live.remove(e);
    }
  }

  /**
   * Past the bounds the counts go up, never down: an execution whose scanner comes after eight
   * others were first seen counts again, and a region past an execution's 64th counts each time.
   */
  @Test
  public void pastItsBoundsAnExecutionOrRegionCountsAgain() {
    StatementStats stats = new StatementStats(20, 25);
    StatementStats.Statement s = stats.acquire("alice", "00000000000000aa", lane);
    s.release(lane);
    s.executionScan(1, 100);
    for (long other = 2; other < 2 + StatementStats.RECENT_EXECUTIONS; other++) {
      s.executionScan(other, 100);
    }
    assertEquals(1 + StatementStats.RECENT_EXECUTIONS, s.executions());
    s.executionScan(1, 100); // forgotten: a new execution and region again
    assertEquals(2 + StatementStats.RECENT_EXECUTIONS, s.executions());
    assertEquals(2 + StatementStats.RECENT_EXECUTIONS, s.regions());

    StatementStats.Statement t = stats.acquire("alice", "00000000000000bb", lane);
    t.release(lane);
    for (int region = 0; region <= StatementStats.RECENT_REGIONS; region++) {
      t.executionScan(7, region);
    }
    t.executionScan(7, 0); // remembered
    assertEquals(StatementStats.RECENT_REGIONS + 1, t.regions());
    t.executionScan(7, StatementStats.RECENT_REGIONS); // the 65th, not remembered
    assertEquals(StatementStats.RECENT_REGIONS + 2, t.regions());
    assertEquals(1, t.executions());
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
