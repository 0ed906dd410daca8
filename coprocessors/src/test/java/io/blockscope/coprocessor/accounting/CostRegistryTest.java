package io.blockscope.coprocessor.accounting;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.CacheReuse;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.PerfLevel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Collectors;
import org.junit.Test;

public class CostRegistryTest {
  private static final int DATA_MISS = CostLayout.CACHE_MISS + CostLayout.KIND_DATA;
  private static final int DATA_HIT = CostLayout.CACHE_HIT + CostLayout.KIND_DATA;

  private static void read(CostRegistry reg, String region, int slot, long n) {
    long[] thread = new long[CostLayout.SIZE];
    thread[slot] = n;
    thread[CostLayout.LEVEL] = 1;
    reg.region(region).costs().drain(thread);
    assertEquals("drain zeroes the thread's costs", 0, thread[slot]);
    assertEquals("and leaves its control slots alone", 1, thread[CostLayout.LEVEL]);
  }

  private static Set<String> regionSeries(CostRegistry reg) {
    return reg.metrics().getNames().stream()
        .filter(n -> n.startsWith("Region|"))
        .collect(Collectors.toSet());
  }

  @Test
  public void tableAndServerTotalsStayMonotonicWhenRegionsClose() {
    try (CostRegistry reg = new CostRegistry(ExportLimit.ALL)) {
      reg.open("t", "a", PerfLevel.COUNT);
      reg.open("t", "b", PerfLevel.COUNT);
      read(reg, "a", DATA_MISS, 5);
      read(reg, "b", DATA_MISS, 7);
      assertEquals(12, reg.tableSnapshot("t").get("blockCache.miss.data"));
      reg.close("a"); // e.g. the parent of a split
      assertNull(reg.region("a"));
      assertEquals(12, reg.tableSnapshot("t").get("blockCache.miss.data"));
      assertEquals(12, reg.serverSnapshot().get("blockCache.miss.data"));
      reg.close("b");
      assertEquals(
          "a table with no region here is dropped", CostSnapshot.ZERO, reg.tableSnapshot("t"));
      assertEquals(12, reg.serverSnapshot().get("blockCache.miss.data"));
    }
  }

  @Test
  public void aRegionOpenedTwiceIsClosedOnTheSecondClose() {
    try (CostRegistry reg = new CostRegistry(ExportLimit.ALL)) {
      reg.open("t", "a", PerfLevel.COUNT);
      reg.open("t", "a", PerfLevel.COUNT);
      reg.close("a");
      assertTrue(reg.region("a") != null);
      reg.close("a");
      assertNull(reg.region("a"));
      reg.close("never-opened"); // harmless
    }
  }

  @Test
  public void seriesAppearWhenNonZeroAndVanishWithTheirRegion() {
    try (CostRegistry reg = new CostRegistry(ExportLimit.ALL)) {
      reg.open("t", "a", PerfLevel.COUNT);
      reg.refreshExport();
      assertTrue(regionSeries(reg).isEmpty());
      read(reg, "a", DATA_HIT, 3);
      reg.refreshExport();
      assertEquals(Set.of("Region|t|a|blockCache.hit.data"), regionSeries(reg));
      assertEquals(0L, count(reg, "Region|t|a|blockCache.hit.data")); // starts at 0
      assertTrue(reg.metrics().getNames().contains("Table|t||blockCache.hit.data"));
      reg.refreshExport();
      assertEquals(3L, count(reg, "Region|t|a|blockCache.hit.data"));
      reg.close("a");
      assertTrue(regionSeries(reg).isEmpty());
      assertFalse(reg.metrics().getNames().contains("Table|t||blockCache.hit.data"));
      assertTrue(
          "server series stay", reg.metrics().getNames().contains("Server|||blockCache.hit.data"));
    }
  }

  private static long count(CostRegistry reg, String key) {
    return reg.metrics().getCounters().get(key).getCount();
  }

  /**
   * The block cache's counters by table: a table with a region here has series of its own beside
   * its costs, from what its counters were when its first region opened, and loses them with its
   * costs' when it leaves the selection; the server's series sum every table's, those without a
   * region here and the files of no known table included, and only grow.
   */
  @Test
  public void blockCacheCountersFollowTheirTablesSeriesAndTheServerHasThemAll() {
    int inserted = CacheReuse.slot(CostLayout.KIND_DATA, CacheReuse.INSERTED);
    AtomicLongArray counts = new AtomicLongArray(3 * CacheReuse.WIDTH);
    String[] tables = {"(unknown)", "t", "elsewhere"};
    counts.set(inserted, 2);
    counts.set(CacheReuse.WIDTH + inserted, 5); // before t's first region opened here
    counts.set(2 * CacheReuse.WIDTH + inserted, 7);
    try (CostRegistry reg = new CostRegistry(ExportLimit.ALL)) {
      reg.cacheReuse(counts, () -> tables.clone());
      reg.open("t", "a", PerfLevel.COUNT);
      read(reg, "a", DATA_HIT, 1);
      counts.addAndGet(CacheReuse.WIDTH + inserted, 3);
      reg.refreshExport();
      reg.refreshExport();
      assertEquals("since its region opened", 3L, count(reg, "Table|t||blockCache.inserted.data"));
      assertEquals(17L, count(reg, "Server|||blockCache.inserted.data"));
      assertFalse(reg.metrics().getNames().contains("Table|(other)||blockCache.inserted.data"));
      counts.incrementAndGet(CacheReuse.WIDTH + inserted);
      assertEquals("read live", 4L, count(reg, "Table|t||blockCache.inserted.data"));

      reg.exportTables(ExportLimit.NONE);
      reg.refreshExport();
      assertFalse(reg.metrics().getNames().contains("Table|t||blockCache.inserted.data"));
      assertEquals(18L, count(reg, "Server|||blockCache.inserted.data"));
      reg.exportTables(ExportLimit.ALL);
      reg.refreshExport();
      reg.refreshExport();
      assertEquals(
          "back with its count, not from 0", 4L, count(reg, "Table|t||blockCache.inserted.data"));
    }
  }

  @Test
  public void aNewSeriesReadsZeroUntilTheNextRefresh() {
    try (CostRegistry reg = new CostRegistry(ExportLimit.ALL)) {
      reg.open("t", "a", PerfLevel.COUNT);
      read(reg, "a", DATA_MISS, 5);
      reg.refreshExport();
      // every reader sees 0 until the next refresh, however often it reads
      for (int i = 0; i < 3; i++) {
        assertEquals(0L, count(reg, "Region|t|a|blockCache.miss.data"));
        assertEquals(0L, count(reg, "Table|t||blockCache.miss.data"));
      }
      assertEquals(
          "the server's series always count", 5L, count(reg, "Server|||blockCache.miss.data"));
      read(reg, "a", DATA_MISS, 2);
      read(reg, "a", DATA_HIT, 4); // a cost of an exported region that was 0 until now
      reg.refreshExport();
      assertEquals(7L, count(reg, "Region|t|a|blockCache.miss.data"));
      assertEquals(7L, count(reg, "Table|t||blockCache.miss.data"));
      assertEquals(0L, count(reg, "Region|t|a|blockCache.hit.data"));
      assertEquals(0L, count(reg, "Table|t||blockCache.hit.data"));
      reg.refreshExport();
      assertEquals(4L, count(reg, "Region|t|a|blockCache.hit.data"));
      assertEquals(4L, count(reg, "Table|t||blockCache.hit.data"));
    }
  }

  @Test
  public void aSeriesWhoseCostWasCountedBeforeItsExportShowsItAtOnce() {
    try (CostRegistry reg = new CostRegistry(ExportLimit.top(1), 60_000, System::nanoTime)) {
      reg.open("t", "a", PerfLevel.COUNT);
      reg.open("t", "b", PerfLevel.COUNT);
      read(reg, "a", DATA_MISS, 100);
      read(reg, "b", DATA_MISS, 10); // counted, not exported: a is busier
      reg.refreshExport();
      reg.refreshExport();
      assertEquals(Set.of("Region|t|a|blockCache.miss.data"), regionSeries(reg));
      assertEquals(100L, count(reg, "Region|t|a|blockCache.miss.data"));
      read(reg, "b", DATA_MISS, 50); // b joins the top with 60 misses, 10 of them from before
      reg.refreshExport();
      assertEquals(Set.of("Region|t|b|blockCache.miss.data"), regionSeries(reg));
      // a start at 0 would make the 10 earlier misses look as if made in this interval
      assertEquals(60L, count(reg, "Region|t|b|blockCache.miss.data"));
      // a closes and reopens within the retention period: its series come back at its figure
      reg.close("a");
      reg.open("t", "a", PerfLevel.COUNT);
      read(reg, "a", DATA_MISS, 1_000);
      reg.refreshExport();
      assertEquals(Set.of("Region|t|a|blockCache.miss.data"), regionSeries(reg));
      assertEquals(1_100L, count(reg, "Region|t|a|blockCache.miss.data"));
    }
  }

  @Test
  public void topNExportsTheRegionsMostActiveSinceTheLastRefresh() {
    try (CostRegistry reg = new CostRegistry(ExportLimit.top(1))) {
      for (String r : new String[] {"a", "b", "c"}) {
        reg.open("t", r, PerfLevel.COUNT);
      }
      read(reg, "a", DATA_MISS, 100);
      read(reg, "b", DATA_MISS, 10);
      reg.refreshExport();
      assertEquals(Set.of("Region|t|a|blockCache.miss.data"), regionSeries(reg));
      read(reg, "b", DATA_HIT, 50); // a is idle now: b is the busiest since the last refresh
      reg.refreshExport();
      assertEquals(
          Set.of("Region|t|b|blockCache.miss.data", "Region|t|b|blockCache.hit.data"),
          regionSeries(reg));
      assertEquals(1, reg.metrics().getGauges().get("Server|||regions.exported").getValue());
      reg.refreshExport(); // every region quiet: b keeps its series, though a comes first by name
      assertEquals(
          Set.of("Region|t|b|blockCache.miss.data", "Region|t|b|blockCache.hit.data"),
          regionSeries(reg));
      reg.export(ExportLimit.NONE);
      reg.refreshExport();
      assertTrue(regionSeries(reg).isEmpty());
    }
  }

  @Test
  public void slotsAreNamedOnceAndRoundTrip() {
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      assertEquals(s, CostLayout.slotOf(CostLayout.name(s)));
    }
    assertEquals(-1, CostLayout.slotOf("no.such.metric"));
    assertEquals(
        CostLayout.Unit.BYTES, CostLayout.unit(CostLayout.slotOf("decompress.GZ.bytesIn")));
    assertEquals(PerfLevel.TIME, CostLayout.level(CostLayout.slotOf("decode.FAST_DIFF.nanos")));
    assertEquals(CostLayout.N_ALGORITHMS - 1, CostLayout.algorithmIndex("BROTLI"));
  }

  /**
   * A read that finishes after its region closed is counted once, not drained into an orphaned
   * accumulator, and a scrape between the close and the hand-over never sees the totals dip.
   */
  @Test
  public void aReadInFlightWhenItsRegionClosesIsCountedOnce() {
    try (CostRegistry reg = new CostRegistry(ExportLimit.ALL)) {
      reg.open("t", "a", PerfLevel.COUNT);
      reg.open("t", "b", PerfLevel.COUNT);
      CostRegistry.RegionCosts a = reg.region("a");
      assertTrue(a.acquire());
      read(reg, "a", DATA_MISS, 3);
      reg.close("a"); // the region moves while the read is still going
      assertNull(reg.region("a"));
      assertEquals(1, reg.closingRegions());
      assertFalse("a closed region takes no new read", a.acquire());
      long[] rest = new long[CostLayout.SIZE];
      rest[DATA_MISS] = 4;
      a.costs().drain(rest); // the read ends
      assertEquals(7, reg.serverSnapshot().get("blockCache.miss.data"));
      assertEquals(7, reg.tableSnapshot("t").get("blockCache.miss.data"));
      a.release();
      assertEquals(0, reg.closingRegions());
      assertEquals(7, reg.serverSnapshot().get("blockCache.miss.data"));
      assertEquals(7, reg.tableSnapshot("t").get("blockCache.miss.data"));
    }
  }

  /** The engine asks at every region open and close whether any region is measured: O(1). */
  @Test
  public void anyMeasuredFollowsOpensClosesAndLevelChanges() {
    try (CostRegistry reg = new CostRegistry(ExportLimit.ALL, 60_000, () -> 0L)) {
      assertFalse(reg.anyMeasured());
      CostRegistry.RegionCosts off = reg.open("t", "off", PerfLevel.OFF);
      assertFalse(reg.anyMeasured());
      CostRegistry.RegionCosts a = reg.open("t", "a", PerfLevel.COUNT);
      reg.open("t", "a", PerfLevel.COUNT); // a second copy's reference
      assertTrue(reg.anyMeasured());
      a.level(PerfLevel.OFF);
      assertFalse(reg.anyMeasured());
      off.level(PerfLevel.TIME);
      a.level(PerfLevel.TIME);
      reg.close("off");
      assertTrue("a still measured", reg.anyMeasured());
      off.level(PerfLevel.COUNT); // a closed region's level does not count
      reg.close("a");
      assertTrue("a's second reference", reg.anyMeasured());
      reg.close("a");
      assertFalse(reg.anyMeasured());
      reg.open("t", "a", PerfLevel.OFF); // reopened within the period, at OFF
      assertFalse(reg.anyMeasured());
      reg.open("t", "off", PerfLevel.COUNT);
      assertTrue(reg.anyMeasured());
    }
  }

  /**
   * A contended region counts its reads in flight in several arrays, and a read may end through
   * another array than it began in (its lane moved on meanwhile): the region retires when the last
   * of them ends, not when one array reaches 0.
   */
  @Test
  public void readsInFlightCountedInSeveralArraysRetireTheRegionOnlyWhenAllEnded() {
    try (CostRegistry reg = new CostRegistry(ExportLimit.ALL)) {
      CostRegistry.RegionCosts a = reg.open("t", "a", PerfLevel.COUNT);
      CostAccumulator.Lane one = new CostAccumulator.Lane();
      CostAccumulator.Lane two = new CostAccumulator.Lane();
      a.costs().contended(one); // two arrays now; the lanes start apart
      assertEquals(2, a.costs().stripes());
      assertTrue(a.acquire(one));
      assertTrue(a.acquire(two));
      reg.close("a");
      assertEquals(1, reg.closingRegions());
      one.hash ^= 1; // the first read ends through the other array
      a.release(one);
      assertEquals("one read still in flight", 1, reg.closingRegions());
      long[] rest = new long[CostLayout.SIZE];
      rest[DATA_MISS] = 5;
      a.costs().drain(rest, two);
      assertEquals(5, reg.tableSnapshot("t").get("blockCache.miss.data"));
      a.release(two);
      assertEquals(0, reg.closingRegions());
      assertEquals(5, reg.serverSnapshot().get("blockCache.miss.data"));
      assertEquals("let go: the table went with it", CostSnapshot.ZERO, reg.tableSnapshot("t"));
    }
  }

  /**
   * Reads on four threads while regions close and reopen on a fifth and a scraper reads the server
   * total on a sixth: the total never decreases, and at the end it is exactly what the reads that
   * were admitted added.
   */
  @Test(timeout = 60_000)
  public void totalsNeverDipAndNoAdmittedReadIsLostWhileRegionsChurn() throws Exception {
    try (CostRegistry reg = new CostRegistry(ExportLimit.ALL)) {
      String[] names = {"r0", "r1", "r2", "r3"};
      for (String n : names) {
        reg.open("t", n, PerfLevel.COUNT);
      }
      AtomicLong admitted = new AtomicLong();
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
      for (int t = 0; t < 4; t++) {
        final int seed = t;
        threads.add(
            new Thread(
                () -> {
                  Random rnd = new Random(seed);
                  long[] thread = new long[CostLayout.SIZE];
                  CostAccumulator.Lane lane = new CostAccumulator.Lane();
                  for (int i = 0; i < 200_000; i++) {
                    CostRegistry.RegionCosts r = reg.region(names[rnd.nextInt(names.length)]);
                    // half the reads through lanes (the regions grow arrays), half without
                    CostAccumulator.Lane l = (i & 1) == 0 ? lane : null;
                    if (r != null && r.acquire(l)) {
                      thread[DATA_MISS] = 1;
                      r.costs().drain(thread, l);
                      admitted.incrementAndGet();
                      r.release(l);
                    }
                  }
                }));
      }
      threads.add(
          new Thread(
              () -> {
                Random rnd = new Random(99);
                while (!stop.get()) {
                  String n = names[rnd.nextInt(names.length)];
                  reg.close(n);
                  reg.open("t", n, PerfLevel.COUNT);
                }
              }));
      threads.add(
          new Thread(
              () -> {
                long last = 0;
                while (!stop.get()) {
                  long now = reg.serverCost(DATA_MISS);
                  if (now < last) {
                    failures.add(
                        new AssertionError("server total dipped from " + last + " to " + now));
                  }
                  last = now;
                }
              }));
      threads.forEach(Thread::start);
      for (int t = 0; t < 4; t++) {
        threads.get(t).join();
      }
      stop.set(true);
      threads.get(4).join();
      threads.get(5).join();
      assertEquals(List.of(), failures);
      assertEquals(0, reg.closingRegions());
      assertEquals(admitted.get(), reg.serverCost(DATA_MISS));
      assertEquals(admitted.get(), reg.tableSnapshot("t").get("blockCache.miss.data"));
      assertTrue("the churn must have raced the reads", admitted.get() > 0);
    }
  }

  private static final long MINUTE_NS = 60_000_000_000L;

  /** A registry that keeps closed regions ten minutes by the clock {@code now}. */
  private static CostRegistry retaining(AtomicLong now) {
    return new CostRegistry(ExportLimit.ALL, 600_000, now::get);
  }

  /**
   * A split closes the parent before its daughters open; with the table's last region here closed,
   * the table's totals went with it, and a scraper saw the table counter fall from 1,000 to what
   * the daughters read next.
   */
  @Test
  public void aTableDoesNotRestartAcrossASplitOfItsOnlyRegion() {
    AtomicLong now = new AtomicLong();
    try (CostRegistry reg = retaining(now)) {
      reg.open("t", "parent", PerfLevel.COUNT);
      read(reg, "parent", DATA_MISS, 1_000);
      reg.refreshExport();
      reg.close("parent");
      reg.refreshExport();
      assertEquals(1_000, reg.tableSnapshot("t").get("blockCache.miss.data"));
      assertTrue(reg.metrics().getNames().contains(MetricKeys.table("t", "blockCache.miss.data")));
      assertEquals(1, reg.retainedRegions());

      now.addAndGet(MINUTE_NS);
      reg.open("t", "daughterA", PerfLevel.COUNT);
      reg.open("t", "daughterB", PerfLevel.COUNT);
      read(reg, "daughterA", DATA_MISS, 3);
      read(reg, "daughterB", DATA_MISS, 2);
      assertEquals(1_005, reg.tableSnapshot("t").get("blockCache.miss.data"));

      now.addAndGet(10 * MINUTE_NS); // the parent's period ends: its costs fold into the table's
      reg.refreshExport();
      assertEquals(0, reg.retainedRegions());
      assertEquals(1_005, reg.tableSnapshot("t").get("blockCache.miss.data"));
      assertEquals(1_005, reg.serverSnapshot().get("blockCache.miss.data"));
    }
  }

  @Test
  public void aRegionThatReopensWithinThePeriodGoesOnFromItsCosts() {
    AtomicLong now = new AtomicLong();
    try (CostRegistry reg = retaining(now)) {
      reg.open("t", "a", PerfLevel.COUNT);
      read(reg, "a", DATA_HIT, 40);
      reg.refreshExport();
      reg.close("a"); // moved away; its series go at once
      reg.refreshExport();
      assertTrue(regionSeries(reg).isEmpty());
      now.addAndGet(5 * MINUTE_NS);
      reg.open("t", "a", PerfLevel.TIME); // and back
      assertEquals(PerfLevel.TIME, reg.region("a").level());
      read(reg, "a", DATA_HIT, 2);
      reg.refreshExport();
      assertEquals(42, reg.regionSnapshot("a").get("blockCache.hit.data"));
      assertEquals(42, reg.tableSnapshot("t").get("blockCache.hit.data"));
      assertEquals(42, reg.serverSnapshot().get("blockCache.hit.data"));
      assertEquals(
          Collections.singleton(MetricKeys.region("t", "a", "blockCache.hit.data")),
          regionSeries(reg));
      assertEquals(0, reg.retainedRegions());
    }
  }

  @Test
  public void aRegionReopenedWhileAReadIsInFlightCountsThatReadOnce() {
    AtomicLong now = new AtomicLong();
    try (CostRegistry reg = retaining(now)) {
      CostRegistry.RegionCosts a = reg.open("t", "a", PerfLevel.COUNT);
      assertTrue(a.acquire());
      reg.close("a"); // the read is in flight
      assertTrue(reg.open("t", "a", PerfLevel.COUNT) == a);
      assertEquals(0, reg.closingRegions());
      long[] thread = new long[CostLayout.SIZE];
      thread[DATA_MISS] = 9;
      a.costs().drain(thread);
      a.release(); // the read ends after the reopen: nothing retires
      assertEquals(0, reg.retainedRegions());
      assertTrue("the reopened region admits reads", a.acquire());
      a.release();
      reg.close("a");
      assertEquals(1, reg.retainedRegions());
      assertEquals(9, reg.serverSnapshot().get("blockCache.miss.data"));
    }
  }

  @Test
  public void aTableWhoseRegionsAllLeftIsDroppedWithItsSeriesAfterThePeriod() {
    AtomicLong now = new AtomicLong();
    try (CostRegistry reg = retaining(now)) {
      reg.open("t", "a", PerfLevel.COUNT);
      read(reg, "a", DATA_MISS, 4);
      reg.refreshExport();
      reg.close("a"); // dropped, or moved away for good
      now.addAndGet(10 * MINUTE_NS - 1);
      reg.refreshExport();
      assertTrue(reg.metrics().getNames().contains(MetricKeys.table("t", "blockCache.miss.data")));
      now.addAndGet(1);
      reg.refreshExport();
      assertEquals(
          "only (other), which keeps what the table left",
          Set.of(MetricKeys.table(MetricKeys.OTHER_TABLE, "blockCache.miss.data")),
          reg.metrics().getNames().stream()
              .filter(n -> n.startsWith("Table|"))
              .collect(Collectors.toSet()));
      assertEquals(CostSnapshot.ZERO, reg.tableSnapshot("t"));
      assertEquals(4, reg.tableSnapshot(MetricKeys.OTHER_TABLE).get("blockCache.miss.data"));
      assertEquals(4, reg.serverSnapshot().get("blockCache.miss.data"));
    }
  }

  @Test
  public void closedRegionsKeptAreBounded() {
    AtomicLong now = new AtomicLong();
    try (CostRegistry reg = retaining(now)) {
      for (int i = 0; i <= CostRegistry.MAX_RETAINED; i++) {
        reg.open("t", "r" + i, PerfLevel.COUNT);
        read(reg, "r" + i, DATA_MISS, 1);
        reg.close("r" + i);
      }
      assertEquals(CostRegistry.MAX_RETAINED, reg.retainedRegions());
      assertEquals(CostRegistry.MAX_RETAINED + 1, reg.serverSnapshot().get("blockCache.miss.data"));
      assertEquals(
          CostRegistry.MAX_RETAINED + 1, reg.tableSnapshot("t").get("blockCache.miss.data"));
    }
  }
}
