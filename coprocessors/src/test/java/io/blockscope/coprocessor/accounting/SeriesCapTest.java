package io.blockscope.coprocessor.accounting;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.PerfLevel;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Test;

/**
 * The cap on table series ({@code blockscope.export.tables}), the {@code (other)} roll-up of the
 * rest, and the minimum time a region or table keeps its series once it enters the export.
 */
public class SeriesCapTest {
  private static final int DATA_MISS = CostLayout.CACHE_MISS + CostLayout.KIND_DATA;
  private static final int DATA_HIT = CostLayout.CACHE_HIT + CostLayout.KIND_DATA;
  private static final int FS_BYTES = CostLayout.FS_BYTES + CostLayout.KIND_DATA;
  private static final long MINUTE_NS = 60_000_000_000L;
  private static final String OTHER = MetricKeys.OTHER_TABLE;

  private final AtomicLong now = new AtomicLong();

  /** Tables capped at {@code tables}, regions at {@code regions}, held {@code holdMinutes}. */
  private CostRegistry registry(ExportLimit regions, ExportLimit tables, long holdMinutes) {
    CostRegistry reg = new CostRegistry(regions, 600_000, now::get);
    reg.exportTables(tables);
    reg.hold(holdMinutes * 60_000);
    return reg;
  }

  /** Regions a and b of table t open, one region exported, held {@code holdMinutes}. */
  private CostRegistry regionsAandB(long holdMinutes) {
    CostRegistry reg = registry(ExportLimit.top(1), ExportLimit.ALL, holdMinutes);
    reg.open("t", "a", PerfLevel.COUNT);
    reg.open("t", "b", PerfLevel.COUNT);
    return reg;
  }

  private static void read(CostRegistry reg, String region, long misses) {
    long[] thread = new long[CostLayout.SIZE];
    thread[DATA_MISS] = misses;
    thread[DATA_HIT] = 2 * misses;
    thread[FS_BYTES] = 1_000 * misses;
    reg.region(region).costs().drain(thread);
  }

  /** Two refreshes: the series registered at the first read their figures after the second. */
  private static void settle(CostRegistry reg) {
    reg.refreshExport();
    reg.refreshExport();
  }

  /** The tables with series, {@code (other)} among them, as their names. */
  private static Set<String> tablesExported(CostRegistry reg) {
    return named(reg, "Table|", 1);
  }

  /** The regions with series, as their encoded names. */
  private static Set<String> regionsExported(CostRegistry reg) {
    return named(reg, "Region|", 2);
  }

  /** Part {@code part} of the keys of the series of a scope. */
  private static Set<String> named(CostRegistry reg, String scope, int part) {
    Set<String> names = new TreeSet<>();
    for (String key : reg.metrics().getNames()) {
      if (key.startsWith(scope)) {
        names.add(key.split("\\|", -1)[part]);
      }
    }
    return names;
  }

  private static long series(CostRegistry reg, String key) {
    com.codahale.metrics.Counter c = reg.metrics().getCounters().get(key);
    return c == null ? 0 : c.getCount();
  }

  /**
   * For every cost: the server's series equals the sum of the table series, {@code (other)}'s
   * included, as a scraper reads them; and {@code (other)} is exactly the sum of the tables here
   * without series plus {@code gone}, what tables no longer here left.
   */
  private static void assertExact(CostRegistry reg, long goneMisses) {
    Set<String> exported = tablesExported(reg);
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      if (CostLayout.alwaysZero(s)) {
        continue;
      }
      String metric = CostLayout.name(s);
      long tables = 0;
      for (String t : exported) {
        tables += series(reg, MetricKeys.table(t, metric));
      }
      long server = series(reg, MetricKeys.server(metric));
      assertEquals(metric + ": server = exported tables + (other)", server, tables);
      assertEquals(metric, server, reg.serverSnapshot().get(metric));
    }
    long unexported = goneMisses;
    for (CostRegistry.RegionCosts r : reg.regions()) {
      if (!exported.contains(r.table())) {
        unexported += r.costs().get(DATA_MISS);
      }
    }
    assertEquals(
        "(other) = the unexported tables here + the tables gone",
        unexported,
        series(reg, MetricKeys.table(OTHER, "blockCache.miss.data")));
  }

  @Test
  public void theCapKeepsTheBusiestTablesSinceStartAndOtherSumsTheRest() {
    try (CostRegistry reg = registry(ExportLimit.ALL, ExportLimit.top(2), 0)) {
      for (int t = 1; t <= 5; t++) {
        reg.open("t" + t, "r" + t, PerfLevel.COUNT);
        read(reg, "r" + t, 10L * t); // t5 the busiest, t1 the quietest
      }
      settle(reg);
      assertEquals(Set.of(OTHER, "t4", "t5"), tablesExported(reg));
      assertEquals(
          "(other) per slot: t1 + t2 + t3",
          60,
          series(reg, MetricKeys.table(OTHER, "blockCache.miss.data")));
      assertEquals(120, series(reg, MetricKeys.table(OTHER, "blockCache.hit.data")));
      assertEquals(60_000, series(reg, MetricKeys.table(OTHER, "fs.read.bytes.data")));
      assertEquals(60, reg.tableSnapshot(OTHER).get("blockCache.miss.data"));
      assertExact(reg, 0);

      // ranked since start: t1 catching up in one interval passes t4 only once its total does
      read(reg, "r1", 30); // 40 in all, t4 has 40: the tie stays with t4, which has series
      settle(reg);
      assertEquals(Set.of(OTHER, "t4", "t5"), tablesExported(reg));
      read(reg, "r1", 1); // 41
      settle(reg);
      assertEquals(Set.of(OTHER, "t1", "t5"), tablesExported(reg));
      assertEquals(
          "t1 shows its total since start, not what it read since it entered",
          41,
          series(reg, MetricKeys.table("t1", "blockCache.miss.data")));
      assertExact(reg, 0);
    }
  }

  @Test
  public void serverIsExactlyTheExportedTablesPlusOtherAsTablesLeaveReturnAndRegionsClose() {
    try (CostRegistry reg = registry(ExportLimit.top(2), ExportLimit.top(2), 0)) {
      reg.open("a", "a1", PerfLevel.COUNT);
      reg.open("a", "a2", PerfLevel.COUNT);
      reg.open("b", "b1", PerfLevel.COUNT);
      reg.open("c", "c1", PerfLevel.COUNT);
      read(reg, "a1", 50);
      read(reg, "a2", 5);
      read(reg, "b1", 40);
      read(reg, "c1", 30);
      settle(reg);
      assertEquals(Set.of(OTHER, "a", "b"), tablesExported(reg));
      assertExact(reg, 0);

      read(reg, "c1", 20); // c passes b: b leaves, its figures join (other)
      settle(reg);
      assertEquals(Set.of(OTHER, "a", "c"), tablesExported(reg));
      assertExact(reg, 0);

      reg.close("a1"); // retained: a keeps its figures
      settle(reg);
      assertExact(reg, 0);
      now.addAndGet(11 * MINUTE_NS); // a1 let go: its figures stay in a's
      settle(reg);
      assertEquals(0, reg.retainedRegions());
      assertEquals(55, reg.tableSnapshot("a").get("blockCache.miss.data"));
      assertExact(reg, 0);

      read(reg, "b1", 100); // b comes back at its total; c leaves
      settle(reg);
      assertEquals(Set.of(OTHER, "a", "b"), tablesExported(reg));
      assertEquals(140, series(reg, MetricKeys.table("b", "blockCache.miss.data")));
      assertExact(reg, 0);

      reg.close("b1"); // b's only region, retained, then let go: b is gone, (other) keeps it
      settle(reg);
      assertExact(reg, 0);
      now.addAndGet(11 * MINUTE_NS);
      settle(reg);
      assertEquals(Set.of(OTHER, "a", "c"), tablesExported(reg));
      assertExact(reg, 140);

      reg.open("b", "b1", PerfLevel.COUNT); // b again, as a new table
      read(reg, "b1", 1);
      settle(reg);
      assertExact(reg, 140);
    }
  }

  @Test
  public void reloadingTheCapChangesTheTablesExported() {
    try (CostRegistry reg = registry(ExportLimit.ALL, ExportLimit.ALL, 0)) {
      for (int t = 1; t <= 3; t++) {
        reg.open("t" + t, "r" + t, PerfLevel.COUNT);
        read(reg, "r" + t, t);
      }
      settle(reg);
      assertEquals(Set.of("t1", "t2", "t3"), tablesExported(reg));
      reg.exportTables(ExportLimit.top(1));
      settle(reg);
      assertEquals(Set.of(OTHER, "t3"), tablesExported(reg));
      assertExact(reg, 0);
      reg.exportTables(ExportLimit.NONE);
      settle(reg);
      assertEquals(Set.of(OTHER), tablesExported(reg));
      assertEquals(6, series(reg, MetricKeys.table(OTHER, "blockCache.miss.data")));
      assertExact(reg, 0);
      reg.exportTables(ExportLimit.ALL);
      settle(reg);
      assertEquals(
          "(other) stays, at 0 while every table has series",
          Set.of(OTHER, "t1", "t2", "t3"),
          tablesExported(reg));
      assertExact(reg, 0);
    }
  }

  @Test
  public void aRegionThatEntersKeepsItsSeriesForTheMinimumTime() {
    try (CostRegistry reg = regionsAandB(5)) {
      read(reg, "a", 10);
      reg.refreshExport();
      assertEquals(Set.of("a"), regionsExported(reg));
      now.addAndGet(MINUTE_NS);
      read(reg, "b", 10); // b is the busiest now; a entered a minute ago and is held
      reg.refreshExport();
      assertEquals("top:1 plus a, held", Set.of("a", "b"), regionsExported(reg));
      assertEquals(2, reg.metrics().getGauges().get("Server|||regions.exported").getValue());
      now.addAndGet(4 * MINUTE_NS - 1);
      read(reg, "b", 10);
      reg.refreshExport();
      assertEquals(Set.of("a", "b"), regionsExported(reg));
      now.addAndGet(1); // five minutes since a entered
      read(reg, "b", 10);
      reg.refreshExport();
      assertEquals(Set.of("b"), regionsExported(reg));
    }
  }

  @Test
  public void aTableThatEntersKeepsItsSeriesForTheMinimumTime() {
    try (CostRegistry reg = registry(ExportLimit.ALL, ExportLimit.top(1), 5)) {
      reg.open("a", "a1", PerfLevel.COUNT);
      reg.open("b", "b1", PerfLevel.COUNT);
      read(reg, "a1", 10);
      settle(reg);
      assertEquals(
          "b has read nothing: (other) is 0, with no series", Set.of("a"), tablesExported(reg));
      now.addAndGet(MINUTE_NS);
      read(reg, "b1", 20); // b passes a; a is held four more minutes
      settle(reg);
      assertEquals("top:1 plus a, held", Set.of("a", "b"), tablesExported(reg));
      assertExact(reg, 0);
      now.addAndGet(4 * MINUTE_NS);
      settle(reg);
      assertEquals(Set.of(OTHER, "b"), tablesExported(reg));
      assertExact(reg, 0);
    }
  }

  @Test
  public void aHoldTooLongForNanosecondsHoldsForever() {
    try (CostRegistry reg = regionsAandB(0)) {
      reg.hold(Long.MAX_VALUE);
      read(reg, "a", 10);
      reg.refreshExport();
      now.addAndGet(1_000 * MINUTE_NS);
      read(reg, "b", 10);
      reg.refreshExport();
      assertEquals(Set.of("a", "b"), regionsExported(reg));
    }
  }

  @Test
  public void noneHoldsNothing() {
    try (CostRegistry reg = registry(ExportLimit.top(1), ExportLimit.top(1), 5)) {
      reg.open("t", "a", PerfLevel.COUNT);
      read(reg, "a", 10);
      settle(reg);
      reg.export(ExportLimit.NONE);
      reg.exportTables(ExportLimit.NONE);
      reg.refreshExport();
      assertEquals(Set.of(), regionsExported(reg));
      assertEquals(Set.of(OTHER), tablesExported(reg));
    }
  }

  /** A region that leaves the export and comes back shows its total, not a count from 0. */
  @Test
  public void aRegionsCountersGoOnWhenItComesBack() {
    try (CostRegistry reg = regionsAandB(0)) {
      read(reg, "a", 100);
      settle(reg);
      String aMisses = MetricKeys.region("t", "a", "blockCache.miss.data");
      assertEquals(100, series(reg, aMisses));
      read(reg, "b", 10); // b the busiest in this interval: a leaves
      reg.refreshExport();
      assertEquals(Set.of("b"), regionsExported(reg));
      read(reg, "a", 7); // read while it had no series
      read(reg, "a", 20); // and back
      reg.refreshExport();
      assertEquals(Set.of("a"), regionsExported(reg));
      assertEquals("at once, and cumulative", 127, series(reg, aMisses));
    }
  }

  @Test
  public void otherNeedsNoQuotingAndIsNoHBaseTableName() throws Exception {
    assertEquals(
        "blockscope:type=Table,table=(other),name=blockCache.miss.data",
        MetricKeys.objectName(MetricKeys.table(OTHER, "blockCache.miss.data")).toString());
    assertTrue(
        "HBase table names allow [a-zA-Z_0-9-.] and the namespace's ':' only",
        !OTHER.matches("[a-zA-Z_0-9.:-]+"));
  }
}
