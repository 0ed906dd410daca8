package io.blockscope.workloads;

import java.util.Locale;

/**
 * What the scratch tables hold.
 *
 * <ul>
 *   <li>{@link #SEEDS}: the seeds' Phoenix table (seed 000, 002): every workload applies;
 *   <li>{@link #PE}: HBase PerformanceEvaluation's shape (seed 003, 004): 10-byte zero-padded
 *       decimal keys, one 1,000-byte random value in {@code info:0}; a plain HBase table, so only
 *       the plain-HBase workloads apply;
 *   <li>{@link #SAMPLE}: the first N rows of the user's own table, copied cell by cell ({@code
 *       --sample TABLE}); plain-HBase workloads only.
 * </ul>
 */
public enum DataShape {
  SEEDS,
  PE,
  SAMPLE;

  public static DataShape parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    return switch (t) {
      case "seeds" -> SEEDS;
      case "pe" -> PE;
      default -> throw new IllegalArgumentException("bad --shape '" + text + "': seeds or pe");
    };
  }

  /** Phoenix workloads (SQL) run only on the seeds' Phoenix table. */
  public boolean phoenix() {
    return this == SEEDS;
  }
}
