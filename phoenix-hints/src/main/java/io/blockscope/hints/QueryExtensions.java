package io.blockscope.hints;

import io.blockscope.metrics.PerfLevel;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The blockscope hints of one statement, read from its hint comment the way Phoenix reads hints:
 * the comment must follow the statement's first keyword ({@code SELECT}, {@code UPSERT}, {@code
 * DELETE}, after an optional {@code EXPLAIN}), words are separated by white space and parentheses,
 * case does not matter, and words blockscope does not know are left to Phoenix (which ignores the
 * ones it does not know either).
 *
 * <ul>
 *   <li>{@code NO_CACHE}: every scan of the query runs with block caching off (enforced).
 *   <li>{@code SERIAL}: the query's region scans one at a time, in key order (enforced where serial
 *       execution returns the same rows; see {@code SerialPlans}).
 *   <li>{@code PROFILE} or {@code PROFILE(COUNT|TIME)}: the query's server-side costs, per region,
 *       counted at least at the level given (COUNT if none), read with {@link
 *       BlockscopeResultSet#profile()}.
 * </ul>
 *
 * <p>These three take no other arguments: {@code SERIAL(2)} or {@code PROFILE(FAST)} is an error
 * ({@link SQLException} with SQL state 42601), not a silently ignored hint.
 */
public final class QueryExtensions {
  /** What a profiled query collects. */
  public enum Profile {
    NONE(null),
    COUNT(PerfLevel.COUNT),
    TIME(PerfLevel.TIME);

    private final PerfLevel level;

    Profile(PerfLevel level) {
      this.level = level;
    }

    /** The level this asks each region to measure the query at; null for NONE. */
    public PerfLevel level() {
      return level;
    }

    /** The profile that asks for {@code level} (COUNT or TIME). */
    public static Profile of(PerfLevel level) {
      if (level == null || !level.queryable()) {
        throw new IllegalArgumentException("a query cannot ask for " + level);
      }
      return level == PerfLevel.TIME ? TIME : COUNT;
    }
  }

  public static final QueryExtensions NONE = new QueryExtensions(false, false, Profile.NONE, false);

  /**
   * The statement without one trailing {@code ;} (and the white space around it), which Phoenix's
   * JDBC parser rejects and SQL tools and scripts, the seeds included, write.
   */
  static String withoutTerminator(String sql) {
    String t = Head.stripTrailing(sql);
    return t.endsWith(";") ? Head.stripTrailing(t.substring(0, t.length() - 1)) : sql;
  }

  /** SQL state of a syntax error (ISO/ANSI SQL). */
  static final String SYNTAX_ERROR = "42601";

  private static final Pattern TOKEN = Pattern.compile("[()]|[^\\s()]+");

  private final boolean noCache;
  private final boolean serial;
  private final Profile profile;
  private final boolean explain;

  public QueryExtensions(boolean noCache, boolean serial, Profile profile, boolean explain) {
    this.noCache = noCache;
    this.serial = serial;
    this.profile = profile;
    this.explain = explain;
  }

  public boolean noCache() {
    return noCache;
  }

  public boolean serial() {
    return serial;
  }

  public Profile profile() {
    return profile;
  }

  public boolean explain() {
    return explain;
  }

  public boolean any() {
    return noCache || serial || profile != Profile.NONE;
  }

  /** The extensions {@code sql} asks for; {@link #NONE} if it has no hint comment. */
  public static QueryExtensions parse(String sql) throws SQLException {
    if (sql == null) {
      return NONE;
    }
    Head head = Head.of(sql);
    if (head == null) {
      return NONE;
    }
    boolean explain = head.explain();
    String hint = head.hint();
    List<String> tokens = new ArrayList<>();
    Matcher t = TOKEN.matcher(hint);
    while (t.find()) {
      tokens.add(t.group());
    }
    boolean noCache = false;
    boolean serial = false;
    Profile profile = Profile.NONE;
    for (int i = 0; i < tokens.size(); i++) {
      String word = tokens.get(i).toUpperCase(Locale.ROOT);
      boolean argument = i + 1 < tokens.size() && tokens.get(i + 1).equals("(");
      switch (word) {
        case "NO_CACHE":
        case "SERIAL":
          if (argument) {
            throw malformed(hint, word + " takes no argument");
          }
          if (word.equals("SERIAL")) {
            serial = true;
          } else {
            noCache = true;
          }
          break;
        case "PROFILE":
          profile = Profile.COUNT;
          if (argument) {
            if (i + 3 >= tokens.size() || !tokens.get(i + 3).equals(")")) {
              throw malformed(hint, "PROFILE takes one argument, COUNT or TIME, in parentheses");
            }
            PerfLevel level = PerfLevel.ofQueryWord(tokens.get(i + 2));
            if (level == null) {
              throw malformed(
                  hint, "unknown PROFILE argument '" + tokens.get(i + 2) + "': use COUNT or TIME");
            }
            profile = Profile.of(level);
            i += 3;
          }
          break;
        default:
          // Phoenix's own hints (INDEX(t i), SMALL, ...) and words nobody knows.
          break;
      }
    }
    return new QueryExtensions(noCache, serial, profile, explain);
  }

  /**
   * The scan of a statement's head: what comes before its hint comment. Each step moves forward and
   * looks at a character at most twice (an unterminated comment is looked for once, by {@code
   * indexOf}), so a head of any length costs time linear in its length and a constant stack.
   *
   * <p>It accepts the heads the regular expression it replaced accepted, with one difference: a
   * comment ends at its first <code>*&#47;</code>, as in Phoenix's lexer, where the expression's
   * backtracking could stretch it to a later one. The expression took time quadratic in a run of
   * leading white space when the statement had no hint (100 KB of spaces before {@code SELECT *
   * FROM t} took six minutes), and recursed once per leading comment, so a script's few thousand
   * comment lines threw {@link StackOverflowError}.
   */
  static final class Head {
    private final boolean explain;
    private final String hint;

    Head(boolean explain, String hint) {
      this.explain = explain;
      this.hint = hint;
    }

    boolean explain() {
      return explain;
    }

    String hint() {
      return hint;
    }

    /** The head of {@code sql}, or null if it has no hint comment where Phoenix reads one. */
    static Head of(String sql) {
      int i = statementStart(sql);
      if (i < 0) {
        return null;
      }
      boolean explain = keyword(sql, i, "EXPLAIN");
      if (explain) {
        int after = skipWhiteSpace(sql, i + "EXPLAIN".length());
        if (after == i + "EXPLAIN".length()) {
          return null; // EXPLAIN must be followed by white space
        }
        i = after;
      }
      if (!keyword(sql, i, "SELECT") && !keyword(sql, i, "UPSERT") && !keyword(sql, i, "DELETE")) {
        return null;
      }
      i = skipWhiteSpace(sql, i + "SELECT".length()); // the three are six letters long
      if (!sql.startsWith("/*+", i)) {
        return null;
      }
      int end = sql.indexOf("*/", i + 3);
      if (end < 0) {
        return null; // an unterminated hint: Phoenix's parser reports it
      }
      return new Head(explain, sql.substring(i + 3, end));
    }

    /**
     * The index of the statement's first keyword: past white space, {@code --} comments (each ended
     * by a newline) and {@code /*} comments that are not hints; -1 if a comment is not terminated.
     */
    static int statementStart(String sql) {
      int i = 0;
      while (true) {
        i = skipWhiteSpace(sql, i);
        if (sql.startsWith("--", i)) {
          int newline = sql.indexOf('\n', i + 2);
          if (newline < 0) {
            return -1;
          }
          i = newline + 1;
        } else if (sql.startsWith("/*", i) && !sql.startsWith("/*+", i)) {
          int end = sql.indexOf("*/", i + 2);
          if (end < 0) {
            return -1;
          }
          i = end + 2;
        } else {
          return i;
        }
      }
    }

    /** The index past the white space at {@code i} (the white space of {@code \s}). */
    static int skipWhiteSpace(String sql, int i) {
      while (i < sql.length() && isWhiteSpace(sql.charAt(i))) {
        i++;
      }
      return i;
    }

    private static boolean isWhiteSpace(char c) {
      return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }

    /**
     * {@code s} without the white space of {@link Character#isWhitespace} at its start and end, as
     * Java 11's {@code String.strip}.
     */
    static String strip(String s) {
      int start = 0;
      while (start < s.length() && Character.isWhitespace(s.charAt(start))) {
        start++;
      }
      return stripTrailing(s.substring(start));
    }

    /** {@code s} without that white space at its end, as Java 11's {@code String.stripTrailing}. */
    static String stripTrailing(String s) {
      int end = s.length();
      while (end > 0 && Character.isWhitespace(s.charAt(end - 1))) {
        end--;
      }
      return s.substring(0, end);
    }

    /** Whether {@code word} (upper case ASCII) is at {@code i}, in any ASCII case. */
    static boolean keyword(String sql, int i, String word) {
      if (i + word.length() > sql.length()) {
        return false;
      }
      for (int k = 0; k < word.length(); k++) {
        char c = sql.charAt(i + k);
        char upper = c >= 'a' && c <= 'z' ? (char) (c - ('a' - 'A')) : c;
        if (upper != word.charAt(k)) {
          return false;
        }
      }
      return true;
    }
  }

  private static SQLException malformed(String hint, String why) {
    return new SQLException("blockscope: malformed hint /*+" + hint + "*/: " + why, SYNTAX_ERROR);
  }

  /**
   * The lines EXPLAIN adds for these extensions, given why SERIAL could not be applied to parts of
   * the plan (empty if it was applied everywhere).
   */
  public List<String> explainLines(List<String> serialRefused) {
    List<String> lines = new ArrayList<>();
    if (noCache) {
      lines.add("BLOCKSCOPE NO_CACHE: every scan of this query runs with block caching off");
    }
    if (serial) {
      lines.add(
          serialRefused.isEmpty()
              ? "BLOCKSCOPE SERIAL: region scans run one at a time, in key order"
              : "BLOCKSCOPE SERIAL: not applied ("
                  + String.join("; ", serialRefused)
                  + "); runs as Phoenix plans it");
    }
    if (profile != Profile.NONE) {
      lines.add(
          "BLOCKSCOPE PROFILE("
              + profile
              + "): server-side costs per region, read with"
              + " BlockscopeResultSet.profile()");
    }
    return lines;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof QueryExtensions)) {
      return false;
    }
    QueryExtensions e = (QueryExtensions) o;
    return noCache == e.noCache
        && serial == e.serial
        && profile == e.profile
        && explain == e.explain;
  }

  @Override
  public int hashCode() {
    return Objects.hash(noCache, serial, profile, explain);
  }

  @Override
  public String toString() {
    return "QueryExtensions[noCache="
        + noCache
        + ", serial="
        + serial
        + ", profile="
        + profile
        + ", explain="
        + explain
        + "]";
  }
}
