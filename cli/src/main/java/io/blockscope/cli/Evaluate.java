package io.blockscope.cli;

import io.blockscope.workloads.DataShape;
import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code blockscope evaluate}: the seeds' experiments as one command (docs/evaluate.md). */
@Command(
    name = "evaluate",
    mixinStandardHelpOptions = true,
    description =
        "Compare encodings x compressions on the seeds' workloads, with blockscope's"
            + " cost breakdown beside every timing; prints a summary, writes results.json and"
            + " report.html.")
final class Evaluate implements Callable<Integer> {
  @Option(
      names = "--rows",
      defaultValue = "2^16",
      paramLabel = "N|2^K",
      description =
          "Rows per table: a count (1024 to 67108864) or 2^K (K 10..26). Default ${DEFAULT-VALUE}.")
  String rows;

  @Option(
      names = "--matrix",
      paramLabel = "default|full",
      description =
          "default: the seeds' 10 combinations and BLOCKSCOPE_V1 alone, with GZ and with ZSTD"
              + " (13); full: every encoding x compression, BLOCKSCOPE_V1's too (30).")
  String matrix;

  @Option(
      names = "--full",
      description =
          "Every encoding x compression and every workload: --matrix full --workloads all"
              + " (about 30 times the default run's measuring).")
  boolean full;

  @Option(
      names = "--configs",
      split = ",",
      paramLabel = "ENC[+COMP]",
      description =
          "Explicit configurations instead of --matrix, e.g. FAST_DIFF,ROW_INDEX_V1+ZSTD.")
  List<String> configs;

  @Option(
      names = "--workloads",
      split = ",",
      paramLabel = "NAME",
      description =
          "Workloads to run, or all (default: one per cost an encoding or compression changes):"
              + " ${COMPLETION-CANDIDATES}")
  List<String> workloads;

  @Option(
      names = "--shape",
      defaultValue = "seeds",
      paramLabel = "seeds|pe",
      description =
          "seeds: the seeds' Phoenix table (default); pe: PerformanceEvaluation's"
              + " shape, 10-byte keys and one 1000-byte value per row (plain HBase workloads only).")
  String shape;

  @Option(
      names = "--sample",
      paramLabel = "TABLE",
      description =
          "Copy --rows rows of this existing table (any schema, as raw cells), an equal share"
              + " from each of up to 64 of its regions, into the scratch tables, and compare on"
              + " your own data. Read only.")
  String sample;

  @Option(
      names = "--suite",
      defaultValue = "default",
      paramLabel = "default|checksum|blockcache",
      description =
          "checksum: seed 001, CRC32C vs CRC32 vs NULL and HBase verification off,"
              + " timing a cold scan and a major compaction with process CPU and the checksum share."
              + " blockcache: seed 004, LruBlockCache vs off-heap BucketCache at data:cache 1:1, 3:1"
              + " and 9:1, get latency percentiles (embedded cluster only).")
  String suite;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description = "Timed runs per figure (default ${DEFAULT-VALUE}).")
  int runs;

  @Option(
      names = "--weights",
      defaultValue = "scan=1,get=1,size=1",
      description = "Workload mix for the recommendation (default ${DEFAULT-VALUE}).")
  String weights;

  @Option(
      names = "--keep-tables",
      description =
          "Keep each configuration's scratch table (in the BLOCKSCOPE_EVAL schema) after the run,"
              + " to check it against its store files; named and marked with the run's id, no"
              + " later run drops them.")
  boolean keepTables;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Report directory (default ./blockscope-report/<timestamp>).")
  Path out;

  /**
   * A real cluster to run on, on scratch tables in the schema (namespace) {@value
   * EvaluationRunner#SCHEMA}; without --zk, --config or --hbase-site, an embedded one.
   */
  @Mixin ClusterOptions target = new ClusterOptions();

  @Option(
      names = "--check",
      description =
          "Also check the timing forms of the seeds' relationships"
              + " (docs/relationships.md) and exit with 1 if one fails; without --matrix, --configs,"
              + " --workloads or --full it runs what they compare: every workload.")
  boolean check;

  @Spec CommandSpec spec;

  /** The runner in progress, for the Ctrl-C hook. */
  private volatile EvaluationRunner runner;

  @Override
  public Integer call() throws Exception {
    PrintWriter console = spec.commandLine().getOut();
    int rowCount = parseRows(rows);
    DataShape shapeGiven = sample != null ? DataShape.SAMPLE : DataShape.parse(shape);
    if (sample != null && !shape.equalsIgnoreCase("seeds")) {
      throw new IllegalArgumentException("give --sample or --shape, not both");
    }
    String suiteName = parseSuite(suite);
    if (full && (matrix != null || configs != null || workloads != null)) {
      throw new IllegalArgumentException(
          "--full is --matrix full --workloads all: give it or those, not both");
    }
    boolean checksumSuite = suiteName.equals("checksum");
    DataShape dataShape = shapeGiven;
    boolean blockcacheSuite = suiteName.equals("blockcache");
    if (blockcacheSuite && target.remote()) {
      throw new IllegalArgumentException(
          "--suite blockcache needs the embedded cluster: a client"
              + " cannot change a region server's block cache");
    }
    if (blockcacheSuite && sample == null) {
      dataShape = DataShape.PE; // seed 004 used PerformanceEvaluation's rows
    }
    List<TableConfig> cfgs = configs();
    if (checksumSuite) {
      List<TableConfig> variants = new ArrayList<>();
      for (TableConfig c : configs != null ? cfgs : List.of(TableConfig.parse("NONE"))) {
        variants.addAll(c.checksumVariants());
      }
      cfgs = variants;
    }
    List<Workload> ws = workloads(dataShape, suiteName);
    if (blockcacheSuite && configs == null) {
      cfgs = List.of(TableConfig.parse("NONE"));
    }
    if (runs < 1 || runs > 50) {
      throw new IllegalArgumentException("--runs must be between 1 and 50, got " + runs);
    }
    Recommendation.Weights w = Recommendation.Weights.parse(weights);
    target.validate();
    String started =
        LocalDateTime.now(ZoneId.systemDefault())
            .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = out != null ? out : Path.of("blockscope-report", started);

    long t0 = System.nanoTime();
    EvalCluster cluster;
    if (target.remote()) {
      cluster = RemoteEvalCluster.connect(target);
      console.println("Connected to the cluster as " + ((RemoteEvalCluster) cluster).user());
    } else if (blockcacheSuite) {
      cluster = null; // one embedded cluster per cache setup
    } else {
      String note = target.ignoredConfigNote();
      if (note != null) {
        console.println("Note: " + note);
      }
      console.println(
          "Starting an embedded cluster (MiniDFS + ZooKeeper + HBase + Phoenix +"
              + " blockscope)...");
      cluster = new EmbeddedEvalCluster();
    }
    Thread hook =
        new Thread(
            () -> {
              EvaluationRunner r = runner;
              if (r != null) {
                r.cleanUp();
              }
            },
            "blockscope-evaluate-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    Evaluation result;
    try {
      console.printf(
          Locale.ROOT,
          "%d configurations x %d workloads, %,d rows, %d runs each%n",
          cfgs.size(),
          ws.size(),
          rowCount,
          runs);
      if (blockcacheSuite) {
        result = blockCacheSuite(console, dataShape, cfgs, ws, rowCount);
        cluster = null;
      } else {
        runner =
            new EvaluationRunner(
                    cluster,
                    dataShape,
                    sample,
                    cfgs,
                    ws,
                    rowCount,
                    runs,
                    Progress.forConsole(console))
                .keepTables(keepTables);
        result = runner.run();
      }
    } finally {
      runner = null;
      removeHook(hook);
      if (cluster != null) {
        closeQuietly(cluster);
      }
    }
    result.settings.put("rows", rowCount);
    result.settings.put("runs", runs);
    result.settings.put("matrix", configs != null ? "explicit" : matrixName());
    result.settings.put("shape", dataShape.name().toLowerCase(Locale.ROOT));
    result.settings.put("sample", sample);
    result.settings.put("suite", suiteName);
    result.settings.put("started", started);
    result.settings.put("seconds", (System.nanoTime() - t0) / 1e9);
    Recommendation rec = new Recommendation(result, w);
    Map<String, Object> json = new LinkedHashMap<>(result.toMap());
    json.put("recommendation", rec.toMap());
    List<RelationshipChecks.Check> checks = check ? RelationshipChecks.run(result) : List.of();
    if (check) {
      json.put("checks", checks.stream().map(RelationshipChecks.Check::toMap).toList());
    }
    Report.write(dir, json);

    console.println();
    Summary.print(console, result, rec);
    console.println();
    console.println("Report: " + dir.resolve("report.html").toAbsolutePath());
    console.println("Raw figures: " + dir.resolve("results.json").toAbsolutePath());
    boolean passed = true;
    if (check) {
      console.println();
      passed = RelationshipChecks.print(console, checks);
    }
    console.printf(Locale.ROOT, "Done in %.0f s.%n", (System.nanoTime() - t0) / 1e9);
    return passed ? 0 : 1;
  }

  /** Removes a shutdown hook that has not run; one that is running goes on. */
  static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
  }

  /**
   * Stops the cluster without letting HBase's shutdown chatter (it prints thread dumps to standard
   * output) into the summary.
   */
  private static void closeQuietly(EvalCluster cluster) throws Exception {
    PrintStream stdout = System.out;
    System.setOut(new PrintStream(OutputStream.nullOutputStream()));
    try {
      cluster.close();
    } finally {
      System.setOut(stdout);
    }
  }

  /** {@code 131072} or {@code 2^17}; one clear error otherwise. */
  static int parseRows(String text) {
    String t = text.trim();
    long n;
    try {
      if (t.startsWith("2^")) {
        int k = Integer.parseInt(t.substring(2));
        if (k < 10 || k > 26) {
          throw new IllegalArgumentException("bad --rows '" + text + "': 2^K needs 10 <= K <= 26");
        }
        n = 1L << k;
      } else {
        n = Long.parseLong(t);
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "bad --rows '" + text + "': expected a number of rows (e.g. 131072) or 2^K (e.g. 2^17)");
    }
    if (n < 1024 || n > (1 << 26)) {
      throw new IllegalArgumentException(
          "bad --rows '" + text + "': between 1024 and 67108864 rows");
    }
    return (int) n;
  }

  /** The matrix asked for: {@code --full}'s, {@code --matrix}'s, else the default. */
  private String matrixName() {
    if (full) {
      return "full";
    }
    return matrix == null ? "default" : matrix.trim().toLowerCase(Locale.ROOT);
  }

  /** {@code --check} with nothing chosen runs what the checks compare. */
  private boolean checkChoosesRun() {
    return check && !full && matrix == null && configs == null && workloads == null;
  }

  List<TableConfig> configs() {
    if (configs != null && !configs.isEmpty()) {
      List<TableConfig> list = new ArrayList<>();
      for (String c : configs) {
        list.add(TableConfig.parse(c));
      }
      return list;
    }
    // each matrix adds blockscope's own encoding with the compressions it is weighed with
    // (skipped, with the reason, on a cluster whose master refuses it)
    List<TableConfig> list = new ArrayList<>();
    List<String> blockscopeV1;
    switch (matrixName()) {
      case "default" -> {
        list.addAll(TableConfig.seeds());
        blockscopeV1 = List.of("NONE", "GZ", "ZSTD");
      }
      case "full" -> {
        list.addAll(TableConfig.full());
        blockscopeV1 = TableConfig.COMPRESSIONS;
      }
      default ->
          throw new IllegalArgumentException("bad --matrix '" + matrix + "': default or full");
    }
    for (String compression : blockscopeV1) {
      list.add(new TableConfig("BLOCKSCOPE_V1", compression));
    }
    return list;
  }

  private static String parseSuite(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (!List.of("default", "checksum", "blockcache").contains(t)) {
      throw new IllegalArgumentException(
          "bad --suite '" + text + "': default, checksum or blockcache");
    }
    return t;
  }

  /** Data:cache ratios of seed 004. */
  static final int[] CACHE_RATIOS = {1, 3, 9};

  /**
   * Seed 004: the same table and gets on a fresh embedded cluster per block cache setup, the cache
   * sized to 1/1, 1/3 and 1/9 of the table's uncompressed data.
   */
  private Evaluation blockCacheSuite(
      PrintWriter console,
      DataShape dataShape,
      List<TableConfig> cfgs,
      List<Workload> ws,
      int rowCount)
      throws Exception {
    Evaluation all = null;
    long dataBytes =
        (long) rowCount * 1_050; // a PE row: 10-byte key, 1,000-byte value, cell overhead
    for (String engine : List.of("LRU", "BUCKET_OFFHEAP")) {
      for (int ratio : CACHE_RATIOS) {
        // BucketCache needs room for 14 buckets of 4 x its largest bucket size (129 KB here).
        long cacheBytes = Math.max(8L << 20, dataBytes / ratio);
        Configuration conf = new Configuration(false);
        double heap = Runtime.getRuntime().maxMemory();
        if (engine.equals("LRU")) {
          conf.set("hfile.block.cache.size", Double.toString(cacheBytes / heap));
        } else {
          conf.set("hbase.bucketcache.ioengine", "offheap");
          conf.set("hbase.bucketcache.size", Long.toString(cacheBytes >> 20)); // MB
          conf.set(
              "hbase.bucketcache.bucket.sizes",
              "5120,9216,17408,33792,41984,50176,58368,66560,99328,132096");
          conf.set("hfile.block.cache.size", "0.02"); // L1: index and bloom blocks only
        }
        String label = String.format(Locale.ROOT, " %s %d:1", engine, ratio);
        console.println("Block cache" + label + " (" + (cacheBytes >> 20) + " MB)...");
        EvalCluster c = new EmbeddedEvalCluster(conf);
        Evaluation one;
        try {
          runner =
              new EvaluationRunner(
                      c, dataShape, sample, cfgs, ws, rowCount, runs, Progress.forConsole(console))
                  .labelSuffix(label);
          one = runner.run();
        } finally {
          runner = null;
          closeQuietly(c);
        }
        if (all == null) {
          all = one;
          all.cluster.put("blockCacheSetups", new ArrayList<String>());
        } else {
          all.configs.addAll(one.configs);
        }
        @SuppressWarnings("unchecked")
        List<String> setups = (List<String>) all.cluster.get("blockCacheSetups");
        setups.add(
            label.trim()
                + ": "
                + one.cluster.get("blockCache")
                + ", "
                + one.cluster.get("blockCacheBytes")
                + " bytes");
      }
    }
    return all;
  }

  List<Workload> workloads(DataShape dataShape, String suiteName) {
    if (workloads == null || workloads.isEmpty()) {
      return switch (suiteName) {
        case "checksum" -> Workload.CHECKSUM_SUITE;
        case "blockcache" -> Workload.BLOCKCACHE_SUITE;
        default ->
            full || checkChoosesRun() ? Workload.all(dataShape) : Workload.defaults(dataShape);
      };
    }
    if (workloads.size() == 1 && workloads.get(0).trim().equalsIgnoreCase("all")) {
      return Workload.all(dataShape);
    }
    List<Workload> list = new ArrayList<>();
    for (String name : workloads) {
      Workload found = null;
      for (Workload w : Workload.values()) {
        if (w.key().equalsIgnoreCase(name.trim()) || w.name().equalsIgnoreCase(name.trim())) {
          found = w;
        }
      }
      if (found == null) {
        List<String> keys = new ArrayList<>();
        for (Workload w : Workload.values()) {
          keys.add(w.key());
        }
        throw new IllegalArgumentException(
            "unknown workload '" + name + "'; expected all or one of " + String.join(", ", keys));
      }
      list.add(found);
    }
    return list;
  }
}
