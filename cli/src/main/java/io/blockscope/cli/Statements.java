package io.blockscope.cli;

import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import io.blockscope.metrics.Json;
import io.blockscope.metrics.profile.ProfileProtocol;
import io.blockscope.metrics.profile.StatementsWire;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Table;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code blockscope statements}: every region server's statement statistics (the reads of scans
 * that named a statement, by user and fingerprint), read through blockscope's endpoint on one
 * region of each server and summed into one table. The endpoint decides what the caller may see:
 * their own statements, or (an HBase superuser or global ADMIN) another user's or everyone's.
 */
@Command(
    name = "statements",
    mixinStandardHelpOptions = true,
    description =
        "Read costs by statement and user, summed over every region server: what each normalized"
            + " statement cost in block cache hits and misses, file-system reads and decoding.")
final class Statements implements Callable<Integer> {
  /** Figures summed over a row's cost columns, named for sorting and printing. */
  static final Map<String, String> SUMS =
      Map.of(
          "hits", "blockCache.hit.",
          "misses", "blockCache.miss.",
          "fs.blocks", "fs.read.blocks.",
          "fs.bytes", "fs.read.bytes.");

  /** The start of blockscope's own refusal, as the endpoint words it. */
  static final String REFUSAL = "blockscope: only an HBase superuser or a user with global ADMIN";

  /** Tables a server's regions are tried on, at most, to find one that runs blockscope. */
  static final int TABLES_TRIED = 10;

  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Option(
      names = "--user",
      description =
          "Only this user's statements (another user's: an HBase superuser or global ADMIN only;"
              + " default: your own).")
  String user;

  @Option(
      names = "--all",
      description = "Every user's statements (an HBase superuser or global ADMIN only).")
  boolean all;

  @Option(
      names = "--table",
      description =
          "Only statements whose normalized text names this table (a whole word, any case);"
              + " statements whose text never reached a server are left out.")
  String table;

  @Option(
      names = "--sort",
      defaultValue = "misses",
      description =
          "The figure to sort by, largest first: hits, misses, fs.blocks, fs.bytes, cells, scans,"
              + " rows, or any cost name (blockCache.miss.data, decode.FAST_DIFF.nanos, ...)."
              + " Default ${DEFAULT-VALUE}.")
  String sort;

  @Option(
      names = "--limit",
      defaultValue = "20",
      description = "Rows printed, at most (default ${DEFAULT-VALUE}; 0: all).")
  int limit;

  @Option(
      names = "--json",
      description = "Print JSON: every row with every figure, and the servers asked.")
  boolean json;

  @Option(
      names = "--reset",
      description =
          "After reading, clear every server's statement statistics (an HBase superuser or global"
              + " ADMIN only).")
  boolean reset;

  @Spec CommandSpec spec;

  /** One statement summed over the servers that kept it. */
  static final class Summed {
    final String user;
    final String fingerprint;
    String text = "";
    final Map<String, Long> values = new LinkedHashMap<>();
    int servers;

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
    long figure(String name) {
      String prefix = SUMS.get(name);
      if (prefix == null && !name.equals("cells")) {
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

  @Override
  public Integer call() throws Exception {
    if (!cluster.remote()) {
      throw new IllegalArgumentException(
          "statements reads a live cluster's region servers: give --zk or --config");
    }
    if (all && user != null) {
      throw new IllegalArgumentException("give --user or --all, not both");
    }
    if (limit < 0) {
      throw new IllegalArgumentException("--limit must be 0 or more, got " + limit);
    }
    if (user != null && user.isEmpty()) {
      throw new IllegalArgumentException("--user is empty");
    }
    try (ClusterClient c = ClusterClient.connect(cluster);
        Admin admin = c.connection.getAdmin()) {
      List<StatementsWire.Response> answers = new ArrayList<>();
      Map<String, String> silent = new TreeMap<>();
      for (ServerName server : admin.getRegionServers()) {
        StringBuilder why = new StringBuilder();
        StatementsWire.Response r = ask(c, admin, server, why);
        if (r == null) {
          silent.put(server.toString(), why.length() == 0 ? "it holds no region" : why.toString());
        } else {
          answers.add(r);
        }
      }
      if (answers.isEmpty()) {
        throw new IllegalStateException(
            "no region server answered (blockscope's endpoint is not loaded where you may call it): "
                + silent);
      }
      List<Summed> rows = sum(answers);
      validateSort(answers);
      print(rows, answers, silent);
    }
    return 0;
  }

  private void validateSort(List<StatementsWire.Response> answers) {
    if (SUMS.containsKey(sort) || sort.equals("cells")) {
      return;
    }
    for (StatementsWire.Response r : answers) {
      if (r.columns.contains(sort)) {
        return;
      }
    }
    throw new IllegalArgumentException(
        "--sort "
            + sort
            + " is not a figure the servers keep: hits, misses, fs.blocks, fs.bytes, cells, or a"
            + " column such as "
            + answers.get(0).columns.subList(0, Math.min(6, answers.get(0).columns.size())));
  }

  /**
   * One server's statements, asked of the first region of each table it holds until one answers (at
   * most {@link #TABLES_TRIED} tables): a table without blockscope's endpoint, or one HBase does
   * not let the caller call it on (EXEC, where HBase checks it), is passed over. Null if none
   * answers, with the last reason in {@code why}. blockscope's own refusal (another user's
   * statements asked by one who may not) ends the command.
   */
  private StatementsWire.Response ask(
      ClusterClient c, Admin admin, ServerName server, StringBuilder why) throws IOException {
    Set<TableName> tried = new LinkedHashSet<>();
    List<RegionInfo> regions = new ArrayList<>(admin.getRegions(server));
    // user tables first: the endpoint runs where blockscope is loaded, per table or everywhere
    regions.sort(Comparator.comparing((RegionInfo r) -> r.getTable().isSystemTable()));
    for (RegionInfo region : regions) {
      if (tried.size() >= TABLES_TRIED || !tried.add(region.getTable())) {
        continue;
      }
      try (Table t = c.connection.getTable(region.getTable())) {
        Map<byte[], Message> replies =
            t.batchCoprocessorService(
                ProfileProtocol.GET_STATEMENTS,
                ProfileProtocol.statementsRequest(user, all, reset),
                region.getStartKey(),
                region.getStartKey(),
                DynamicMessage.getDefaultInstance(ProfileProtocol.STATEMENTS_RESPONSE));
        for (Message m : replies.values()) {
          StatementsWire.Response r = StatementsWire.parseResponse(m.toByteArray());
          if (r.server.equals(server.toString())) {
            return r;
          }
        }
      } catch (Throwable e) {
        String failure = BlockscopeCli.describe(e);
        int denied = failure.indexOf(REFUSAL);
        if (denied >= 0) {
          String refusal = "AccessDeniedException: " + failure.substring(denied);
          int end = refusal.indexOf('\n');
          throw new IllegalArgumentException(
              "refused by "
                  + server
                  + ": "
                  + (end < 0 ? refusal : refusal.substring(0, end)).trim()
                  + " (--user naming another user, --all and --reset need an HBase superuser or"
                  + " global ADMIN)");
        }
        // no endpoint on this table's regions, not the caller's to call, or the region moved
        int line = failure.indexOf('\n');
        why.setLength(0);
        why.append(region.getTable()).append(": ");
        why.append(line < 0 ? failure : failure.substring(0, line));
      }
    }
    return null;
  }

  /** Rows summed by user and fingerprint over the servers, filtered by {@code --table}. */
  List<Summed> sum(List<StatementsWire.Response> answers) {
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

  private void print(
      List<Summed> rows, List<StatementsWire.Response> answers, Map<String, String> silent) {
    PrintWriter out = spec.commandLine().getOut();
    List<Summed> shown = limit == 0 || rows.size() <= limit ? rows : rows.subList(0, limit);
    boolean wasReset = false;
    long letGo = 0;
    for (StatementsWire.Response a : answers) {
      wasReset |= a.reset;
      letGo += a.usersLetGo;
    }
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      List<String> servers = new ArrayList<>();
      for (StatementsWire.Response a : answers) {
        servers.add(a.server);
      }
      doc.put("servers", servers);
      doc.put("serversNotAnswering", silent);
      doc.put("sort", sort);
      doc.put("usersLetGo", letGo);
      doc.put("reset", wasReset);
      List<Object> list = new ArrayList<>();
      for (Summed s : shown) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("user", s.user);
        r.put("fingerprint", s.fingerprint);
        r.put("text", s.text);
        r.put("servers", s.servers);
        Map<String, Long> nonZero = new TreeMap<>();
        for (Map.Entry<String, Long> e : s.values.entrySet()) {
          if (e.getValue() != 0) {
            nonZero.put(e.getKey(), e.getValue());
          }
        }
        r.put("figures", nonZero);
        list.add(r);
      }
      doc.put("statements", list);
      out.println(Json.write(doc));
      return;
    }
    out.printf(
        Locale.ROOT,
        "%d %s on %d of %d region servers, by %s%s%s%n",
        rows.size(),
        rows.size() == 1 ? "statement" : "statements",
        answers.size(),
        answers.size() + silent.size(),
        sort,
        shown.size() < rows.size() ? " (first " + shown.size() + ")" : "",
        wasReset ? "; statistics reset after reading" : "");
    for (Map.Entry<String, String> e : silent.entrySet()) {
      out.println("no answer from " + e.getKey() + ": " + e.getValue());
    }
    if (shown.isEmpty()) {
      return;
    }
    out.printf(
        Locale.ROOT,
        "%-12s %-16s %8s %10s %10s %10s %12s %10s  %s%n",
        "user",
        "statement",
        "scans",
        "rows",
        "hits",
        "misses",
        "fs.bytes",
        "cells",
        "text");
    for (Summed s : shown) {
      String text = s.text.isEmpty() ? "(no text)" : s.text;
      out.printf(
          Locale.ROOT,
          "%-12s %-16s %8d %10d %10d %10d %12d %10d  %s%n",
          s.user,
          s.fingerprint,
          s.figure(StatementsWire.SCANS),
          s.figure(StatementsWire.ROWS),
          s.figure("hits"),
          s.figure("misses"),
          s.figure("fs.bytes"),
          s.figure("cells"),
          text.length() > 80 ? text.substring(0, 77) + "..." : text);
    }
  }
}
