package io.blockscope.cli;

import io.blockscope.coprocessor.BlockscopeConfig;
import io.blockscope.coprocessor.Diagnostics;
import io.blockscope.harness.BeanReader;
import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.workloads.RawTable;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.HRegion;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Starts the embedded cluster with blockscope, reads two tables the seeds compare (FAST_DIFF and
 * GZ), and prints what each read cost, per step and per region.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Start an embedded HBase with blockscope, scan and get two tables, print the"
            + " per-region read costs.")
final class Demo implements Callable<Integer> {
  private static final long EXPORT_INTERVAL_MS = 1_000;

  /** Three export refreshes, with room to spare. */
  private static final long EXPORT_WAIT_MS = 5 * EXPORT_INTERVAL_MS;

  @Option(
      names = "--rows",
      defaultValue = "100000",
      description = "Rows per table (default ${DEFAULT-VALUE}); 1000 to 5000000.")
  int rows;

  @Option(names = "--gets", defaultValue = "1000", description = "Random gets per table.")
  int gets;

  private final PrintStream out = System.out;

  @SuppressWarnings("try") // quiet is only closed, before the cluster
  @Override
  public Integer call() throws Exception {
    if (rows < 1000 || rows > 5_000_000) {
      throw new IllegalArgumentException("--rows must be between 1000 and 5000000, got " + rows);
    }
    if (gets < 0 || gets > 1_000_000) {
      throw new IllegalArgumentException("--gets must be between 0 and 1000000, got " + gets);
    }
    long t0 = System.nanoTime();
    out.println("Starting an embedded cluster (MiniDFS + ZooKeeper + HBase 2.6 + blockscope)...");
    Configuration conf = new Configuration(false);
    // series appear at an export refresh: once a second here, so each step's reading waits
    // less than a second for them (a production server refreshes every 10 s)
    conf.setLong(BlockscopeConfig.EXPORT_INTERVAL_MS, EXPORT_INTERVAL_MS);
    try (EmbeddedCluster cluster = EmbeddedCluster.start(conf);
        AutoCloseable quiet = ShutdownLogging.beforeClose()) {
      out.printf("  up in %.1f s%n", (System.nanoTime() - t0) / 1e9);
      TableName fastDiff = TableName.valueOf("demo_fast_diff");
      TableName gz = TableName.valueOf("demo_gz");
      RawTable.create(
          cluster.admin(),
          new RawTable.Spec(fastDiff).encoding(DataBlockEncoding.FAST_DIFF).level(PerfLevel.TIME));
      RawTable.create(
          cluster.admin(),
          new RawTable.Spec(gz).compression(Compression.Algorithm.GZ).level(PerfLevel.TIME));
      out.printf(
          "Loading %,d rows of (pk int, v1 float, v2 float) into %s and %s...%n",
          rows, fastDiff, gz);
      RawTable.loadSeed(cluster.connection(), cluster.admin(), fastDiff, rows, 1);
      RawTable.loadSeed(cluster.connection(), cluster.admin(), gz, rows, 1);

      BeanReader jmx = BeanReader.of(ManagementFactory.getPlatformMBeanServer(), "this JVM");
      jmx.awaitExport(EXPORT_WAIT_MS);
      out.println("Probes: " + probes(jmx));
      CostTable steps = new CostTable();
      for (TableName t : new TableName[] {fastDiff, gz}) {
        StoreFiles.evict(cluster.blockCache(), cluster.regions(t));
        step(
            steps,
            jmx,
            t,
            "cold scan",
            () -> RawTable.scanCells(cluster.connection(), t, new Scan()));
        step(
            steps,
            jmx,
            t,
            "warm scan",
            () -> RawTable.scanCells(cluster.connection(), t, new Scan()));
        step(
            steps,
            jmx,
            t,
            gets + " random gets",
            () -> {
              Random r = new Random(2);
              try (Table table = cluster.connection().getTable(t)) {
                for (int i = 0; i < gets; i++) {
                  table.get(new Get(RawTable.seedRow(r.nextInt(rows))));
                }
              }
              return gets;
            });
      }
      out.println();
      out.println("What each step cost (table level TIME; times are summed over handler threads):");
      steps.print(out);

      out.println();
      out.println("Per region, since the region opened:");
      CostTable regions = new CostTable();
      jmx.awaitExport(EXPORT_WAIT_MS);
      for (TableName t : new TableName[] {fastDiff, gz}) {
        for (HRegion r : cluster.regions(t)) {
          String enc = r.getRegionInfo().getEncodedName();
          regions.add(t + " " + enc, jmx.region(t.getNameAsString(), enc));
        }
      }
      regions.print(out);

      out.println();
      out.println("The same figures as JMX beans (any JMX client or the Prometheus JMX exporter):");
      HRegion region = cluster.regions(fastDiff).get(0);
      for (String key :
          new String[] {
            MetricKeys.region(
                fastDiff.getNameAsString(),
                region.getRegionInfo().getEncodedName(),
                "decode.FAST_DIFF.cells"),
            MetricKeys.table(gz.getNameAsString(), "decompress.GZ.blocks"),
            MetricKeys.server("blockCache.miss.data"),
          }) {
        ObjectName name = MetricKeys.objectName(key);
        List<BeanReader.Reading> bean = jmx.read(name);
        out.printf("  %s  Count=%s%n", name, bean.isEmpty() ? null : bean.get(0).value());
      }
      out.printf("%nDone in %.1f s.%n", (System.nanoTime() - t0) / 1e9);
    }
    return 0;
  }

  /** One step's costs: the table's series before and after it, each read after a refresh. */
  private void step(
      CostTable table, BeanReader jmx, TableName t, String what, Callable<Number> action)
      throws Exception {
    jmx.awaitExport(EXPORT_WAIT_MS);
    CostSnapshot before = jmx.table(t.getNameAsString());
    long start = System.nanoTime();
    action.call();
    double ms = (System.nanoTime() - start) / 1e6;
    jmx.awaitExport(EXPORT_WAIT_MS);
    CostSnapshot cost = jmx.table(t.getNameAsString()).minus(before);
    table.add(String.format("%s %s (%.0f ms)", t, what, ms), cost);
  }

  private static String probes(BeanReader jmx) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (String probe : Diagnostics.probeNames()) {
      sb.append(sb.length() == 0 ? "" : ", ")
          .append(probe)
          .append(jmx.probeInstalled(probe) ? " installed" : " UNAVAILABLE");
    }
    return sb.toString();
  }
}
