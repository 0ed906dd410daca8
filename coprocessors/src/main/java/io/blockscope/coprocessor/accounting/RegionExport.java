package io.blockscope.coprocessor.accounting;

import java.util.Locale;

/**
 * Which regions get their own metric series. Tables and the region server are always exported.
 *
 * <ul>
 *   <li>{@code top:N}: the N regions that served the most block accesses since the previous export
 *       refresh; {@code top:100} is the default;
 *   <li>{@code all}: every open region (each has up to 78 series: at 5,000 regions about 60,000
 *       series and 57 MB of heap for their MBeans, and a scrape of seconds; {@code bin/blockscope
 *       region-scale} measures it);
 *   <li>{@code none}: no region series at all.
 * </ul>
 */
public final class RegionExport {
  /** Largest N accepted by {@code top:N}. */
  static final int MAX_TOP = 100_000;

  public static final RegionExport ALL = new RegionExport(Integer.MAX_VALUE, "all");
  public static final RegionExport NONE = new RegionExport(0, "none");

  /**
   * The default: the 100 busiest regions. At 5,000 regions a server then has about 1,900 series and
   * a scrape of 0.12 s, where {@code all} has 60,000 and 1.5 s (docs/performance.md).
   */
  public static final RegionExport DEFAULT = top(100);

  private final int limit;
  private final String text;

  private RegionExport(int limit, String text) {
    this.limit = limit;
    this.text = text;
  }

  /** A policy exporting the {@code n} most active regions. */
  public static RegionExport top(int n) {
    if (n < 1 || n > MAX_TOP) {
      throw new IllegalArgumentException("top:N needs 1 <= N <= " + MAX_TOP + ", got " + n);
    }
    return new RegionExport(n, "top:" + n);
  }

  /**
   * Parses {@code all}, {@code none} or {@code top:N}.
   *
   * @throws IllegalArgumentException naming the bad value and the accepted forms
   */
  public static RegionExport parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("all")) {
      return ALL;
    }
    if (t.equals("none")) {
      return NONE;
    }
    if (t.startsWith("top:")) {
      String n = t.substring(4).trim();
      try {
        return top(Integer.parseInt(n));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "bad region export '" + text + "': N in top:N must be an integer", e);
      }
    }
    throw new IllegalArgumentException(
        "bad region export '" + text + "'; expected all, none or top:N");
  }

  /** How many regions may be exported (Integer.MAX_VALUE for all). */
  public int limit() {
    return limit;
  }

  @Override
  public String toString() {
    return text;
  }
}
