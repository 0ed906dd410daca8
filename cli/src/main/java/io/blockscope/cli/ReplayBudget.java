package io.blockscope.cli;

import java.time.Duration;
import java.util.Locale;

/**
 * advise's {@code --budget}: how many settings an interleaved replay can take within a time limit.
 * The settings are loaded one after the other and measured together afterwards, so before loading
 * one more the runner asks whether the time spent, one more load and the measurement of every
 * loaded setting plus the new one would still end within the budget. The load time is the mean of
 * the loads so far; the measurement is estimated from one trial of each workload on the first
 * setting: a setting costs its warm-ups and its runs, and the cost readings, which every table
 * shares, cost the same whatever the number of settings. The first two settings (the current one
 * and the first candidate) are always replayed: fewer compare nothing.
 */
final class ReplayBudget {
  /** The settings always replayed, whatever the budget. */
  static final int ALWAYS = 2;

  private final long budgetNanos;
  private long preparedNanos;
  private int prepared;
  private long perSettingNanos = -1;
  private long sharedNanos;

  ReplayBudget(Duration budget) {
    this.budgetNanos = budget.toNanos();
  }

  /** One setting was loaded in {@code nanos}. */
  void prepared(long nanos) {
    preparedNanos += nanos;
    prepared++;
  }

  /**
   * The measurement's estimate: {@code perSetting} for each setting's warm-ups and runs, {@code
   * shared} for the readings every setting shares.
   */
  void measurement(long perSetting, long shared) {
    perSettingNanos = perSetting;
    sharedNanos = shared;
  }

  /** The replay's estimated end, from its start, with {@code settings} settings measured. */
  long estimateNanos(long spentNanos, int settings) {
    long load = prepared == 0 ? 0 : preparedNanos / prepared;
    int more = Math.max(0, settings - prepared);
    return spentNanos + more * load + sharedNanos + settings * Math.max(0, perSettingNanos);
  }

  /** Whether one more setting fits, {@code spentNanos} after the replay started. */
  boolean roomForAnother(long spentNanos) {
    if (prepared < ALWAYS || perSettingNanos < 0) {
      return true;
    }
    return estimateNanos(spentNanos, prepared + 1) <= budgetNanos;
  }

  /** The note that names the settings left out. */
  String note(String budget, long spentNanos, String left) {
    long load = prepared == 0 ? 0 : preparedNanos / prepared;
    return String.format(
        Locale.ROOT,
        "not replayed within --budget %s: %s (a setting takes about %.0f s to load and %.0f s to"
            + " measure here; the %d replayed were estimated to end at %.0f s)",
        budget,
        left,
        load / 1e9,
        Math.max(0, perSettingNanos) / 1e9,
        prepared,
        estimateNanos(spentNanos, prepared) / 1e9);
  }

  /** {@code 30m}, {@code 90s}, {@code 2h}: 10 s to 24 h. */
  static Duration parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    Duration d;
    try {
      long n = Long.parseLong(t.substring(0, Math.max(0, t.length() - 1)));
      d =
          switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
            case 's' -> Duration.ofSeconds(n);
            case 'm' -> Duration.ofMinutes(n);
            case 'h' -> Duration.ofHours(n);
            default -> throw new NumberFormatException(t);
          };
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          "bad --budget '" + text + "': seconds (90s), minutes (30m) or hours (2h)");
    }
    if (d.toSeconds() < 10 || d.compareTo(Duration.ofHours(24)) > 0) {
      throw new IllegalArgumentException("bad --budget '" + text + "': 10s to 24h");
    }
    return d;
  }
}
