package io.blockscope.cli;

import io.blockscope.harness.BeanReader;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.workloads.DataShape;
import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.access.Permission;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code blockscope advise}: what a table should use, from its own reads on the live cluster
 * (docs/advise.md). It reads the table's settings and its read mix over a window from every region
 * server serving it, gives the block cache advice those figures support, and replays the mix on a
 * sample of the table's rows under candidate settings, on scratch tables in {@value
 * EvaluationRunner#SCHEMA}. It never writes, alters or flushes the user's table.
 */
@Command(
    name = "advise",
    mixinStandardHelpOptions = true,
    description =
        "What a table should use: reads its settings and its live read mix from the region"
            + " servers' /jmx over --window, gives the block cache advice the figures support,"
            + " and replays the mix on a sample of its rows under candidate encodings,"
            + " compressions, block sizes and bloom filter types (scratch tables in"
            + " BLOCKSCOPE_EVAL), with the ALTER for a winner or \"keep what you have\".")
final class Advise implements Callable<Integer> {
  /** Exit code: a table named is not on the cluster. */
  static final int MISSING_TABLE = 3;

  /** Exit code: the user may not read a table's settings or rows. */
  static final int NO_PERMISSION = 4;

  /**
   * Exit code: blockscope does not measure a table (not loaded on a server of it, or level OFF).
   */
  static final int NO_BLOCKSCOPE = 5;

  /** Exit code: a table had no reads in the window. */
  static final int EMPTY_WINDOW = 6;

  @Parameters(arity = "1..*", paramLabel = "TABLE", description = "Tables to advise (ns:table).")
  List<String> tables;

  @Mixin ClusterOptions target = new ClusterOptions();

  @Option(
      names = "--window",
      defaultValue = "3m",
      paramLabel = "Ns|Nm|start",
      description =
          "How long to watch the tables' reads (default ${DEFAULT-VALUE}; 10s to 60m), or"
              + " start: what the servers counted since blockscope's series appeared.")
  String window;

  @Option(
      names = "--rows",
      defaultValue = "20000",
      description =
          "Rows sampled per table, an equal share from each of up to 64 regions (default"
              + " ${DEFAULT-VALUE}; 1,000 to 10,000,000).")
  int rows;

  @Option(
      names = "--sample-mb",
      defaultValue = "64",
      description = "At most this many MB of cells sampled per table (default ${DEFAULT-VALUE}).")
  int sampleMb;

  @Option(
      names = "--configs",
      split = ",",
      paramLabel = "ENC[+COMP][@SIZE][@BLOOM]",
      description =
          "Candidates to replay besides the current setting (default: every encoding with the"
              + " current compression and with ZSTD, BLOCKSCOPE_V1 where the cluster has it, and"
              + " the current setting at block sizes 16K, 32K and 128K and with each bloom filter"
              + " type NONE, ROW, ROWCOL).")
  List<String> configs;

  @Option(
      names = "--runs",
      defaultValue = "5",
      description = "Timed runs per workload and candidate (default ${DEFAULT-VALUE}; 2 to 50).")
  int runs;

  @Option(
      names = "--budget",
      defaultValue = "30m",
      paramLabel = "Ns|Nm|Nh",
      description =
          "Time for each table's replay (default ${DEFAULT-VALUE}; 10s to 24h): candidates are"
              + " loaded in order while the estimated end stays within it; the current setting"
              + " and the first candidate always run; the rest are named as not replayed.")
  String budget;

  @Option(
      names = "--size-weight",
      defaultValue = "0.25",
      description =
          "Weight of store file size against the mix's gets and scans, which weigh 1 together"
              + " (default ${DEFAULT-VALUE}).")
  double sizeWeight;

  @Option(
      names = "--no-replay",
      description = "Only read the settings and the mix and give the cache advice; no sample.")
  boolean noReplay;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Report directory (default ./blockscope-advise/<timestamp>).")
  Path out;

  @Spec CommandSpec spec;

  private volatile EvaluationRunner runner;

  /** A refusal with its own exit code and message. */
  static final class Refused extends Exception {
    final int code;

    Refused(int code, String message) {
      super(message);
      this.code = code;
    }
  }

  /** What advise knows of a table before it watches it. */
  record Facts(
      TableName name,
      List<String> families,
      TableConfig current,
      int blockSize,
      String bloom,
      String settings,
      boolean phoenix,
      Set<ServerName> servers) {}

  @Override
  public Integer call() throws Exception {
    PrintWriter console = spec.commandLine().getOut();
    Duration watch = parseWindow(window);
    if (rows < 1000 || rows > 10_000_000) {
      throw new IllegalArgumentException("--rows must be 1000 to 10000000, got " + rows);
    }
    if (sampleMb < 1 || sampleMb > 65_536) {
      throw new IllegalArgumentException("--sample-mb must be 1 to 65536, got " + sampleMb);
    }
    if (runs < 2 || runs > 50) {
      throw new IllegalArgumentException("--runs must be 2 to 50, got " + runs);
    }
    Duration replayBudget = ReplayBudget.parse(budget);
    if (!(sizeWeight >= 0) || Double.isInfinite(sizeWeight)) {
      throw new IllegalArgumentException("--size-weight must be a number >= 0");
    }
    List<TableConfig> candidates = new ArrayList<>();
    for (String c : configs == null ? List.<String>of() : configs) {
      candidates.add(TableConfig.parse(c));
    }
    if (!target.remote()) {
      throw new IllegalArgumentException(
          "advise reads a live table's reads: give the cluster with --zk, --config or"
              + " --hbase-site (an embedded cluster has no reads to advise on)");
    }
    target.validate();
    String started =
        LocalDateTime.now(ZoneId.systemDefault())
            .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = out != null ? out : Path.of("blockscope-advise", started);
    try (RemoteEvalCluster cluster = RemoteEvalCluster.connect(target)) {
      console.println("Connected to the cluster as " + cluster.user());
      List<Facts> facts = new ArrayList<>();
      for (String t : new LinkedHashSet<>(tables)) {
        facts.add(inspect(cluster, t));
      }
      Map<TableName, List<LiveMix.Reading>> before = Map.of();
      long t0 = System.nanoTime();
      if (watch != null) {
        before = read(cluster.client(), facts);
        console.printf(
            Locale.ROOT,
            "Watching the reads of %s for %d s...%n",
            String.join(", ", facts.stream().map(f -> f.name().getNameAsString()).toList()),
            watch.toSeconds());
        console.flush();
        TimeUnit.NANOSECONDS.sleep(watch.toNanos());
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      Map<TableName, LiveMix> mixes = new LinkedHashMap<>();
      Map<TableName, List<LiveMix.Reading>> after = read(cluster.client(), facts);
      for (Facts f : facts) {
        LiveMix mix =
            LiveMix.between(before.getOrDefault(f.name(), List.of()), after.get(f.name()), seconds);
        if (mix.empty()) {
          throw new Refused(
              EMPTY_WINDOW,
              f.name()
                  + " had no reads "
                  + (watch == null ? "since its series appeared" : "in the " + window + " window")
                  + " on its "
                  + f.servers().size()
                  + " region server(s): advise needs its live reads (drive them, or use a"
                  + " longer --window)");
        }
        mixes.put(f.name(), mix);
      }
      for (Facts f : facts) {
        adviseOne(console, cluster, f, mixes.get(f.name()), candidates, replayBudget, dir, started);
      }
      return 0;
    } catch (Refused r) {
      spec.commandLine().getErr().println("blockscope: " + r.getMessage());
      return r.code;
    }
  }

  /** {@code 3m}, {@code 90s} or {@code start} (null: since the series appeared). */
  static Duration parseWindow(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("start")) {
      return null;
    }
    Duration d;
    try {
      if (t.endsWith("m")) {
        d = Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
      } else if (t.endsWith("s")) {
        d = Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
      } else {
        throw new NumberFormatException(t);
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "bad --window '" + text + "': seconds (90s), minutes (3m) or start");
    }
    if (d.toSeconds() < 10 || d.toMinutes() > 60) {
      throw new IllegalArgumentException("bad --window '" + text + "': 10s to 60m, or start");
    }
    return d;
  }

  /** The table's settings and servers, or the refusal that stops advise before it reads more. */
  static Facts inspect(RemoteEvalCluster cluster, String name) throws Exception {
    TableName tn;
    try {
      tn = TableName.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("bad table name '" + name + "': " + e.getMessage());
    }
    String user = cluster.user();
    if (!cluster.admin().tableExists(tn)) {
      throw new Refused(MISSING_TABLE, "no table '" + name + "' on this cluster");
    }
    if (tn.getNamespaceAsString().equals(EvaluationRunner.SCHEMA)) {
      throw new IllegalArgumentException(
          name + " is a scratch table of evaluate or advise (" + EvaluationRunner.SCHEMA + ")");
    }
    TableDescriptor d;
    try {
      d = cluster.admin().getDescriptor(tn);
    } catch (IOException e) {
      throw denied(
          e,
          user + " may not read the settings of " + name + " (HBase asks ADMIN or CREATE on it)");
    }
    if (!mayRead(cluster, tn)) {
      throw new Refused(
          NO_PERMISSION, user + " may not read the rows of " + name + " (HBase asks READ on it)");
    }
    String level = d.getValue(Attributes.TABLE_LEVEL);
    if (level != null && level.trim().equalsIgnoreCase("OFF")) {
      throw new Refused(
          NO_BLOCKSCOPE,
          name
              + " is at blockscope level OFF (its table attribute "
              + Attributes.TABLE_LEVEL
              + "), so no server measures its reads");
    }
    List<String> families = new ArrayList<>();
    StringBuilder settings = new StringBuilder();
    ColumnFamilyDescriptor first = null;
    for (ColumnFamilyDescriptor f : d.getColumnFamilies()) {
      families.add(f.getNameAsString());
      if (first == null) {
        first = f;
      }
      settings.append(
          String.format(
              Locale.ROOT,
              "%s%s: DATA_BLOCK_ENCODING %s, COMPRESSION %s, BLOCKSIZE %d, BLOOMFILTER %s,"
                  + " BLOCKCACHE %s, IN_MEMORY %s",
              settings.length() == 0 ? "" : "; ",
              f.getNameAsString(),
              f.getDataBlockEncoding(),
              f.getCompressionType(),
              f.getBlocksize(),
              f.getBloomFilterType(),
              f.isBlockCacheEnabled(),
              f.isInMemory()));
    }
    TableConfig current;
    try {
      current =
          new TableConfig(first.getDataBlockEncoding().name(), first.getCompressionType().name());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          name + "'s setting cannot be replayed here (" + e.getMessage() + ")");
    }
    boolean phoenix =
        d.getCoprocessorDescriptors().stream()
            .anyMatch(c -> c.getClassName().startsWith("org.apache.phoenix."));
    Set<ServerName> servers = servers(cluster.hbase(), tn);
    Map<ServerName, ClusterClient.InfoServer> info = cluster.client().liveInfoServers();
    for (ServerName s : servers) {
      String why = cluster.client().whyNoBlockscope(info.get(s));
      if (why != null) {
        throw new Refused(
            NO_BLOCKSCOPE,
            "blockscope does not measure "
                + name
                + ": region server "
                + s.getServerName()
                + ", which serves regions of it, "
                + why);
      }
    }
    return new Facts(
        tn,
        families,
        current,
        first.getBlocksize(),
        first.getBloomFilterType().name(),
        settings.toString(),
        phoenix,
        servers);
  }

  /**
   * Whether the user may read the table's rows, asked of HBase's AccessController ({@code
   * Admin.hasUserPermissions}) rather than tried: a read would count in the window advise watches.
   * A cluster without the AccessController answers with an error, and there everyone may read.
   */
  private static boolean mayRead(RemoteEvalCluster cluster, TableName tn) throws IOException {
    List<Boolean> answer;
    try {
      answer =
          cluster
              .admin()
              .hasUserPermissions(
                  List.of(Permission.newBuilder(tn).withActions(Permission.Action.READ).build()));
    } catch (IOException noAccessController) {
      for (Throwable c = noAccessController; c != null; c = c.getCause()) {
        if (c instanceof AccessDeniedException) {
          return false;
        }
      }
      return true;
    }
    return answer.isEmpty() || answer.get(0);
  }

  /** The refusal an access denial is, or the failure itself. */
  private static Exception denied(IOException e, String message) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof AccessDeniedException) {
        return new Refused(NO_PERMISSION, message + ": " + firstLine(c.getMessage()));
      }
    }
    return e;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** The region servers that serve a region of the table now. */
  private static Set<ServerName> servers(Connection c, TableName t) throws IOException {
    Set<ServerName> servers = new LinkedHashSet<>();
    try (RegionLocator l = c.getRegionLocator(t)) {
      for (HRegionLocation loc : l.getAllRegionLocations()) {
        if (loc.getServerName() != null) {
          servers.add(loc.getServerName());
        }
      }
    }
    return servers;
  }

  /**
   * One reading of each table on each region server that serves it now or served it at {@link
   * #inspect}: each server's blockscope table beans are fetched once for all the tables, and
   * HBase's request bean once per table.
   */
  private static Map<TableName, List<LiveMix.Reading>> read(ClusterClient client, List<Facts> facts)
      throws Exception {
    Map<ServerName, ClusterClient.InfoServer> info = client.liveInfoServers();
    Map<ServerName, List<Facts>> byServer = new LinkedHashMap<>();
    Map<TableName, List<LiveMix.Reading>> readings = new LinkedHashMap<>();
    for (Facts f : facts) {
      readings.put(f.name(), new ArrayList<>());
      Set<ServerName> servers = new LinkedHashSet<>(f.servers());
      servers.addAll(servers(client.connection, f.name()));
      for (ServerName s : servers) {
        byServer.computeIfAbsent(s, k -> new ArrayList<>()).add(f);
      }
    }
    for (Map.Entry<ServerName, List<Facts>> e : byServer.entrySet()) {
      ClusterClient.InfoServer where = info.get(e.getKey());
      if (where == null) {
        continue; // gone since: its regions moved, their reads went with them
      }
      Map<String, Map<String, Long>> series = new LinkedHashMap<>();
      for (BeanReader.Reading r : client.beans(where).read(MetricKeys.tableBeans())) {
        series
            .computeIfAbsent(MetricKeys.property(r.name(), "table"), k -> new LinkedHashMap<>())
            .merge(MetricKeys.property(r.name(), "name"), r.value(), Long::sum);
      }
      for (Facts f : e.getValue()) {
        long[] requests = null;
        for (String q : LiveMix.requestQueries(f.name())) {
          String body =
              client.infoServers.get(
                  where.host(),
                  where.port(),
                  "/jmx?qry=" + URLEncoder.encode(q, StandardCharsets.UTF_8));
          requests = LiveMix.requests(body, f.name());
          if (requests != null) {
            break;
          }
        }
        readings
            .get(f.name())
            .add(
                new LiveMix.Reading(
                    e.getKey().getServerName(),
                    series.getOrDefault(f.name().getNameAsString(), Map.of()),
                    requests == null ? 0 : requests[0],
                    requests == null ? 0 : requests[1],
                    requests != null));
      }
    }
    return readings;
  }

  private void adviseOne(
      PrintWriter console,
      RemoteEvalCluster cluster,
      Facts f,
      LiveMix mix,
      List<TableConfig> given,
      Duration replayBudget,
      Path dir,
      String started)
      throws Exception {
    String table = f.name().getNameAsString();
    console.println();
    console.println("== " + table + (f.phoenix() ? " (Phoenix)" : ""));
    console.println("Settings: " + f.settings());
    console.printf(
        Locale.ROOT,
        "Reads %s on %d server(s): %s; data blocks: %,d hits, %,d misses (hit ratio %s);"
            + " %,d cells decoded; %,d data blocks cached, %,d of them evicted unread%n",
        window.trim().equalsIgnoreCase("start")
            ? "since the series appeared"
            : String.format(Locale.ROOT, "in %.0f s", mix.seconds),
        mix.servers,
        mix.requestsKnown
            ? String.format(
                Locale.ROOT,
                "%,d gets, %,d scan RPCs (gets %.0f%%)",
                mix.gets,
                mix.scans,
                100 * mix.getShare())
            : "gets and scans unknown (hbase.regionserver.enable.table.latencies=false):"
                + " weighed equally",
        mix.hits("data"),
        mix.misses("data"),
        LiveMix.percent(mix.dataHitRatio()),
        mix.cellsDecoded(),
        mix.series("blockCache.inserted.data"),
        mix.series("blockCache.evictedUnread.data"));
    List<String> cacheAdvice = mix.cacheAdvice(table, f.families(), f.phoenix());
    console.println("Block cache:");
    if (cacheAdvice.isEmpty()) {
      console.println("  nothing to change: no figure of the window points at the cache.");
    }
    for (String a : cacheAdvice) {
      console.println("  - " + a);
    }
    Map<String, Object> json = new LinkedHashMap<>();
    Recommendation.Weights w = mix.weights(sizeWeight);
    Advice advice = null;
    Evaluation result = null;
    if (!noReplay) {
      List<TableConfig> cfgs = new ArrayList<>();
      cfgs.add(f.current());
      for (TableConfig c :
          given.isEmpty() ? defaultCandidates(f.current(), f.blockSize(), f.bloom()) : given) {
        if (!cfgs.contains(c)) {
          cfgs.add(c);
        }
      }
      List<Workload> ws = new ArrayList<>(List.of(Workload.RAW_GET, Workload.RAW_SCAN));
      if (!(mix.dataHitRatio() >= COLD_BELOW)) {
        ws.add(Workload.RAW_GET_COLD);
        ws.add(Workload.RAW_SCAN_NO_CACHE);
      }
      console.printf(
          Locale.ROOT,
          "Replaying %s on a sample of up to %,d rows under %d settings (%s)...%n",
          w,
          rows,
          cfgs.size(),
          String.join(", ", cfgs.stream().map(TableConfig::label).toList()));
      console.flush();
      runner =
          new EvaluationRunner(
                  cluster,
                  DataShape.SAMPLE,
                  table,
                  cfgs,
                  ws,
                  rows,
                  runs,
                  Progress.forConsole(console))
              .sampleBytes((long) sampleMb << 20)
              .interleave(true)
              .budget(replayBudget, budget.trim());
      Thread hook = new Thread(() -> cleanUp(), "blockscope-advise-cleanup");
      Runtime.getRuntime().addShutdownHook(hook);
      long replayStart = System.nanoTime();
      try {
        result = runner.run();
        console.printf(
            Locale.ROOT,
            "Replayed %d of %d settings in %.0f s (--budget %s)%n",
            result.configs.size(),
            cfgs.size(),
            (System.nanoTime() - replayStart) / 1e9,
            budget.trim());
      } finally {
        runner = null;
        Evaluate.removeHook(hook);
      }
      advice = Advice.of(result, f.current().label(), w, mix.dataHitRatio());
      printAdvice(console, f, advice, result);
    }
    if (result != null) {
      json.putAll(result.toMap());
    } else {
      json.put("configs", List.of());
    }
    json.put("tool", "blockscope advise 0.1.0");
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("rows", rows);
    settings.put("runs", runs);
    settings.put("shape", "sample");
    settings.put("sample", table);
    settings.put("started", started);
    settings.put("window", window);
    settings.put("budget", budget.trim());
    json.put("settings", settings);
    json.putAll(adviceJson(f, mix, w, cacheAdvice, advice));
    Path tableDir = dir.resolve(table.replace(':', '.'));
    Report.write(tableDir, json);
    console.println("Report: " + tableDir.resolve("report.html").toAbsolutePath());
    console.println("Raw figures: " + tableDir.resolve("results.json").toAbsolutePath());
  }

  /**
   * Below this data hit ratio in the window, the replay runs the cold variants too, and ranks each
   * setting at its expected hit ratio between them ({@link Advice#expectedHitRatio}).
   */
  static final double COLD_BELOW = 0.9;

  /**
   * results.json's {@code advice} (the table, its mix, the cache advice, and the replay's ranking
   * and advice unless {@code advice} is null) and {@code recommendation} (what the report shows).
   */
  static Map<String, Object> adviceJson(
      Facts f, LiveMix mix, Recommendation.Weights w, List<String> cacheAdvice, Advice advice) {
    Map<String, Object> a = new LinkedHashMap<>();
    a.put("table", f.name().getNameAsString());
    a.put("settings", f.settings());
    a.put("phoenix", f.phoenix());
    a.put("mix", mix.toMap());
    a.put("weights", w.toString());
    a.put("cacheAdvice", cacheAdvice);
    Map<String, Object> ranked = advice == null ? Map.of() : advice.toMap();
    a.putAll(ranked);
    if (advice != null) {
      a.put("alter", alter(f, advice));
    }
    Map<String, Object> rec = new LinkedHashMap<>();
    rec.put("text", advice == null ? "No replay (--no-replay)." : headline(advice));
    rec.put("recommended", advice == null ? null : advice.keep ? advice.current : advice.winner);
    rec.put("weights", w.toString());
    rec.put("ranking", advice == null ? List.of() : ranked.get("ranking"));
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("advice", a);
    json.put("recommendation", rec);
    return json;
  }

  /** The block sizes a default replay tries besides the table's own. */
  static final List<Integer> BLOCK_SIZES = List.of(16 << 10, 32 << 10, 128 << 10);

  /**
   * Every encoding with the current compression and with ZSTD, and BLOCKSCOPE_V1 with both; then
   * the current encoding and compression at each of {@link #BLOCK_SIZES} and with each bloom filter
   * type, other than the table's own ({@code blockSize} and {@code bloom} are its first family's).
   */
  static List<TableConfig> defaultCandidates(TableConfig current, int blockSize, String bloom) {
    List<TableConfig> list = new ArrayList<>();
    Set<String> compressions = new LinkedHashSet<>(List.of(current.compression(), "ZSTD"));
    for (String c : compressions) {
      for (String e : TableConfig.ENCODINGS) {
        list.add(new TableConfig(e, c));
      }
      list.add(new TableConfig("BLOCKSCOPE_V1", c));
    }
    list.remove(current);
    for (int size : BLOCK_SIZES) {
      if (size != blockSize) {
        list.add(new TableConfig(current.encoding(), current.compression(), "DEFAULT", size, ""));
      }
    }
    for (String b : TableConfig.BLOOMS) {
      if (!b.equals(bloom)) {
        list.add(new TableConfig(current.encoding(), current.compression(), "DEFAULT", 0, b));
      }
    }
    return list;
  }

  private static String headline(Advice a) {
    return a.keep
        ? "Keep what you have (" + a.current + "): " + a.why + "."
        : "Use " + a.winner + " instead of " + a.current + ": " + a.why + ".";
  }

  /** The statements that apply the winner, or none when the advice is to keep. */
  private static List<String> alter(Facts f, Advice a) {
    return a.keep
        ? List.of()
        : alter(f.name(), f.families(), f.phoenix(), TableConfig.parse(a.winner));
  }

  /**
   * The HBase shell's {@code alter} that gives every family of {@code name} the setting {@code c},
   * and for a Phoenix table its {@code ALTER TABLE}, whose schema is the namespace of a mapped
   * table or the part of the name before its first dot.
   */
  static List<String> alter(TableName name, List<String> families, boolean phoenix, TableConfig c) {
    List<String> s = new ArrayList<>();
    s.add(Advice.hbaseAlter(name.getNameAsString(), families, c));
    if (phoenix) {
      String q = name.getQualifierAsString();
      String schema = null;
      int dot = q.indexOf('.');
      if (!name.getNamespaceAsString().equals("default")) {
        schema = name.getNamespaceAsString();
      } else if (dot > 0) {
        schema = q.substring(0, dot);
        q = q.substring(dot + 1);
      }
      s.add(Advice.phoenixAlter(schema, q, c));
    }
    return s;
  }

  private static void printAdvice(PrintWriter console, Facts f, Advice a, Evaluation e) {
    console.println();
    if (a.ranked.stream().anyMatch(c -> !Double.isNaN(c.expectedHitRatio()))) {
      console.println(
          "Ranked at each setting's expected data hit ratio (the window's, scaled by its blocks'"
              + " cache footprint against the current setting's): "
              + String.join(
                  ", ",
                  a.ranked.stream()
                      .map(c -> c.config() + " " + LiveMix.percent(c.expectedHitRatio()))
                      .toList()));
    }
    console.printf(
        Locale.ROOT,
        "%-22s %8s %8s %9s %8s %8s %9s %11s %12s%n",
        "setting (vs current)",
        "score",
        "size",
        "in cache",
        "get",
        "get p99",
        "scan",
        "server/get",
        "server/scan");
    for (Advice.Candidate c : a.ranked) {
      console.printf(
          Locale.ROOT,
          "%-22s %8.3f %8s %9s %8s %8s %9s %11s %12s%n",
          c.config() + (c.config().equals(a.current) ? " *" : ""),
          c.score(),
          x(c.size()),
          x(c.cacheFootprint()),
          x(c.getTime()),
          x(c.getP99()),
          x(c.scanTime()),
          x(c.serverNanosPerRead()),
          x(c.serverNanosPerScan()));
    }
    for (String n : e.notes) {
      console.println("Note: " + n);
    }
    console.println();
    console.println(headline(a));
    for (String s : alter(f, a)) {
      console.println("  " + s);
    }
    if (!a.keep) {
      console.println(
          "  (new store files take the setting; major_compact '"
              + f.name().getNameAsString()
              + "' rewrites the old ones)");
    }
  }

  private static String x(double ratio) {
    return Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.2fx", ratio);
  }

  private void cleanUp() {
    EvaluationRunner r = runner;
    if (r != null) {
      r.cleanUp();
    }
  }
}
