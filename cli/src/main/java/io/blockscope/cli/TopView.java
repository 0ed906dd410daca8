package io.blockscope.cli;

import io.blockscope.metrics.Json;
import io.blockscope.metrics.ServerMetric;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * What {@code blockscope top} shows: from two readings of every region server's blockscope beans,
 * what each table and region read in between, per second; and each server's probe health. Counts
 * are the differences of monotonic counters; a counter that went down (the server restarted, the
 * region moved here again) counts from zero, as Prometheus's {@code rate} does, and a series that
 * appeared in between counts from zero too (it exists only once its figure is non-zero).
 */
final class TopView {
  /** One region server's blockscope beans at one moment: ObjectName to Count or Value. */
  record ServerReading(String server, String error, Map<String, Long> values) {
    static ServerReading failed(String server, String error) {
      return new ServerReading(server, error, Map.of());
    }
  }

  /** The figures a row shows, in column order. */
  enum Figure {
    HITS("cache hit/s", "hits"),
    MISSES("cache miss/s", "misses"),
    CACHE_INSERTS("cache in/s", "cacheInserts"),
    CACHE_UNREAD("unread out/s", "cacheEvictedUnread"),
    FS_BLOCKS("fs blocks/s", "fsBlocks"),
    FS_BYTES("fs MiB/s", "fsBytes"),
    CHECKSUM("checksum ms/s", "checksumNanos"),
    DECOMPRESS("decompress ms/s", "decompressNanos"),
    DECODE("decode ms/s", "decodeNanos"),
    CELLS("cells/s", "cells"),
    MEMSTORE_CELLS("memstore cells/s", "memstoreCells"),
    MEMSTORE_BYTES("memstore MiB/s", "memstoreBytes");

    final String header;
    final String key;

    Figure(String header, String key) {
      this.header = header;
      this.key = key;
    }

    /** Which figure a cost metric adds to, or null. */
    static Figure of(String metric) {
      if (metric.startsWith("blockCache.hit.")) {
        return HITS;
      }
      if (metric.startsWith("blockCache.miss.")) {
        return MISSES;
      }
      if (metric.startsWith("blockCache.inserted.")) {
        return CACHE_INSERTS;
      }
      if (metric.startsWith("blockCache.evictedUnread.")) {
        return CACHE_UNREAD;
      }
      if (metric.startsWith("fs.read.blocks.")) {
        return FS_BLOCKS;
      }
      if (metric.startsWith("fs.read.bytes.")) {
        return FS_BYTES;
      }
      if (metric.equals("checksum.nanos")) {
        return CHECKSUM;
      }
      if (metric.startsWith("decompress.") && metric.endsWith(".nanos")) {
        return DECOMPRESS;
      }
      if (metric.startsWith("decode.") && metric.endsWith(".nanos")) {
        return DECODE;
      }
      if (metric.startsWith("decode.") && metric.endsWith(".cells")) {
        return CELLS;
      }
      if (metric.equals("memstore.cells")) {
        return MEMSTORE_CELLS;
      }
      if (metric.equals("memstore.bytes")) {
        return MEMSTORE_BYTES;
      }
      return null;
    }

    /** The sort key a user types ({@code --sort misses}). */
    static Figure parse(String s) {
      for (Figure f : values()) {
        if (f.name().replace("_", "").equalsIgnoreCase(s.replace("-", "").replace("_", ""))) {
          return f;
        }
      }
      throw new IllegalArgumentException("bad --sort '" + s + "': use one of " + names());
    }

    /** The sort key a user types for this figure ({@code fs-bytes}). */
    String option() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Every sort key, as {@code --help} and errors list them. */
    static String names() {
      List<String> n = new ArrayList<>();
      for (Figure f : values()) {
        n.add(f.option());
      }
      return String.join(", ", n);
    }
  }

  /**
   * A namespace or table (region null; a namespace's row holds the namespace in {@code table}) or a
   * region, with what it read in the interval, by {@link Figure}.
   */
  @SuppressWarnings("ArrayRecordComponent") // filled while the view is built, never compared
  record Row(String table, String region, String server, long[] counts) {
    long count(Figure f) {
      return counts[f.ordinal()];
    }

    /** As a view names it: {@code ns:t/region (server)} for a region, else the name. */
    String label() {
      return region == null ? table : table + "/" + region + " (" + server + ")";
    }
  }

  /** What the rows of a view are: namespaces, tables or regions. */
  enum Mode {
    NAMESPACE,
    TABLE,
    REGION,
    /** The users whose RPCs made the reads, summed over the servers, and {@code (other)}. */
    USER;

    String word() {
      return name().toLowerCase(Locale.ROOT);
    }

    static Mode parse(String s) {
      for (Mode m : values()) {
        if (m.word().equalsIgnoreCase(s)) {
          return m;
        }
      }
      throw new IllegalArgumentException(
          "bad --mode '" + s + "': use namespace, table, region or user");
    }
  }

  /**
   * Which rows a view shows: those of {@code mode}, only within one namespace (tables) or table
   * (regions) when {@code within} is set (what drilling down into a row does), and only those whose
   * label contains {@code filter} (any case) when it is set.
   */
  record Scope(Mode mode, String within, String filter) {
    boolean shows(Row r) {
      if (within != null) {
        String parent = mode == Mode.TABLE ? namespace(r.table()) : r.table();
        if (mode == Mode.NAMESPACE || !parent.equals(within)) {
          return false;
        }
      }
      return filter == null
          || r.label().toLowerCase(Locale.ROOT).contains(filter.toLowerCase(Locale.ROOT));
    }

    /** "tables in namespace ns1 matching 'orders'". */
    String describe() {
      String what =
          switch (mode) {
            case NAMESPACE -> "namespaces";
            case TABLE -> within == null ? "tables" : "tables in namespace " + within;
            case REGION -> within == null ? "regions" : "regions of table " + within;
            case USER -> "users";
          };
      return filter == null ? what : what + " matching '" + filter + "'";
    }
  }

  /** The namespace of a table name: {@code ns} of {@code ns:t}, {@code default} of {@code t}. */
  static String namespace(String table) {
    int colon = table.indexOf(':');
    return colon < 0 ? "default" : table.substring(0, colon);
  }

  /** A server's state: probes installed of those it has, probe failures in the interval. */
  record Server(
      String server, String error, int probesInstalled, int probes, long failures, long regions) {}

  final double seconds;
  final List<Server> servers = new ArrayList<>();
  final List<Row> namespaces = new ArrayList<>();
  final List<Row> tables = new ArrayList<>();
  final List<Row> regions = new ArrayList<>();

  /** A user's row holds the user in {@code table}, as a namespace's holds the namespace. */
  final List<Row> users = new ArrayList<>();

  private TopView(double seconds) {
    this.seconds = seconds;
  }

  /** A bean's name, parsed; null for one that is not blockscope's. */
  private static ObjectName name(String s) {
    try {
      ObjectName n = new ObjectName(s);
      return n.getDomain().equals("blockscope") ? n : null;
    } catch (MalformedObjectNameException e) {
      return null;
    }
  }

  private static String unquoted(String v) {
    return v != null && v.startsWith("\"") ? ObjectName.unquote(v) : v;
  }

  /** The difference of a counter between two readings, from zero if it went down or is new. */
  static long delta(Long before, long after) {
    return before == null || after < before ? after : after - before;
  }

  /** The view of what happened between {@code before} and {@code after}, {@code nanos} apart. */
  static TopView between(List<ServerReading> before, List<ServerReading> after, long nanos) {
    TopView v = new TopView(nanos / 1e9);
    Map<String, Map<String, Long>> earlier = new LinkedHashMap<>();
    for (ServerReading r : before) {
      earlier.put(r.server(), r.values());
    }
    Map<String, long[]> tables = new TreeMap<>();
    Map<String, Row> regions = new TreeMap<>();
    Map<String, long[]> users = new TreeMap<>();
    for (ServerReading r : after) {
      Map<String, Long> was = earlier.getOrDefault(r.server(), Map.of());
      int installed = 0;
      int probes = 0;
      long failures = 0;
      long open = 0;
      for (Map.Entry<String, Long> e : r.values().entrySet()) {
        ObjectName n = name(e.getKey());
        if (n == null) {
          continue;
        }
        String type = n.getKeyProperty("type");
        String metric = n.getKeyProperty("name");
        long d = delta(was.get(e.getKey()), e.getValue());
        if ("Probe".equals(type)) {
          if ("installed".equals(metric)) {
            probes++;
            installed += e.getValue() == 1 ? 1 : 0;
          } else if ("failures".equals(metric)) {
            failures += d;
          }
          continue;
        }
        if ("Server".equals(type) && ServerMetric.REGIONS_OPEN.metric().equals(metric)) {
          open = e.getValue();
        }
        Figure f = metric == null ? null : Figure.of(metric);
        if (f == null) {
          continue;
        }
        String table = unquoted(n.getKeyProperty("table"));
        if ("Table".equals(type)) {
          tables.computeIfAbsent(table, k -> new long[Figure.values().length])[f.ordinal()] += d;
        } else if ("User".equals(type)) {
          users
                  .computeIfAbsent(
                      unquoted(n.getKeyProperty("user")), k -> new long[Figure.values().length])[
                  f.ordinal()] +=
              d;
        } else if ("Region".equals(type)) {
          String region = n.getKeyProperty("region");
          regions.computeIfAbsent(
                      table + "/" + region + "@" + r.server(),
                      k -> new Row(table, region, r.server(), new long[Figure.values().length]))
                  .counts()[f.ordinal()] +=
              d;
        }
      }
      v.servers.add(new Server(r.server(), r.error(), installed, probes, failures, open));
    }
    Map<String, long[]> namespaces = new TreeMap<>();
    tables.forEach(
        (t, c) -> {
          v.tables.add(new Row(t, null, null, c));
          long[] n = namespaces.computeIfAbsent(namespace(t), k -> new long[c.length]);
          for (int i = 0; i < c.length; i++) {
            n[i] += c[i];
          }
        });
    namespaces.forEach((n, c) -> v.namespaces.add(new Row(n, null, null, c)));
    v.regions.addAll(regions.values());
    users.forEach((u, c) -> v.users.add(new Row(u, null, null, c)));
    return v;
  }

  /** The rows of a mode, unfiltered. */
  List<Row> rows(Mode m) {
    return switch (m) {
      case NAMESPACE -> namespaces;
      case TABLE -> tables;
      case REGION -> regions;
      case USER -> users;
    };
  }

  /** The rows a scope shows, busiest first by {@code sort}: all of them. */
  List<Row> shown(Scope scope, Figure sort) {
    List<Row> r = new ArrayList<>();
    for (Row x : rows(scope.mode())) {
      if (scope.shows(x)) {
        r.add(x);
      }
    }
    return top(r, sort, Integer.MAX_VALUE);
  }

  /** Busiest first by {@code f}, then by name; at most {@code limit} rows. */
  static List<Row> top(List<Row> rows, Figure f, int limit) {
    List<Row> r = new ArrayList<>(rows);
    r.sort(
        Comparator.comparingLong((Row x) -> -x.count(f))
            .thenComparing(Row::table)
            .thenComparing(x -> x.region() == null ? "" : x.region()));
    return r.subList(0, Math.min(limit, r.size()));
  }

  /** A figure per second, in the unit its column header gives. */
  double perSecond(Row r, Figure f) {
    double v = r.count(f) / seconds;
    return switch (f) {
      case FS_BYTES, MEMSTORE_BYTES -> v / (1024 * 1024);
      case CHECKSUM, DECOMPRESS, DECODE -> v / 1e6;
      default -> v;
    };
  }

  private String cell(Row r, Figure f) {
    double v = perSecond(r, f);
    return switch (f) {
      case FS_BYTES, MEMSTORE_BYTES, CHECKSUM, DECOMPRESS, DECODE ->
          String.format(Locale.ROOT, "%.2f", v);
      default -> String.format(Locale.ROOT, "%,.0f", v);
    };
  }

  /** The screen: servers, then the busiest tables and regions by {@code sort}. */
  String text(Figure sort, int limit, String when) {
    StringBuilder b = head(sort, when);
    table(b, rows("table", top(tables, sort, limit), -1));
    b.append('\n');
    table(b, rows("region", top(regions, sort, limit), -1));
    return b.toString();
  }

  /**
   * The screen of one scope: servers, then its busiest {@code limit} rows by {@code sort}, the row
   * at {@code selected} (an index into {@link #shown}; -1: none) marked with {@code >}.
   */
  String text(Figure sort, int limit, String when, Scope scope, int selected) {
    StringBuilder b = head(sort, when);
    List<Row> shown = shown(scope, sort);
    int first = selected < limit ? 0 : selected - limit + 1; // the selected row stays on screen
    List<Row> page = shown.subList(first, Math.min(shown.size(), first + limit));
    b.append(scope.describe())
        .append(": ")
        .append(shown.size())
        .append(" of ")
        .append(rows(scope.mode()).size())
        .append('\n');
    table(b, rows(scope.mode().word(), page, selected < 0 ? -1 : selected - first));
    return b.toString();
  }

  private StringBuilder head(Figure sort, String when) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "blockscope top: %d region server%s, %.1f s interval, sorted by %s (%s)%n",
            servers.size(),
            servers.size() == 1 ? "" : "s",
            seconds,
            sort.header,
            when));
    List<List<String>> s = new ArrayList<>();
    s.add(List.of("server", "probes", "probe failures", "regions"));
    List<String> unreadable = new ArrayList<>();
    for (Server x : servers) {
      if (x.error() != null) {
        s.add(List.of(x.server(), "-", "-", "-"));
        unreadable.add(x.server() + " unreadable: " + x.error());
      } else {
        s.add(
            List.of(
                x.server(),
                x.probesInstalled() + "/" + x.probes(),
                Long.toString(x.failures()),
                Long.toString(x.regions())));
      }
    }
    table(b, s);
    for (String u : unreadable) {
      b.append(u).append('\n');
    }
    b.append('\n');
    return b;
  }

  /** A table of rows; with {@code marked} >= 0, every label indented and that one marked. */
  private List<List<String>> rows(String first, List<Row> rows, int marked) {
    List<List<String>> t = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of(marked < 0 ? first : "  " + first));
    for (Figure f : Figure.values()) {
      header.add(f.header);
    }
    t.add(header);
    for (int i = 0; i < rows.size(); i++) {
      Row r = rows.get(i);
      List<String> line = new ArrayList<>();
      line.add(marked < 0 ? r.label() : (i == marked ? "> " : "  ") + r.label());
      for (Figure f : Figure.values()) {
        line.add(cell(r, f));
      }
      t.add(line);
    }
    return t;
  }

  /** Columns padded to their widest cell; the first left-aligned, the others right-aligned. */
  private static void table(StringBuilder b, List<List<String>> rows) {
    int[] w = new int[rows.get(0).size()];
    for (List<String> r : rows) {
      for (int i = 0; i < r.size(); i++) {
        w[i] = Math.max(w[i], r.get(i).length());
      }
    }
    for (List<String> r : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.size(); i++) {
        String c = r.get(i);
        line.append(
            i == 0 ? c + " ".repeat(w[i] - c.length()) : "  " + " ".repeat(w[i] - c.length()) + c);
      }
      b.append(line.toString().stripTrailing()).append('\n');
    }
  }

  /** The whole view as one JSON document (every row, counts and rates). */
  String json(Figure sort) {
    return json(sort, null);
  }

  /** Every row whose label contains {@code filter} (null: every row), {@link #json(Figure)}. */
  String json(Figure sort, String filter) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("intervalSeconds", seconds);
    doc.put("sortedBy", sort.key);
    List<Object> s = new ArrayList<>();
    for (Server x : servers) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("server", x.server());
      m.put("error", x.error());
      m.put("probesInstalled", x.probesInstalled());
      m.put("probes", x.probes());
      m.put("probeFailures", x.failures());
      m.put("regionsOpen", x.regions());
      s.add(m);
    }
    doc.put("servers", s);
    doc.put(
        "namespaces", jsonRows(shown(new Scope(Mode.NAMESPACE, null, filter), sort), "namespace"));
    doc.put("tables", jsonRows(shown(new Scope(Mode.TABLE, null, filter), sort), "table"));
    doc.put("regions", jsonRows(shown(new Scope(Mode.REGION, null, filter), sort), "table"));
    doc.put("users", jsonRows(shown(new Scope(Mode.USER, null, filter), sort), "user"));
    return Json.write(doc);
  }

  /** Rows as JSON objects, each naming its namespace, table or user under {@code name}. */
  private List<Object> jsonRows(List<Row> rows, String name) {
    List<Object> out = new ArrayList<>();
    for (Row r : rows) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put(name, r.table());
      if (r.region() != null) {
        m.put("region", r.region());
        m.put("server", r.server());
      }
      Map<String, Object> counts = new LinkedHashMap<>();
      Map<String, Object> rates = new LinkedHashMap<>();
      for (Figure f : Figure.values()) {
        counts.put(f.key, r.count(f));
        rates.put(f.key, r.count(f) / seconds);
      }
      m.put("counts", counts);
      m.put("perSecond", rates);
      out.add(m);
    }
    return out;
  }

  /** One CSV line per table and region: counts in the interval and its length. */
  String csv(Figure sort) {
    return csv(sort, null);
  }

  /**
   * {@link #csv(Figure)} of the rows whose label contains {@code filter} (null: every row), and a
   * line per namespace and per user (its name in the table column).
   */
  String csv(Figure sort, String filter) {
    StringBuilder b = new StringBuilder("scope,table,region,server,seconds");
    for (Figure f : Figure.values()) {
      b.append(',').append(f.key);
    }
    b.append('\n');
    for (Mode m : List.of(Mode.TABLE, Mode.REGION, Mode.NAMESPACE, Mode.USER)) {
      for (Row r : shown(new Scope(m, null, filter), sort)) {
        csvLine(b, m.word(), r);
      }
    }
    return b.toString();
  }

  private void csvLine(StringBuilder b, String scope, Row r) {
    b.append(scope)
        .append(',')
        .append(r.table())
        .append(',')
        .append(r.region() == null ? "" : r.region())
        .append(',')
        .append(r.server() == null ? "" : '"' + r.server() + '"')
        .append(',')
        .append(String.format(Locale.ROOT, "%.3f", seconds));
    for (Figure f : Figure.values()) {
      b.append(',').append(r.count(f));
    }
    b.append('\n');
  }
}
