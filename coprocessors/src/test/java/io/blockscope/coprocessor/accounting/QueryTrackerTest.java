package io.blockscope.coprocessor.accounting;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;

import io.blockscope.metrics.PerfLevel;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.Test;

public class QueryTrackerTest {
  private static final String A = "0123456789abcdef0123456789abcdef";
  private static final String B = "fedcba9876543210fedcba9876543210";
  private static final String U = "alice";

  /** A tracker of the default share (10 users) with the given limits. */
  private static QueryTracker tracker(
      int ids, int scanners, int records, long expiryMillis, LongSupplier clock) {
    return new QueryTracker(
        new QueryTracker.Limits(ids, scanners, records, QueryTracker.Limits.DEFAULT.users()),
        expiryMillis,
        clock);
  }

  @Test
  public void countsOpenMaximumAndTotalPerQuery() {
    QueryTracker t = tracker(10, 10, 10, 1000, () -> 0);
    Object s1 = new Object();
    Object s2 = new Object();
    Object s3 = new Object();
    t.opened(s1, A, U);
    t.closed(s1);
    t.opened(s2, A, U);
    t.opened(s3, B, U);
    assertEquals(new QueryTracker.Stats(1, 1, 2), t.stats(A, U));
    t.opened(s1, A, U);
    assertEquals(new QueryTracker.Stats(2, 2, 3), t.stats(A, U));
    t.closed(s1);
    t.closed(s2);
    t.closed(new Object()); // not tracked: ignored
    assertEquals(new QueryTracker.Stats(0, 2, 3), t.stats(A, U));
    assertEquals(new QueryTracker.Stats(1, 1, 1), t.stats(B, U));
    assertEquals(QueryTracker.Stats.NONE, t.stats("unknown", U));
    assertEquals(QueryTracker.Stats.NONE, t.stats(null, U));
  }

  @Test
  public void memoryIsBoundedAndIdleQueriesExpire() {
    AtomicLong now = new AtomicLong();
    QueryTracker t = tracker(2, 3, 3, 100, now::get);
    Object[] s = {new Object(), new Object(), new Object(), new Object()};
    t.opened(s[0], A, U);
    t.opened(s[1], B, U);
    t.opened(s[2], "00000000000000000000000000000000", U); // third query: A, touched least, goes
    assertEquals(QueryTracker.Stats.NONE, t.stats(A, U));
    assertEquals(2, t.trackedQueries());
    t.closed(s[0]); // A's scanner was forgotten with A
    t.opened(s[3], B, U);
    t.opened(new Object(), B, U); // a fourth open scanner: over the limit, not tracked
    assertEquals(1, t.dropped());
    assertEquals(2, t.stats(B, U).open());

    t.closed(s[1]);
    t.closed(s[3]);
    now.set(1000);
    t.opened(s[0], A, U); // B is idle and old: expired on the way
    assertEquals(QueryTracker.Stats.NONE, t.stats(B, U));
  }

  /**
   * A query whose scanner closed late counts as used then: the queries used before it and idle
   * since are expired all the same (the expiry walks the queries least recently used first and
   * stops at the first used within it).
   */
  @Test
  public void aQueryUsedByItsScannersDoesNotShieldIdleOnesFromExpiry() {
    AtomicLong now = new AtomicLong();
    QueryTracker u = tracker(10, 10, 10, 1000, now::get);
    now.set(0);
    Object a = new Object();
    Object b = new Object();
    u.opened(a, A, U, "r1");
    now.set(10);
    u.opened(b, B, U, "r1");
    u.closed(b); // B idle from 10
    now.set(900);
    u.closed(a); // A used at 900
    now.set(1500);
    u.region("00000000000000000000000000000000", U, "r1");
    assertEquals("B, idle since 10, expired", QueryTracker.Stats.NONE, u.stats(B, U));
    assertEquals("A, used at 900, kept", 1, u.stats(A, U).scanners());
    assertEquals(2, u.trackedQueries());
  }

  @Test
  public void regionCostsAreSharedPerQueryAndRegionAndBounded() {
    QueryTracker t = tracker(10, 10, 2, 1000, () -> 0);
    QueryTracker.RegionCosts r1 = t.opened(new Object(), A, U, "r1");
    assertEquals(r1, t.opened(new Object(), A, U, "r1"));
    QueryTracker.RegionCosts r2 = t.opened(new Object(), A, U, "r2");
    assertNull("a query alone over the limit", t.opened(new Object(), A, U, "r3"));
    assertEquals(1, t.dropped());
    assertEquals(r2, t.costs(A, U, "r2"));
    assertNull(t.costs("nope", U, "r1"));
    // a newer query's record makes room by dropping the least recently touched query
    QueryTracker.RegionCosts b1 = t.opened(new Object(), B, U, "r1");
    assertEquals(b1, t.costs(B, U, "r1"));
    assertNull(t.costs(A, U, "r1"));
    assertEquals(1, t.evicted());
    assertEquals(1, t.dropped());
  }

  /**
   * A user who learned another's query id and tags scans with it makes a query of their own: the
   * owner's record, counts and level stay as they were.
   */
  @Test
  public void aQueryIdTaggedByAnotherUserIsAnotherQuery() {
    QueryTracker t = tracker(10, 10, 10, 1000, () -> 0);
    QueryTracker.RegionCosts alice = t.opened(new Object(), A, "alice", "r1");
    alice.level = PerfLevel.COUNT.ordinal();
    alice.rows.addAndGet(10);
    QueryTracker.RegionCosts bob = t.opened(new Object(), A, "bob", "r1");
    bob.level = PerfLevel.TIME.ordinal();
    bob.rows.addAndGet(99);
    assertNotSame(alice, bob);
    assertSame(alice, t.costs(A, "alice", "r1"));
    assertEquals(10, t.costs(A, "alice", "r1").rows.get());
    assertEquals(PerfLevel.COUNT.ordinal(), t.costs(A, "alice", "r1").level);
    assertEquals(new QueryTracker.Stats(1, 1, 1), t.stats(A, "alice"));
    assertEquals(new QueryTracker.Stats(1, 1, 1), t.stats(A, "bob"));
    assertNull(t.costs(A, "carol", "r1"));
    assertNull(t.costs(A, null, "r1"));
    assertEquals(2, t.trackedQueries());
  }

  @Test
  public void onlyWellFormedIdsAreAccepted() {
    assertEquals(A, QueryTracker.parseId(A.getBytes(StandardCharsets.US_ASCII)));
    assertNull(QueryTracker.parseId(null));
    assertNull(QueryTracker.parseId("short".getBytes(StandardCharsets.US_ASCII)));
    assertNull(
        QueryTracker.parseId(A.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII)));
    assertNull(QueryTracker.parseId(("x" + A.substring(1)).getBytes(StandardCharsets.US_ASCII)));
  }

  /** Evicting a query does not scan every open scanner under the tracker's lock. */
  @Test
  public void evictionLeavesOpenScannersToCloseQuietly() {
    QueryTracker t = tracker(1, 10, 10, 1000, () -> 0);
    Object a = new Object();
    t.opened(a, A, U);
    t.opened(new Object(), B, U); // evicts A, whose scanner is still open
    assertEquals(1, t.evicted());
    assertEquals(2, t.openScanners());
    t.opened(new Object(), A, U); // A again: a new query; evicts B
    t.closed(a); // the first A's scanner closes: the new A is untouched
    assertEquals(new QueryTracker.Stats(1, 1, 1), t.stats(A, U));
    assertEquals(2, t.openScanners());
    assertEquals(2, t.evicted());
  }

  /**
   * A client flooding random query ids while 100,000 scanners are open: 20,000 evictions. Each used
   * to walk every open scanner (2 billion steps, minutes); now each is one removal.
   */
  @Test(timeout = 30_000)
  public void aFloodOfQueryIdsEvictsInConstantTime() {
    QueryTracker t = QueryTracker.withDefaults();
    for (int i = 0; i < 99_000; i++) {
      t.opened(new Object(), A, U);
    }
    for (int i = 0; i < 30_000; i++) {
      t.opened(new Object(), String.format("%032x", i + 1), U);
      t.closed(new Object());
    }
    assertEquals(20_001, t.evicted());
    assertEquals(10_000, t.trackedQueries());
    assertEquals(99_000 + 1_000, t.openScanners()); // then the scanner limit: the rest dropped
    assertEquals(29_000, t.dropped());
  }

  /** Query {@code i} of a test's many: 32 hex digits. */
  private static String id(int i) {
    return String.format("%032x", i);
  }

  /**
   * Alice profiles 50 queries over 3 regions each; then bob sends 30,000 distinct ids, the first
   * 15,000 in one region each (the id table fills), the rest in two regions each (the record table
   * fills): alice is within her share (a tenth of each table by default), so every one of her
   * records is the very object it was, with her rows and scanner counts exact; bob's flood took
   * only bob's oldest.
   */
  @Test(timeout = 30_000)
  public void aFloodOfAnotherUsersIdsLeavesAUsersProfilesExact() {
    QueryTracker t = QueryTracker.withDefaults();
    Map<String, QueryTracker.RegionCosts> hers = new HashMap<>();
    for (int q = 0; q < 50; q++) {
      for (int r = 0; r < 3; r++) {
        Object scanner = new Object();
        QueryTracker.RegionCosts c = t.opened(scanner, id(q), "alice", "r" + r);
        c.rows.addAndGet(1000 * q + r);
        t.closed(scanner);
        hers.put(q + "/r" + r, c);
      }
    }
    for (int i = 0; i < 30_000; i++) {
      Object scanner = new Object();
      t.opened(scanner, id(1_000_000 + i), "bob", "r0");
      if (i >= 15_000) {
        t.region(id(1_000_000 + i), "bob", "r1").rows.incrementAndGet();
      }
      t.closed(scanner);
    }
    assertEquals("alice's queries", 50, t.queriesOf("alice"));
    assertEquals("alice's records", 150, t.recordsOf("alice"));
    for (int q = 0; q < 50; q++) {
      for (int r = 0; r < 3; r++) {
        QueryTracker.RegionCosts c = t.costs(id(q), "alice", "r" + r);
        assertSame(q + "/r" + r, hers.get(q + "/r" + r), c);
        assertEquals(1000 * q + r, c.rows.get());
      }
      assertEquals(new QueryTracker.Stats(0, 1, 3), t.stats(id(q), "alice"));
    }
    assertEquals("the records are full", 20_000, t.trackedRecords());
    assertEquals(9_925, t.queriesOf("bob")); // (20,000 - 150) / 2
    assertEquals("bob's newest", 1, t.costs(id(1_029_999), "bob", "r1").rows.get());
    assertNull("bob's oldest", t.costs(id(1_000_000), "bob", "r0"));
    assertEquals(30_000 - 9_925, t.evicted());
    assertEquals(0, t.dropped());
  }

  /**
   * Ten ids, shared by two users (five each): bob's flood evicts his own oldest, and alice, within
   * her share, keeps hers; then alice's new queries take bob's room while he is over the share, and
   * her own oldest once he is down to it.
   */
  @Test
  public void aFloodEvictsTheFloodersOwnOldestAndAUserWithinTheShareTakesRoomFromOneOverIt() {
    QueryTracker t = new QueryTracker(new QueryTracker.Limits(10, 100, 100, 2), 1000, () -> 0);
    for (int q = 0; q < 3; q++) {
      t.region(id(q), "alice", "r");
    }
    for (int q = 100; q < 120; q++) {
      t.region(id(q), "bob", "r");
    }
    assertEquals(3, t.queriesOf("alice"));
    assertEquals(7, t.queriesOf("bob"));
    for (int q = 0; q < 3; q++) {
      assertNotNull(t.costs(id(q), "alice", "r"));
    }
    for (int q = 100; q < 113; q++) {
      assertNull("bob's oldest " + q, t.costs(id(q), "bob", "r"));
    }
    for (int q = 113; q < 120; q++) {
      assertNotNull("bob's newest " + q, t.costs(id(q), "bob", "r"));
    }
    assertEquals(13, t.evicted());

    for (int q = 3; q < 5; q++) {
      t.region(id(q), "alice", "r"); // bob is over his five: his oldest go
    }
    assertNull(t.costs(id(114), "bob", "r"));
    assertNotNull(t.costs(id(115), "bob", "r"));
    t.region(id(5), "alice", "r"); // both at five: bob keeps his, alice gives up her oldest
    assertEquals(5, t.queriesOf("bob"));
    assertEquals(5, t.queriesOf("alice"));
    assertNull(t.costs(id(0), "alice", "r"));
    assertNotNull(t.costs(id(1), "alice", "r"));
    assertEquals(0, t.dropped());
  }

  /**
   * Four ids shared by two users: when alice and bob each hold their two, carol (a third user) gets
   * no room, as no one is over the share: she is refused (counted as dropped), not given either's
   * query.
   */
  @Test
  public void aFullTableOfUsersWithinTheShareRefusesANewUser() {
    QueryTracker t = new QueryTracker(new QueryTracker.Limits(4, 100, 100, 2), 1000, () -> 0);
    t.region(id(0), "alice", "r");
    t.region(id(1), "alice", "r");
    t.region(id(2), "bob", "r");
    t.region(id(3), "bob", "r");
    assertNull(t.region(id(4), "carol", "r"));
    assertEquals(1, t.dropped());
    assertEquals(0, t.evicted());
    assertEquals(0, t.queriesOf("carol"));
    assertEquals(2, t.trackedUsers());
    assertNotNull(t.region(id(5), "bob", "r")); // bob replaces his own oldest
    assertNull(t.costs(id(2), "bob", "r"));
    assertNotNull(t.costs(id(0), "alice", "r"));
  }

  /**
   * The limits bound what is kept whoever asks: 30,000 users with a query of two records each, then
   * 30,000 ids of one user whose scanners never close; the index of users holds only users who hold
   * a query, so never more than the id limit.
   */
  @Test(timeout = 30_000)
  public void theLimitsBoundMemoryAndTheIndexOfUsers() {
    AtomicLong now = new AtomicLong();
    QueryTracker t = new QueryTracker(new QueryTracker.Limits(100, 50, 150, 10), 1000, now::get);
    for (int u = 0; u < 30_000; u++) {
      t.region(id(u), "user" + u, "r0");
      t.region(id(u), "user" + u, "r1");
      now.incrementAndGet(); // the oldest expire as the newest come
      assertAtMost(100, t.trackedQueries());
      assertAtMost(150, t.trackedRecords());
      assertAtMost(100, t.trackedUsers());
    }
    now.addAndGet(10_000);
    for (int i = 0; i < 30_000; i++) {
      t.opened(new Object(), id(i), "bob", "r" + (i % 3));
      assertAtMost(100, t.trackedQueries());
      assertAtMost(150, t.trackedRecords());
      assertAtMost(50, t.openScanners());
    }
    assertEquals(1, t.trackedUsers());
    now.addAndGet(10_000);
    t.region(id(0), "alice", "r0"); // bob's kept queries have no scanner open: they expire
    assertEquals(1, t.trackedQueries());
    assertEquals(1, t.trackedUsers());
    assertEquals(1, t.trackedRecords());
  }

  private static void assertAtMost(long bound, long observed) {
    if (observed > bound) {
      throw new AssertionError("expected at most:<" + bound + "> but was:<" + observed + ">");
    }
  }

  /**
   * A reload with lower limits drops at once what is over them, the users holding the most first:
   * alice's ten queries stay exact, bob's newest ten stay; new queries then meet the new limits.
   */
  @Test
  public void aReloadWithLowerLimitsShrinksTheHeaviestFirst() {
    QueryTracker t = new QueryTracker(new QueryTracker.Limits(100, 100, 200, 2), 1000, () -> 0);
    for (int q = 0; q < 10; q++) {
      t.region(id(q), "alice", "r").rows.set(q);
    }
    for (int q = 100; q < 160; q++) {
      t.region(id(q), "bob", "r0");
      t.region(id(q), "bob", "r1");
    }
    assertEquals(130, t.trackedRecords());
    t.limits(new QueryTracker.Limits(20, 100, 30, 2));
    assertEquals(20, t.trackedQueries());
    assertEquals(30, t.trackedRecords());
    assertEquals(10, t.queriesOf("alice"));
    assertEquals(10, t.queriesOf("bob"));
    assertEquals(50, t.evicted());
    for (int q = 0; q < 10; q++) {
      assertEquals(q, t.costs(id(q), "alice", "r").rows.get());
    }
    assertNull(t.costs(id(149), "bob", "r0"));
    assertNotNull(t.costs(id(150), "bob", "r1"));

    t.limits(new QueryTracker.Limits(20, 100, 16, 2));
    assertEquals(16, t.trackedRecords());
    assertEquals(8, t.recordsOf("bob"));
    assertEquals(8, t.recordsOf("alice"));
    assertNull("full, alice and bob at their share of eight", t.region(id(200), "carol", "r"));
    assertEquals(1, t.dropped());
    assertEquals(16, t.trackedRecords());
    assertEquals("carol's refused query is not kept", 2, t.trackedUsers());
  }
}
