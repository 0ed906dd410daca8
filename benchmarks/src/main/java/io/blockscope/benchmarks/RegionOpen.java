package io.blockscope.benchmarks;

import io.blockscope.coprocessor.BlockscopeRegionObserver;
import io.blockscope.harness.stock.StockCluster;
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
import org.apache.hadoop.hbase.Coprocessor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
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
 * <p>Each round disables and enables the three tables, in a rotating order: HBase closes, then
 * opens, every region of the table on the server, as it does for each region in a server restart.
 * The figures are the server's CPU in the threads that do that work (HBase's {@code RS_OPEN_REGION}
 * and {@code RS_CLOSE_REGION} executors, from Linux's {@code /proc}) per region, and the wall time
 * of the master's disable and enable. Per round, each table's figure is divided by the figure of
 * the table without a coprocessor; the report gives the mean of these ratios with a 95% bootstrap
 * interval.
 *
 * <p>By the time the first round runs, the server's blockscope engine has started (at the tables'
 * creation), and a first round that does not count has run, so the rounds show the cost of each
 * further region, not the one-time start or the JIT's compilation.
 *
 * <pre>
 * bin/blockscope region-open [--regions 1000] [--rounds 5] [--out DIR] [--jfr FILE]
 * </pre>
 *
 * <p>{@code --jfr FILE} records the server with Java Flight Recorder (its {@code profile} settings,
 * a stack sample every 2 ms), writes the recording to FILE after the rounds and prints how many
 * samples of the open executor's threads have blockscope's frames ({@link OpenProfile}). The
 * recorder costs the server CPU of its own, so the figures of such a run are not the ones to quote.
 */
public final class RegionOpen {
  record Options(int regions, int rounds, Path out, Path jfr) {
    static Options parse(String[] args) {
      int regions = 1000;
      int rounds = 5;
      Path out = Paths.get("benchmarks/target/region-open");
      Path jfr = null;
      for (String[] option : Args.pairs(args)) {
        String a = option[0];
        String v = option[1];
        switch (a) {
          case "--regions" -> regions = Args.atLeast(a, v, 10);
          case "--rounds" -> rounds = Args.atLeast(a, v, 2);
          case "--out" -> out = Paths.get(v);
          case "--jfr" -> jfr = Paths.get(v).toAbsolutePath();
          default -> throw new IllegalArgumentException("unknown option " + a);
        }
      }
      return new Options(regions, rounds, out, jfr);
    }
  }

  /** The kernel's 15-character names of HBase's region open and close executor threads. */
  static final String OPENERS = "RS_OPEN_REGION-";

  static final String CLOSERS = "RS_CLOSE_REGIO";

  /** What one round measured for one table. */
  record Turn(double openCpuUs, double closeCpuUs, double enableMs, double disableMs) {}

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
    Args.main(
        "region-open",
        "[--regions 1000] [--rounds 5] [--out DIR] [--jfr FILE]",
        args,
        Options::parse,
        options -> new RegionOpen(options).run());
  }

  private void run() throws Exception {
    System.out.printf(
        Locale.ROOT,
        "region-open: a stock HBase 2.6.1 region server with blockscope, three tables of %d regions"
            + " (no coprocessor, an empty observer, blockscope), %d rounds of disable and enable%n",
        options.regions(),
        options.rounds());
    // a heap for 3 x --regions regions
    long heapMb = Math.max(640, 256 + options.regions() * 3 / 8);
    try (StockServer s = StockServer.start("region-open", Map.of(), serverOptions(heapMb))) {
      StockCluster c = s.cluster;
      ThreadTimes cpu = new ThreadTimes(s.server.pid(), "region-open");
      Setting[] all = Setting.values();
      TableName[] tables = new TableName[all.length];
      for (Setting x : all) {
        tables[x.ordinal()] = create(c, x);
      }
      // one round first that does not count: the server's JIT compiles the open and close paths
      for (Setting x : all) {
        turn(c, cpu, tables[x.ordinal()]);
      }
      for (int round = 0; round < options.rounds(); round++) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < all.length; i++) {
          int t = (i + round) % all.length;
          turns[t][round] = turn(c, cpu, tables[t]);
        }
        for (Setting x : all) {
          Turn turn = turns[x.ordinal()][round];
          line.append(
              String.format(
                  Locale.ROOT,
                  "  %s open %.0f us, close %.0f us;",
                  x,
                  turn.openCpuUs(),
                  turn.closeCpuUs()));
        }
        System.out.printf(
            Locale.ROOT, "round %d of %d (per region):%s%n", round + 1, options.rounds(), line);
      }
      String profile = options.jfr() == null ? null : OpenProfile.of(s.server.pid(), options.jfr());
      String checked = checkLoaded(c, tables[Setting.BLOCKSCOPE.ordinal()]);
      print(System.out, checked);
      if (profile != null) {
        System.out.println(profile);
      }
      write(options.out());
      s.succeeded();
    }
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
  private Turn turn(StockCluster c, ThreadTimes cpu, TableName t) throws IOException {
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
          ThreadTimes.between(mid, after, name -> name.startsWith(OPENERS)) / 1e3 / n,
          ThreadTimes.between(before, mid, name -> name.startsWith(CLOSERS)) / 1e3 / n,
          (enabled - disabled) / 1e6,
          (disabled - start) / 1e6);
    }
  }

  /**
   * The server ran blockscope on the table's regions: its region count gauge, from the server's
   * /jmx, is the table's region count. Returns what it read.
   */
  private String checkLoaded(StockCluster c, TableName t) throws Exception {
    java.util.OptionalLong open = c.regionServers().get(0).beans().serverValue("regions.open");
    // only this table carries blockscope (no server-wide class): exactly its regions
    if (open.isEmpty() || open.getAsLong() != options.regions()) {
      throw new IllegalStateException(
          "blockscope's regions.open on the server is not " + options.regions() + ": " + open);
    }
    return "blockscope regions.open=" + open.getAsLong() + " for " + t;
  }

  private static double[][] column(Turn[] turns, java.util.function.ToDoubleFunction<Turn> f) {
    double[][] rounds = new double[turns.length][1];
    for (int r = 0; r < turns.length; r++) {
      rounds[r][0] = f.applyAsDouble(turns[r]);
    }
    return rounds;
  }

  private static final List<String> FIGURES =
      List.of("open CPU us/region", "close CPU us/region", "enable ms", "disable ms");

  private List<java.util.function.ToDoubleFunction<Turn>> figures() {
    return List.of(Turn::openCpuUs, Turn::closeCpuUs, Turn::enableMs, Turn::disableMs);
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
    List<java.util.function.ToDoubleFunction<Turn>> fs = figures();
    for (int i = 0; i < fs.size(); i++) {
      double[][] none = column(turns[Setting.NONE.ordinal()], fs.get(i));
      double[][] empty = column(turns[Setting.EMPTY_OBSERVER.ordinal()], fs.get(i));
      double[][] blockscope = column(turns[Setting.BLOCKSCOPE.ordinal()], fs.get(i));
      out.printf(
          Locale.ROOT,
          "%-20s %10.1f %10.1f %10.1f  %-24s %-24s%n",
          FIGURES.get(i),
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
    StringBuilder csv =
        new StringBuilder("regions,round,table,open_cpu_us,close_cpu_us,enable_ms,disable_ms\n");
    for (int t = 0; t < Setting.values().length; t++) {
      for (int r = 0; r < options.rounds(); r++) {
        Turn x = turns[t][r];
        csv.append(
            String.format(
                Locale.ROOT,
                "%d,%d,%s,%.1f,%.1f,%.1f,%.1f%n",
                options.regions(),
                r + 1,
                Setting.values()[t],
                x.openCpuUs(),
                x.closeCpuUs(),
                x.enableMs(),
                x.disableMs()));
      }
    }
    Path file = dir.resolve("region-open-" + options.regions() + ".csv");
    Files.writeString(file, csv, StandardCharsets.UTF_8);
    System.out.println("written: " + file);
  }
}
