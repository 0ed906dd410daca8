package io.blockscope.metrics;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * How much blockscope measures, after RocksDB's {@code PerfLevel}.
 *
 * <ul>
 *   <li>{@link #OFF}: the probes return at once; nothing is counted for the region.
 *   <li>{@link #COUNT}: counters only (the default): blocks, bytes, cells, hits and misses.
 *   <li>{@link #TIME}: counters plus nanosecond timings of checksum verification, decompression and
 *       data-block decoding.
 * </ul>
 */
public enum PerfLevel {
  OFF,
  COUNT,
  TIME;

  /** The level a region gets when neither {@code hbase-site.xml} nor the table names one. */
  public static final PerfLevel DEFAULT = COUNT;

  /**
   * Parses a level written by an operator (case and surrounding blanks ignored).
   *
   * @throws IllegalArgumentException naming the bad value and the accepted ones
   */
  public static PerfLevel parse(String text) {
    if (text == null || text.trim().isEmpty()) {
      throw new IllegalArgumentException("empty profiling level; expected one of OFF, COUNT, TIME");
    }
    String t = text.trim().toUpperCase(Locale.ROOT);
    for (PerfLevel level : values()) {
      if (level.name().equals(t)) {
        return level;
      }
    }
    throw new IllegalArgumentException(
        "unknown profiling level '" + text + "'; expected one of OFF, COUNT, TIME");
  }

  /** Whether a query may ask for this level: COUNT or TIME (a query cannot ask for OFF). */
  public boolean queryable() {
    return this != OFF;
  }

  /**
   * The level a query names in a hint or an EXPLAIN ANALYZE option ({@code PROFILE(TIME)}, {@code
   * EXPLAIN (ANALYZE, COUNT)}): COUNT or TIME, case ignored; null for any other word.
   */
  public static PerfLevel ofQueryWord(String word) {
    if (word == null) {
      return null;
    }
    String w = word.toUpperCase(Locale.ROOT);
    return w.equals(COUNT.name()) ? COUNT : w.equals(TIME.name()) ? TIME : null;
  }

  private static final byte[] COUNT_ATTRIBUTE = COUNT.name().getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TIME_ATTRIBUTE = TIME.name().getBytes(StandardCharsets.US_ASCII);

  /**
   * The value of the scan attribute {@value Attributes#PROFILE} that asks a region for this level
   * (the level's name in ASCII).
   *
   * @throws IllegalStateException for OFF, which a query cannot ask for
   */
  public byte[] toAttribute() {
    if (!queryable()) {
      throw new IllegalStateException("a query cannot ask for " + this);
    }
    return (this == TIME ? TIME_ATTRIBUTE : COUNT_ATTRIBUTE).clone();
  }

  /**
   * The level a scan's {@value Attributes#PROFILE} attribute asks for: exactly {@link
   * #toAttribute()}'s bytes of COUNT or TIME; null for an absent attribute and for any other bytes
   * (a client's attribute is never trusted to be well formed).
   */
  public static PerfLevel ofAttribute(byte[] value) {
    if (value == null) {
      return null;
    }
    return Arrays.equals(value, TIME_ATTRIBUTE)
        ? TIME
        : Arrays.equals(value, COUNT_ATTRIBUTE) ? COUNT : null;
  }
}
