package io.blockscope.cli;

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
import java.util.concurrent.Callable;
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
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What blockscope costs a region server: warm full scans and random gets on one FAST_DIFF table
 * with the coprocessor not installed (no observer, probes taken out of HBase's bytecode), and
 * installed at OFF, COUNT and TIME. The four modes are interleaved round by round, in a rotating
 * order, in one JVM on the same table and the same cached blocks; medians are reported with the
 * ratio to "not installed". Gets run from 1 and 8 client threads at once (--threads): throughput
 * and p50/p99/p99.9 latency per mode. Through the client and RPC, its noise is about 10% on a
 * 2-core machine; {@code bin/blockscope region-overhead} (benchmarks) is the measurement that sees
 * 1%.
 *
 * <p>Run: {@code bin/blockscope overhead --rows 200000 --rounds 5 --threads 1,8}.
 */
@Command(
    name = "overhead",
    mixinStandardHelpOptions = true,
    description =
        "Measure blockscope's overhead: scan and get with the coprocessor not installed,"
            + " OFF, COUNT and TIME, interleaved on one table.")
final class OverheadBenchmark implements Callable<Integer> {
  enum Mode {
    NOT_INSTALLED,
    OFF,
    COUNT,
    TIME
  }

  @Option(
      names = "--rows",
      defaultValue = "200000",
      description = "Rows (default ${DEFAULT-VALUE}).")
  int rows;

  @Option(
      names = "--rounds",
      defaultValue = "5",
      description = "Rounds (default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(names = "--scans", defaultValue = "3", description = "Full scans per mode and round.")
  int scans;

  @Option(
      names = "--gets",
      defaultValue = "1000",
      description = "Random gets per client thread, mode and round (default ${DEFAULT-VALUE}).")
  int gets;

  @Option(
      names = "--threads",
      defaultValue = "1,8",
      split = ",",
      description =
          "Client threads issuing the gets, one run per count (default ${DEFAULT-VALUE}).")
  List<Integer> threads;

  private final PrintStream out = System.out;

  @SuppressWarnings("try") // quiet is only closed, before the cluster
  @Override
  public Integer call() throws Exception {
    if (rows < 1000 || rounds < 1 || scans < 1 || gets < 1) {
      throw new IllegalArgumentException("--rows >= 1000, --rounds, --scans, --gets >= 1");
    }
    if (threads.isEmpty() || threads.stream().anyMatch(t -> t < 1 || t > 256)) {
      throw new IllegalArgumentException("--threads: counts from 1 to 256, e.g. 1,8");
    }
    Configuration conf = new Configuration(false);
    conf.set("hbase.coprocessor.region.classes", ""); // installed per table, per mode
    try (EmbeddedCluster cluster = EmbeddedCluster.start(conf);
        AutoCloseable quiet = ShutdownLogging.beforeClose()) {
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
      Mode[] modes = Mode.values();
      for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < modes.length; i++) {
          Mode m = modes[(i + round) % modes.length];
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
        }
      }
      report(scanMs, getUs, getsPerSecond);
    }
    return 0;
  }

  private static void apply(EmbeddedCluster cluster, TableName t, Mode m) throws Exception {
    Admin admin = cluster.admin();
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(admin.getDescriptor(t));
    b.removeCoprocessor(BlockscopeRegionObserver.class.getName());
    b.removeValue(Attributes.TABLE_LEVEL);
    if (m == Mode.NOT_INSTALLED) {
      ProbeInstaller.uninstallAll();
    } else {
      // a region open no longer installs the probes once the engine is there
      // (JvmEngine.hooks): after NOT_INSTALLED took them out, they go back in here
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
