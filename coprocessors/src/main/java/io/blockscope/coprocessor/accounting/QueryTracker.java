package io.blockscope.coprocessor.accounting;

import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.HBaseScanMetrics;
import io.blockscope.metrics.PerfLevel;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
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
 * <p>Memory is bounded ({@link Limits}): at most {@code ids} queries and {@code records} (query,
 * region) records, and {@code scanners} open scanners tracked (more are not tracked, and counted as
 * dropped); a query with no open scanner expires {@code expiryMillis} after it was last touched.
 *
 * <p>Each user has a guaranteed share of the ids and of the records: {@code ids / users} and {@code
 * records / users} (at least 1). When a table is full, a new query or record takes the room of the
 * least recently touched query of the user holding the most, if that user holds more than the
 * share; else of the asking user; else (the asking user holds nothing there) it is not tracked,
 * counted as dropped. So a user who holds no more than the share never loses a query to another
 * user; a user over it loses their own oldest first. A query is never evicted to make room for its
 * own next record: a query that alone holds more than its user's whole room gets no more records.
 *
 * <p>Calls are synchronized and take O(log users): they happen per scanner open and close, not per
 * cell.
 */
public final class QueryTracker {

  /*
   * Design note. The fair share is a max-min rule: the table is shared equally among the users who
   * fill it, and room taken from a user is always taken from the one holding the most (ties: the
   * user seen first here), so a flood by one user ends up replacing that user's own queries. The
   * guarantee needs that a full table has someone over the share, or else that the asking user
   * holds a query of their own to give up (other than the one a new record is for): with no more
   * users than Limits.users that is always so (their shares add up to no more than the table, so
   * a full table has a user over the share or every user exactly at it), with more it may not be.
   * Then a user new to a full table waits for an expiry or for someone to pass the share (the query
   * is counted as dropped) rather than take the room of a user within the share.
   *
   * Every query sits in two orders: the server's least-recently-touched order (the LinkedHashMap
   * in access order, which expiry walks oldest first and stops at the first one within the expiry)
   * and its user's (a doubly linked list through the entries, oldest first). Each user's counts
   * are kept in two TreeSets, most first, so the user holding the most is found in O(log users);
   * a user whose last query goes is removed from both and from the index, which therefore never
   * holds more users than there are queries.
   */

  private static final Pattern ID = Pattern.compile("[0-9a-f]{32}");

  /** What a tracker may keep: the server's settings, changed at a reload by {@link #limits}. */
  public static final class Limits {
    /** 10,000 ids, 100,000 open scanners, 20,000 records, shared by 10 users. */
    public static final Limits DEFAULT = new Limits(10_000, 100_000, 20_000, 10);

    final int ids;
    final int scanners;
    final int records;
    final int users;

    /**
     * At most {@code ids} queries, {@code scanners} open scanners and {@code records} (query,
     * region) cost records, each {@value CostLayout#SIZE} longs; each user is guaranteed {@code ids
     * / users} queries and {@code records / users} records (at least 1 each). All positive.
     */
    public Limits(int ids, int scanners, int records, int users) {
      if (ids < 1 || scanners < 1 || records < 1 || users < 1) {
        throw new IllegalArgumentException("limits must be positive");
      }
      this.ids = ids;
      this.scanners = scanners;
      this.records = records;
      this.users = users;
    }

    /** The most tagged query ids kept. */
    public int ids() {
      return ids;
    }

    /** The most open scanners tracked. */
    public int scanners() {
      return scanners;
    }

    /** The most (query, region) records kept. */
    public int records() {
      return records;
    }

    /** How many users the ids and records are shared by. */
    public int users() {
      return users;
    }

    /** The queries each user is guaranteed. */
    int idShare() {
      return Math.max(1, ids / users);
    }

    /** The (query, region) records each user is guaranteed. */
    int recordShare() {
      return Math.max(1, records / users);
    }

    @Override
    public String toString() {
      return ids
          + " ids, "
          + scanners
          + " scanners, "
          + records
          + " records, a share of "
          + idShare()
          + " ids and "
          + recordShare()
          + " records per user";
    }
  }

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
    final Tenant tenant;
    int open;
    int maxOpen;
    long scanners;
    long touchedMillis;
    final Map<String, RegionCosts> regions = new LinkedHashMap<>();

    /** False once evicted or expired: its open scanners still reach it, nothing else does. */
    boolean kept = true;

    /** The neighbours in its user's order, least recently touched first. */
    Entry older;

    Entry newer;

    Entry(Key key, Tenant tenant) {
      this.key = key;
      this.tenant = tenant;
    }
  }

  /** One user's queries here: how many, their records, and their order, oldest first. */
  private static final class Tenant {
    final String name;

    /** Orders users who hold as many: the one seen first here is the first to give up room. */
    final long serial;

    int ids;
    int records;
    Entry oldest;
    Entry newest;

    Tenant(String name, long serial) {
      this.name = name;
      this.serial = serial;
    }

    void append(Entry e) {
      e.older = newest;
      e.newer = null;
      if (newest == null) {
        oldest = e;
      } else {
        newest.newer = e;
      }
      newest = e;
    }

    void unlink(Entry e) {
      if (e.older == null) {
        oldest = e.newer;
      } else {
        e.older.newer = e.newer;
      }
      if (e.newer == null) {
        newest = e.older;
      } else {
        e.newer.older = e.older;
      }
      e.older = null;
      e.newer = null;
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

  private Limits limits;
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

  /** The users who hold a query here, by name; and by what they hold, the most first. */
  private final Map<String, Tenant> tenants = new HashMap<>();

  private final TreeSet<Tenant> byIds = new TreeSet<>(mostFirst(t -> t.ids));
  private final TreeSet<Tenant> byRecords = new TreeSet<>(mostFirst(t -> t.records));
  private long tenantSerial;

  private int regionEntries;
  private long dropped;
  private long evicted;

  public QueryTracker(Limits limits, long expiryMillis, LongSupplier clock) {
    if (expiryMillis < 1) {
      throw new IllegalArgumentException("expiry must be positive");
    }
    this.limits = Objects.requireNonNull(limits);
    this.expiryMillis = expiryMillis;
    this.clock = clock;
  }

  /**
   * {@code limits}, ten minutes, the wall clock. The default limits: 10,000 queries, 100,000 open
   * scanners, 20,000 (query, region) cost records (94 counters of 8 bytes each, 5 of them HBase's
   * own scan metrics: 15.0 MB of counters at most), a tenth of each guaranteed to every user.
   */
  public static QueryTracker withLimits(Limits limits) {
    return new QueryTracker(limits, 600_000, System::currentTimeMillis);
  }

  static QueryTracker withDefaults() {
    return withLimits(Limits.DEFAULT);
  }

  private static Comparator<Tenant> mostFirst(ToIntFunction<Tenant> count) {
    return Comparator.comparingInt(count).reversed().thenComparingLong(t -> t.serial);
  }

  /**
   * Applies new limits (a reload of the server's settings): what is over them goes at once, the
   * least recently touched query of the user holding the most each time, whatever the share (the
   * operator chose the smaller table). Open scanners over a lowered scanner limit stay tracked
   * until they close; new ones are not tracked until the count is below it.
   */
  public synchronized void limits(Limits next) {
    limits = Objects.requireNonNull(next);
    while (queries.size() > next.ids) {
      evict(byIds.first().oldest);
    }
    while (regionEntries > next.records) {
      evict(byRecords.first().oldest);
    }
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
   * query's scanners in the region), made on first use; null when the fair share leaves no room
   * (counted as dropped).
   */
  public synchronized RegionCosts region(String id, String user, String region) {
    long now = clock.getAsLong();
    expire(now);
    Key key = new Key(id, user);
    Entry e = queries.get(key);
    if (e == null) {
      if (!makeRoom(false, tenants.get(user), null)) {
        dropped++;
        return null;
      }
      e = add(key);
    }
    touch(e, now);
    RegionCosts costs = e.regions.get(region);
    if (costs == null) {
      if (!makeRoom(true, e.tenant, e)) {
        if (e.regions.isEmpty()) { // just made: a query holds at least one record
          queries.remove(key);
          forget(e);
        }
        dropped++;
        return null;
      }
      costs = new RegionCosts(e);
      e.regions.put(region, costs);
      regionEntries++;
      recount(e.tenant, 0, 1);
    }
    return costs;
  }

  /**
   * Makes room for one more query ({@code records} false) or (query, region) record (true) for
   * {@code asker} (null: a user who holds no query here) by the fair share: while the table is
   * full, the least recently touched query of the user holding the most goes if that user holds
   * more than the share, else the asker's own; never {@code keep}, the query the record is for.
   * False when nothing may go: what was asked is not tracked.
   */
  private boolean makeRoom(boolean records, Tenant asker, Entry keep) {
    TreeSet<Tenant> heaviest = records ? byRecords : byIds;
    int share = records ? limits.recordShare() : limits.idShare();
    while (records ? regionEntries >= limits.records : queries.size() >= limits.ids) {
      Tenant top = heaviest.first(); // a full table has a user
      Tenant from = (records ? top.records : top.ids) > share ? top : asker;
      if (from == null || from.oldest == keep) {
        return false;
      }
      evict(from.oldest);
    }
    return true;
  }

  /** A new query of the user the key names, that user's newest. */
  private Entry add(Key key) {
    Tenant t = tenants.get(key.user);
    if (t == null) {
      t = new Tenant(key.user, tenantSerial++);
      tenants.put(key.user, t);
    }
    Entry e = new Entry(key, t);
    queries.put(key, e);
    t.append(e);
    recount(t, 1, 0);
    return e;
  }

  /**
   * A scanner of the query that {@code costs} belong to is open; false (counted as dropped) when
   * the scanner limit is reached or the scanner is tracked already.
   */
  public synchronized boolean opened(Object scanner, RegionCosts costs) {
    if (scanners.size() >= limits.scanners || scanners.containsKey(scanner)) {
      dropped++;
      return false;
    }
    Entry e = costs.query;
    scanners.put(scanner, e);
    e.open++;
    e.scanners++;
    e.maxOpen = Math.max(e.maxOpen, e.open);
    touch(e, clock.getAsLong());
    return true;
  }

  /**
   * Marks a query used at {@code now} and moves it to the newest end of the server's access order
   * and of its user's, which {@link #expire} and {@link #makeRoom} rely on: expiry stops at the
   * first query used within the expiry, so every query after it must have been used later. An
   * evicted query is in neither, and nothing moves.
   */
  private void touch(Entry e, long now) {
    e.touchedMillis = now;
    if (e.kept) {
      queries.get(e.key);
      e.tenant.unlink(e);
      e.tenant.append(e);
    }
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
      touch(e, clock.getAsLong());
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

  /** The (query, region) records kept. */
  public synchronized int trackedRecords() {
    return regionEntries;
  }

  /** The users who hold at least one query here. */
  public synchronized int trackedUsers() {
    return tenants.size();
  }

  /** The queries user {@code user} holds here. */
  public synchronized int queriesOf(String user) {
    Tenant t = tenants.get(user);
    return t == null ? 0 : t.ids;
  }

  /** The (query, region) records user {@code user} holds here. */
  public synchronized int recordsOf(String user) {
    Tenant t = tenants.get(user);
    return t == null ? 0 : t.records;
  }

  /** Scanners tracked as open now (those of evicted queries included). */
  public synchronized int openScanners() {
    return scanners.size();
  }

  /** Queries dropped to make room for new ones or new records, or at a reload to lower limits. */
  public synchronized long evicted() {
    return evicted;
  }

  /**
   * Scanners not tracked because the limit was reached (or opened twice), and queries and records
   * not tracked because the fair share left no room.
   */
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
        it.remove();
        forget(e);
      }
    }
  }

  /**
   * Drops a query in O(log users): its open scanners stay mapped to its entry, which nothing else
   * reaches, until they close (they still count against the scanner limit).
   */
  private void evict(Entry e) {
    queries.remove(e.key);
    forget(e);
    evicted++;
  }

  /** Takes a query that left {@link #queries} out of its user's order and counts. */
  private void forget(Entry e) {
    e.kept = false;
    e.tenant.unlink(e);
    regionEntries -= e.regions.size();
    recount(e.tenant, -1, -e.regions.size());
  }

  /**
   * Adds to what user {@code t} holds, keeping the orders of {@link #byIds} and {@link #byRecords}
   * (out of them while the counts change); a user left with no query leaves the index.
   */
  private void recount(Tenant t, int ids, int records) {
    byIds.remove(t);
    byRecords.remove(t);
    t.ids += ids;
    t.records += records;
    if (t.ids > 0) {
      byIds.add(t);
      byRecords.add(t);
    } else {
      tenants.remove(t.name);
    }
  }
}
