package io.blockscope.benchmarks;

import io.blockscope.coprocessor.BlockscopeRegionObserver;
import io.blockscope.harness.stock.RegionServer;
import io.blockscope.harness.stock.StockCluster;
import io.blockscope.metrics.ServerMetric;
import io.blockscope.metrics.Stats;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.Coprocessor;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * What blockscope costs a region server's region opens and closes, with thousands of regions: a
 * stock region server process ({@link StockCluster}) with the release's coprocessor jar and its
 * {@code -javaagent} (docs/deploy.md's way 1), holding three tables pre-split into {@code
 * --regions} regions each: one without a coprocessor, one with an observer that does nothing (what
 * HBase's loading of any table coprocessor costs a region open), and one with blockscope (its
 * {@code coprocessor} attribute).
 *
 * <p>Each round disables and enables the three tables, in a rotating order ({@link
 * InterleavedRounds}): HBase closes, then opens, every region of the table on the server, as it
 * does for each region in a server restart. The figures are the server's CPU in the threads that do
 * that work (HBase's {@code RS_OPEN_REGION} and {@code RS_CLOSE_REGION} executors, from Linux's
 * {@code /proc}) per region, and the wall time of the master's disable and enable. Per round, each
 * table's figure is divided by the figure of the table without a coprocessor; the report gives the
 * mean of these ratios with a 95% bootstrap interval.
 *
 * <p>By the time the first round runs, the server's blockscope engine has started (at the tables'
 * creation), and a first round that does not count has run, so the rounds show the cost of each
 * further region, not the one-time start or the JIT's compilation.
 *
 * <p>{@code --restart yes} measures whole server restarts instead ({@link Restarts}): per round,
 * each table in turn is the one enabled while the region server process is stopped and started
 * again; the figures are the new process's open executor CPU per region, its whole CPU and the wall
 * time from its launch until every region of the table is open, and the stop's wall time. Each
 * restart starts a cold JVM, as a real one does, so no round is left out for the JIT.
 *
 * <pre>
 * bin/blockscope region-open [--regions 1000] [--rounds 5] [--restart yes|no] [--out DIR]
 *     [--jfr FILE]
 * </pre>
 *
 * <p>{@code --jfr FILE} records the server with Java Flight Recorder (its {@code profile} settings,
 * a stack sample every 2 ms), writes the recording to FILE after the rounds and prints how many
 * samples of the open executor's threads have blockscope's frames ({@link OpenProfile}). The
 * recorder costs the server CPU of its own, so the figures of such a run are not the ones to quote.
 */
public final class RegionOpen {
  record Options(int regions, int rounds, Path out, Path jfr, boolean restart) {
    static Options read(BenchOptions o) {
      int regions = o.integer("--regions", 1000, 10);
      int rounds = o.integer("--rounds", 5, 2);
      boolean restart = o.option("--restart", "yes|no", false, BenchOptions::yesOrNo);
      Path out = o.path("--out", "DIR", Paths.get("benchmarks/target/region-open"));
      Path jfr = o.option("--jfr", "FILE", null, (a, v) -> Paths.get(v).toAbsolutePath());
      return new Options(regions, rounds, out, jfr, restart);
    }
  }

  /** The kernel's 15-character names of HBase's region open and close executor threads. */
  static final String OPENERS = "RS_OPEN_REGION-";

  static final String CLOSERS = "RS_CLOSE_REGIO";

  /** What one round measured for one table: its {@link #figures()}, in their order. */
  record Turn(List<Double> figures) {}

  private final Options options;

  /** The tables, by what they carry. */
  enum Setting {
    NONE("ro_none"),
    EMPTY_OBSERVER("ro_empty"),
    BLOCKSCOPE("ro_blockscope");

    final String table;

    Setting(String table) {
      this.table = table;
    }
  }

  /** [setting][round]. */
  private final Turn[][] turns;

  private RegionOpen(Options options) {
    this.options = options;
    this.turns = new Turn[Setting.values().length][options.rounds()];
  }

  public static void main(String[] args) throws Exception {
    BenchOptions.main("region-open", args, Options::read, options -> new RegionOpen(options).run());
  }

  private void run() throws Exception {
    System.out.printf(
        Locale.ROOT,
        "region-open: a stock HBase 2.6.1 region server with blockscope, three tables of %d regions"
            + " (no coprocessor, an empty observer, blockscope), %d rounds of %s%n",
        options.regions(),
        options.rounds(),
        options.restart() ? "a server restart with one table enabled" : "disable and enable");
    // a heap for 3 x --regions regions
    long heapMb = Math.max(640, 256 + options.regions() * 3 / 8);
    try (StockServer s = StockServer.start("region-open", Map.of(), serverOptions(heapMb))) {
      StockCluster c = s.cluster;
      Setting[] all = Setting.values();
      TableName[] tables = new TableName[all.length];
      for (Setting x : all) {
        tables[x.ordinal()] = create(c, x);
      }
      Rounds rounds;
      if (options.restart()) {
        rounds = new Restarts(c, s.server, tables);
      } else {
        ThreadTimes cpu = new ThreadTimes(s.server.pid(), "region-open");
        rounds = t -> cycle(c, cpu, t);
        // one round first that does not count: the server's JIT compiles the open and close paths
        for (TableName t : tables) {
          rounds.turn(t);
        }
      }
      new InterleavedRounds<>(List.of(all), options.rounds(), 1)
          .run(
              (x, round, turn) -> turns[x.ordinal()][round] = rounds.turn(tables[x.ordinal()]),
              round -> {
                StringBuilder line = new StringBuilder();
                for (Setting x : all) {
                  List<Double> f = turns[x.ordinal()][round].figures();
                  line.append(
                      String.format(Locale.ROOT, "  %s open %.0f us, %s;", x, f.get(0), detail(f)));
                }
                System.out.printf(
                    Locale.ROOT,
                    "round %d of %d (per region):%s%n",
                    round + 1,
                    options.rounds(),
                    line);
              });
      String profile =
          options.jfr() == null || options.restart()
              ? null
              : OpenProfile.of(s.server.pid(), options.jfr(), "all tables");
      if (!options.restart()) {
        checkRegionsOpen(s.server, options.regions(), "after the rounds");
      }
      String checked =
          "blockscope regions.open="
              + options.regions()
              + (options.restart() ? " after each of its restarts" : " for its table");
      print(System.out, checked);
      if (profile != null) {
        System.out.println(profile);
      }
      if (rounds instanceof Restarts r) {
        System.out.println(engineStarts(r.engineStarts));
      }
      write(options.out());
      s.succeeded();
    }
  }

  /** The second figure of a round's line: the close CPU, or a restart's wall time. */
  private String detail(List<Double> f) {
    return options.restart()
        ? String.format(Locale.ROOT, "start %.1f s", f.get(2) / 1e3)
        : String.format(Locale.ROOT, "close %.0f us", f.get(1));
  }

  /** One table's turn in a round. */
  interface Rounds {
    Turn turn(TableName t) throws Exception;
  }

  /**
   * The restart rounds: before a table's turn it is the one table enabled (the others disabled
   * while the server runs), then the region server process stops (SIGTERM; HBase's shutdown hook
   * closes the regions) and a new one starts, and the turn ends when every region of the table is
   * open on it and none is in transition. hbase:meta lives on the same server, so each start also
   * reopens it, as a restart of a cluster's only or first server does.
   */
  private final class Restarts implements Rounds {
    /** Per blockscope restart: the engine's start and the probes' installing, ms, from its log. */
    final List<long[]> engineStarts = new ArrayList<>();

    private final StockCluster c;
    private final RegionServer rs;
    private final TableName[] tables;

    Restarts(StockCluster c, RegionServer rs, TableName[] tables) {
      this.c = c;
      this.rs = rs;
      this.tables = tables;
    }

    @Override
    public Turn turn(TableName t) throws Exception {
      try (Admin admin = c.admin()) {
        for (TableName other : tables) {
          if (!other.equals(t) && admin.isTableEnabled(other)) {
            admin.disableTable(other);
          }
        }
        if (admin.isTableDisabled(t)) {
          admin.enableTable(t);
        }
      }
      long start = System.nanoTime();
      c.stop(rs);
      long stopped = System.nanoTime();
      c.relaunch(rs, rs.deployment());
      c.await(
          t + "'s " + options.regions() + " regions open on the restarted region server",
          600,
          100,
          () -> {
            try {
              return allOpen(t);
            } catch (IOException e) {
              return false;
            }
          });
      long online = System.nanoTime();
      Map<String, ThreadTimes.Task> threads = new ThreadTimes(rs.pid(), "region-open").read();
      double processMs = ThreadTimes.processCpuMs(rs.pid());
      // the new process ran blockscope on its table's regions, and on no other table's
      boolean blockscope = t.equals(tables[Setting.BLOCKSCOPE.ordinal()]);
      checkRegionsOpen(rs, blockscope ? options.regions() : 0, "after the restart with " + t);
      if (t.equals(tables[Setting.BLOCKSCOPE.ordinal()])) {
        engineStarts.add(engineStart(rs.log()));
        if (options.jfr() != null) {
          // each restart is a new process with a recording of its own: blockscope's last is kept
          System.out.println(
              OpenProfile.of(rs.pid(), options.jfr(), "this restart with blockscope's table"));
        }
      }
      int n = options.regions();
      return new Turn(
          List.of(
              ThreadTimes.between(Map.of(), threads, name -> name.startsWith(OPENERS)) / 1e3 / n,
              processMs,
              (online - stopped) / 1e6,
              (stopped - start) / 1e6));
    }

    private boolean allOpen(TableName t) throws IOException {
      ServerName sn = rs.serverName();
      if (sn == null || c.inTransition() != 0) {
        return false;
      }
      try (Admin admin = c.admin()) {
        int open = 0;
        for (RegionInfo r : admin.getRegions(sn)) {
          if (r.getTable().equals(t)) {
            open++;
          }
        }
        // a region count below the table's while nothing is in transition: the master has not
        // yet read the dead server's regions from hbase:meta
        return open == options.regions();
      }
    }
  }

  private static final Pattern ENGINE_START =
      Pattern.compile("blockscope: engine started .* started in (\\d+) ms, of which (\\d+) ms");

  /** The engine's start and probe installing times, ms, from its line in a server's log. */
  static long[] engineStart(Path log) throws IOException {
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      Matcher m = ENGINE_START.matcher(line);
      if (m.find()) {
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
      }
    }
    throw new IllegalStateException("no engine start with its times in " + log);
  }

  /** The medians of the engine starts' times, as a line; null without restarts. */
  private static String engineStarts(List<long[]> starts) {
    if (starts.isEmpty()) {
      return null;
    }
    double[] total = new double[starts.size()];
    double[] probes = new double[starts.size()];
    for (int i = 0; i < starts.size(); i++) {
      total[i] = starts.get(i)[0];
      probes[i] = starts.get(i)[1];
    }
    return String.format(
        Locale.ROOT,
        "blockscope's engine start, from the region server's log: %.0f ms, of which %.0f ms"
            + " installing the probes (medians of %d restarts)",
        Stats.median(total),
        Stats.median(probes),
        starts.size());
  }

  private TableName create(StockCluster c, Setting setting) throws IOException {
    TableName t = TableName.valueOf(setting.table);
    TableDescriptorBuilder table =
        TableDescriptorBuilder.newBuilder(t)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(Bytes.toBytes("f")));
    String observer =
        switch (setting) {
          case NONE -> null;
          case EMPTY_OBSERVER -> EmptyObserver.class.getName();
          case BLOCKSCOPE -> BlockscopeRegionObserver.class.getName();
        };
    if (observer != null) {
      table.setCoprocessor(
          CoprocessorDescriptorBuilder.newBuilder(observer)
              .setPriority(Coprocessor.PRIORITY_USER)
              .build());
    }
    byte[][] splits = new byte[options.regions() - 1][];
    for (int i = 1; i < options.regions(); i++) {
      splits[i - 1] = Bytes.toBytes(String.format(Locale.ROOT, "%08d", i));
    }
    try (Admin admin = c.admin()) {
      admin.createTable(table.build(), splits);
      if (admin.getRegions(t).size() != options.regions()) {
        throw new IllegalStateException(t + " has " + admin.getRegions(t).size() + " regions");
      }
    }
    return t;
  }

  private List<String> serverOptions(long heapMb) {
    List<String> jvm = new ArrayList<>();
    jvm.add("-Xmx" + heapMb + "m");
    if (options.jfr() != null) {
      jvm.add("-XX:StartFlightRecording=settings=profile,jdk.ExecutionSample#period=2ms");
    }
    return jvm;
  }

  /** Disables, then enables, one table; its regions' close and open CPU on the server. */
  private Turn cycle(StockCluster c, ThreadTimes cpu, TableName t) throws IOException {
    try (Admin admin = c.admin()) {
      var before = cpu.read();
      long start = System.nanoTime();
      admin.disableTable(t);
      long disabled = System.nanoTime();
      var mid = cpu.read();
      admin.enableTable(t);
      long enabled = System.nanoTime();
      var after = cpu.read();
      int n = options.regions();
      return new Turn(
          List.of(
              ThreadTimes.between(mid, after, name -> name.startsWith(OPENERS)) / 1e3 / n,
              ThreadTimes.between(before, mid, name -> name.startsWith(CLOSERS)) / 1e3 / n,
              (enabled - disabled) / 1e6,
              (disabled - start) / 1e6));
    }
  }

  /**
   * The server ran blockscope on {@code expected} regions: its region count gauge, from the
   * server's /jmx (absent: 0). Only blockscope's table carries it (no server-wide class), so that
   * is its table's region count, or 0 while its table is disabled.
   */
  private static void checkRegionsOpen(RegionServer rs, long expected, String when)
      throws Exception {
    java.util.OptionalLong open = rs.beans().serverValue(ServerMetric.REGIONS_OPEN);
    if (open.orElse(0) != expected) {
      throw new IllegalStateException(
          when + ", blockscope's regions.open on the server is " + open + ", not " + expected);
    }
  }

  private static double[][] column(Turn[] turns, int figure) {
    double[][] rounds = new double[turns.length][1];
    for (int r = 0; r < turns.length; r++) {
      rounds[r][0] = turns[r].figures().get(figure);
    }
    return rounds;
  }

  /** The figures of a turn, by name (the report's rows) and CSV column. */
  private List<String[]> figures() {
    return options.restart()
        ? List.of(
            new String[] {"open CPU us/region", "open_cpu_us"},
            new String[] {"server CPU ms", "server_cpu_ms"},
            new String[] {"start ms", "start_ms"},
            new String[] {"stop ms", "stop_ms"})
        : List.of(
            new String[] {"open CPU us/region", "open_cpu_us"},
            new String[] {"close CPU us/region", "close_cpu_us"},
            new String[] {"enable ms", "enable_ms"},
            new String[] {"disable ms", "disable_ms"});
  }

  private void print(PrintStream out, String checked) {
    out.printf(
        Locale.ROOT,
        "%n%-20s %10s %10s %10s  %-24s %-24s%n",
        "per round",
        "none",
        "empty obs.",
        "blockscope",
        "empty observer / none",
        "blockscope / none");
    List<String[]> fs = figures();
    for (int i = 0; i < fs.size(); i++) {
      double[][] none = column(turns[Setting.NONE.ordinal()], i);
      double[][] empty = column(turns[Setting.EMPTY_OBSERVER.ordinal()], i);
      double[][] blockscope = column(turns[Setting.BLOCKSCOPE.ordinal()], i);
      out.printf(
          Locale.ROOT,
          "%-20s %10.1f %10.1f %10.1f  %-24s %-24s%n",
          fs.get(i)[0],
          RoundRatio.medianOfMedians(none),
          RoundRatio.medianOfMedians(empty),
          RoundRatio.medianOfMedians(blockscope),
          text(RoundRatio.of(empty, none)),
          text(RoundRatio.of(blockscope, none)));
    }
    out.printf(
        Locale.ROOT,
        "%nnone, empty observer, blockscope: medians over %d rounds (%d regions a table). Ratio:"
            + " mean of the per-round ratios, [95%% bootstrap interval]. %s%n",
        options.rounds(),
        options.regions(),
        checked);
  }

  private static String text(RoundRatio r) {
    return String.format(Locale.ROOT, "%.3f [%.3f, %.3f]", r.mean(), r.low(), r.high());
  }

  private void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    StringBuilder csv = new StringBuilder("regions,round,table");
    for (String[] f : figures()) {
      csv.append(',').append(f[1]);
    }
    csv.append('\n');
    for (int t = 0; t < Setting.values().length; t++) {
      for (int r = 0; r < options.rounds(); r++) {
        csv.append(options.regions()).append(',').append(r + 1).append(',');
        csv.append(Setting.values()[t]);
        for (double x : turns[t][r].figures()) {
          csv.append(String.format(Locale.ROOT, ",%.1f", x));
        }
        csv.append('\n');
      }
    }
    String name = (options.restart() ? "region-restart-" : "region-open-") + options.regions();
    Path file = dir.resolve(name + ".csv");
    Files.writeString(file, csv, StandardCharsets.UTF_8);
    System.out.println("written: " + file);
  }
}
