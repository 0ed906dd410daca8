package io.blockscope.hints;

import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.HBaseScanMetrics;
import io.blockscope.metrics.Json;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.Stats;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code EXPLAIN ANALYZE [(option, ...)] <query>}, or PostgreSQL's spelling {@code EXPLAIN
 * (ANALYZE, option, ...) <query>}: the query runs to completion, its rows are counted and dropped,
 * and the statement returns Phoenix's plan followed by what the query cost on the region servers,
 * per region and in total (docs/hints.md, "EXPLAIN ANALYZE").
 *
 * <p>Options, in any case, separated by commas: {@code COUNT} or {@code TIME} (the profiling level;
 * COUNT if neither, raised to the query's own {@code PROFILE(TIME)} hint if it has one) and {@code
 * FORMAT TEXT} or {@code FORMAT JSON}. Anything else is a syntax error (SQL state 42601) naming it;
 * a statement other than a query is refused (0A000): EXPLAIN ANALYZE runs what it explains, and an
 * UPSERT or DELETE would change data.
 */
final class ExplainAnalyze {
  private ExplainAnalyze() {}

  /** Output forms. */
  enum Format {
    TEXT,
    JSON
  }

  /** The version of the JSON document's layout; a change that breaks a reader raises it. */
  static final int JSON_VERSION = 1;

  /** SQL state of a feature not supported (ISO/ANSI SQL). */
  static final String NOT_SUPPORTED = "0A000";

  /** One EXPLAIN ANALYZE statement: its options and the query it runs. */
  static final class Request {
    private final Format format;
    private final PerfLevel level;
    private final String query;

    Request(Format format, PerfLevel level, String query) {
      this.format = format;
      this.level = level;
      this.query = query;
    }

    Format format() {
      return format;
    }

    PerfLevel level() {
      return level;
    }

    String query() {
      return query;
    }

    /**
     * The query's own hints, with PROFILE at least at this request's level: a {@code PROFILE(TIME)}
     * hint in the query wins over the default COUNT.
     */
    QueryExtensions extensions() throws SQLException {
      QueryExtensions own = QueryExtensions.parse(query);
      QueryExtensions.Profile p =
          own.profile() == QueryExtensions.Profile.TIME
              ? QueryExtensions.Profile.TIME
              : QueryExtensions.Profile.of(level);
      return new QueryExtensions(own.noCache(), own.serial(), p, false);
    }
  }

  /**
   * The request {@code sql} makes, or null if it is not an EXPLAIN ANALYZE statement (plain EXPLAIN
   * and everything else go to Phoenix as before).
   *
   * @throws SQLException if it is one, but malformed or not a query
   */
  static Request parse(String sql) throws SQLException {
    if (sql == null) {
      return null;
    }
    int i = QueryExtensions.Head.statementStart(sql);
    if (i < 0 || !QueryExtensions.Head.keyword(sql, i, "EXPLAIN")) {
      return null;
    }
    int a = QueryExtensions.Head.skipWhiteSpace(sql, i + "EXPLAIN".length());
    // PostgreSQL's spelling, EXPLAIN (ANALYZE, FORMAT JSON) <query>: the option list names ANALYZE
    boolean postgres = a < sql.length() && sql.charAt(a) == '(';
    int k;
    if (postgres) {
      k = a;
    } else {
      int end = a + "ANALYZE".length();
      if (a == i + "EXPLAIN".length()
          || !QueryExtensions.Head.keyword(sql, a, "ANALYZE")
          || (end < sql.length() && !isDelimiter(sql.charAt(end)))) {
        return null;
      }
      k = QueryExtensions.Head.skipWhiteSpace(sql, end);
    }
    Format format = null;
    PerfLevel level = null;
    boolean analyze = !postgres;
    if (k < sql.length() && sql.charAt(k) == '(') {
      int close = sql.indexOf(')', k);
      if (close < 0) {
        throw syntax("the option list has no closing parenthesis");
      }
      for (String option : sql.substring(k + 1, close).split(",", -1)) {
        String[] words = option.trim().split("\\s+");
        String first = words[0].toUpperCase(Locale.ROOT);
        if (postgres && first.equals("ANALYZE")) {
          if (analyze) {
            throw syntax("ANALYZE is given twice");
          }
          if (words.length > 2 || (words.length == 2 && !isTrue(words[1]))) {
            throw syntax(
                "'"
                    + option.trim()
                    + "': blockscope runs EXPLAIN (ANALYZE) or ANALYZE TRUE; without ANALYZE,"
                    + " use Phoenix's plain EXPLAIN");
          }
          analyze = true;
        } else if (words.length == 1 && PerfLevel.ofQueryWord(first) != null) {
          if (level != null) {
            throw syntax("the level is given twice (" + level + ", " + first + ")");
          }
          level = PerfLevel.ofQueryWord(first);
        } else if (first.equals("FORMAT")) {
          if (words.length != 2) {
            throw syntax("FORMAT takes one word, TEXT or JSON: '" + option.trim() + "'");
          }
          String f = words[1].toUpperCase(Locale.ROOT);
          if (!f.equals("TEXT") && !f.equals("JSON")) {
            throw syntax("unknown FORMAT '" + words[1] + "': use TEXT or JSON");
          }
          if (format != null) {
            throw syntax("FORMAT is given twice");
          }
          format = Format.valueOf(f);
        } else {
          throw syntax(
              "unknown option '"
                  + option.trim()
                  + "': use "
                  + (postgres ? "ANALYZE, " : "")
                  + "COUNT, TIME, FORMAT TEXT, FORMAT JSON");
        }
      }
      k = close + 1;
    }
    if (!analyze) {
      throw syntax(
          "EXPLAIN with an option list runs here only with ANALYZE among its options (Phoenix's"
              + " own EXPLAIN takes none)");
    }
    String query = QueryExtensions.Head.strip(sql.substring(k));
    if (query.isEmpty()) {
      throw syntax("no query follows");
    }
    int q = QueryExtensions.Head.statementStart(query);
    if (q < 0 || !QueryExtensions.Head.keyword(query, q, "SELECT")) {
      throw new SQLException(
          "blockscope: EXPLAIN ANALYZE runs SELECT queries only (it runs what it explains, and "
              + "an UPSERT or DELETE would change data): "
              + abbreviate(query),
          NOT_SUPPORTED);
    }
    if (takesSequenceValues(query)) {
      throw new SQLException(
          "blockscope: EXPLAIN ANALYZE does not run a query that takes sequence values (it runs"
              + " what it explains, and NEXT VALUE FOR would advance the sequence): "
              + abbreviate(query),
          NOT_SUPPORTED);
    }
    return new Request(
        format == null ? Format.TEXT : format, level == null ? PerfLevel.COUNT : level, query);
  }

  /** PostgreSQL's true values of a boolean option. */
  private static boolean isTrue(String word) {
    String w = word.toUpperCase(Locale.ROOT);
    return w.equals("TRUE") || w.equals("ON") || w.equals("1");
  }

  /**
   * Whether the query says {@code NEXT VALUE FOR} (any case, any white space or comments between
   * the words) outside string literals, quoted names and comments: running it would advance a
   * sequence, which a SELECT otherwise never changes.
   */
  static boolean takesSequenceValues(String query) {
    String[] last = new String[2];
    int n = query.length();
    for (int i = 0; i < n; ) {
      char c = query.charAt(i);
      if (c == '\'' || c == '"') {
        int end = i + 1;
        while (end < n) {
          if (query.charAt(end) == c) {
            if (end + 1 < n && query.charAt(end + 1) == c) {
              end += 2; // a doubled quote inside
              continue;
            }
            break;
          }
          end++;
        }
        i = end + 1;
        last[0] = last[1] = null;
      } else if (query.startsWith("--", i)) {
        int end = query.indexOf('\n', i);
        i = end < 0 ? n : end + 1;
      } else if (query.startsWith("/*", i)) {
        int end = query.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else if (Character.isLetterOrDigit(c) || c == '_') {
        int end = i;
        while (end < n
            && (Character.isLetterOrDigit(query.charAt(end)) || query.charAt(end) == '_')) {
          end++;
        }
        String word = query.substring(i, end).toUpperCase(java.util.Locale.ROOT);
        if (word.equals("FOR") && "NEXT".equals(last[0]) && "VALUE".equals(last[1])) {
          return true;
        }
        last[0] = last[1];
        last[1] = word;
        i = end;
      } else {
        if (!Character.isWhitespace(c)) {
          last[0] = last[1] = null;
        }
        i++;
      }
    }
    return false;
  }

  private static boolean isDelimiter(char c) {
    return c == '(' || Character.isWhitespace(c);
  }

  private static SQLException syntax(String why) {
    return new SQLException(
        "blockscope: malformed EXPLAIN ANALYZE: " + why, QueryExtensions.SYNTAX_ERROR);
  }

  private static String abbreviate(String s) {
    String one = s.replaceAll("\\s+", " ");
    return one.length() <= 60 ? one : one.substring(0, 57) + "...";
  }

  /** What one run measured, for rendering. */
  static final class Outcome {
    private final Request request;
    private final PerfLevel level;
    private final List<String> plan;
    private final List<String> extensions;
    private final QueryProfile profile;
    private final long rowsReturned;
    private final long wallNanos;

    Outcome(
        Request request,
        PerfLevel level,
        List<String> plan,
        List<String> extensions,
        QueryProfile profile,
        long rowsReturned,
        long wallNanos) {
      this.request = request;
      this.level = level;
      this.plan = plan;
      this.extensions = extensions;
      this.profile = profile;
      this.rowsReturned = rowsReturned;
      this.wallNanos = wallNanos;
    }

    Request request() {
      return request;
    }

    PerfLevel level() {
      return level;
    }

    List<String> plan() {
      return plan;
    }

    List<String> extensions() {
      return extensions;
    }

    QueryProfile profile() {
      return profile;
    }

    long rowsReturned() {
      return rowsReturned;
    }

    long wallNanos() {
      return wallNanos;
    }
  }

  /** The statement's result, one string per row of its PLAN column. */
  static List<String> render(Outcome o) {
    return o.request().format() == Format.JSON ? Collections.singletonList(json(o)) : text(o);
  }

  // ---- what is measured per region

  /**
   * The figure regions are ranked and compared by: at TIME, the time the probes measured (checksum,
   * decompression and decoding, in ns); at COUNT, where nothing is timed, the blocks the region
   * read (block cache hits and misses of every kind).
   */
  static long busyness(Map<String, Long> costs, PerfLevel level) {
    return level == PerfLevel.TIME
        ? probeNanos(costs)
        : sum(costs, "blockCache.hit.", "") + sum(costs, "blockCache.miss.", "");
  }

  private static long probeNanos(Map<String, Long> costs) {
    return costs.getOrDefault("checksum.nanos", 0L)
        + sum(costs, "decompress.", ".nanos")
        + sum(costs, "decode.", ".nanos");
  }

  private static long sum(Map<String, Long> costs, String prefix, String suffix) {
    return QueryProfile.sumPrefix(costs, prefix, suffix);
  }

  private static String measure(PerfLevel level) {
    return level == PerfLevel.TIME
        ? "probe time (checksum + decompress + decode)"
        : "blocks read (block cache hits + misses)";
  }

  /** The regions, busiest first (ties by table and region, for a stable order). */
  private static List<QueryProfile.Region> busiestFirst(QueryProfile p, PerfLevel l) {
    List<QueryProfile.Region> r = new ArrayList<>(p.regions());
    r.sort(
        Comparator.comparingLong((QueryProfile.Region x) -> -busyness(x.costs(), l))
            .thenComparing(QueryProfile.Region::table)
            .thenComparing(QueryProfile.Region::region));
    return r;
  }

  /** How many busiest regions the skew names. */
  static final int SLOWEST = 3;

  // ---- text

  private static String n(long v) {
    return String.format(Locale.ROOT, "%,d", v);
  }

  private static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
  }

  private static List<String> text(Outcome o) {
    List<String> lines = new ArrayList<>(o.plan());
    lines.addAll(o.extensions());
    QueryProfile p = o.profile();
    PerfLevel level = o.level();
    int tables = (int) p.regions().stream().map(QueryProfile.Region::table).distinct().count();
    lines.add(
        "BLOCKSCOPE ANALYZE ("
            + level
            + "): "
            + n(o.rowsReturned())
            + (o.rowsReturned() == 1 ? " row" : " rows")
            + " returned in "
            + ms(o.wallNanos())
            + "; "
            + p.regions().size()
            + (p.regions().size() == 1 ? " region" : " regions")
            + " of "
            + tables
            + (tables == 1 ? " table" : " tables")
            + " read "
            + n(p.rows())
            + (p.rows() == 1 ? " row" : " rows")
            + "; query "
            + p.queryId());
    lines.add("  total: " + costs(p.rows(), p.totals(), level));
    if (!p.regions().isEmpty()) {
      lines.add("  skew: " + skew(p, level));
    }
    for (QueryProfile.Region r : busiestFirst(p, level)) {
      lines.add(
          "  region "
              + r.table()
              + "/"
              + r.region()
              + ": "
              + costs(r.rows(), r.costs(), level)
              + appliedLevel(r));
    }
    return lines;
  }

  /**
   * "; measured at COUNT (capped by the region server's blockscope.query.max.level)": the level the
   * region measured the query at and why; empty where its server did not say (an earlier
   * blockscope).
   */
  static String appliedLevel(QueryProfile.Region r) {
    return r.level() == null
        ? ""
        : "; measured at "
            + r.level()
            + (r.levelReason() == null ? "" : " (" + r.levelReason() + ")");
  }

  private static String skew(QueryProfile p, PerfLevel level) {
    List<Long> busy = new ArrayList<>();
    for (QueryProfile.Region r : p.regions()) {
      busy.add(busyness(r.costs(), level));
    }
    long max = busy.stream().mapToLong(Long::longValue).max().orElse(0);
    long median = Stats.median(busy.stream().mapToLong(Long::longValue).toArray());
    StringBuilder b = new StringBuilder("by " + measure(level) + ", max/median ");
    b.append(median == 0 ? "-" : String.format(Locale.ROOT, "%.2f", (double) max / median));
    b.append(" (max ")
        .append(level == PerfLevel.TIME ? ms(max) : n(max))
        .append(", median ")
        .append(level == PerfLevel.TIME ? ms(median) : n(median))
        .append("); busiest: ");
    List<String> top = new ArrayList<>();
    for (QueryProfile.Region r :
        busiestFirst(p, level).subList(0, Math.min(SLOWEST, busy.size()))) {
      long v = busyness(r.costs(), level);
      top.add(r.table() + "/" + r.region() + " (" + (level == PerfLevel.TIME ? ms(v) : n(v)) + ")");
    }
    return b.append(String.join(", ", top)).toString();
  }

  /**
   * One region's (or the total's) costs in words: rows, then each kind of cost that is not zero
   * (block cache hits and misses always, by block kind where not zero; the cells and bytes read
   * from the memstore), times at TIME only.
   */
  static String costs(long rows, Map<String, Long> c, PerfLevel level) {
    boolean time = level == PerfLevel.TIME;
    List<String> parts = new ArrayList<>();
    parts.add("rows=" + n(rows));
    parts.add(
        "cache hits="
            + n(sum(c, "blockCache.hit.", ""))
            + byKind(c, "blockCache.hit.")
            + " misses="
            + n(sum(c, "blockCache.miss.", ""))
            + byKind(c, "blockCache.miss."));
    parts.add(
        "fs blocks="
            + n(sum(c, "fs.read.blocks.", ""))
            + byKind(c, "fs.read.blocks.")
            + " bytes="
            + n(sum(c, "fs.read.bytes.", "")));
    long checksumBytes = c.getOrDefault("checksum.bytes", 0L);
    if (checksumBytes > 0) {
      parts.add(
          "checksum bytes="
              + n(checksumBytes)
              + " chunks="
              + n(c.getOrDefault("checksum.chunks", 0L))
              + (c.getOrDefault("checksum.failures", 0L) > 0
                  ? " failures=" + n(c.get("checksum.failures"))
                  : "")
              + (time ? " time=" + ms(c.getOrDefault("checksum.nanos", 0L)) : ""));
    }
    for (String a : CostLayout.ALGORITHMS) {
      String k = "decompress." + a + ".";
      long blocks = c.getOrDefault(k + "blocks", 0L);
      if (blocks > 0) {
        parts.add(
            "decompress "
                + a
                + " blocks="
                + n(blocks)
                + " in="
                + n(c.getOrDefault(k + "bytesIn", 0L))
                + " out="
                + n(c.getOrDefault(k + "bytesOut", 0L))
                + (time ? " time=" + ms(c.getOrDefault(k + "nanos", 0L)) : ""));
      }
    }
    for (String e : CostLayout.ENCODINGS) {
      String k = "decode." + e + ".";
      long cells = c.getOrDefault(k + "cells", 0L);
      long seeks = c.getOrDefault(k + "seeks", 0L);
      if (cells > 0 || seeks > 0) {
        parts.add(
            "decode "
                + e
                + " cells="
                + n(cells)
                + " seeks="
                + n(seeks)
                + (time ? " time=" + ms(c.getOrDefault(k + "nanos", 0L)) : ""));
      }
    }
    long memstoreCells = c.getOrDefault("memstore.cells", 0L);
    if (memstoreCells > 0) {
      parts.add(
          "memstore cells="
              + n(memstoreCells)
              + " bytes="
              + n(c.getOrDefault("memstore.bytes", 0L)));
    }
    List<String> hbase = new ArrayList<>();
    for (String m : HBaseScanMetrics.NAMES) {
      Long v = c.get(HBaseScanMetrics.PREFIX + m);
      if (v != null) {
        hbase.add(m + "=" + n(v));
      }
    }
    if (!hbase.isEmpty()) {
      parts.add("HBase " + String.join(" ", hbase));
    }
    return String.join("; ", parts);
  }

  /** " (data=58 leafIndex=1)": the kinds that are not zero, or nothing if only data is. */
  private static String byKind(Map<String, Long> c, String prefix) {
    List<String> kinds = new ArrayList<>();
    for (String k : CostLayout.KINDS) {
      long v = c.getOrDefault(prefix + k, 0L);
      if (v > 0) {
        kinds.add(k + "=" + n(v));
      }
    }
    boolean onlyData = kinds.size() == 1 && kinds.get(0).startsWith("data=");
    return kinds.isEmpty() || onlyData ? "" : " (" + String.join(" ", kinds) + ")";
  }

  // ---- JSON

  private static String json(Outcome o) {
    QueryProfile p = o.profile();
    PerfLevel level = o.level();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("version", JSON_VERSION);
    doc.put("query", o.request().query());
    doc.put("queryId", p.queryId());
    doc.put("level", level.name());
    doc.put("wallNanos", o.wallNanos());
    doc.put("rowsReturned", o.rowsReturned());
    doc.put("plan", o.plan());
    doc.put("extensions", o.extensions());
    Map<String, Object> total = new LinkedHashMap<>();
    total.put("regions", p.regions().size());
    total.put("rows", p.rows());
    total.put("costs", new TreeMap<>(p.totals()));
    doc.put("total", total);
    List<Long> busy = new ArrayList<>();
    List<Object> regions = new ArrayList<>();
    for (QueryProfile.Region r : busiestFirst(p, level)) {
      long b = busyness(r.costs(), level);
      busy.add(b);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("table", r.table());
      m.put("region", r.region());
      m.put("rows", r.rows());
      m.put("busyness", b);
      if (r.level() != null) {
        m.put("level", r.level());
        m.put("levelReason", r.levelReason());
      }
      m.put("costs", new TreeMap<>(r.costs()));
      regions.add(m);
    }
    Map<String, Object> skew = new LinkedHashMap<>();
    skew.put("measure", level == PerfLevel.TIME ? "probeNanos" : "blocks");
    long max = busy.isEmpty() ? 0 : busy.get(0);
    long median = Stats.median(busy.stream().mapToLong(Long::longValue).toArray());
    skew.put("max", max);
    skew.put("median", median);
    skew.put("maxOverMedian", median == 0 ? null : (double) max / median);
    doc.put("skew", skew);
    doc.put("regions", regions);
    return QueryExtensions.Head.stripTrailing(Json.write(doc));
  }
}
