package io.blockscope.hints;

import io.blockscope.metrics.PerfLevel;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

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
   * Whether the query takes sequence values: {@code NEXT VALUE FOR s} or {@code NEXT n VALUES FOR
   * s} (n a number or a bind parameter; any case, any white space or comments between the words),
   * outside string literals, quoted names and comments. Running it would advance a sequence, which
   * a SELECT otherwise never changes.
   *
   * <p>The query is cut into words the way Phoenix's lexer ({@code PhoenixSQLLexer}, 5.2) cuts it:
   * a string literal runs to its closing quote, where a doubled quote and a backslash followed by a
   * quote or a backslash stay inside it; a quoted name runs to the next double quote; {@code --}
   * and {@code //} comment to the end of the line, and slash-star to star-slash. ExplainAnalyzeTest
   * holds this to Phoenix's lexer over generated queries.
   */
  static boolean takesSequenceValues(String query) {
    // the last six significant tokens, newest last: words upper-cased, anything else as "."
    ArrayDeque<String> recent = new ArrayDeque<>();
    int n = query.length();
    for (int i = 0; i < n; ) {
      char c = query.charAt(i);
      String token;
      if (c == '\'') {
        i = afterString(query, i);
        token = ".";
      } else if (c == '"') {
        int end = query.indexOf('"', i + 1);
        i = end < 0 ? n : end + 1;
        token = ".";
      } else if (query.startsWith("--", i) || query.startsWith("//", i)) {
        int end = query.indexOf('\n', i);
        i = end < 0 ? n : end + 1;
        continue;
      } else if (query.startsWith("/*", i)) {
        int end = query.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        continue;
      } else if (query.startsWith("*/", i)) {
        i += 2; // a comment's end outside one is a token of its own, which no comment starts
        token = ".";
      } else if (Character.isWhitespace(c)) {
        i++;
        continue;
      } else if (c == ':' && isDigit(query, i + 1)) {
        i = digits(query, i + 1); // a bind parameter, :1, is one token
        token = ".";
      } else if (c >= '0' && c <= '9') {
        i = afterNumber(query, i); // 10VALUES is a number and a word
        token = ".";
      } else if (Character.isLetterOrDigit(c) || c == '_') {
        int end = i;
        while (end < n
            && (Character.isLetterOrDigit(query.charAt(end)) || query.charAt(end) == '_')) {
          end++;
        }
        token = query.substring(i, end).toUpperCase(Locale.ROOT);
        i = end;
      } else {
        token = ".";
        i++;
      }
      recent.addLast(token);
      if (recent.size() > 6) {
        recent.removeFirst();
      }
      if (token.equals("FOR") && takesValues(recent)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the tokens that end in FOR end in {@code NEXT [count] VALUE|VALUES FOR}. The count is
   * taken as any one to three tokens (a number, a sign, a bind parameter), so that no spelling of
   * it slips through; a query that merely says those words in that order is refused too.
   */
  private static boolean takesValues(ArrayDeque<String> recent) {
    String[] t = recent.toArray(new String[0]);
    int k = t.length - 2; // the word before FOR
    if (k < 1 || !(t[k].equals("VALUE") || t[k].equals("VALUES"))) {
      return false;
    }
    for (int j = k - 1; j >= 0 && j >= k - 4; j--) {
      if (t[j].equals("NEXT")) {
        return true;
      }
    }
    return false;
  }

  /** The index after the number at {@code start}: digits, a fraction, an exponent. */
  private static int afterNumber(String query, int start) {
    int i = digits(query, start);
    if (i + 1 < query.length() && query.charAt(i) == '.' && isDigit(query, i + 1)) {
      i = digits(query, i + 1);
    }
    if (i < query.length() && (query.charAt(i) == 'e' || query.charAt(i) == 'E')) {
      int j = i + 1;
      if (j < query.length() && (query.charAt(j) == '+' || query.charAt(j) == '-')) {
        j++;
      }
      if (isDigit(query, j)) {
        i = digits(query, j);
      }
    }
    return i;
  }

  private static int digits(String query, int i) {
    while (isDigit(query, i)) {
      i++;
    }
    return i;
  }

  private static boolean isDigit(String query, int i) {
    return i < query.length() && query.charAt(i) >= '0' && query.charAt(i) <= '9';
  }

  /**
   * The index after the string literal that opens at {@code open}: its closing quote, where {@code
   * ''}, {@code \'} and {@code \\} stay inside; the query's end if it never closes.
   */
  private static int afterString(String query, int open) {
    int n = query.length();
    int i = open + 1;
    while (i < n) {
      char c = query.charAt(i);
      if (c == '\\' && i + 1 < n && (query.charAt(i + 1) == '\'' || query.charAt(i + 1) == '\\')) {
        i += 2;
      } else if (c == '\'' && i + 1 < n && query.charAt(i + 1) == '\'') {
        i += 2;
      } else if (c == '\'') {
        return i + 1;
      } else {
        i++;
      }
    }
    return n;
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
    return o.request().format() == Format.JSON
        ? Collections.singletonList(ExplainAnalyzeJson.render(o))
        : ExplainAnalyzeText.render(o);
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

  static long sum(Map<String, Long> costs, String prefix, String suffix) {
    return QueryProfile.sumPrefix(costs, prefix, suffix);
  }

  static String measure(PerfLevel level) {
    return level == PerfLevel.TIME
        ? "probe time (checksum + decompress + decode)"
        : "blocks read (block cache hits + misses)";
  }

  /** The regions, busiest first (ties by table and region, for a stable order). */
  static List<QueryProfile.Region> busiestFirst(QueryProfile p, PerfLevel l) {
    List<QueryProfile.Region> r = new ArrayList<>(p.regions());
    r.sort(
        Comparator.comparingLong((QueryProfile.Region x) -> -busyness(x.costs(), l))
            .thenComparing(QueryProfile.Region::table)
            .thenComparing(QueryProfile.Region::region));
    return r;
  }

  /** How many busiest regions the skew names. */
  static final int SLOWEST = 3;
}
