package io.blockscope.benchmarks;

import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import io.blockscope.benchmarks.InterleavedRounds.Samples;
import io.blockscope.benchmarks.RegionOverhead.Workload;
import io.blockscope.coprocessor.BlockscopeConfig;
import io.blockscope.coprocessor.BlockscopeRegionObserver;
import io.blockscope.harness.BeanReader;
import io.blockscope.harness.stock.StockCluster;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.Stats;
import io.blockscope.metrics.profile.ProfileProtocol;
import io.blockscope.metrics.profile.StatementsWire;
import io.blockscope.workloads.RawTable;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URLEncoder;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.Coprocessor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * What blockscope costs a region server process, measured as an operator pays it: a stock HBase
 * region server (its own JVM, on the server class path of an HBase install, {@link StockCluster})
 * with the release's coprocessor jar in its {@code lib/} and its {@code -javaagent}, as
 * docs/deploy.md's way 1 sets it up, serving reads through RPC to a client in this JVM.
 *
 * <p>Six tables with the same rows live in that one server, one per mode: blockscope not on the
 * table ({@code NONE}), an observer that does nothing ({@code EMPTY_OBSERVER}), and blockscope on
 * the table at {@code OFF}, {@code COUNT} and {@code TIME} (the table's {@code blockscope.level},
 * with the server's {@code blockscope.table.max.level} at TIME), and at COUNT with every scan
 * naming a statement ({@code COUNT_STATEMENT}: its reads also go to the client user's statement).
 * The modes run interleaved, sample by sample in a rotating order ({@link InterleavedRounds}), on a
 * warm block cache, after {@code --warmup-ms} of each workload on each table that is not measured
 * (the server's JIT compiles the read path first). A sample is {@code --sample-ms} of one
 * workload's operations on one table from {@code --threads} client threads; its figures are the
 * server process's CPU time per operation ({@link ThreadTimes}: its threads' time on a CPU, read
 * from Linux's {@code /proc} before and after) and every operation's client latency. Per round,
 * each mode's median sample is divided by NONE's of the same round; the report gives the mean of
 * these ratios with a 95% bootstrap interval, and the latencies' p50 and p99 over all samples.
 *
 * <p>NONE is a table without blockscope in a server that has it: the probes woven into HBase's read
 * path still run their check on its reads (a thread-local read per block access, a frame per RPC).
 * A server without blockscope at all differs from NONE by that check only; region-overhead's
 * NOT_INSTALLED, which takes the probes out, measures it.
 *
 * <p>The run fails when the block cache missed during the measured samples (the server's {@code
 * blockCacheMissCount}), or when a mode did not measure what it says: COUNT and TIME tables must
 * have counted block cache hits, TIME must have timed its decoding, OFF must have counted nothing.
 *
 * <pre>
 * bin/blockscope process-overhead [--rows 20000] [--rounds 10] [--samples 3] [--sample-ms 250]
 *     [--threads 1] [--warmup-ms 2000] [--pin yes] [--encoding FAST_DIFF] [--out DIR]
 * </pre>
 */
public final class ProcessOverhead {
  enum Mode {
    NONE,
    EMPTY_OBSERVER,
    OFF,
    COUNT,
    /** COUNT, every scan naming a statement: the reads also go to the user's statement. */
    COUNT_STATEMENT,
    TIME
  }

  /** The statement {@link Mode#COUNT_STATEMENT}'s scans name, and its text (sent with each). */
  static final byte[] STATEMENT = Bytes.toBytes("00000000b1a5c0de");

  static final byte[] STATEMENT_TEXT = Bytes.toBytes("SCAN PO_COUNT_STATEMENT");

  record Options(
      int rows,
      int rounds,
      int samples,
      long sampleNs,
      int threads,
      long warmupNs,
      boolean pin,
      DataBlockEncoding encoding,
      Path out) {
    static Options read(BenchOptions o) {
      return new Options(
          o.integer("--rows", 20_000, 1000),
          o.integer("--rounds", 10, 3),
          o.integer("--samples", 3, 1),
          o.integer("--sample-ms", 250, 10) * 1_000_000L,
          o.integer("--threads", 1, 1),
          o.integer("--warmup-ms", 2000, 0) * 1_000_000L,
          o.yesNo("--pin", true),
          o.option("--encoding", "FAST_DIFF", DataBlockEncoding.FAST_DIFF, (a, v) -> encoding(v)),
          o.path("--out", "DIR", Paths.get("benchmarks/target/process-overhead")));
    }

    private static DataBlockEncoding encoding(String v) {
      try {
        return DataBlockEncoding.valueOf(v);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "--encoding: unknown " + v + " (NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1)");
      }
    }
  }

  /** Rows a full scan's RPC returns. */
  private static final int FULL_SCAN_CACHING = 1000;

  private static final String SERVER = "Hadoop:service=HBase,name=RegionServer,sub=Server";

  private final Options options;
  private final TableName[] tables = new TableName[Mode.values().length];

  /** By workload: server CPU ns per operation, the whole process. */
  private final Map<Workload, Samples<Mode>> cpuNs = new EnumMap<>(Workload.class);

  /** By workload: the RPC handler threads' CPU ns per operation. */
  private final Map<Workload, Samples<Mode>> handlerNs = new EnumMap<>(Workload.class);

  /** [workload][mode]: every operation's client latency, ns. */
  private final LongList[][] latencies;

  /** The region server process's threads. */
  private ThreadTimes serverThreads;

  /**
   * HBase's RPC handlers of the default queue ({@code RpcServer.default.FPBQ...handler=N}), by
   * their kernel name's first 15 characters.
   */
  static final String HANDLERS = "RpcServer.defau";

  /** The region server's info server, whose /jmx gives its beans. */
  private String info;

  /** The region server's blockscope beans. */
  private BeanReader beans;

  private StockCluster cluster;

  private ProcessOverhead(Options options) {
    this.options = options;
    int m = Mode.values().length;
    for (Workload w : Workload.values()) {
      cpuNs.put(w, new Samples<>(List.of(Mode.values()), options.rounds(), options.samples()));
      handlerNs.put(w, new Samples<>(List.of(Mode.values()), options.rounds(), options.samples()));
    }
    latencies = new LongList[Workload.values().length][m];
    for (LongList[] row : latencies) {
      for (int i = 0; i < m; i++) {
        row[i] = new LongList();
      }
    }
  }

  public static void main(String[] args) throws Exception {
    BenchOptions.main(
        "process-overhead", args, Options::read, options -> new ProcessOverhead(options).run());
  }

  private void run() throws Exception {
    System.out.printf(
        Locale.ROOT,
        "process-overhead: a stock HBase 2.6.1 region server with blockscope; %d rows per table,"
            + " %s, %d rounds x %d samples of %d ms, %d client thread(s), modes %s%n",
        options.rows(),
        options.encoding(),
        options.rounds(),
        options.samples(),
        options.sampleNs() / 1_000_000,
        options.threads(),
        Arrays.toString(Mode.values()));
    try (StockServer s =
        StockServer.start(
            "process-overhead",
            Map.of(BlockscopeConfig.TABLE_MAX_LEVEL, PerfLevel.TIME.name()),
            List.of())) {
      cluster = s.cluster;
      info = s.server.infoUrl();
      beans = s.server.beans();
      serverThreads = new ThreadTimes(s.server.pid(), "process-overhead");
      if (options.pin()) {
        pin(s.server.pid());
      }
      for (Mode m : Mode.values()) {
        tables[m.ordinal()] = createAndLoad(m);
      }
      for (Mode m : Mode.values()) {
        warm(tables[m.ordinal()]);
      }
      measure();
      checkModes();
      Results results = new Results(this);
      results.print(System.out);
      results.write(options.out());
      s.succeeded();
    }
  }

  // ---- the tables -----------------------------------------------------------------------------

  private TableName createAndLoad(Mode mode) throws Exception {
    TableName name = TableName.valueOf("po_" + mode.name().toLowerCase(Locale.ROOT));
    TableDescriptorBuilder table =
        TableDescriptorBuilder.newBuilder(name)
            .setColumnFamily(
                ColumnFamilyDescriptorBuilder.newBuilder(RawTable.SEED_FAMILY)
                    .setDataBlockEncoding(options.encoding())
                    .build());
    switch (mode) {
      case NONE -> {}
      case EMPTY_OBSERVER ->
          table.setCoprocessor(
              CoprocessorDescriptorBuilder.newBuilder(EmptyObserver.class.getName())
                  .setPriority(Coprocessor.PRIORITY_USER)
                  .build());
      default -> {
        table.setCoprocessor(
            CoprocessorDescriptorBuilder.newBuilder(BlockscopeRegionObserver.class.getName())
                .setPriority(Coprocessor.PRIORITY_USER)
                .build());
        table.setValue(
            "blockscope.level", mode == Mode.COUNT_STATEMENT ? Mode.COUNT.name() : mode.name());
      }
    }
    try (Admin admin = cluster.admin()) {
      admin.createTable(table.build());
      Random r = new Random(1);
      try (BufferedMutator out = cluster.connection().getBufferedMutator(name)) {
        for (int pk = 0; pk < options.rows(); pk++) {
          out.mutate(
              new Put(RawTable.seedRow(pk))
                  .setDurability(Durability.SKIP_WAL)
                  .addColumn(RawTable.SEED_FAMILY, RawTable.SEED_V1, Bytes.toBytes(r.nextFloat()))
                  .addColumn(RawTable.SEED_FAMILY, RawTable.SEED_V2, Bytes.toBytes(r.nextFloat())));
        }
      }
      admin.flush(name); // one store file; reads come from blocks, not the memstore
    }
    return name;
  }

  /**
   * Reads every data block of the table twice, and checks it holds every row; then gets every 20th
   * row, which loads the row bloom filter's chunks (a chunk covers thousands of keys in order, and
   * scans never read them).
   */
  private void warm(TableName name) throws Exception {
    try (Table t = cluster.connection().getTable(name)) {
      for (int i = 0; i < 2; i++) {
        long cells = fullScan(t);
        if (cells != 2L * options.rows()) {
          throw new IllegalStateException(name + ": a full scan returned " + cells + " cells");
        }
      }
      for (int pk = 0; pk < options.rows(); pk += 20) {
        if (t.get(new Get(RawTable.seedRow(pk))).isEmpty()) {
          throw new IllegalStateException(name + ": row " + pk + " is missing");
        }
      }
    }
  }

  // ---- the operations ---------------------------------------------------------------------------

  /** One operation; {@code named}: its scans name {@link #STATEMENT} (a get names nothing). */
  private long op(Workload w, Table t, Random random, boolean named) throws IOException {
    int rows = options.rows();
    int short100 = RegionOverhead.SHORT_SCAN_ROWS;
    switch (w) {
      case GET -> {
        Result r = t.get(new Get(RawTable.seedRow(random.nextInt(rows))));
        return r.size();
      }
      case SHORT_SCAN, REVERSE_SCAN -> {
        int start = short100 + random.nextInt(rows - 2 * short100);
        Scan scan =
            new Scan()
                .withStartRow(RawTable.seedRow(start))
                .setReversed(w == Workload.REVERSE_SCAN)
                .setLimit(short100)
                .setCaching(short100);
        return cells(t, named(scan, named));
      }
      case FULL_SCAN -> {
        return cells(t, named(new Scan().setCaching(FULL_SCAN_CACHING), named));
      }
      default -> throw new IllegalArgumentException(w.name());
    }
  }

  /**
   * Execution ids for {@link Mode#COUNT_STATEMENT}'s scans, made before the run and taken in turn,
   * so that each scan is an execution of its own, as the driver's are, at no cost in the timed
   * path.
   */
  private static final byte[][] EXECUTIONS = executionIds(4096);

  private static final AtomicInteger NEXT_EXECUTION = new AtomicInteger();

  private static byte[][] executionIds(int n) {
    Random random = new Random(41);
    byte[][] ids = new byte[n][];
    for (int i = 0; i < n; i++) {
      ids[i] = Bytes.toBytes(String.format(Locale.ROOT, "%016x", random.nextLong()));
    }
    return ids;
  }

  private static Scan named(Scan scan, boolean named) {
    if (named) {
      scan.setAttribute(Attributes.STATEMENT, STATEMENT);
      scan.setAttribute(Attributes.STATEMENT_TEXT, STATEMENT_TEXT);
      int next = Math.floorMod(NEXT_EXECUTION.getAndIncrement(), EXECUTIONS.length);
      scan.setAttribute(Attributes.STATEMENT_EXECUTION, EXECUTIONS[next]);
    }
    return scan;
  }

  private static long fullScan(Table t) throws IOException {
    return cells(t, new Scan().setCaching(FULL_SCAN_CACHING));
  }

  private static long cells(Table t, Scan scan) throws IOException {
    long cells = 0;
    try (ResultScanner s = t.getScanner(scan)) {
      for (Result r : s) {
        cells += r.size();
      }
    }
    return cells;
  }

  // ---- the measurement
  // ----------------------------------------------------------------------------

  private void measure() throws Exception {
    ExecutorService clients = Executors.newFixedThreadPool(options.threads());
    try {
      // the server's JIT compiles the read path of every workload and mode before anything counts
      for (Workload w : Workload.values()) {
        for (Mode m : Mode.values()) {
          sample(clients, w, m, -1 - m.ordinal(), options.warmupNs());
        }
      }
      for (LongList[] row : latencies) {
        for (LongList l : row) {
          l.clear();
        }
      }
      long misses = settledMisses();
      String missesByKind = missesByKind();
      // a turn per workload and sample: workload by workload, each sample of every mode in turn
      int samples = options.samples();
      new InterleavedRounds<>(
              List.of(Mode.values()), options.rounds(), Workload.values().length * samples)
          .run(
              (m, round, turn) -> {
                Workload w = Workload.values()[turn / samples];
                int s = turn % samples;
                double[] perOp = sample(clients, w, m, round * 7919 + s, options.sampleNs());
                cpuNs.get(w).put(m, round, s, perOp[0]);
                handlerNs.get(w).put(m, round, s, perOp[1]);
              },
              round ->
                  System.out.printf(Locale.ROOT, "round %d of %d%n", round + 1, options.rounds()));
      long missed = settledMisses() - misses;
      if (missed != 0) {
        throw new IllegalStateException(
            "the measured reads missed the block cache "
                + missed
                + " times: not warm (the server's miss counts by block kind, before and after: "
                + missesByKind
                + " / "
                + missesByKind()
                + ")");
      }
    } finally {
      clients.shutdownNow();
    }
  }

  /** The server's block cache miss counts by block kind, as its Server bean gives them. */
  private String missesByKind() throws Exception {
    String json =
        StockCluster.httpGet(
            info + "/jmx?qry=" + URLEncoder.encode(SERVER, StandardCharsets.UTF_8));
    Matcher m = Pattern.compile("\"(blockCache\\w*MissCount)\"\\s*:\\s*(\\d+)").matcher(json);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      if (!m.group(2).equals("0")) {
        sb.append(sb.length() == 0 ? "" : ", ").append(m.group(1)).append('=').append(m.group(2));
      }
    }
    return sb.toString();
  }

  /**
   * The server's block cache misses, read once what /jmx shows has caught up with the reads: HBase
   * refreshes {@code blockCacheMissCount} every {@code hbase.regionserver.metrics.period} (5 s),
   * and Hadoop's metrics system serves a bean's attributes from a cache kept 10 s.
   */
  private long settledMisses() throws Exception {
    Thread.sleep(16_000);
    return serverLong(SERVER, "blockCacheMissCount");
  }

  /**
   * One sample: {@code --threads} clients run operations for {@code ns}; returns the server's
   * process CPU and its handlers' CPU per operation.
   */
  private double[] sample(ExecutorService clients, Workload w, Mode m, int seed, long ns)
      throws Exception {
    TableName name = tables[m.ordinal()];
    var before = serverThreads.read();
    long deadline = System.nanoTime() + ns;
    List<Future<long[]>> runs = new ArrayList<>();
    for (int t = 0; t < options.threads(); t++) {
      int threadSeed = seed * 31 + t;
      runs.add(
          clients.submit(
              () -> {
                Random random = new Random(threadSeed);
                LongList mine = new LongList();
                try (Table table = cluster.connection().getTable(name)) {
                  do {
                    long start = System.nanoTime();
                    if (op(w, table, random, m == Mode.COUNT_STATEMENT) == 0) {
                      throw new IllegalStateException(w.label + " on " + name + " read nothing");
                    }
                    mine.add(System.nanoTime() - start);
                  } while (System.nanoTime() < deadline);
                }
                return mine.toArray();
              }));
    }
    long ops = 0;
    LongList all = latencies[w.ordinal()][m.ordinal()];
    for (Future<long[]> f : runs) {
      long[] l = f.get();
      ops += l.length;
      all.addAll(l);
    }
    var after = serverThreads.read();
    return new double[] {
      (double) ThreadTimes.between(before, after, thread -> true) / ops,
      (double) ThreadTimes.between(before, after, thread -> thread.startsWith(HANDLERS)) / ops
    };
  }

  /**
   * Gives the region server the machine's last CPU and this JVM (the clients) the others, every
   * thread of each ({@code taskset -a}; threads started later inherit their creator's): the clients
   * then take no CPU from the server while it serves, and its samples vary less.
   */
  private static void pin(long server) throws Exception {
    int cpus = Runtime.getRuntime().availableProcessors();
    if (cpus < 2) {
      throw new IllegalStateException("--pin needs 2 CPUs or more; this machine has " + cpus);
    }
    String last = Integer.toString(cpus - 1);
    String others = cpus == 2 ? "0" : "0-" + (cpus - 2);
    for (String[] cmd :
        List.of(
            new String[] {"taskset", "-a", "-p", "-c", last, Long.toString(server)},
            new String[] {
              "taskset", "-a", "-p", "-c", others, Long.toString(ProcessHandle.current().pid())
            })) {
      Process p;
      try {
        p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      } catch (IOException e) {
        throw new IllegalStateException(
            "--pin runs taskset (util-linux), which is not here: "
                + e.getMessage()
                + "; or --pin no");
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) {
        throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
      }
    }
    System.out.printf(
        Locale.ROOT, "pinned: the region server on CPU %s, the clients on CPU %s%n", last, others);
  }

  /** A number attribute of one of the server's beans, from its /jmx; -1 while there is none. */
  private long serverLong(String bean, String attribute) throws Exception {
    String json =
        StockCluster.httpGet(info + "/jmx?qry=" + URLEncoder.encode(bean, StandardCharsets.UTF_8));
    Matcher m = Pattern.compile("\"" + attribute + "\"\\s*:\\s*(\\d+)").matcher(json);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /**
   * Each mode did what it says, from the server's own blockscope beans (after an export): COUNT and
   * TIME counted block cache hits, TIME timed its decoding, OFF and the tables without blockscope
   * counted nothing.
   */
  private void checkModes() throws Exception {
    String decodeNanos = "decode." + options.encoding() + ".nanos";
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      long countHits =
          Math.min(
              tableCount(Mode.COUNT, "blockCache.hit.data"),
              tableCount(Mode.COUNT_STATEMENT, "blockCache.hit.data"));
      long timeHits = tableCount(Mode.TIME, "blockCache.hit.data");
      long timed =
          options.encoding() == DataBlockEncoding.NONE ? 1 : tableCount(Mode.TIME, decodeNanos);
      if (countHits > 0 && timeHits > 0 && timed > 0) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "blockscope did not measure: COUNT table's hits "
                + countHits
                + ", TIME table's "
                + timeHits
                + ", its "
                + decodeNanos
                + " "
                + timed);
      }
      Thread.sleep(1000);
    }
    long statementHits = statementHits();
    long tableHits = tableCount(Mode.COUNT_STATEMENT, "blockCache.hit.data");
    if (statementHits <= 0 || statementHits > tableHits) {
      throw new IllegalStateException(
          "COUNT_STATEMENT's statement counted "
              + statementHits
              + " block cache hits, its table "
              + tableHits);
    }
    for (Mode m : List.of(Mode.NONE, Mode.EMPTY_OBSERVER, Mode.OFF)) {
      long hits = tableCount(m, "blockCache.hit.data");
      if (hits != 0) {
        throw new IllegalStateException(m + " table counted " + hits + " block cache hits");
      }
    }
  }

  /** The data block hits of {@link #STATEMENT}, as the server's statements endpoint reports it. */
  private long statementHits() throws Exception {
    try (Table t = cluster.connection().getTable(tables[Mode.COUNT_STATEMENT.ordinal()])) {
      long hits = 0;
      for (Message m :
          t.batchCoprocessorService(
                  ProfileProtocol.GET_STATEMENTS,
                  ProfileProtocol.statementsRequest(null, false, false),
                  null,
                  null,
                  DynamicMessage.getDefaultInstance(ProfileProtocol.STATEMENTS_RESPONSE))
              .values()) {
        for (StatementsWire.Row r : StatementsWire.parseResponse(m.toByteArray()).rows) {
          if (r.fingerprint.equals(Bytes.toString(STATEMENT))) {
            hits += r.get("blockCache.hit.data");
          }
        }
      }
      return hits;
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IOException("the statements endpoint failed", e);
    }
  }

  /** A table's blockscope counter on the server; 0 while it has no bean. */
  private long tableCount(Mode m, String metric) throws Exception {
    return beans.table(tables[m.ordinal()].getNameAsString()).get(metric);
  }

  /** A growable array of longs. */
  static final class LongList {
    private long[] values = new long[256];
    private int size;

    void add(long v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    void addAll(long[] vs) {
      for (long v : vs) {
        add(v);
      }
    }

    void clear() {
      size = 0;
    }

    long[] toArray() {
      return Arrays.copyOf(values, size);
    }

    /** The {@code q}-quantile (nearest rank, {@link Stats#quantile}) of the values. */
    long quantile(double q) {
      return (long) Stats.quantile(Arrays.stream(toArray()).asDoubleStream().toArray(), q);
    }
  }

  // ---- the figures ----------------------------------------------------------------------------

  /** Per workload and mode: CPU per operation, ratio to NONE with its interval, latencies. */
  static final class Results {
    record Row(
        Workload workload,
        Mode mode,
        double cpuUs,
        RoundRatio ratio,
        double handlerUs,
        RoundRatio handlerRatio,
        double p50Us,
        double p99Us,
        long ops) {}

    final List<Row> rows = new ArrayList<>();
    final Options options;

    Results(ProcessOverhead run) {
      this.options = run.options;
      for (Workload w : Workload.values()) {
        Samples<Mode> cpu = run.cpuNs.get(w);
        Samples<Mode> handler = run.handlerNs.get(w);
        for (Mode m : Mode.values()) {
          LongList lat = run.latencies[w.ordinal()][m.ordinal()];
          rows.add(
              new Row(
                  w,
                  m,
                  cpu.median(m) / 1e3,
                  cpu.ratio(m, Mode.NONE),
                  handler.median(m) / 1e3,
                  handler.ratio(m, Mode.NONE),
                  lat.quantile(0.5) / 1e3,
                  lat.quantile(0.99) / 1e3,
                  lat.size));
        }
      }
    }

    /** The bound a mode is held to at process level (docs/performance.md); 0: none. */
    static double bound(Mode m) {
      return m == Mode.COUNT || m == Mode.COUNT_STATEMENT ? 1.01 : m == Mode.TIME ? 1.03 : 0;
    }

    void print(PrintStream out) {
      out.printf(
          Locale.ROOT,
          "%n%-22s %-15s %11s %-26s %11s %-26s %9s %9s %7s%n",
          "workload",
          "table",
          "server CPU",
          "ratio to NONE [95%]",
          "handlers",
          "ratio to NONE [95%]",
          "p50 us",
          "p99 us",
          "ops");
      for (Row r : rows) {
        out.printf(
            Locale.ROOT,
            "%-22s %-15s %8.1f us %-26s %8.1f us %-26s %9.1f %9.1f %7d%n",
            r.mode() == Mode.NONE ? r.workload().label : "",
            r.mode(),
            r.cpuUs(),
            ratio(r.mode(), r.ratio()),
            r.handlerUs(),
            ratio(r.mode(), r.handlerRatio()),
            r.p50Us(),
            r.p99Us(),
            r.ops());
      }
      out.printf(
          Locale.ROOT,
          "%nserver CPU: the region server process's CPU per operation; handlers: its RPC handler"
              + " threads' only; each the median over %d rounds of each round's median sample."
              + " Ratio: mean of the per-round ratios to NONE, [95%% bootstrap interval]; ok: its"
              + " upper end is within COUNT's 1%% / TIME's 3%%. p50, p99: client latency over every"
              + " operation.%n",
          options.rounds());
    }

    private static String ratio(Mode m, RoundRatio r) {
      if (m == Mode.NONE) {
        return "";
      }
      double bound = bound(m);
      String verdict = bound == 0 ? "" : r.high() <= bound ? " ok" : " OVER";
      return String.format(
          Locale.ROOT, "%.3f [%.3f, %.3f]%s", r.mean(), r.low(), r.high(), verdict);
    }

    void write(Path dir) throws IOException {
      Files.createDirectories(dir);
      StringBuilder csv =
          new StringBuilder(
              "workload,mode,server_cpu_us_per_op,ratio,low,high,"
                  + "handler_cpu_us_per_op,handler_ratio,handler_low,handler_high,"
                  + "p50_us,p99_us,ops,threads\n");
      for (Row r : rows) {
        csv.append(
            String.format(
                Locale.ROOT,
                "%s,%s,%.2f,%.4f,%.4f,%.4f,%.2f,%.4f,%.4f,%.4f,%.1f,%.1f,%d,%d%n",
                r.workload().name(),
                r.mode(),
                r.cpuUs(),
                r.ratio().mean(),
                r.ratio().low(),
                r.ratio().high(),
                r.handlerUs(),
                r.handlerRatio().mean(),
                r.handlerRatio().low(),
                r.handlerRatio().high(),
                r.p50Us(),
                r.p99Us(),
                r.ops(),
                options.threads()));
      }
      Path file = dir.resolve("process-overhead.csv");
      Files.writeString(file, csv, StandardCharsets.UTF_8);
      System.out.println("written: " + file);
    }
  }
}
