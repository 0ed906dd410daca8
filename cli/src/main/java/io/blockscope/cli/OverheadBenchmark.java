package io.blockscope.cli;

import io.blockscope.coprocessor.BlockscopeRegionObserver;
import io.blockscope.coprocessor.probe.ProbeInstaller;
import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.metrics.Attributes;
import io.blockscope.workloads.RawTable;
import io.blockscope.workloads.Stats;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
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
 * ratio to "not installed".
 *
 * <p>Run: {@code bin/blockscope overhead --rows 200000 --rounds 5}.
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

  @Option(names = "--gets", defaultValue = "1000", description = "Random gets per mode and round.")
  int gets;

  private final PrintStream out = System.out;

  @SuppressWarnings("try") // quiet is only closed, before the cluster
  @Override
  public Integer call() throws Exception {
    if (rows < 1000 || rounds < 1 || scans < 1 || gets < 1) {
      throw new IllegalArgumentException("--rows >= 1000, --rounds, --scans, --gets >= 1");
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
      Map<Mode, List<Double>> getUs = new EnumMap<>(Mode.class);
      for (Mode m : Mode.values()) {
        scanMs.put(m, new ArrayList<>());
        getUs.put(m, new ArrayList<>());
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
          Random r = new Random(round);
          try (Table table = cluster.connection().getTable(t)) {
            for (int g = 0; g < gets; g++) {
              Get get = new Get(RawTable.seedRow(r.nextInt(rows)));
              long start = System.nanoTime();
              table.get(get);
              getUs.get(m).add((System.nanoTime() - start) / 1e3);
            }
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
      report(scanMs, getUs);
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

  private void report(Map<Mode, List<Double>> scanMs, Map<Mode, List<Double>> getUs) {
    double baseScan = Stats.median(scanMs.get(Mode.NOT_INSTALLED));
    double baseGet = Stats.median(getUs.get(Mode.NOT_INSTALLED));
    out.println();
    out.printf(
        Locale.ROOT,
        "%d rows x 2 cells, FAST_DIFF, block cache warm; %d rounds, modes " + "interleaved%n",
        rows,
        rounds);
    out.printf(
        Locale.ROOT,
        "%-13s %12s %14s %8s %12s %12s %8s%n",
        "mode",
        "scan median",
        "rows/s",
        "ratio",
        "get p50 us",
        "get p99 us",
        "ratio");
    for (Mode m : Mode.values()) {
      double scan = Stats.median(scanMs.get(m));
      double get = Stats.median(getUs.get(m));
      out.printf(
          Locale.ROOT,
          "%-13s %9.0f ms %14.0f %8.3f %12.0f %12.0f %8.3f%n",
          m,
          scan,
          rows / (scan / 1000),
          scan / baseScan,
          get,
          Stats.quantile(getUs.get(m), 0.99),
          get / baseGet);
    }
  }
}
