package io.blockscope.metrics.profile;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Region servers' statement statistics ({@link StatementsWire}) summed into one table, as {@code
 * bin/blockscope statements} and the driver's {@code SHOW BLOCKSCOPE STATEMENTS} show them: one row
 * per user and fingerprint, its figures summed over the servers that kept it.
 */
public final class StatementTotals {
  /** Figures summed over a row's cost columns, named for sorting and printing. */
  static final Map<String, String> SUMS = sums();

  /** The decoded cells of every encoding, summed. */
  public static final String CELLS = "cells";

  private StatementTotals() {}

  private static Map<String, String> sums() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("hits", "blockCache.hit.");
    m.put("misses", "blockCache.miss.");
    m.put("fs.blocks", "fs.read.blocks.");
    m.put("fs.bytes", "fs.read.bytes.");
    return Collections.unmodifiableMap(m);
  }

  /** Whether {@code figure} is one of the sums ({@code hits}, {@code misses}, ...) over columns. */
  public static boolean isSum(String figure) {
    return SUMS.containsKey(figure) || figure.equals(CELLS);
  }

  /** One statement summed over the servers that kept it. */
  public static final class Summed {
    public final String user;
    public final String fingerprint;

    /** The first non-empty text a server sent, or "". */
    public String text = "";

    /** The summed columns, by name. */
    public final Map<String, Long> values = new LinkedHashMap<>();

    /** The servers that kept the statement. */
    public int servers;

    Summed(String user, String fingerprint) {
      this.user = user;
      this.fingerprint = fingerprint;
    }

    void add(StatementsWire.Row r) {
      servers++;
      if (text.isEmpty()) {
        text = r.text;
      }
      for (Map.Entry<String, Long> e : r.values.entrySet()) {
        String k = e.getKey();
        long v = e.getValue();
        Long had = values.get(k);
        if (had == null) {
          values.put(k, v);
        } else if (k.equals(StatementsWire.FIRST_SEEN)) {
          values.put(k, had == 0 ? v : v == 0 ? had : Math.min(had, v));
        } else if (k.equals(StatementsWire.LAST_SEEN)) {
          values.put(k, Math.max(had, v));
        } else {
          values.put(k, had + v);
        }
      }
    }

    /** A figure: a column, or a sum of {@link #SUMS}' or of the decoded cells. */
    public long figure(String name) {
      String prefix = SUMS.get(name);
      if (prefix == null && !name.equals(CELLS)) {
        Long v = values.get(name);
        return v == null ? 0 : v;
      }
      long sum = 0;
      for (Map.Entry<String, Long> e : values.entrySet()) {
        String k = e.getKey();
        if (prefix != null
            ? k.startsWith(prefix)
            : k.startsWith("decode.") && k.endsWith(".cells")) {
          sum += e.getValue();
        }
      }
      return sum;
    }
  }

  /**
   * The servers' rows summed by user and fingerprint; with {@code table}, only those whose text
   * names it as a whole word (quoted or not, any case); sorted by {@code sort}, largest first, then
   * by user and fingerprint.
   */
  public static List<Summed> sum(List<StatementsWire.Response> answers, String table, String sort) {
    Pattern named =
        table == null
            ? null
            : Pattern.compile(
                "(?<![A-Za-z0-9_.\"])\"?" + Pattern.quote(table) + "\"?(?![A-Za-z0-9_])",
                Pattern.CASE_INSENSITIVE);
    Map<String, Summed> byKey = new LinkedHashMap<>();
    for (StatementsWire.Response a : answers) {
      for (StatementsWire.Row r : a.rows) {
        byKey
            .computeIfAbsent(r.user + '\0' + r.fingerprint, k -> new Summed(r.user, r.fingerprint))
            .add(r);
      }
    }
    List<Summed> rows = new ArrayList<>();
    for (Summed s : byKey.values()) {
      if (named == null || named.matcher(s.text).find()) {
        rows.add(s);
      }
    }
    rows.sort(
        Comparator.comparingLong((Summed s) -> s.figure(sort))
            .reversed()
            .thenComparing(s -> s.user)
            .thenComparing(s -> s.fingerprint));
    return rows;
  }

  /** The start of blockscope's own refusal, as the endpoint words it. */
  public static final String REFUSAL =
      "blockscope: only an HBase superuser or a user with global ADMIN";

  /** Tables a server's regions are tried on, at most, to find one that answers. */
  public static final int TABLES_TRIED = 10;

  /** A region of a server: its table, whether that is a system table, and its start row. */
  public static final class Region {
    final String table;
    final boolean system;
    final byte[] row;

    public Region(String table, boolean system, byte[] row) {
      this.table = table;
      this.system = system;
      this.row = row;
    }
  }

  /** The endpoint's statements call on the region of {@code table} holding {@code row}. */
  public interface Call {
    List<StatementsWire.Response> ask(String table, byte[] row) throws Throwable;
  }

  /** blockscope's own refusal: the caller asked for more than their own statements. */
  public static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /**
   * Server {@code server}'s statements, asked of the first region of each table it holds ({@code
   * regions}) until one answers, user tables first, at most {@link #TABLES_TRIED} tables: a table
   * without blockscope's endpoint, or one HBase does not let the caller call it on (EXEC, where
   * HBase checks it), is passed over. Null if none answers, with the first table's reason in {@code
   * why} (a user table's, where the server holds one) and how many more tables failed.
   *
   * @throws Refused when blockscope refuses the request (another user's statements asked by one who
   *     may not), with the refusal's words
   */
  public static StatementsWire.Response askServer(
      String server, List<Region> regions, Call call, StringBuilder why) {
    List<Region> order = new ArrayList<>(regions);
    order.sort(Comparator.comparing((Region r) -> r.system));
    List<String> tried = new ArrayList<>();
    int failed = 0;
    for (Region region : order) {
      if (tried.size() >= TABLES_TRIED || tried.contains(region.table)) {
        continue;
      }
      tried.add(region.table);
      try {
        for (StatementsWire.Response r : call.ask(region.table, region.row)) {
          if (r.server.equals(server)) {
            return r;
          }
        }
        failed = failure(why, failed, region.table, "its region moved to another server");
      } catch (Throwable e) {
        String failure = causes(e);
        int refused = failure.indexOf(REFUSAL);
        if (refused >= 0) {
          throw new Refused("AccessDeniedException: " + firstLine(failure.substring(refused)));
        }
        failed = failure(why, failed, region.table, firstLine(failure));
      }
    }
    if (failed > 1) {
      why.append(" (and ")
          .append(failed - 1)
          .append(failed == 2 ? " more table)" : " more tables)");
    }
    return null;
  }

  /** Keeps the first failure's reason in {@code why}; the failures so far. */
  private static int failure(StringBuilder why, int failed, String table, String reason) {
    if (failed == 0) {
      why.append(table).append(": ").append(reason);
    }
    return failed + 1;
  }

  private static String causes(Throwable e) {
    StringBuilder b = new StringBuilder(String.valueOf(e));
    Throwable c = e.getCause();
    for (int depth = 0; c != null && c != e && depth < 5; depth++) {
      b.append("; caused by ").append(c);
      e = c;
      c = c.getCause();
    }
    return b.toString();
  }

  private static String firstLine(String s) {
    int end = s.indexOf('\n');
    return (end < 0 ? s : s.substring(0, end)).trim();
  }
}
