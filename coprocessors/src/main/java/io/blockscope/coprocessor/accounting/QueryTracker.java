package io.blockscope.coprocessor.accounting;

import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.HBaseScanMetrics;
import io.blockscope.metrics.PerfLevel;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The region scanners of tagged queries: a client tags every scan of a query with an unguessable id
 * (scan attribute {@value Attributes#QUERY}, 32 hex digits), and the region server records, per id
 * and user, how many of its scanners are open now, the most that were open at once, and how many
 * were opened in all. That is how the SERIAL hint is checked from the server's side.
 *
 * <p>A query belongs to the user whose RPCs tagged it: scans of two users tagged with the same id
 * are two queries, so a user who learns another's id (it is printed by EXPLAIN ANALYZE and may
 * reach HBase's slow-call log) cannot add to that user's record nor raise its level.
 *
 * <p>Memory is bounded: at most {@code maxQueries} ids and {@code maxRegionEntries} (query, region)
 * records (when either is full, the least recently touched ids are dropped first) and {@code
 * maxScanners} open scanners tracked (more are not tracked, and counted as dropped); an id with no
 * open scanner expires {@code expiryMillis} after it was last touched. Calls are synchronized: they
 * happen per scanner open and close, not per cell.
 */
public final class QueryTracker {

  private static final Pattern ID = Pattern.compile("[0-9a-f]{32}");

  /** What the server saw of one query's scanners. */
  public static final class Stats {
    public static final Stats NONE = new Stats(0, 0, 0);

    private final int open;
    private final int maxOpen;
    private final long scanners;

    public Stats(int open, int maxOpen, long scanners) {
      this.open = open;
      this.maxOpen = maxOpen;
      this.scanners = scanners;
    }

    /** Scanners open now. */
    public int open() {
      return open;
    }

    /** The most that were open at once. */
    public int maxOpen() {
      return maxOpen;
    }

    /** Scanners opened in all. */
    public long scanners() {
      return scanners;
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof Stats)) {
        return false;
      }
      Stats s = (Stats) o;
      return open == s.open && maxOpen == s.maxOpen && scanners == s.scanners;
    }

    @Override
    public int hashCode() {
      return Objects.hash(open, maxOpen, scanners);
    }

    @Override
    public String toString() {
      return "Stats[open=" + open + ", maxOpen=" + maxOpen + ", scanners=" + scanners + "]";
    }
  }

  private static final class Entry {
    final Key key;
    int open;
    int maxOpen;
    long scanners;
    long touchedMillis;
    final Map<String, RegionCosts> regions = new LinkedHashMap<>();

    Entry(Key key) {
      this.key = key;
    }
  }

  /** What one region spent on one tagged query: its costs and the rows its scanners returned. */
  public static final class RegionCosts {
    /**
     * The highest profiling level the query's scans asked for here (a {@link PerfLevel} ordinal),
     * -1 for none.
     */
    public volatile int asked = -1;

    /**
     * The level the query may measure at here: {@link #asked} within the server's cap on queries as
     * it is now (set again when the cap is reloaded), -1 for none.
     */
    public volatile int level = -1;

    /**
     * The level the region measures the query at (a {@link PerfLevel} ordinal), -1 until a scan of
     * the query opened here; and why, as a {@code ProfileWire.LEVEL_REASONS} index.
     */
    public volatile int applied = -1;

    public volatile int appliedReason = -1;

    public final CostAccumulator costs = new CostAccumulator();
    public final AtomicLong rows = new AtomicLong();

    /**
     * HBase's own scan metrics for the query's scan RPCs in this region ({@link HBaseScanMetrics}
     * order), where the region server's HBase has them and the scans asked HBase to track them.
     */
    public final AtomicLongArray hbase = new AtomicLongArray(HBaseScanMetrics.NAMES.size());

    /** Whether {@link #hbase} holds anything: HBase tracked at least one of the query's RPCs. */
    public volatile boolean hbaseTracked;

    /** The query these costs belong to (it stays reachable from here after an eviction). */
    private final Entry query;

    private RegionCosts(Entry query) {
      this.query = query;
    }
  }

  private final int maxQueries;
  private final int maxScanners;
  private final long expiryMillis;
  private final LongSupplier clock;

  /** A query: its id and the user whose scans tagged it. */
  private static final class Key {
    final String id;
    final String user;

    Key(String id, String user) {
      this.id = id;
      this.user = user;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key && ((Key) o).id.equals(id) && ((Key) o).user.equals(user);
    }

    @Override
    public int hashCode() {
      return 31 * id.hashCode() + user.hashCode();
    }
  }

  private final LinkedHashMap<Key, Entry> queries = new LinkedHashMap<>(16, 0.75f, true);

  /** Open scanners and the query each belongs to (an evicted query's too, until they close). */
  private final IdentityHashMap<Object, Entry> scanners = new IdentityHashMap<>();

  private final int maxRegionEntries;
  private int regionEntries;
  private long dropped;
  private long evicted;

  public QueryTracker(int maxQueries, int maxScanners, long expiryMillis, LongSupplier clock) {
    this(maxQueries, maxScanners, maxScanners, expiryMillis, clock);
  }

  /**
   * {@code maxRegionEntries} bounds the (query, region) cost records kept for profiles, each
   * {@value CostLayout#SIZE} longs.
   */
  public QueryTracker(
      int maxQueries,
      int maxScanners,
      int maxRegionEntries,
      long expiryMillis,
      LongSupplier clock) {
    if (maxQueries < 1 || maxScanners < 1 || maxRegionEntries < 1 || expiryMillis < 1) {
      throw new IllegalArgumentException("limits must be positive");
    }
    this.maxRegionEntries = maxRegionEntries;
    this.maxQueries = maxQueries;
    this.maxScanners = maxScanners;
    this.expiryMillis = expiryMillis;
    this.clock = clock;
  }

  /**
   * 10,000 queries, 100,000 open scanners, 20,000 (query, region) cost records (94 counters of 8
   * bytes each, 5 of them HBase's own scan metrics: 15.0 MB of counters at most), ten minutes.
   */
  public static QueryTracker withDefaults() {
    return new QueryTracker(10_000, 100_000, 20_000, 600_000, System::currentTimeMillis);
  }

  /** The query id in a scan attribute's value, or null if it is not one (ignored, not an error). */
  public static String parseId(byte[] attribute) {
    if (attribute == null || attribute.length != 32) {
      return null;
    }
    String id = new String(attribute, StandardCharsets.US_ASCII);
    return ID.matcher(id).matches() ? id : null;
  }

  /** A scanner of user {@code user}'s query {@code id} was opened (for tests: no region). */
  synchronized void opened(Object scanner, String id, String user) {
    RegionCosts costs = region(id, user, "");
    if (costs != null) {
      opened(scanner, costs);
    }
  }

  /** {@link #region} and {@link #opened(Object, RegionCosts)} in one (for tests). */
  synchronized RegionCosts opened(Object scanner, String id, String user, String region) {
    RegionCosts costs = region(id, user, region);
    return costs != null && opened(scanner, costs) ? costs : null;
  }

  /**
   * Where region {@code region}'s costs for user {@code user}'s query {@code id} go (shared by the
   * query's scanners in the region), made on first use; null when over the limits (counted as
   * dropped).
   */
  public synchronized RegionCosts region(String id, String user, String region) {
    long now = clock.getAsLong();
    expire(now);
    Key key = new Key(id, user);
    Entry e = queries.get(key);
    if (e == null) {
      if (queries.size() >= maxQueries) {
        evictOne();
      }
      e = new Entry(key);
      queries.put(key, e);
    }
    e.touchedMillis = now;
    RegionCosts costs = e.regions.get(region);
    if (costs == null) {
      // full: the least recently touched queries make room (a profile is read right after its
      // query, so the newest are the ones worth keeping); only a query that alone fills the
      // table is refused more
      while (regionEntries >= maxRegionEntries && queries.size() > 1) {
        evictOne();
      }
      if (regionEntries >= maxRegionEntries) {
        dropped++;
        return null;
      }
      costs = new RegionCosts(e);
      e.regions.put(region, costs);
      regionEntries++;
    }
    return costs;
  }

  /**
   * A scanner of the query that {@code costs} belong to is open; false (counted as dropped) when
   * the scanner limit is reached or the scanner is tracked already.
   */
  public synchronized boolean opened(Object scanner, RegionCosts costs) {
    if (scanners.size() >= maxScanners || scanners.containsKey(scanner)) {
      dropped++;
      return false;
    }
    Entry e = costs.query;
    scanners.put(scanner, e);
    e.open++;
    e.scanners++;
    e.maxOpen = Math.max(e.maxOpen, e.open);
    touch(e);
    return true;
  }

  /**
   * Marks a query used now and moves it to the newest end of the access order, which {@link
   * #expire} relies on: it stops at the first query used within the expiry, so every query after it
   * must have been used later.
   */
  private void touch(Entry e) {
    e.touchedMillis = clock.getAsLong();
    queries.get(e.key); // an evicted query is no longer there, and nothing moves
  }

  /** Calls {@code each} with every (region, record) of every query kept. */
  public synchronized void forEachRegion(BiConsumer<String, RegionCosts> each) {
    for (Entry e : queries.values()) {
      e.regions.forEach(each);
    }
  }

  /** The costs region {@code region} recorded for user {@code user}'s query {@code id}; or null. */
  public synchronized RegionCosts costs(String id, String user, String region) {
    Entry e = id == null || user == null ? null : queries.get(new Key(id, user));
    return e == null ? null : e.regions.get(region);
  }

  /** A scanner was closed; scanners of no tracked query are ignored. */
  public synchronized void closed(Object scanner) {
    Entry e = scanners.remove(scanner);
    if (e != null) {
      e.open--;
      touch(e);
    }
  }

  /**
   * What was seen of user {@code user}'s query {@code id}; {@link Stats#NONE} for one never seen or
   * expired.
   */
  public synchronized Stats stats(String id, String user) {
    Entry e = id == null || user == null ? null : queries.get(new Key(id, user));
    return e == null ? Stats.NONE : new Stats(e.open, e.maxOpen, e.scanners);
  }

  public synchronized int trackedQueries() {
    return queries.size();
  }

  /** Scanners tracked as open now (those of evicted queries included). */
  public synchronized int openScanners() {
    return scanners.size();
  }

  /** Queries dropped, least recently touched first, to make room for new ones. */
  public synchronized long evicted() {
    return evicted;
  }

  /** Scanners not tracked because the limit was reached (or opened twice). */
  public synchronized long dropped() {
    return dropped;
  }

  private void expire(long now) {
    Iterator<Entry> it = queries.values().iterator();
    while (it.hasNext()) {
      Entry e = it.next(); // least recently touched first
      if (now - e.touchedMillis < expiryMillis) {
        return;
      }
      if (e.open <= 0) {
        regionEntries -= e.regions.size();
        it.remove();
      }
    }
  }

  /**
   * Drops the least recently touched query in O(1): its open scanners stay mapped to its entry,
   * which nothing else reaches, until they close (they still count against the scanner limit).
   */
  private void evictOne() {
    Iterator<Entry> it = queries.values().iterator();
    regionEntries -= it.next().regions.size();
    it.remove();
    evicted++;
  }
}
