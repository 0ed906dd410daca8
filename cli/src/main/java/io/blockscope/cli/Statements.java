package io.blockscope.cli;

import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import io.blockscope.metrics.Json;
import io.blockscope.metrics.profile.ProfileProtocol;
import io.blockscope.metrics.profile.StatementTotals;
import io.blockscope.metrics.profile.StatementsWire;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
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
          "The figure to sort by, largest first: hits, misses, fs.blocks, fs.bytes, cells,"
              + " executions, regions, scans, rows, or any cost name (blockCache.miss.data,"
              + " decode.FAST_DIFF.nanos, ...)."
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
      List<StatementTotals.Summed> rows = sum(answers);
      validateSort(answers);
      print(rows, answers, silent);
    }
    return 0;
  }

  private void validateSort(List<StatementsWire.Response> answers) {
    if (StatementTotals.isSum(sort)) {
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
   * One server's statements ({@link StatementTotals#askServer}); null if no region of it answers,
   * with the reason in {@code why}. blockscope's own refusal ends the command.
   */
  private StatementsWire.Response ask(
      ClusterClient c, Admin admin, ServerName server, StringBuilder why) throws IOException {
    List<StatementTotals.Region> regions = new ArrayList<>();
    for (RegionInfo r : admin.getRegions(server)) {
      regions.add(
          new StatementTotals.Region(
              r.getTable().getNameAsString(), r.getTable().isSystemTable(), r.getStartKey()));
    }
    try {
      return StatementTotals.askServer(
          server.toString(),
          regions,
          (table, row) -> {
            try (Table t = c.connection.getTable(TableName.valueOf(table))) {
              List<StatementsWire.Response> answers = new ArrayList<>();
              for (Message m :
                  t.batchCoprocessorService(
                          ProfileProtocol.GET_STATEMENTS,
                          ProfileProtocol.statementsRequest(user, all, reset),
                          row,
                          row,
                          DynamicMessage.getDefaultInstance(ProfileProtocol.STATEMENTS_RESPONSE))
                      .values()) {
                answers.add(StatementsWire.parseResponse(m.toByteArray()));
              }
              return answers;
            }
          },
          why);
    } catch (StatementTotals.Refused e) {
      throw new IllegalArgumentException(
          "refused by "
              + server
              + ": "
              + e.getMessage()
              + " (--user naming another user, --all and --reset need an HBase superuser or"
              + " global ADMIN)");
    }
  }

  /** Rows summed by user and fingerprint over the servers, filtered by {@code --table}, sorted. */
  List<StatementTotals.Summed> sum(List<StatementsWire.Response> answers) {
    return StatementTotals.sum(answers, table, sort);
  }

  private void print(
      List<StatementTotals.Summed> rows,
      List<StatementsWire.Response> answers,
      Map<String, String> silent) {
    PrintWriter out = spec.commandLine().getOut();
    List<StatementTotals.Summed> shown =
        limit == 0 || rows.size() <= limit ? rows : rows.subList(0, limit);
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
      for (StatementTotals.Summed s : shown) {
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
        "%-12s %-16s %6s %7s %8s %10s %10s %10s %12s %10s  %s%n",
        "user",
        "statement",
        "execs",
        "regions",
        "scans",
        "rows",
        "hits",
        "misses",
        "fs.bytes",
        "cells",
        "text");
    for (StatementTotals.Summed s : shown) {
      String text = s.text.isEmpty() ? "(no text)" : s.text;
      out.printf(
          Locale.ROOT,
          "%-12s %-16s %6d %7d %8d %10d %10d %10d %12d %10d  %s%n",
          s.user,
          s.fingerprint,
          s.figure(StatementsWire.EXECUTIONS),
          s.figure(StatementsWire.REGIONS),
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
