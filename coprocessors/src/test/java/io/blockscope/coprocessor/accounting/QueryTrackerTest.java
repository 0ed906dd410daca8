package io.blockscope.coprocessor.accounting;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;

import io.blockscope.metrics.PerfLevel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Test;

public class QueryTrackerTest {
  private static final String A = "0123456789abcdef0123456789abcdef";
  private static final String B = "fedcba9876543210fedcba9876543210";
  private static final String U = "alice";

  @Test
  public void countsOpenMaximumAndTotalPerQuery() {
    QueryTracker t = new QueryTracker(10, 10, 1000, () -> 0);
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
    QueryTracker t = new QueryTracker(2, 3, 100, now::get);
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
    QueryTracker u = new QueryTracker(10, 10, 10, 1000, now::get);
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
    QueryTracker t = new QueryTracker(10, 10, 2, 1000, () -> 0);
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
    QueryTracker t = new QueryTracker(10, 10, 10, 1000, () -> 0);
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
    QueryTracker t = new QueryTracker(1, 10, 10, 1000, () -> 0);
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
}
