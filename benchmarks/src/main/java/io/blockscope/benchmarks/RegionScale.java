package io.blockscope.benchmarks;

import io.blockscope.coprocessor.accounting.CostRegistry;
import io.blockscope.coprocessor.accounting.CostRegistry.RegionCosts;
import io.blockscope.coprocessor.accounting.ExportLimit;
import io.blockscope.harness.stock.StockCluster;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.Stats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.hbase.util.JSONBean;

/**
 * What a region server holding thousands of regions, and of tables, pays for blockscope's export:
 * one JVM per setting plays the region server's part (the engine's registry with N regions in
 * tables of 100, or spread evenly over {@code --tables} tables, each region having served one cold
 * and one warm read of a GZ, FAST_DIFF block, so that every region has its series; the tables'
 * reads differ, so that their ranking is not a tie) with the Prometheus JMX exporter's agent in it,
 * configured by the shipped {@code docs/prometheus/blockscope-jmx-exporter.yaml}, as
 * docs/dashboards.md deploys it. It measures:
 *
 * <ul>
 *   <li>the series (MBeans) blockscope registers, and the heap it holds per region, with and
 *       without them (used heap after a full GC, before and after);
 *   <li>{@code /jmx?qry=blockscope:*}: its bytes and the time HBase's own JSON writer ({@code
 *       JSONBean}, what the info server's {@code /jmx} runs) takes to write it;
 *   <li>the exporter's scrape: samples, bytes and time of {@code /metrics};
 *   <li>the registry's share of a region open and close at that size.
 * </ul>
 *
 * <p>{@code bin/blockscope region-scale [--regions 1000,5000] [--export all,top:100,none] [--tables
 * 1000] [--table-export all,top:200]}: {@code --export} is {@code blockscope.export.regions},
 * {@code --table-export} {@code blockscope.export.tables} (default {@code top:200}), each setting
 * of one run with each of the other; {@code --tables} defaults to one table per 100 regions.
 */
public final class RegionScale {
  private static final int REGIONS_PER_TABLE = 100;
  private static final int ROUNDS = 5;

  private RegionScale() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = options(args);
    if (opts.containsKey("child")) {
      child(opts);
      System.exit(0);
      return;
    }
    List<Integer> sizes = new ArrayList<>();
    for (String n : opts.getOrDefault("regions", "1000,5000").split(",")) {
      sizes.add(Integer.parseInt(n.trim()));
    }
    List<String> exports =
        Arrays.asList(opts.getOrDefault("export", "all,top:100,none").split(","));
    List<String> tableExports =
        Arrays.asList(opts.getOrDefault("table-export", "top:200").split(","));
    for (String e : exports) {
      ExportLimit.parse(e); // a bad policy fails here, not in a child
    }
    for (String e : tableExports) {
      ExportLimit.parse(e);
    }
    String tables = opts.getOrDefault("tables", "");
    Path root = SourceTree.root();
    Path config = root.resolve("docs/prometheus/blockscope-jmx-exporter.yaml");
    Path agent = agentJar(root);
    System.out.printf(
        Locale.ROOT,
        "%8s %-9s %7s %-9s %8s %10s %10s %10s %9s %9s %10s %9s %8s %8s%n",
        "regions",
        "export",
        "tables",
        "tbl exp",
        "series",
        "heap/reg",
        "+series",
        "jmx bytes",
        "jmx ms",
        "samples",
        "scrape B",
        "scrape ms",
        "open us",
        "close us");
    for (int n : sizes) {
      int t =
          tables.isEmpty()
              ? (n + REGIONS_PER_TABLE - 1) / REGIONS_PER_TABLE
              : Integer.parseInt(tables);
      for (String e : exports) {
        for (String te : tableExports) {
          System.out.println(runChild(agent, config, n, e.trim(), t, te.trim()));
        }
      }
    }
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> opts = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument " + args[i]);
      }
      String key = args[i].substring(2);
      String value = i + 1 < args.length && !args[i + 1].startsWith("--") ? args[++i] : "";
      opts.put(key, value);
    }
    return opts;
  }

  /** The source tree this class was built in (its classes are in benchmarks/target/classes). */
  private static Path agentJar(Path root) throws IOException {
    Path dir = root.resolve("benchmarks/target/prometheus");
    try (var files = Files.list(dir)) {
      return files
          .filter(f -> f.getFileName().toString().startsWith("jmx_prometheus_javaagent"))
          .findFirst()
          .orElseThrow(() -> new IllegalStateException("no exporter agent in " + dir));
    }
  }

  /** Runs one setting in a JVM of its own with the exporter's agent, and returns its line. */
  private static String runChild(
      Path agent, Path config, int regions, String export, int tables, String tableExport)
      throws Exception {
    int port = StockCluster.freePort();
    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
    cmd.add("-Xmx2g");
    cmd.add("-javaagent:" + agent + "=127.0.0.1:" + port + ":" + config);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(RegionScale.class.getName());
    cmd.addAll(
        Arrays.asList(
            "--child",
            "--regions",
            Integer.toString(regions),
            "--export",
            export,
            "--tables",
            Integer.toString(tables),
            "--table-export",
            tableExport,
            "--port",
            Integer.toString(port)));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String result = null;
    StringBuilder out = new StringBuilder();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (line.startsWith("RESULT ")) {
          result = line.substring(7);
        } else {
          out.append(line).append('\n');
        }
      }
    }
    if (p.waitFor() != 0 || result == null) {
      throw new IllegalStateException("region-scale child failed:\n" + out);
    }
    return result;
  }

  private static void child(Map<String, String> opts) throws Exception {
    int n = Integer.parseInt(opts.get("regions"));
    ExportLimit export = ExportLimit.parse(opts.get("export"));
    int nTables = Integer.parseInt(opts.get("tables"));
    if (nTables < 1 || nTables > n) {
      throw new IllegalArgumentException("--tables needs 1 to --regions tables, got " + nTables);
    }
    ExportLimit tableExport = ExportLimit.parse(opts.get("table-export"));
    String url = "http://127.0.0.1:" + opts.get("port") + "/metrics";
    MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
    ObjectName blockscope = new ObjectName("blockscope:*");

    long heap0 = usedHeapAfterGc();
    CostRegistry registry = new CostRegistry(export, 600_000, System::nanoTime);
    registry.exportTables(tableExport);
    registry.hold(300_000); // the default blockscope.export.min.ms
    registry.startJmx(mbs);
    String[] tables = new String[n];
    String[] names = new String[n];
    for (int i = 0; i < n; i++) {
      tables[i] = String.format(Locale.ROOT, "scale_t%05d", (int) ((long) i * nTables / n));
      names[i] = String.format(Locale.ROOT, "%032x", i * 0x9E3779B97F4A7C15L);
    }
    List<RegionCosts> regions = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      regions.add(registry.open(tables[i], names[i], PerfLevel.COUNT));
      registry.anyMeasured(); // what the engine asks at each open
    }
    double openUs = (System.nanoTime() - t0) / 1e3 / n;
    long[] read = typicalRead();
    for (int i = 0; i < n; i++) {
      long[] c = read.clone();
      // a table's reads grow with its number, so that the tables are ranked by their reads
      c[CostLayout.CACHE_HIT + CostLayout.KIND_DATA] += (long) i * nTables / n;
      regions.get(i).costs().drain(c);
    }
    long heapCosts = usedHeapAfterGc();
    registry.refreshExport();
    long heapSeries = usedHeapAfterGc();
    int series = mbs.queryNames(blockscope, null).size();

    List<Double> jmxMs = new ArrayList<>();
    long jmxBytes = 0;
    for (int i = 0; i < ROUNDS; i++) {
      CountingWriter w = new CountingWriter();
      long s = System.nanoTime();
      try (PrintWriter pw = new PrintWriter(w);
          JSONBean.Writer json = new JSONBean().open(pw)) {
        json.write(mbs, blockscope, null, false);
      }
      jmxMs.add((System.nanoTime() - s) / 1e6);
      jmxBytes = w.chars;
    }

    List<Double> scrapeMs = new ArrayList<>();
    int samples = 0;
    long scrapeBytes = 0;
    for (int i = 0; i <= ROUNDS; i++) { // the first one connects the exporter: not counted
      long s = System.nanoTime();
      String body = get(url);
      if (i > 0) {
        scrapeMs.add((System.nanoTime() - s) / 1e6);
      }
      scrapeBytes = body.length();
      samples = 0;
      for (String line : body.split("\n")) {
        if (line.startsWith("blockscope_")) {
          samples++;
        }
      }
    }

    long c0 = System.nanoTime();
    for (RegionCosts r : regions) {
      registry.close(r.region());
      registry.anyMeasured();
    }
    double closeUs = (System.nanoTime() - c0) / 1e3 / n;
    registry.close();

    System.out.printf(
        Locale.ROOT,
        "RESULT %8d %-9s %7d %-9s %8d %9.0fB %9.0fB %10d %9.1f %9d %10d %9.1f %8.2f %8.2f%n",
        n,
        export,
        nTables,
        tableExport,
        series,
        (heapCosts - heap0) / (double) n,
        (heapSeries - heapCosts) / (double) n,
        jmxBytes,
        Stats.median(jmxMs),
        samples,
        scrapeBytes,
        Stats.median(scrapeMs),
        openUs,
        closeUs);
  }

  /**
   * The costs one cold and one warm read of a block leave: a root index hit, a data block miss and
   * hit, its file-system read, checksum, GZ decompression and FAST_DIFF decoding; 12 series.
   */
  private static long[] typicalRead() {
    long[] c = new long[CostLayout.SIZE];
    c[CostLayout.CACHE_HIT + CostLayout.KIND_ROOT_INDEX] = 2;
    c[CostLayout.CACHE_HIT + CostLayout.KIND_DATA] = 1;
    c[CostLayout.CACHE_MISS + CostLayout.KIND_DATA] = 1;
    c[CostLayout.FS_BLOCKS + CostLayout.KIND_DATA] = 1;
    c[CostLayout.FS_BYTES + CostLayout.KIND_DATA] = 14_602;
    c[CostLayout.CHECKSUM_BYTES] = 14_569;
    c[CostLayout.CHECKSUM_CHUNKS] = 1;
    int gz = CostLayout.algorithmIndex("GZ");
    c[CostLayout.decompress(gz, CostLayout.DECOMPRESS_BLOCKS)] = 1;
    c[CostLayout.decompress(gz, CostLayout.DECOMPRESS_IN)] = 14_536;
    c[CostLayout.decompress(gz, CostLayout.DECOMPRESS_OUT)] = 65_565;
    int fastDiff = CostLayout.encodingIndex("FAST_DIFF");
    c[CostLayout.decode(fastDiff, CostLayout.DECODE_SEEKS)] = 2;
    c[CostLayout.decode(fastDiff, CostLayout.DECODE_CELLS)] = 4_000;
    return c;
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    Runtime rt = Runtime.getRuntime();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
      used = Math.min(used, rt.totalMemory() - rt.freeMemory());
    }
    return used;
  }

  private static String get(String url) throws Exception {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (true) {
      try {
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
        c.setConnectTimeout(5_000);
        c.setReadTimeout(600_000);
        try (InputStream in = c.getInputStream()) {
          return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
      } catch (IOException notYet) {
        if (System.nanoTime() > deadline) {
          throw notYet;
        }
        Thread.sleep(200);
      }
    }
  }

  /** Counts what HBase's JSON writer writes, as the bytes of {@code /jmx}'s answer (ASCII). */
  private static final class CountingWriter extends Writer {
    long chars;

    @Override
    public void write(char[] buf, int off, int len) {
      chars += len;
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }
}
