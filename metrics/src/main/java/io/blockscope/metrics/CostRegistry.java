package io.blockscope.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.jmx.JmxReporter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import javax.management.MBeanServer;

/**
 * The read costs of one region server: per open region, per table, and for the server as a whole,
 * and their export as Dropwizard metrics.
 *
 * <p>Only regions are written to on the read path (through {@link RegionCosts#costs()}); tables and
 * the server are sums read when a scraper asks, over their open regions plus what regions that
 * closed had left behind, so their counters stay monotonic across region moves, splits and merges.
 * A table whose last region left this server is dropped with its series.
 *
 * <p>Metric series are registered by {@link #refreshExport()}, never on the read path: a table or
 * region series is added once its figure is non-zero, region series only for the regions the {@link
 * RegionExport} policy selects, and everything a closed region had is removed at once. Memory is
 * bounded by the regions open on the server.
 */
public final class CostRegistry implements AutoCloseable {

  /** The costs and settings of one open region. */
  public static final class RegionCosts {
    private final CostRegistry owner;
    private final String table;
    private final String region;
    private final CostAccumulator costs = new CostAccumulator();
    private final Set<String> exported = new HashSet<>();

    /**
     * Reads in flight that may still add to {@link #costs}, plus {@link Integer#MIN_VALUE} once the
     * region closed: a closed region's costs move to its table and server when the last read in
     * flight ends, not before, so no read is lost and no total dips.
     */
    private final AtomicInteger inFlight = new AtomicInteger();

    private int refs = 1;
    private long activityAtLastRank;
    private volatile PerfLevel level;

    RegionCosts(CostRegistry owner, String table, String region, PerfLevel level) {
      this.owner = owner;
      this.table = table;
      this.region = region;
      this.level = level;
    }

    /**
     * A read starts adding to this region's costs: true until the region closes, after which the
     * read must go uncounted (it would be refused by HBase as well). Every true is paired with one
     * {@link #release}.
     */
    public boolean acquire() {
      for (; ; ) {
        int n = inFlight.get();
        if (n < 0) {
          return false;
        }
        if (inFlight.compareAndSet(n, n + 1)) {
          return true;
        }
      }
    }

    /** The read that {@link #acquire}d ended; the last one after a close retires the region. */
    public void release() {
      if (inFlight.decrementAndGet() == Integer.MIN_VALUE) {
        owner.retire(this);
      }
    }

    public String table() {
      return table;
    }

    public String region() {
      return region;
    }

    public CostAccumulator costs() {
      return costs;
    }

    public PerfLevel level() {
      return level;
    }

    public void level(PerfLevel level) {
      this.level = level;
    }
  }

  private static final class TableCosts {
    final CostAccumulator retired = new CostAccumulator();
    final Set<RegionCosts> live = new HashSet<>();
    final Set<String> exported = new HashSet<>();

    long get(int slot) {
      long sum = retired.get(slot);
      for (RegionCosts r : live) {
        sum += r.costs.get(slot);
      }
      return sum;
    }
  }

  private final Map<String, RegionCosts> regions = new ConcurrentHashMap<>();

  /** Regions closed with reads still in flight; their costs still count where they did. */
  private final Set<RegionCosts> closing = new HashSet<>();

  private final Map<String, TableCosts> tables = new HashMap<>();
  private final CostAccumulator serverRetired = new CostAccumulator();
  private final MetricRegistry metrics = new MetricRegistry();
  private volatile RegionExport export;
  private JmxReporter jmx;

  public CostRegistry(RegionExport export) {
    this.export = export;
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      final int slot = s;
      if (!CostLayout.alwaysZero(s)) {
        metrics.register(
            MetricKeys.server(CostLayout.name(s)), readOnlyCounter(() -> serverCost(slot)));
      }
    }
    metrics.register(MetricKeys.server("regions.open"), (Gauge<Integer>) regions::size);
    metrics.register(MetricKeys.server("regions.exported"), (Gauge<Integer>) this::exportedRegions);
  }

  /** A read-only Dropwizard counter whose count is computed; JMX shows it as {@code Count}. */
  public static Counter readOnlyCounter(LongSupplier value) {
    return new Counter() {
      @Override
      public long getCount() {
        return value.getAsLong();
      }

      @Override
      public void inc(long n) {
        throw new UnsupportedOperationException("blockscope counters are read-only");
      }

      @Override
      public void dec(long n) {
        throw new UnsupportedOperationException("blockscope counters are read-only");
      }
    };
  }

  /**
   * Starts tracking a region, or takes one more reference to it (a region observed by two copies of
   * the coprocessor counts once).
   */
  public synchronized RegionCosts open(String table, String region, PerfLevel level) {
    RegionCosts r = regions.get(region);
    if (r != null) {
      r.refs++;
      return r;
    }
    r = new RegionCosts(this, table, region, level);
    regions.put(region, r);
    tables.computeIfAbsent(table, t -> new TableCosts()).live.add(r);
    return r;
  }

  /**
   * Drops one reference to a region; the last one removes its series at once and, when no read is
   * in flight on it any more, hands its costs to its table and to the server.
   */
  public synchronized void close(String region) {
    RegionCosts r = regions.get(region);
    if (r == null || --r.refs > 0) {
      return;
    }
    regions.remove(region);
    unexport(r.exported);
    closing.add(r);
    if (r.inFlight.getAndAdd(Integer.MIN_VALUE) == 0) {
      retire(r);
    }
  }

  /** Moves a closed region's final costs to its table and the server, in one step for readers. */
  private synchronized void retire(RegionCosts r) {
    if (!closing.remove(r)) {
      return;
    }
    serverRetired.addAll(r.costs);
    TableCosts t = tables.get(r.table);
    if (t != null) {
      t.live.remove(r);
      if (t.live.isEmpty()) {
        tables.remove(r.table);
        unexport(t.exported);
      } else {
        t.retired.addAll(r.costs);
      }
    }
  }

  /** Regions closed whose last reads are still in flight. */
  public synchronized int closingRegions() {
    return closing.size();
  }

  /** The costs of an open region, or null. */
  public RegionCosts region(String encodedRegion) {
    return regions.get(encodedRegion);
  }

  public Collection<RegionCosts> regions() {
    return regions.values();
  }

  public CostSnapshot regionSnapshot(String encodedRegion) {
    RegionCosts r = regions.get(encodedRegion);
    return r == null ? CostSnapshot.ZERO : r.costs.snapshot();
  }

  public synchronized CostSnapshot tableSnapshot(String table) {
    TableCosts t = tables.get(table);
    if (t == null) {
      return CostSnapshot.ZERO;
    }
    long[] s = new long[CostLayout.SIZE];
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      s[i] = t.get(i);
    }
    return new CostSnapshot(s);
  }

  public synchronized CostSnapshot serverSnapshot() {
    long[] s = new long[CostLayout.SIZE];
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      s[i] = serverCost(i);
    }
    return new CostSnapshot(s);
  }

  /**
   * One cost summed over the server: regions open now plus those that closed. Read under the lock
   * that retires regions, so a region's costs are never seen in neither place (a dip) nor in both.
   */
  public synchronized long serverCost(int slot) {
    long sum = serverRetired.get(slot);
    for (RegionCosts r : regions.values()) {
      sum += r.costs.get(slot);
    }
    for (RegionCosts r : closing) {
      sum += r.costs.get(slot);
    }
    return sum;
  }

  private synchronized long tableCost(String table, int slot) {
    TableCosts t = tables.get(table);
    return t == null ? 0 : t.get(slot);
  }

  public RegionExport export() {
    return export;
  }

  /** Changes which regions are exported; takes effect at the next {@link #refreshExport()}. */
  public void export(RegionExport policy) {
    this.export = policy;
  }

  /** Adds a metric that is not a cost (probe health, for instance) under a made key. */
  public synchronized void registerOnce(String key, Metric metric) {
    if (!metrics.getMetrics().containsKey(key)) {
      metrics.register(key, metric);
    }
  }

  /**
   * Brings the registered series in line with the costs and the export policy: adds table and
   * region series that became non-zero, ranks regions for {@code top:N}, removes the series of
   * regions that fell out of the selection. Called periodically, never on the read path.
   */
  public synchronized void refreshExport() {
    for (Map.Entry<String, TableCosts> e : tables.entrySet()) {
      String table = e.getKey();
      TableCosts t = e.getValue();
      for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
        if (t.get(s) != 0) {
          final int slot = s;
          export(
              t.exported,
              MetricKeys.table(table, CostLayout.name(s)),
              () -> tableCost(table, slot));
        }
      }
    }
    Set<RegionCosts> selected = select();
    for (RegionCosts r : regions.values()) {
      if (!selected.contains(r)) {
        unexport(r.exported);
        continue;
      }
      for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
        if (r.costs.get(s) != 0) {
          final int slot = s;
          export(
              r.exported,
              MetricKeys.region(r.table, r.region, CostLayout.name(s)),
              () -> r.costs.get(slot));
        }
      }
    }
  }

  private Set<RegionCosts> select() {
    int limit = export.limit();
    List<RegionCosts> all = new ArrayList<>(regions.values());
    Map<RegionCosts, Long> recent = new HashMap<>();
    for (RegionCosts r : all) {
      long now = CostLayout.activity(r.costs);
      recent.put(r, now - r.activityAtLastRank);
      r.activityAtLastRank = now;
    }
    if (limit >= all.size()) {
      return new HashSet<>(all);
    }
    all.sort(
        Comparator.<RegionCosts>comparingLong(recent::get)
            .reversed()
            .thenComparing(RegionCosts::region));
    return new HashSet<>(all.subList(0, limit));
  }

  private void export(Set<String> exported, String key, LongSupplier value) {
    if (exported.add(key)) {
      metrics.register(key, readOnlyCounter(value));
    }
  }

  private void unexport(Set<String> exported) {
    for (String key : exported) {
      metrics.remove(key);
    }
    exported.clear();
  }

  private synchronized int exportedRegions() {
    int n = 0;
    for (RegionCosts r : regions.values()) {
      if (!r.exported.isEmpty()) {
        n++;
      }
    }
    return n;
  }

  /** The registry the JMX reporter (and tests) read. */
  public MetricRegistry metrics() {
    return metrics;
  }

  /** Exposes every series as an MBean under {@link MetricKeys#DOMAIN}. */
  public synchronized void startJmx(MBeanServer server) {
    if (jmx == null) {
      jmx =
          JmxReporter.forRegistry(metrics)
              .inDomain(MetricKeys.DOMAIN)
              .createsObjectNamesWith(MetricKeys.OBJECT_NAMES)
              .registerWith(server)
              .build();
      jmx.start();
    }
  }

  @Override
  public synchronized void close() {
    if (jmx != null) {
      jmx.stop();
      jmx = null;
    }
  }
}
