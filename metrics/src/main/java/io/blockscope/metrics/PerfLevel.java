package io.blockscope.metrics;

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
}
