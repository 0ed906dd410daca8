package io.blockscope.cli;

import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import io.blockscope.metrics.Json;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.profile.KeyRanges;
import io.blockscope.metrics.profile.ProfileProtocol;
import io.blockscope.metrics.profile.ProfileWire;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code blockscope profile}: a tagged query's costs, read back from the regions of a table that
 * hold the rows it read, for plain HBase clients that tag their scans with {@code blockscope.query}
 * (docs/hints.md). With {@code --row} or {@code --start-row}/{@code --stop-row} only the regions
 * holding that key range are asked, one endpoint call per run of adjacent regions; without, every
 * region of the table.
 */
@Command(
    name = "profile",
    mixinStandardHelpOptions = true,
    description =
        "A tagged query's costs per region, read through blockscope's profile endpoint from the"
            + " regions holding the key range the query read (without a range: every region of"
            + " the table).")
final class Profile implements Callable<Integer> {
  private static final Pattern QUERY_ID = Pattern.compile("[0-9a-f]{32}");

  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Option(names = "--table", required = true, description = "The table the query read.")
  String table;

  @Option(
      names = "--query",
      required = true,
      paramLabel = "ID",
      description = "The query id its scans carried (32 hex digits).")
  String query;

  @Option(
      names = "--user",
      description =
          "Read this user's query (an HBase superuser or global ADMIN only; default: your own).")
  String user;

  @Option(
      names = "--row",
      paramLabel = "KEY",
      description = "The one row the query read (a Get), as the HBase shell writes keys: \\x00.")
  String row;

  @Option(
      names = "--start-row",
      paramLabel = "KEY",
      description = "The first row of the range the query read (default: the table's first).")
  String startRow;

  @Option(
      names = "--stop-row",
      paramLabel = "KEY",
      description = "The row the range stops before (default: the table's end).")
  String stopRow;

  @Option(
      names = "--format",
      defaultValue = "text",
      description = "text or json (default ${DEFAULT-VALUE}).")
  String format;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (!QUERY_ID.matcher(query).matches()) {
      throw new IllegalArgumentException(
          "--query must be a query id of 32 lower-case hex digits, got '" + query + "'");
    }
    if (!format.equals("text") && !format.equals("json")) {
      throw new IllegalArgumentException("--format must be text or json, got '" + format + "'");
    }
    if (row != null && (startRow != null || stopRow != null)) {
      throw new IllegalArgumentException("give --row, or --start-row and --stop-row, not both");
    }
    if (!cluster.remote()) {
      throw new IllegalArgumentException(
          "profile reads a live cluster's regions: give --zk or --config");
    }
    KeyRanges ranges = ranges();
    TableName name = TableName.valueOf(table);
    try (ClusterClient c = ClusterClient.connect(cluster);
        Admin admin = c.connection.getAdmin();
        Table t = c.connection.getTable(name);
        RegionLocator locator = c.connection.getRegionLocator(name)) {
      if (!admin.tableExists(name)) {
        throw new IllegalArgumentException("no table " + table);
      }
      List<KeyRanges.Call> calls =
          KeyRanges.calls(ranges.regions(k -> bounds(locator.getRegionLocation(k))));
      long start = System.nanoTime();
      List<ProfileWire.Answer> answers = new ArrayList<>();
      int asked = 0;
      for (KeyRanges.Call call : calls) {
        answers.addAll(ask(t, call));
        asked += call.regions();
      }
      long nanos = System.nanoTime() - start;
      print(answers, asked, calls.size(), nanos);
    }
    return 0;
  }

  /** The key range the options name: a row, a range, or the whole table. */
  KeyRanges ranges() {
    if (row != null) {
      byte[] k = key("--row", row);
      return new KeyRanges().addScan(k, true, k, true, false);
    }
    KeyRanges r =
        new KeyRanges()
            .add(
                startRow == null ? new byte[0] : key("--start-row", startRow),
                stopRow == null ? new byte[0] : key("--stop-row", stopRow));
    if (r.isEmpty()) {
      throw new IllegalArgumentException(
          "--stop-row " + stopRow + " is not after --start-row " + startRow + ": no row between");
    }
    return r;
  }

  private static byte[] key(String option, String text) {
    if (text.isEmpty()) {
      throw new IllegalArgumentException(option + " is empty: a row key has at least one byte");
    }
    return Bytes.toBytesBinary(text);
  }

  private static byte[][] bounds(HRegionLocation l) {
    RegionInfo r = l.getRegion();
    return new byte[][] {r.getStartKey(), r.getEndKey()};
  }

  private List<ProfileWire.Answer> ask(Table t, KeyRanges.Call call) throws IOException {
    Map<byte[], Message> replies;
    try {
      replies =
          t.batchCoprocessorService(
              ProfileProtocol.GET_PROFILE,
              ProfileProtocol.request(query, user),
              call.start(),
              call.end(),
              DynamicMessage.getDefaultInstance(ProfileProtocol.RESPONSE));
    } catch (Throwable e) {
      throw e instanceof IOException ? (IOException) e : new IOException(e);
    }
    List<ProfileWire.Answer> answers = new ArrayList<>();
    for (Message m : replies.values()) {
      answers.add(ProfileWire.answer(m.toByteArray()));
    }
    return answers;
  }

  private void print(List<ProfileWire.Answer> answers, int asked, int calls, long nanos) {
    PrintWriter out = spec.commandLine().getOut();
    List<ProfileWire.Answer> found = new ArrayList<>();
    for (ProfileWire.Answer a : answers) {
      if (a.found) {
        found.add(a);
      }
    }
    found.sort((a, b) -> a.region.compareTo(b.region));
    if (format.equals("json")) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("table", table);
      doc.put("queryId", query);
      doc.put("regionsAsked", asked);
      doc.put("calls", calls);
      doc.put("nanos", nanos);
      List<Object> regions = new ArrayList<>();
      for (ProfileWire.Answer a : found) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("region", a.region);
        r.put("rows", a.rows);
        r.put("costs", new TreeMap<>(a.costs));
        regions.add(r);
      }
      doc.put("regions", regions);
      out.println(Json.write(doc));
      return;
    }
    out.printf(
        Locale.ROOT,
        "query %s on %s: %d of %d regions asked recorded it (%d %s, %.1f ms)%n",
        query,
        table,
        found.size(),
        asked,
        calls,
        calls == 1 ? "call" : "calls",
        nanos / 1e6);
    for (ProfileWire.Answer a : found) {
      StringBuilder b = new StringBuilder("  region ").append(a.region).append(": rows=");
      b.append(a.rows);
      Map<String, Long> costs = new TreeMap<>(a.costs);
      Long level = costs.remove(ProfileWire.LEVEL_APPLIED);
      Long reason = costs.remove(ProfileWire.LEVEL_REASON);
      for (Map.Entry<String, Long> e : costs.entrySet()) {
        b.append("; ").append(e.getKey()).append('=').append(e.getValue());
      }
      if (level != null && level >= 0 && level < PerfLevel.values().length) {
        b.append("; measured at ").append(PerfLevel.values()[level.intValue()]);
        if (reason != null && reason >= 0 && reason < ProfileWire.LEVEL_REASONS.length) {
          b.append(" (").append(ProfileWire.LEVEL_REASONS[reason.intValue()]).append(')');
        }
      }
      out.println(b);
    }
  }
}
