package io.blockscope.coprocessor.accounting;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import io.blockscope.metrics.CacheReuse;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.ServerMetric;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.management.MBeanServer;

/**
 * The read costs of one region server: per open region, per table, and for the server as a whole,
 * and their export as Dropwizard metrics.
 *
 * <p>Only regions are written to on the read path (through {@link RegionCosts#costs()}); tables and
 * the server are sums read when a scraper asks, over their regions plus what regions that closed
 * had left behind, so their counters never go down across region moves, splits and merges.
 *
 * <p>A region that closes keeps its costs for the retention period ({@code retainMillis}): if it
 * opens again on this server within it (a reopen after an {@code alter}, a move back, a failed
 * split rolled back), it goes on from them; a table whose regions all closed keeps its totals and
 * series for as long as one of them is retained, so a split (the parent closes before its daughters
 * open) or a merge never restarts the table's counters. After the period the region's costs are
 * folded into its table's and the server's totals, and a table with no region left is dropped with
 * its series. At most {@link #MAX_RETAINED} closed regions are kept; the oldest go first.
 *
 * <p>Metric series are registered by {@link #refreshExport()}, never on the read path: a table or
 * region series is added once its figure is non-zero, region series only for the open regions the
 * regions' {@link ExportLimit} selects (the busiest since the previous refresh), table series only
 * for the tables the tables' limit selects (the busiest since the server started); a region's
 * series go at once when it closes (they come back, going on from the same figures, if it reopens
 * within the period). One that enters the selection keeps its series for the hold time at least
 * ({@link ExportSelection}). The tables without series, and those no longer here, are summed as the
 * table {@link MetricKeys#OTHER_TABLE}, so the server's figure is exactly the exported tables' plus
 * {@code (other)}'s, for every cost. Memory is bounded by the regions open on the server plus those
 * retained.
 *
 * <p>A series of a cost that was 0 at the previous refresh (a new table's, a new region's, the
 * first GZ block of a table) reads 0 until the next refresh, and its figure from then on, as a
 * counter starts at 0 before it counts: Prometheus's {@code rate} and {@code increase} take a
 * series' first sample as its start, so a series that first appeared holding its reads would never
 * show them. A series whose cost was non-zero before it was exported (a region that joins the
 * {@code top:N} selection, one that reopens within the period) shows its figure at once, since a
 * start at 0 would read as all of its reads made in that one interval.
 */
public final class CostRegistry implements AutoCloseable {

  /** The costs and settings of one open region. */
  public static final class RegionCosts {
    private final CostRegistry owner;
    private final String table;
    private final String region;
    private final CostAccumulator costs;
    private final ExportSelection.State export = new ExportSelection.State();

    /**
     * Set when the region closes, cleared if it reopens here while kept. Reads in flight (counted
     * in {@link #costs}, striped with them) may still add to it after the close: a closed region's
     * costs move to its table and server when the last of them ends, not before, so no read is lost
     * and no total dips.
     */
    private volatile boolean closed;

    private int refs = 1;
    private long activityAtLastRank;

    /** When the region's last read after its close ended ({@link #nanoTime}); for retention. */
    private long retiredAt;

    private volatile PerfLevel level;

    RegionCosts(CostRegistry owner, String table, String region, PerfLevel level) {
      this.owner = owner;
      this.table = table;
      this.region = region;
      this.level = level;
      this.costs = new CostAccumulator(owner.stripes);
    }

    /**
     * A read starts adding to this region's costs: true until the region closes, after which the
     * read must go uncounted (it would be refused by HBase as well). Every true is paired with one
     * {@link #release}.
     */
    public boolean acquire() {
      return acquire(null);
    }

    /**
     * {@link #acquire()} through a thread's lane, so that handlers reading one region at once count
     * their reads in flight in different arrays.
     *
     * <p>The read is counted first and the close checked after it; a close sets its flag first and
     * sums the count after it. So either the read sees the close and takes itself back, or the sum
     * sees the read: a region is never retired with an admitted read in flight.
     */
    public boolean acquire(CostAccumulator.Lane lane) {
      costs.inFlight(lane, 1);
      if (!closed) {
        return true;
      }
      release(lane);
      return false;
    }

    /** The read that {@link #acquire}d ended; the last one after a close retires the region. */
    public void release() {
      release(null);
    }

    /** {@link #release()} through a thread's lane (any lane: the count is a sum). */
    public void release(CostAccumulator.Lane lane) {
      costs.inFlight(lane, -1);
      if (closed && costs.inFlight() == 0) {
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

    /** Changes the region's level; the registry's count of measured regions follows. */
    public void level(PerfLevel level) {
      synchronized (owner) {
        if (owner.regions.get(region) == this) {
          owner.measured += weight(level) - weight(this.level);
        }
        this.level = level;
      }
    }
  }

  /** 1 for a region that is measured (above OFF), 0 otherwise. */
  private static int weight(PerfLevel level) {
    return level == PerfLevel.OFF ? 0 : 1;
  }

  private final Map<String, RegionCosts> regions = new ConcurrentHashMap<>();

  /**
   * Arrays the regions' accumulators may grow under contention, beyond their first: 4,096 arrays,
   * about 4 MB (968 bytes each), whatever the number of regions.
   */
  static final int MAX_STRIPES = 4096;

  private final CostAccumulator.Stripes stripes = new CostAccumulator.Stripes(MAX_STRIPES);

  /** Regions closed with reads still in flight; their costs still count where they did. */
  private final Map<String, RegionCosts> closing = new HashMap<>();

  /** Open regions above OFF, kept as regions open, close and change level: O(1) to ask. */
  private int measured;

  /** Closed regions kept for the retention period, oldest first, by encoded name. */
  private final LinkedHashMap<String, RegionCosts> retained = new LinkedHashMap<>();

  /** Closed regions kept at most; beyond it the oldest is let go before its period ends. */
  static final int MAX_RETAINED = 10_000;

  private final LongSupplier nanoTime;
  private volatile long retainNanos;

  private final Map<String, TableRollUp> tables = new HashMap<>();
  private final CostAccumulator serverRetired = new CostAccumulator();

  /** What tables no longer here left: part of {@code (other)}. */
  private final CostAccumulator tablesGone = new CostAccumulator();

  /** The block cache's counters by table slot ({@code CacheReuse}); null: none counted. */
  private AtomicLongArray cacheReuseCounts;

  /** The tables of those slots, by slot. */
  private Supplier<String[]> cacheReuseTables;

  /** The server's series of the block cache counters, each registered once it is not 0. */
  private final Set<String> cacheReuseServer = new HashSet<>();

  /** The series of {@code (other)}. */
  private final ExportSelection.State other = new ExportSelection.State();

  /** The series exported and their JMX beans; used under this registry's lock. */
  private final SeriesExport series = new SeriesExport();

  private volatile ExportLimit export;

  /** The server's accounts by user, exported with the rest; null until set. */
  private UserAccounts users;

  /** The series of the user {@code (other)}. */
  private final ExportSelection.State otherUser = new ExportSelection.State();

  /** The accounts that had series at the last refresh. */
  private final Set<UserAccounts.Account> usersExported = new HashSet<>();

  private volatile ExportLimit exportTables = ExportLimit.ALL;
  private volatile long holdNanos;

  /** A registry that keeps no closed region ({@code retainMillis} 0). */
  public CostRegistry(ExportLimit export) {
    this(export, 0, System::nanoTime);
  }

  /**
   * @param retainMillis how long a closed region's costs are kept for it to go on from if it
   *     reopens here, and its table's series with them (0: let go when its last read ends)
   * @param nanoTime the clock that retention is measured by
   */
  public CostRegistry(ExportLimit export, long retainMillis, LongSupplier nanoTime) {
    this.export = export;
    this.nanoTime = nanoTime;
    retain(retainMillis);
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      final int slot = s;
      if (!CostLayout.alwaysZero(s)) {
        series.register(
            MetricKeys.server(CostLayout.name(s)), readOnlyCounter(() -> serverCost(slot)));
      }
    }
    series.register(ServerMetric.REGIONS_OPEN.key(), (Gauge<Integer>) regions::size);
    series.register(ServerMetric.REGIONS_EXPORTED.key(), (Gauge<Integer>) this::exportedRegions);
    series.register(ServerMetric.REGIONS_RETAINED.key(), (Gauge<Integer>) this::retainedRegions);
  }

  /** Changes the retention period; takes effect at the next close and {@link #refreshExport()}. */
  public void retain(long retainMillis) {
    this.retainNanos = Math.max(0, retainMillis) * 1_000_000L;
  }

  /** A read-only Dropwizard counter whose count is computed; JMX shows it as {@code Count}. */
  public static Counter readOnlyCounter(LongSupplier value) {
    return SeriesExport.readOnlyCounter(value);
  }

  /**
   * Starts tracking a region, or takes one more reference to it (a region observed by two copies of
   * the coprocessor counts once). A region that closed here and is still kept (closing, or retained
   * within the period) opens again with its costs.
   */
  public synchronized RegionCosts open(String table, String region, PerfLevel level) {
    RegionCosts r = regions.get(region);
    if (r != null) {
      r.refs++;
      return r;
    }
    r = reopen(table, region);
    if (r != null) {
      r.level = level;
      r.refs = 1;
    } else {
      r = new RegionCosts(this, table, region, level);
      tables.computeIfAbsent(table, t -> new TableRollUp(t, cacheCounts(t))).members.add(r);
    }
    regions.put(region, r);
    measured += weight(level);
    return r;
  }

  /** Whether any open region is above OFF; O(1), kept as regions open, close and change level. */
  public synchronized boolean anyMeasured() {
    return measured > 0;
  }

  /**
   * The closed region of this name and table still kept here, made ready for reads again; or null.
   * Its reads in flight (if it is still closing) stay admitted and counted.
   */
  private RegionCosts reopen(String table, String region) {
    RegionCosts r = retained.get(region);
    if (r != null && !r.table.equals(table)) {
      retained.remove(region); // a name of another table's region: that one is let go now
      letGo(r);
      r = null;
    }
    if (r != null) {
      retained.remove(region);
    } else {
      r = closing.get(region);
      if (r == null || !r.table.equals(table)) {
        return null;
      }
      closing.remove(region);
    }
    r.closed = false; // undoes close(); its reads in flight stay counted
    // its series come back at the figures they had: a start at 0 would read as all of them anew
    r.export.tracked = allZero(r.costs);
    return r;
  }

  /**
   * Drops one reference to a region; the last one removes its series at once and, when no read is
   * in flight on it any more, retains it (or lets it go, with no retention).
   */
  public synchronized void close(String region) {
    RegionCosts r = regions.get(region);
    if (r == null || --r.refs > 0) {
      return;
    }
    regions.remove(region);
    series.unexport(r.export.keys);
    r.export.deselect();
    measured -= weight(r.level);
    closing.put(region, r);
    r.closed = true;
    if (r.costs.inFlight() == 0) {
      retire(r);
    }
  }

  /** A closed region's last read ended: it is retained for the period, or let go at once. */
  private synchronized void retire(RegionCosts r) {
    // checked again under the lock: a read that saw the close of an earlier incarnation may get
    // here after the region reopened, or closed again with new reads in flight
    if (!r.closed || r.costs.inFlight() != 0 || !closing.remove(r.region, r)) {
      return;
    }
    if (retainNanos == 0) {
      letGo(r);
      return;
    }
    r.retiredAt = nanoTime.getAsLong();
    retained.put(r.region, r);
    while (retained.size() > MAX_RETAINED) {
      Iterator<RegionCosts> oldest = retained.values().iterator();
      RegionCosts o = oldest.next();
      oldest.remove();
      letGo(o);
    }
  }

  /**
   * Moves a closed region's final costs to its table's and the server's totals, in one step for
   * readers; a table left with no region is dropped with its series.
   */
  private void letGo(RegionCosts r) {
    r.costs.release();
    serverRetired.addAll(r.costs);
    TableRollUp t = tables.get(r.table);
    if (t != null) {
      t.members.remove(r);
      if (t.members.isEmpty()) {
        // the table's figures stay in the server's total: (other) takes them over
        tablesGone.addAll(t.retired);
        tablesGone.addAll(r.costs);
        tables.remove(r.table);
        series.unexport(t.export.keys);
      } else {
        t.retired.addAll(r.costs);
      }
    }
  }

  /** Lets go of the regions retained for longer than the period. */
  private void expireRetained() {
    long now = nanoTime.getAsLong();
    Iterator<RegionCosts> it = retained.values().iterator();
    while (it.hasNext()) {
      RegionCosts r = it.next();
      if (now - r.retiredAt < retainNanos) {
        break; // kept in the order they retired
      }
      it.remove();
      letGo(r);
    }
  }

  /** Closed regions kept for the retention period. */
  synchronized int retainedRegions() {
    return retained.size();
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

  /**
   * A table's costs, or, for {@link MetricKeys#OTHER_TABLE}, those of the tables without series of
   * their own and of the tables no longer here.
   */
  public synchronized CostSnapshot tableSnapshot(String table) {
    TableRollUp t = tables.get(table);
    if (t == null && !table.equals(MetricKeys.OTHER_TABLE)) {
      return CostSnapshot.ZERO;
    }
    long[] s = new long[CostLayout.SIZE];
    String lost = t == null ? null : leftOut(t);
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      s[i] = t == null ? otherCost(i) : t.get(i, lost);
    }
    return CostSnapshot.ofSlots(s);
  }

  public synchronized CostSnapshot serverSnapshot() {
    long[] s = new long[CostLayout.SIZE];
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      s[i] = serverCost(i);
    }
    return CostSnapshot.ofSlots(s);
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
    for (RegionCosts r : closing.values()) {
      sum += r.costs.get(slot);
    }
    for (RegionCosts r : retained.values()) {
      sum += r.costs.get(slot);
    }
    return sum;
  }

  private synchronized long tableCost(String table, int slot) {
    TableRollUp t = tables.get(table);
    return t == null ? 0 : t.get(slot, leftOut(t));
  }

  /**
   * One cost of the {@code (other)} roll-up: the tables here not selected for series of their own,
   * plus the tables no longer here. With the selected tables it sums to {@link #serverCost}: every
   * region is in one table here until it is let go, and what it leaves goes to its table or, with
   * its table's, to {@link #tablesGone}.
   */
  synchronized long otherCost(int slot) {
    long sum = tablesGone.get(slot);
    for (TableRollUp t : tables.values()) {
      if (!t.export.selected) {
        sum += t.get(slot, leftOut(t));
      }
    }
    return sum;
  }

  /**
   * Which of a table's regions (by encoded name) its figures leave out: null, none, unless a test
   * drill set it to show that a lost roll-up is caught. Never set on a production server.
   */
  volatile Function<Collection<String>, String> leaveOut;

  private String leftOut(TableRollUp t) {
    Function<Collection<String>, String> drill = leaveOut;
    if (drill == null) {
      return null;
    }
    List<String> names = new ArrayList<>();
    for (RegionCosts r : t.members) {
      names.add(r.region);
    }
    return drill.apply(names);
  }

  public ExportLimit export() {
    return export;
  }

  /** Changes which regions are exported; takes effect at the next {@link #refreshExport()}. */
  public void export(ExportLimit policy) {
    this.export = policy;
  }

  public ExportLimit exportTables() {
    return exportTables;
  }

  /**
   * Changes which tables get series of their own ({@link ExportLimit#ALL} unless set), the rest
   * summed as {@link MetricKeys#OTHER_TABLE}; takes effect at the next {@link #refreshExport()}.
   */
  public void exportTables(ExportLimit policy) {
    this.exportTables = policy;
  }

  /**
   * Changes how long a region or table that enters the export keeps its series at least (0 unless
   * set): {@link ExportSelection}. Takes effect at the next {@link #refreshExport()}.
   */
  public void hold(long holdMillis) {
    // a period beyond 292 years in nanoseconds is as good as forever, not a negative one
    this.holdNanos = Math.min(Math.max(0, holdMillis), Long.MAX_VALUE / 1_000_000L) * 1_000_000L;
  }

  /**
   * Exports the server's accounts by user with the regions and tables: each account's non-zero
   * costs as {@code blockscope:type=User,user=<user>}, the rest as {@link MetricKeys#OTHER_USER}.
   */
  public synchronized void users(UserAccounts accounts) {
    this.users = accounts;
    series.registerOnce(
        ServerMetric.USERS_ACCOUNTS.key(), (Gauge<Integer>) () -> accounts.accounts().size());
    series.registerOnce(ServerMetric.USERS_LET_GO.key(), readOnlyCounter(accounts::lettings));
  }

  /** Adds a metric that is not a cost (probe health, for instance) under a made key. */
  public synchronized void registerOnce(String key, Metric metric) {
    series.registerOnce(key, metric);
  }

  /**
   * Brings the registered series in line with the costs and the export policy: adds table and
   * region series that became non-zero, ranks regions for {@code top:N}, removes the series of
   * regions that fell out of the selection. Called periodically, never on the read path.
   */
  public synchronized void refreshExport() {
    series.showHeld();
    expireRetained();
    long now = nanoTime.getAsLong();
    refreshTables(now);
    refreshUsers();
    Map<RegionCosts, Long> recent = new HashMap<>();
    for (RegionCosts r : regions.values()) {
      long activity = CostLayout.activity(r.costs);
      recent.put(r, activity - r.activityAtLastRank);
      r.activityAtLastRank = activity;
    }
    Set<RegionCosts> selected =
        ExportSelection.select(
            regions.values(), r -> r.export, recent::get, r -> r.region, export, now, holdNanos);
    for (RegionCosts r : regions.values()) {
      exportOrNot(
          selected.contains(r),
          r.export,
          r.costs,
          s -> MetricKeys.region(r.table, r.region, CostLayout.name(s)),
          s -> () -> r.costs.get(s));
    }
  }

  /**
   * Tables are ranked by their block accesses since the server started, so the selection changes
   * only when one table's total overtakes another's; the rest go to {@code (other)}.
   */
  private void refreshTables(long now) {
    Map<String, Integer> cacheSlots = cacheSlots();
    Set<TableRollUp> selected =
        ExportSelection.select(
            tables.values(),
            t -> t.export,
            t -> CostLayout.activity(s -> t.get(s, null)),
            t -> t.name,
            exportTables,
            now,
            holdNanos);
    for (TableRollUp t : tables.values()) {
      Integer cacheSlot = cacheSlots.get(t.name);
      if (selected.contains(t) && cacheSlot != null) {
        exportCacheReuse(t.export, t.name, cacheSlot, t.cacheBase);
      }
      exportOrNot(
          selected.contains(t),
          t.export,
          s -> t.get(s, null),
          s -> MetricKeys.table(t.name, CostLayout.name(s)),
          s -> () -> tableCost(t.name, s));
    }
    for (int i = 0; i < CacheReuse.WIDTH; i++) {
      final int counter = i;
      if (serverCacheReuse(counter) != 0) {
        series.export(
            cacheReuseServer,
            MetricKeys.server(CacheReuse.name(counter)),
            () -> serverCacheReuse(counter),
            false);
      }
    }
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      if (otherCost(s) != 0) {
        final int slot = s;
        // shown at once: a figure that joins (other) was counted before, under a table's series
        series.export(
            other.keys,
            MetricKeys.table(MetricKeys.OTHER_TABLE, CostLayout.name(s)),
            () -> otherCost(slot),
            false);
      }
    }
  }

  /** The block cache's table slots by table name (none while no counters are set). */
  private Map<String, Integer> cacheSlots() {
    String[] names = cacheReuseTables == null ? new String[0] : cacheReuseTables.get();
    Map<String, Integer> slots = new HashMap<>();
    for (int i = 0; i < names.length; i++) {
      if (names[i] != null) {
        slots.put(names[i], i);
      }
    }
    return slots;
  }

  /** A table's block cache counters now: the base of a new roll-up's. */
  private long[] cacheCounts(String table) {
    long[] now = new long[CacheReuse.WIDTH];
    Integer slot = cacheReuseCounts == null ? null : cacheSlots().get(table);
    if (slot != null) {
      for (int i = 0; i < CacheReuse.WIDTH; i++) {
        now[i] = cacheReuseCounts.get(slot * CacheReuse.WIDTH + i);
      }
    }
    return now;
  }

  /**
   * Series for a selected table's block cache counters that grew since its roll-up was made (its
   * keys go with its cost series', in {@code state}; the counts before that are in the server's
   * series only); a new one starts from 0 as a new cost's does.
   */
  private void exportCacheReuse(ExportSelection.State state, String table, int slot, long[] base) {
    AtomicLongArray counts = cacheReuseCounts;
    for (int i = 0; i < CacheReuse.WIDTH; i++) {
      int index = slot * CacheReuse.WIDTH + i;
      long from = base[i];
      if (counts.get(index) != from) {
        series.export(
            state.keys,
            MetricKeys.table(table, CacheReuse.name(i)),
            () -> counts.get(index) - from,
            state.tracked);
      }
    }
  }

  /**
   * One block cache counter summed over every table slot: the server's figure, which the tables
   * with series of their own do not add up to (the others have no series of these, not even in
   * {@code (other)}: a table's counts from before it had a region here would leave it when the
   * table got series, which would then go down).
   */
  private long serverCacheReuse(int counter) {
    AtomicLongArray counts = cacheReuseCounts;
    if (counts == null) {
      return 0;
    }
    long sum = 0;
    for (int slot = 0; slot * CacheReuse.WIDTH < counts.length(); slot++) {
      sum += counts.get(slot * CacheReuse.WIDTH + counter);
    }
    return sum;
  }

  /**
   * Every account kept has series for its non-zero costs (from 0, as a new table's), and {@code
   * (other)} for its; an account let go loses them, its figures shown in {@code (other)}'s from the
   * moment it went. A series reads 0 once its account is gone, so that the accounts' and {@code
   * (other)}'s series never count a read twice until the refresh removes them.
   */
  private void refreshUsers() {
    UserAccounts accounts = users;
    if (accounts == null) {
      return;
    }
    Collection<UserAccounts.Account> kept = accounts.accounts();
    for (Iterator<UserAccounts.Account> it = usersExported.iterator(); it.hasNext(); ) {
      UserAccounts.Account a = it.next();
      if (a.gone()) {
        series.unexport(a.export.keys);
        it.remove();
      }
    }
    for (UserAccounts.Account a : kept) {
      usersExported.add(a);
      exportOrNot(
          true,
          a.export,
          a::get,
          s -> MetricKeys.user(a.user(), CostLayout.name(s)),
          s -> () -> a.gone() ? 0 : a.get(s));
      if (a.inherited() != 0) {
        series.exportGauge(
            a.export.keys,
            MetricKeys.user(a.user(), USER_INHERITED),
            () -> a.gone() ? 0L : a.inherited());
      }
    }
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      if (accounts.other(s) != 0) {
        final int slot = s;
        series.export(
            otherUser.keys,
            MetricKeys.user(MetricKeys.OTHER_USER, CostLayout.name(s)),
            () -> accounts.other(slot),
            false);
      }
    }
  }

  /**
   * The series of an account's {@link UserAccounts.Account#inherited()}: the most block accesses of
   * its user's that are in {@code (other)} and not in its account.
   */
  public static final String USER_INHERITED = "accesses.uncounted.max";

  /**
   * Adds the series of a selected region's or table's costs that became non-zero, or removes all of
   * an unselected one's.
   */
  private void exportOrNot(
      boolean selected,
      ExportSelection.State state,
      CostLayout.LongSlotReader costs,
      IntFunction<String> key,
      IntFunction<LongSupplier> value) {
    if (!selected) {
      series.unexport(state.keys);
      // costs only grow: once it has one, it stays untracked until exported again
      state.tracked = state.tracked && allZero(costs);
      return;
    }
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      if (costs.get(s) != 0) {
        series.export(state.keys, key.apply(s), value.apply(s), state.tracked);
      }
    }
    state.tracked = true;
  }

  private static boolean allZero(CostLayout.LongSlotReader costs) {
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      if (costs.get(s) != 0) {
        return false;
      }
    }
    return true;
  }

  private synchronized int exportedRegions() {
    int n = 0;
    for (RegionCosts r : regions.values()) {
      if (!r.export.keys.isEmpty()) {
        n++;
      }
    }
    return n;
  }

  /**
   * Exports the block cache's counters by table ({@code CacheReuse}) with the tables' series:
   * {@code tables} names each slot of {@code counts}.
   */
  public synchronized void cacheReuse(AtomicLongArray counts, Supplier<String[]> tables) {
    cacheReuseCounts = counts;
    cacheReuseTables = tables;
  }

  /** The registry the JMX reporter (and tests) read. */
  public MetricRegistry metrics() {
    return series.metrics();
  }

  /** Exposes every series as an MBean under {@link MetricKeys#DOMAIN}. */
  public synchronized void startJmx(MBeanServer server) {
    series.startJmx(server);
  }

  @Override
  public synchronized void close() {
    series.close();
  }
}
