package io.blockscope.metrics;

import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The region scanners of tagged queries: a client tags every scan of a query with an
 * unguessable id (scan attribute {@value #ATTRIBUTE}, 32 hex digits), and the region server
 * records, per id, how many of its scanners are open now, the most that were open at once, and
 * how many were opened in all. That is how the SERIAL hint is checked from the server's side.
 *
 * <p>Memory is bounded: at most {@code maxQueries} ids (the least recently touched id is dropped
 * first) and {@code maxScanners} open scanners tracked (more are not tracked, and counted as
 * dropped); an id with no open scanner expires {@code expiryMillis} after it was last touched.
 * Calls are synchronized: they happen per scanner open and close, not per cell.
 */
public final class QueryTracker {
  /** The scan attribute that carries a query id. */
  public static final String ATTRIBUTE = "blockscope.query";

  private static final Pattern ID = Pattern.compile("[0-9a-f]{32}");

  /** What the server saw of one query's scanners. */
  public record Stats(int open, int maxOpen, long scanners) {
    public static final Stats NONE = new Stats(0, 0, 0);
  }

  private static final class Entry {
    int open;
    int maxOpen;
    long scanners;
    long touchedMillis;
  }

  private final int maxQueries;
  private final int maxScanners;
  private final long expiryMillis;
  private final LongSupplier clock;
  private final LinkedHashMap<String, Entry> queries = new LinkedHashMap<>(16, 0.75f, true);
  private final Map<Object, String> scanners = new IdentityHashMap<>();
  private long dropped;

  public QueryTracker(int maxQueries, int maxScanners, long expiryMillis, LongSupplier clock) {
    if (maxQueries < 1 || maxScanners < 1 || expiryMillis < 1) {
      throw new IllegalArgumentException("limits must be positive");
    }
    this.maxQueries = maxQueries;
    this.maxScanners = maxScanners;
    this.expiryMillis = expiryMillis;
    this.clock = clock;
  }

  /** 10,000 queries, 100,000 open scanners, ten minutes. */
  public static QueryTracker withDefaults() {
    return new QueryTracker(10_000, 100_000, 600_000, System::currentTimeMillis);
  }

  /** The query id in a scan attribute's value, or null if it is not one (ignored, not an error). */
  public static String parseId(byte[] attribute) {
    if (attribute == null || attribute.length != 32) {
      return null;
    }
    String id = new String(attribute, java.nio.charset.StandardCharsets.US_ASCII);
    return ID.matcher(id).matches() ? id : null;
  }

  /** A scanner of query {@code id} was opened. */
  public synchronized void opened(Object scanner, String id) {
    long now = clock.getAsLong();
    expire(now);
    if (scanners.size() >= maxScanners || scanners.containsKey(scanner)) {
      dropped++;
      return;
    }
    Entry e = queries.get(id);
    if (e == null) {
      if (queries.size() >= maxQueries) {
        evictOne();
      }
      e = new Entry();
      queries.put(id, e);
    }
    scanners.put(scanner, id);
    e.open++;
    e.scanners++;
    e.maxOpen = Math.max(e.maxOpen, e.open);
    e.touchedMillis = now;
  }

  /** A scanner was closed; scanners of no tracked query are ignored. */
  public synchronized void closed(Object scanner) {
    String id = scanners.remove(scanner);
    if (id == null) {
      return;
    }
    Entry e = queries.get(id);
    if (e != null) {
      e.open--;
      e.touchedMillis = clock.getAsLong();
    }
  }

  /** What was seen of query {@code id}; {@link Stats#NONE} for an id never seen or expired. */
  public synchronized Stats stats(String id) {
    Entry e = id == null ? null : queries.get(id);
    return e == null ? Stats.NONE : new Stats(e.open, e.maxOpen, e.scanners);
  }

  public synchronized int trackedQueries() {
    return queries.size();
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
        it.remove();
      }
    }
  }

  private void evictOne() {
    Iterator<Map.Entry<String, Entry>> it = queries.entrySet().iterator();
    String victim = it.next().getKey();
    it.remove();
    scanners.values().removeIf(victim::equals);
  }
}
