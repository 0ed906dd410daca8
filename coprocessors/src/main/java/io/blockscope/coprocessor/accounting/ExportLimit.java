package io.blockscope.coprocessor.accounting;

import java.util.Locale;

/**
 * How many regions, or tables, get their own metric series: the syntax of {@code
 * blockscope.export.regions} and {@code blockscope.export.tables}. The server's series are always
 * exported.
 *
 * <ul>
 *   <li>{@code top:N}: the N busiest by block accesses (cache hits and misses); regions ranked by
 *       those since the previous export refresh ({@code top:100} is their default), tables by those
 *       since the server started ({@code top:200} is theirs);
 *   <li>{@code all}: every one (a region has up to 78 series: at 5,000 regions about 60,000 series
 *       and 57 MB of heap for their MBeans, and a scrape of seconds; {@code bin/blockscope
 *       region-scale} measures it);
 *   <li>{@code none}: none at all.
 * </ul>
 *
 * One that enters the selection keeps its series at least {@code blockscope.export.min.ms} ({@link
 * ExportSelection}).
 */
public final class ExportLimit {
  /** Largest N accepted by {@code top:N}. */
  static final int MAX_TOP = 100_000;

  public static final ExportLimit ALL = new ExportLimit(Integer.MAX_VALUE, "all");
  public static final ExportLimit NONE = new ExportLimit(0, "none");

  /**
   * The regions' default: the 100 busiest. At 5,000 regions a server then has about 1,900 series
   * and a scrape of 0.12 s, where {@code all} has 60,000 and 1.5 s (docs/performance.md).
   */
  public static final ExportLimit DEFAULT = top(100);

  /**
   * The tables' default: the 200 that served the most block accesses since the server started, the
   * rest summed as one {@code (other)} table; about 2,400 table series at most (docs/deploy.md).
   */
  public static final ExportLimit DEFAULT_TABLES = top(200);

  private final int limit;
  private final String text;

  private ExportLimit(int limit, String text) {
    this.limit = limit;
    this.text = text;
  }

  /** A policy exporting the {@code n} busiest. */
  public static ExportLimit top(int n) {
    if (n < 1 || n > MAX_TOP) {
      throw new IllegalArgumentException("top:N needs 1 <= N <= " + MAX_TOP + ", got " + n);
    }
    return new ExportLimit(n, "top:" + n);
  }

  /**
   * Parses {@code all}, {@code none} or {@code top:N}.
   *
   * @throws IllegalArgumentException naming the bad value and the accepted forms
   */
  public static ExportLimit parse(String text) {
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
            "bad export limit '" + text + "': N in top:N must be an integer", e);
      }
    }
    throw new IllegalArgumentException(
        "bad export limit '" + text + "'; expected all, none or top:N");
  }

  /** How many may be exported (Integer.MAX_VALUE for all). */
  public int limit() {
    return limit;
  }

  @Override
  public String toString() {
    return text;
  }
}
