package io.blockscope.benchmarks;

import io.blockscope.coprocessor.BlockscopeRegionObserver;
import io.blockscope.coprocessor.probe.ProbeInstaller;
import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.Stats;
import io.blockscope.workloads.RawTable;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Coprocessor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;

/**
 * What blockscope costs a region server, end to end through the client: warm full scans and random
 * gets on one FAST_DIFF table of an embedded cluster ({@link EmbeddedCluster}) with the coprocessor
 * not installed (no observer, probes taken out of HBase's bytecode), and installed at OFF, COUNT
 * and TIME. The four modes are interleaved round by round, in a rotating order ({@link
 * InterleavedRounds}), in one JVM on the same table and the same cached blocks; medians are
 * reported with the ratio to "not installed". Gets run from 1 and 8 client threads at once ({@code
 * --threads}): throughput and p50/p99/p99.9 latency per mode. Through the client and RPC, its noise
 * is about 10% on a 2-core machine; {@code bin/blockscope region-overhead} is the measurement that
 * sees 1%.
 *
 * <pre>
 * bin/blockscope overhead [--rows 200000] [--rounds 5] [--scans 3] [--gets 1000] [--threads 1,8]
 * </pre>
 */
public final class EndToEndOverhead {
  enum Mode {
    NOT_INSTALLED,
    OFF,
    COUNT,
    TIME
  }

  record Options(int rows, int rounds, int scans, int gets, List<Integer> threads) {
    static Options read(BenchOptions o) {
      return new Options(
          o.integer("--rows", 200_000, 1000),
          o.integer("--rounds", 5, 1),
          o.integer("--scans", 3, 1),
          o.integer("--gets", 1000, 1),
          o.option("--threads", "1,8", List.of(1, 8), Options::threads));
    }

    /** Client thread counts, one run of the gets per count. */
    private static List<Integer> threads(String option, String value) {
      List<Integer> counts = new ArrayList<>();
      for (String n : value.split(",")) {
        counts.add(BenchOptions.atLeast(option, n, 1));
      }
      if (counts.stream().anyMatch(t -> t > 256)) {
        throw new IllegalArgumentException(option + ": counts from 1 to 256, e.g. 1,8");
      }
      return List.copyOf(counts);
    }
  }

  private final int rows;
  private final int rounds;
  private final int scans;
  private final int gets;
  private final List<Integer> threads;
  private final PrintStream out = System.out;

  private EndToEndOverhead(Options options) {
    this.rows = options.rows();
    this.rounds = options.rounds();
    this.scans = options.scans();
    this.gets = options.gets();
    this.threads = options.threads();
  }

  public static void main(String[] args) throws Exception {
    BenchOptions.main(
        "overhead", args, Options::read, options -> new EndToEndOverhead(options).run());
  }

  private void run() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set("hbase.coprocessor.region.classes", ""); // installed per table, per mode
    try (EmbeddedCluster cluster = EmbeddedCluster.start(conf)) {
      Admin admin = cluster.admin();
      TableName t = TableName.valueOf("overhead");
      RawTable.create(admin, new RawTable.Spec(t).encoding(DataBlockEncoding.FAST_DIFF));
      RawTable.loadSeed(cluster.connection(), admin, t, rows, 4);
      cluster.majorCompactAndWait(t, 120_000);

      Map<Mode, List<Double>> scanMs = new EnumMap<>(Mode.class);
      // per thread count: each get's latency, and each round's throughput
      List<Map<Mode, List<Double>>> getUs = new ArrayList<>();
      List<Map<Mode, List<Double>>> getsPerSecond = new ArrayList<>();
      for (int i = 0; i < threads.size(); i++) {
        getUs.add(new EnumMap<>(Mode.class));
        getsPerSecond.add(new EnumMap<>(Mode.class));
      }
      for (Mode m : Mode.values()) {
        scanMs.put(m, new ArrayList<>());
        for (int i = 0; i < threads.size(); i++) {
          getUs.get(i).put(m, Collections.synchronizedList(new ArrayList<>()));
          getsPerSecond.get(i).put(m, new ArrayList<>());
        }
      }
      new InterleavedRounds<>(List.of(Mode.values()), rounds, 1)
          .run(
              (m, round, turn) -> {
                apply(cluster, t, m);
                RawTable.scanCells(cluster.connection(), t, new Scan().setCaching(1000)); // warm
                for (int s = 0; s < scans; s++) {
                  long start = System.nanoTime();
                  RawTable.scanCells(cluster.connection(), t, new Scan().setCaching(1000));
                  scanMs.get(m).add((System.nanoTime() - start) / 1e6);
                }
                for (int k = 0; k < threads.size(); k++) {
                  getsPerSecond
                      .get(k)
                      .get(m)
                      .add(gets(cluster, t, threads.get(k), round, getUs.get(k).get(m)));
                }
                out.printf(
                    Locale.ROOT,
                    "round %d/%d %-13s scan median %.0f ms%n",
                    round + 1,
                    rounds,
                    m,
                    Stats.median(scanMs.get(m)));
              },
              round -> {});
      report(scanMs, getUs, getsPerSecond);
    }
  }

  private static void apply(EmbeddedCluster cluster, TableName t, Mode m) throws Exception {
    Admin admin = cluster.admin();
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(admin.getDescriptor(t));
    b.removeCoprocessor(BlockscopeRegionObserver.class.getName());
    b.removeValue(Attributes.TABLE_LEVEL);
    if (m == Mode.NOT_INSTALLED) {
      ProbeInstaller.uninstallAll();
    } else {
      // a region open does not install the probes once the engine runs (JvmEngine.hooks):
      // after NOT_INSTALLED took them out, they go back in here
      ProbeInstaller.installAll(true, 30_000, new ArrayList<>());
      b.setCoprocessor(
          CoprocessorDescriptorBuilder.newBuilder(BlockscopeRegionObserver.class.getName())
              .setPriority(Coprocessor.PRIORITY_USER)
              .build());
      b.setValue(Attributes.TABLE_LEVEL, m.name());
    }
    TableDescriptor d = b.build();
    admin.modifyTable(d);
    cluster.waitTableAvailable(t, 60_000);
    if (m == Mode.NOT_INSTALLED) {
      ProbeInstaller.uninstallAll(); // in case the reopen happened to weave them again
    }
  }

  /**
   * {@code clients} threads each issue {@link #gets} random gets at once; adds every latency to
   * {@code latencies} and returns the gets per second of the whole run.
   */
  private double gets(
      EmbeddedCluster cluster, TableName t, int clients, int round, List<Double> latencies)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Void>> done = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        Random r = new Random(round * 1_000L + c);
        done.add(
            pool.submit(
                () -> {
                  List<Double> mine = new ArrayList<>(gets);
                  try (Table table = cluster.connection().getTable(t)) {
                    go.await();
                    for (int g = 0; g < gets; g++) {
                      Get get = new Get(RawTable.seedRow(r.nextInt(rows)));
                      long start = System.nanoTime();
                      table.get(get);
                      mine.add((System.nanoTime() - start) / 1e3);
                    }
                  }
                  latencies.addAll(mine);
                  return null;
                }));
      }
      long start = System.nanoTime();
      go.countDown();
      for (Future<Void> f : done) {
        f.get();
      }
      return (double) clients * gets / ((System.nanoTime() - start) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }

  private void report(
      Map<Mode, List<Double>> scanMs,
      List<Map<Mode, List<Double>>> getUs,
      List<Map<Mode, List<Double>>> getsPerSecond) {
    double baseScan = Stats.median(scanMs.get(Mode.NOT_INSTALLED));
    out.println();
    out.printf(
        Locale.ROOT,
        "%d rows x 2 cells, FAST_DIFF, block cache warm; %d rounds, modes interleaved;"
            + " through the client, so differences under the machine's noise (about 10%%) mean"
            + " nothing: see bin/blockscope region-overhead%n",
        rows,
        rounds);
    out.printf(Locale.ROOT, "%nfull scans, one client thread%n");
    out.printf(Locale.ROOT, "%-13s %12s %14s %8s%n", "mode", "scan median", "rows/s", "ratio");
    for (Mode m : Mode.values()) {
      double scan = Stats.median(scanMs.get(m));
      out.printf(
          Locale.ROOT,
          "%-13s %9.0f ms %14.0f %8.3f%n",
          m,
          scan,
          rows / (scan / 1000),
          scan / baseScan);
    }
    for (int i = 0; i < threads.size(); i++) {
      Map<Mode, List<Double>> perSecond = getsPerSecond.get(i);
      double base = Stats.median(perSecond.get(Mode.NOT_INSTALLED));
      out.printf(
          Locale.ROOT,
          "%nrandom gets, %d client thread%s (%d gets each per round)%n",
          threads.get(i),
          threads.get(i) == 1 ? "" : "s",
          gets);
      out.printf(
          Locale.ROOT,
          "%-13s %10s %8s %10s %10s %10s%n",
          "mode",
          "gets/s",
          "ratio",
          "p50 us",
          "p99 us",
          "p99.9 us");
      for (Mode m : Mode.values()) {
        List<Double> lat = getUs.get(i).get(m);
        double rate = Stats.median(perSecond.get(m));
        out.printf(
            Locale.ROOT,
            "%-13s %10.0f %8.3f %10.0f %10.0f %10.0f%n",
            m,
            rate,
            rate / base,
            Stats.quantile(lat, 0.5),
            Stats.quantile(lat, 0.99),
            Stats.quantile(lat, 0.999));
      }
    }
  }
}
