package io.blockscope.benchmarks;

import io.blockscope.benchmarks.InterleavedRounds.Samples;
import io.blockscope.coprocessor.BlockscopeRegionObserver;
import io.blockscope.coprocessor.Diagnostics;
import io.blockscope.coprocessor.accounting.CostRegistry.RegionCosts;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.coprocessor.probe.ProbeInstaller;
import io.blockscope.encoding.BlockscopeEncoding;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.workloads.RawTable;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.BlockCacheFactory;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.regionserver.BenchmarkRegions;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.RegionCoprocessorHost;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WALFactory;

/**
 * What blockscope costs a region server's read CPU, measured where nothing else moves: HBase's own
 * {@link HRegion} opened in this JVM on the local file system, with a warm block cache, and no RPC,
 * client or network in the way. Each read is served as a region server's RPC handler serves it:
 * {@code RSRpcServices} calls the coprocessor host's scanner hooks around {@code getScanner} and
 * each batch of {@code nextRaw}, {@code HRegion.get(Get, true)} calls the get hooks, and the end of
 * each call is the {@code rpcCall} probe ({@link ProbeBridge#callEnded}).
 *
 * <p>Modes: {@code NOT_INSTALLED} (probes taken out of HBase's bytecode, no coprocessor host: HBase
 * skips every hook, as on a server without coprocessors), {@code EMPTY_OBSERVER} (a RegionObserver
 * that does nothing, loaded as blockscope's is: what HBase's own hook calls cost any observer), and
 * blockscope installed at OFF, COUNT and TIME (a live level change, as {@code update_config} makes
 * it). The modes run interleaved, round by round in a rotating order ({@link InterleavedRounds}),
 * on the same regions and cached blocks. A sample is a batch of one workload's operations worth
 * about {@code --sample-ms} of CPU; its figure is the benchmark thread's CPU time ({@link
 * ThreadMXBean#getCurrentThreadCpuTime}) per operation. Per round, each mode's median sample is
 * divided by NOT_INSTALLED's of the same round; the report gives the mean of these ratios over the
 * rounds with a 95% bootstrap interval.
 *
 * <p>A COUNT round whose probes counted nothing, or any round that missed the block cache, fails
 * the run: a mode that measured nothing, or a cache that was not warm, proves nothing.
 *
 * <pre>
 * bin/blockscope region-overhead [--rows 50000] [--rounds 12] [--samples 5] [--sample-ms 20]
 *     [--encodings FAST_DIFF,ROW_INDEX_V1,GZ,BLOCKSCOPE_V1] [--out DIR]
 * </pre>
 */
public final class RegionOverhead {
  enum Mode {
    NOT_INSTALLED,
    EMPTY_OBSERVER,
    OFF,
    COUNT,
    TIME
  }

  enum Workload {
    FULL_SCAN("full scan"),
    SHORT_SCAN("scan 100 rows"),
    GET("get"),
    REVERSE_SCAN("reverse scan 100 rows");

    final String label;

    Workload(String label) {
      this.label = label;
    }
  }

  /** Rows a scan RPC returns, as a client's scanner caching of 1000 asks. */
  static final int FULL_SCAN_BATCH = 1000;

  static final int SHORT_SCAN_ROWS = 100;

  private final ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
  private final Options options;
  private final List<Subject> subjects = new ArrayList<>();
  private final Random random = new Random(7);
  private Mode current;
  private long sink;

  /** The block cache's misses and the time at the start of the round running. */
  private long[] roundMisses;

  private long roundStarted;

  /** One region of one table setting. */
  static final class Subject {
    final String name;
    final HRegion region;
    final int rows;

    /** The region's coprocessor hosts: blockscope's observer, and an observer that does nothing. */
    RegionCoprocessorHost blockscope;

    RegionCoprocessorHost empty;

    /** Operations per sample, per workload, found once at the start. */
    final int[] opsPerSample = new int[Workload.values().length];

    /** By workload: CPU ns per operation. */
    final Map<Workload, Samples<Mode>> cpuNs = new EnumMap<>(Workload.class);

    /** By workload: wall ns per operation. */
    final Map<Workload, Samples<Mode>> wallNs = new EnumMap<>(Workload.class);

    Subject(String name, HRegion region, int rows, int rounds, int samples) {
      this.name = name;
      this.region = region;
      this.rows = rows;
      for (Workload w : Workload.values()) {
        cpuNs.put(w, new Samples<>(List.of(Mode.values()), rounds, samples));
        wallNs.put(w, new Samples<>(List.of(Mode.values()), rounds, samples));
      }
    }
  }

  record Options(
      int rows, int rounds, int samples, long sampleNs, List<String> encodings, Path out) {
    /** The table settings measured by default. */
    static final List<String> ENCODINGS =
        List.of("FAST_DIFF", "ROW_INDEX_V1", "GZ", "BLOCKSCOPE_V1");

    static Options read(BenchOptions o) {
      return new Options(
          o.integer("--rows", 50_000, 1000),
          o.integer("--rounds", 12, 3),
          o.integer("--samples", 5, 1),
          o.integer("--sample-ms", 20, 1) * 1_000_000L,
          o.option(
              "--encodings",
              String.join(",", ENCODINGS),
              ENCODINGS,
              (a, v) -> encodings(List.of(v.split(",")))),
          o.path("--out", "DIR", Paths.get("benchmarks/target/region-overhead")));
    }

    private static List<String> encodings(List<String> encodings) {
      for (String e : encodings) {
        if (!List.of("FAST_DIFF", "ROW_INDEX_V1", "GZ", "BLOCKSCOPE_V1", "NONE").contains(e)) {
          throw new IllegalArgumentException(
              "--encodings: unknown " + e + " (FAST_DIFF, ROW_INDEX_V1, GZ, BLOCKSCOPE_V1, NONE)");
        }
      }
      return encodings;
    }
  }

  private RegionOverhead(Options options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("--chart")) {
      Path csv = Paths.get(args[1]);
      Path svg = csv.resolveSibling(csv.getFileName().toString().replace(".csv", ".svg"));
      Files.writeString(
          svg, RatioChart.svg(RegionOverheadResults.fromCsv(csv).rows), StandardCharsets.UTF_8);
      System.out.println("written: " + svg);
      return;
    }
    BenchOptions.main(
        "region-overhead",
        args,
        Options::read,
        options -> {
          if (!ManagementFactory.getThreadMXBean().isCurrentThreadCpuTimeSupported()) {
            throw new IllegalStateException("this JVM cannot measure thread CPU time");
          }
          new RegionOverhead(options).run();
        });
  }

  private void run() throws Exception {
    Path root = Files.createTempDirectory("blockscope-region-overhead");
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.rootdir", root.toUri().toString());
    conf.set("hbase.wal.provider", "filesystem");
    conf.setBoolean("hbase.unsafe.stream.capability.enforce", false); // the local file system
    conf.setBoolean("hbase.hregion.memstore.mslab.enabled", false);
    conf.setLong("blockscope.export.interval.ms", 3_600_000L); // no exporter work while measuring
    BlockCache cache = BlockCacheFactory.createBlockCache(conf);
    WALFactory wals = new WALFactory(conf, "region-overhead");
    try {
      for (String setting : options.encodings()) {
        subjects.add(open(conf, wals, cache, setting));
      }
      System.out.printf(
          Locale.ROOT,
          "region-overhead: %d rows per region, %d rounds x %d samples of ~%d ms CPU, modes %s%n",
          options.rows(),
          options.rounds(),
          options.samples(),
          options.sampleNs() / 1_000_000,
          Arrays.toString(Mode.values()));
      measure();
      RegionOverheadResults results = new RegionOverheadResults(subjects, options);
      results.print(System.out);
      results.write(options.out());
    } finally {
      for (Subject s : subjects) {
        s.region.close();
      }
      wals.close();
      cache.shutdown();
      FileUtil.fullyDelete(root.toFile());
    }
  }

  // ---- the regions ----------------------------------------------------------------------------

  private Subject open(Configuration conf, WALFactory wals, BlockCache cache, String setting)
      throws IOException {
    ColumnFamilyDescriptorBuilder family =
        ColumnFamilyDescriptorBuilder.newBuilder(RawTable.SEED_FAMILY);
    switch (setting) {
      case "GZ" -> {
        family.setCompressionType(Compression.Algorithm.GZ);
        // cached as stored, so that every block access decompresses: the decompression probe's
        // case on a warm cache (with the default, GZ blocks are cached unpacked and read as NONE)
        family.setConfiguration(CacheConfig.CACHE_DATA_BLOCKS_COMPRESSED_KEY, "true");
      }
      case "BLOCKSCOPE_V1" -> family.setDataBlockEncoding(BlockscopeEncoding.register());
      default -> family.setDataBlockEncoding(DataBlockEncoding.valueOf(setting));
    }
    TableName name = TableName.valueOf("overhead_" + setting.toLowerCase(Locale.ROOT));
    TableDescriptor table =
        TableDescriptorBuilder.newBuilder(name).setColumnFamily(family.build()).build();
    RegionInfo info = RegionInfoBuilder.newBuilder(name).build();
    HRegion region =
        HRegion.createHRegion(
            info,
            new org.apache.hadoop.fs.Path(conf.get("hbase.rootdir")),
            conf,
            table,
            wals.getWAL(info),
            false);
    region.setBlockCache(cache);
    BenchmarkRegions.initialize(region);
    Random r = new Random(1);
    for (int pk = 0; pk < options.rows(); pk++) {
      region.put(
          new Put(RawTable.seedRow(pk))
              .setDurability(Durability.SKIP_WAL)
              .addColumn(RawTable.SEED_FAMILY, RawTable.SEED_V1, Bytes.toBytes(r.nextFloat()))
              .addColumn(RawTable.SEED_FAMILY, RawTable.SEED_V2, Bytes.toBytes(r.nextFloat())));
    }
    region.flush(true);
    region.compact(true);
    Subject s = new Subject(setting, region, options.rows(), options.rounds(), options.samples());
    // HRegion loads coprocessors only under a region server: the benchmark gives each region two
    // hosts loading one observer each as a region server would (hbase.coprocessor.region.classes),
    // and a mode sets the one HRegion and HStore call (none: HBase skips every hook)
    s.blockscope = host(region, conf, BlockscopeRegionObserver.class);
    s.empty = host(region, conf, EmptyObserver.class);
    region.setCoprocessorHost(s.blockscope);
    current = Mode.COUNT;
    long cells = fullScan(s, true); // warms the cache: every block of the region
    if (cells != 2L * options.rows()) {
      throw new IllegalStateException(setting + ": a full scan returned " + cells + " cells");
    }
    return s;
  }

  private static RegionCoprocessorHost host(
      HRegion region, Configuration conf, Class<? extends RegionObserver> observer) {
    Configuration c = new Configuration(conf);
    c.set(CoprocessorHost.REGION_COPROCESSOR_CONF_KEY, observer.getName());
    RegionCoprocessorHost host = new RegionCoprocessorHost(region, null, c);
    if (host.findCoprocessor(observer.getName()) == null) {
      throw new IllegalStateException(observer.getName() + " did not load");
    }
    return host;
  }

  /** A RegionObserver that does nothing: what HBase's hooks cost any observer. */
  // ---- one operation each, served as a region server's handler serves it ----------------------

  private void callEnded() {
    if (current.compareTo(Mode.OFF) >= 0) {
      // what the rpcCall probe runs around CallRunner.run: the depth read at its entry, then its
      // exit (both at the call's end here: the frames of the call are closed by then)
      ProbeBridge.callEnded(ProbeBridge.callStarted());
    }
  }

  private RegionScanner openScanner(HRegion region, Scan scan, boolean installed)
      throws IOException {
    RegionCoprocessorHost host = installed ? region.getCoprocessorHost() : null;
    if (host != null) {
      host.preScannerOpen(scan);
    }
    RegionScanner scanner = region.getScanner(scan);
    if (host != null) {
      scanner = host.postScannerOpen(scan, scanner);
    }
    callEnded();
    return scanner;
  }

  /** One scan RPC: up to {@code rows} rows; returns the cells, negative when the scan is done. */
  private long nextBatch(HRegion region, RegionScanner scanner, int rows, boolean installed)
      throws IOException {
    RegionCoprocessorHost host = installed ? region.getCoprocessorHost() : null;
    List<Result> results = new ArrayList<>();
    if (host != null) {
      host.preScannerNext(scanner, results, rows);
    }
    long cells = 0;
    boolean more = true;
    List<Cell> row = new ArrayList<>();
    region.startRegionOperation();
    try {
      for (int i = 0; i < rows && more; i++) {
        more = scanner.nextRaw(row);
        cells += row.size();
        if (!row.isEmpty()) {
          sink += row.get(0).getValueLength();
        }
        row.clear();
      }
    } finally {
      region.closeRegionOperation();
    }
    if (host != null) {
      host.postScannerNext(scanner, results, rows, more);
    }
    callEnded();
    return more ? cells : -cells - 1;
  }

  private void closeScanner(HRegion region, RegionScanner scanner, boolean installed)
      throws IOException {
    RegionCoprocessorHost host = installed ? region.getCoprocessorHost() : null;
    if (host != null) {
      host.preScannerClose(scanner);
    }
    scanner.close();
    if (host != null) {
      host.postScannerClose(scanner);
    }
    callEnded();
  }

  private long fullScan(Subject s, boolean installed) throws IOException {
    RegionScanner scanner = openScanner(s.region, new Scan(), installed);
    long cells = 0;
    for (; ; ) {
      long n = nextBatch(s.region, scanner, FULL_SCAN_BATCH, installed);
      if (n < 0) {
        cells += -n - 1;
        break;
      }
      cells += n;
    }
    closeScanner(s.region, scanner, installed);
    return cells;
  }

  private long shortScan(Subject s, boolean reversed, boolean installed) throws IOException {
    int start =
        reversed
            ? SHORT_SCAN_ROWS + random.nextInt(s.rows - SHORT_SCAN_ROWS)
            : random.nextInt(s.rows - SHORT_SCAN_ROWS);
    Scan scan = new Scan().withStartRow(RawTable.seedRow(start)).setReversed(reversed);
    RegionScanner scanner = openScanner(s.region, scan, installed);
    long n = nextBatch(s.region, scanner, SHORT_SCAN_ROWS, installed);
    closeScanner(s.region, scanner, installed);
    return n < 0 ? -n - 1 : n;
  }

  private long get(Subject s, boolean installed) throws IOException {
    Get get = new Get(RawTable.seedRow(random.nextInt(s.rows)));
    List<Cell> cells = s.region.get(get, installed);
    callEnded();
    sink += cells.size();
    return cells.size();
  }

  private long operation(Subject s, Workload w) throws IOException {
    boolean installed = s.region.getCoprocessorHost() != null;
    return switch (w) {
      case FULL_SCAN -> fullScan(s, installed);
      case SHORT_SCAN -> shortScan(s, false, installed);
      case GET -> get(s, installed);
      case REVERSE_SCAN -> shortScan(s, true, installed);
    };
  }

  // ---- the measurement ------------------------------------------------------------------------

  private void apply(Mode mode) {
    for (Subject s : subjects) {
      s.region.setCoprocessorHost(
          mode == Mode.NOT_INSTALLED ? null : mode == Mode.EMPTY_OBSERVER ? s.empty : s.blockscope);
    }
    if (mode.compareTo(Mode.OFF) < 0) {
      ProbeInstaller.uninstallAll();
    } else {
      if (current.compareTo(Mode.OFF) < 0) {
        List<String> problems = new ArrayList<>();
        ProbeInstaller.installAll(true, 30_000, problems);
        if (!problems.isEmpty()) {
          throw new IllegalStateException("probes not installed: " + problems);
        }
      }
      Configuration level = new Configuration(false);
      level.set("blockscope.level", mode.name());
      Diagnostics.current().reloadConfiguration(level);
      for (Subject s : subjects) {
        PerfLevel now = regionCosts(s).level();
        if (now != PerfLevel.valueOf(mode.name())) {
          throw new IllegalStateException(s.name + " is at " + now + ", not " + mode);
        }
      }
    }
    current = mode;
  }

  private static RegionCosts regionCosts(Subject s) {
    RegionCosts costs =
        Diagnostics.current().registry().region(s.region.getRegionInfo().getEncodedName());
    if (costs == null) {
      throw new IllegalStateException(s.name + ": blockscope does not track the region");
    }
    return costs;
  }

  /** Runs operations until {@code minNs} of CPU passed; returns how many. */
  private int calibrate(Subject s, Workload w, long minNs) throws IOException {
    long start = cpu.getCurrentThreadCpuTime();
    int n = 0;
    do {
      operation(s, w);
      n++;
    } while (cpu.getCurrentThreadCpuTime() - start < minNs);
    return n;
  }

  private void sample(Subject s, Workload w, int round, int sample) throws IOException {
    int n = s.opsPerSample[w.ordinal()];
    random.setSeed(1_000L * round + sample); // every mode reads the same rows in a round
    long wall = System.nanoTime();
    long start = cpu.getCurrentThreadCpuTime();
    for (int i = 0; i < n; i++) {
      operation(s, w);
    }
    long used = cpu.getCurrentThreadCpuTime() - start;
    wall = System.nanoTime() - wall;
    if (round >= 0) {
      s.cpuNs.get(w).put(current, round, sample, (double) used / n);
      s.wallNs.get(w).put(current, round, sample, (double) wall / n);
    }
  }

  private void measure() throws Exception {
    apply(Mode.NOT_INSTALLED);
    for (Subject s : subjects) {
      for (Workload w : Workload.values()) {
        calibrate(s, w, 4 * options.sampleNs()); // JIT
        s.opsPerSample[w.ordinal()] = calibrate(s, w, options.sampleNs());
      }
    }
    // a turn per round: a mode's change (probes woven or taken out) is made once a round
    new InterleavedRounds<>(List.of(Mode.values()), options.rounds(), 1)
        .run(
            round -> {
              roundMisses = misses();
              roundStarted = System.nanoTime();
            },
            (m, round, turn) -> {
              apply(m);
              long[] countedBefore = counted();
              for (int warm = 0; warm < 3; warm++) {
                for (Subject s : subjects) {
                  for (Workload w : Workload.values()) {
                    sample(s, w, -1, 0);
                  }
                }
              }
              for (int k = 0; k < options.samples(); k++) {
                for (Subject s : subjects) {
                  for (Workload w : Workload.values()) {
                    sample(s, w, round, k);
                  }
                }
              }
              checkCounted(m, countedBefore);
            },
            round -> {
              checkWarm(roundMisses);
              System.out.printf(
                  Locale.ROOT,
                  "round %d/%d (%.0f s): %s%n",
                  round + 1,
                  options.rounds(),
                  (System.nanoTime() - roundStarted) / 1e9,
                  roundSummary(round));
            });
  }

  /** Per region: cells decoded (or blocks decompressed for GZ) and cache hits counted so far. */
  private long[] counted() {
    long[] n = new long[subjects.size() * 2];
    for (int i = 0; i < subjects.size(); i++) {
      Subject s = subjects.get(i);
      RegionCosts c = regionCosts(s);
      n[2 * i] = c.costs().get(CostLayout.CACHE_HIT + CostLayout.KIND_DATA);
      n[2 * i + 1] = c.costs().get(workSlot(s));
    }
    return n;
  }

  private static int workSlot(Subject s) {
    return switch (s.name) {
      case "GZ" ->
          CostLayout.decompress(CostLayout.algorithmIndex("GZ"), CostLayout.DECOMPRESS_BLOCKS);
      case "NONE" -> CostLayout.CACHE_HIT + CostLayout.KIND_DATA;
      default -> CostLayout.decode(CostLayout.encodingIndex(s.name), CostLayout.DECODE_CELLS);
    };
  }

  private void checkCounted(Mode m, long[] before) {
    long[] after = counted();
    for (int i = 0; i < after.length; i++) {
      boolean moved = after[i] != before[i];
      boolean shouldMove = m == Mode.COUNT || m == Mode.TIME;
      if (moved != shouldMove) {
        throw new IllegalStateException(
            subjects.get(i / 2).name
                + " at "
                + m
                + ": "
                + (i % 2 == 0 ? "data block cache hits" : "cells decoded / blocks decompressed")
                + (shouldMove ? " were not counted" : " were counted"));
      }
    }
  }

  /** The block cache's misses so far; the run is only valid while none are added. */
  private long[] misses() {
    long[] n = new long[subjects.size()];
    for (int i = 0; i < n.length; i++) {
      n[i] = subjects.get(i).region.getBlockCache().getStats().getMissCount();
    }
    return n;
  }

  private void checkWarm(long[] before) {
    long[] after = misses();
    if (!Arrays.equals(before, after)) {
      throw new IllegalStateException(
          "the block cache missed during a round ("
              + Arrays.toString(before)
              + " -> "
              + Arrays.toString(after)
              + "): the measurement was not of a warm cache");
    }
  }

  private String roundSummary(int round) {
    StringBuilder sb = new StringBuilder();
    for (Subject s : subjects) {
      double[] ratios = new double[Mode.values().length];
      for (Mode m : Mode.values()) {
        double sum = 0;
        for (Workload w : Workload.values()) {
          sum += s.cpuNs.get(w).ratio(m, Mode.NOT_INSTALLED, round);
        }
        ratios[m.ordinal()] = sum / Workload.values().length;
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "%s empty %.3f OFF %.3f COUNT %.3f TIME %.3f; ",
              s.name,
              ratios[Mode.EMPTY_OBSERVER.ordinal()],
              ratios[Mode.OFF.ordinal()],
              ratios[Mode.COUNT.ordinal()],
              ratios[Mode.TIME.ordinal()]));
    }
    return sb.append("sink ").append(sink % 10).toString();
  }
}
