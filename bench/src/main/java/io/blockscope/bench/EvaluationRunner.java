package io.blockscope.bench;

import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.SeedTable;
import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;

/**
 * Runs the matrix: per configuration, a scratch table holding the same rows, compacted to one
 * store file, read by every workload {@code runs} times with blockscope at TIME, then dropped.
 *
 * <p>Scratch tables are dropped when the run ends, fails or is interrupted ({@link #cleanUp},
 * also called from the CLI's shutdown hook on Ctrl-C); the runner touches no other table.
 */
final class EvaluationRunner {
  /** Prefix of every table evaluate creates; nothing else is ever created, altered or dropped. */
  static final String PREFIX = "BLOCKSCOPE_EVAL_";

  private final EvalCluster cluster;
  private final List<TableConfig> configs;
  private final List<Workload> workloads;
  private final int rows;
  private final int runs;
  private final Progress progress;
  private final Set<String> scratch = ConcurrentHashMap.newKeySet();

  EvaluationRunner(EvalCluster cluster, List<TableConfig> configs, List<Workload> workloads,
      int rows, int runs, Progress progress) {
    this.cluster = cluster;
    this.configs = configs;
    this.workloads = workloads;
    this.rows = rows;
    this.runs = runs;
    this.progress = progress;
  }

  Evaluation run() throws Exception {
    Evaluation result = new Evaluation();
    result.cluster = cluster.describe();
    result.costsUnavailable = cluster.costs().unavailable();
    String source = PREFIX + "SOURCE";
    try (Connection phoenix = cluster.phoenix()) {
      progress.start(configs.size() * (workloads.size() + 1));
      scratch.add(source);
      SeedTable.drop(phoenix, source);
      SeedTable.create(phoenix, source, TableConfig.parse("NONE"));
      progress.note(String.format("writing %,d rows of the seeds' table", rows));
      SeedTable.fill(phoenix, source, rows, 20160217L);
      for (TableConfig config : configs) {
        checkInterrupt();
        Evaluation.ConfigResult cr = prepare(phoenix, source, config);
        result.configs.add(cr);
        measure(phoenix, cr);
        SeedTable.drop(phoenix, cr.table);
        scratch.remove(cr.table);
      }
      if (result.costsUnavailable == null) {
        result.costsUnavailable = cluster.costs().unavailable();
      }
    } catch (InterruptedException e) {
      result.interrupted = true;
      Thread.currentThread().interrupt();
      throw e;
    } finally {
      cleanUp();
      progress.done();
    }
    return result;
  }

  private Evaluation.ConfigResult prepare(Connection phoenix, String source, TableConfig config)
      throws Exception {
    String table = PREFIX + config.tableSuffix();
    progress.step(config.label() + ": load, flush, major compact");
    scratch.add(table);
    SeedTable.drop(phoenix, table);
    SeedTable.create(phoenix, table, config);
    SeedTable.copy(phoenix, source, table);
    TableName tn = TableName.valueOf(table);
    Admin admin = cluster.admin();
    admin.flush(tn);
    admin.majorCompact(tn);
    waitForCompaction(admin, tn);
    admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(tn))
        .setValue("blockscope.level", "TIME").build());
    Evaluation.ConfigResult cr = new Evaluation.ConfigResult(config, table);
    cr.storeFileBytes = cluster.storeFileBytes(table);
    return cr;
  }

  private void measure(Connection phoenix, Evaluation.ConfigResult cr) throws Exception {
    List<Workload> ordered = new ArrayList<>(workloads);
    ordered.sort(Comparator.comparing(Workload::afterDeletes));
    boolean deleted = false;
    Workload.Target target =
        new Workload.Target(phoenix, cluster.hbase(), cr.table, rows, 42);
    for (Workload w : ordered) {
      checkInterrupt();
      progress.step(cr.config.label() + ": " + w.key());
      Evaluation.Measured m = new Evaluation.Measured();
      cr.workloads.put(w, m);
      if (w.cache() == Workload.Cache.COLD && cluster.whyNoColdCache() != null) {
        m.skipped = cluster.whyNoColdCache();
        continue;
      }
      if (w.needsIndex()) {
        Workload.prepareIndex(phoenix, cr.table);
      }
      if (w.afterDeletes() && !deleted) {
        Workload.deleteMost(phoenix, cr.table);
        cluster.admin().flush(TableName.valueOf(cr.table));
        deleted = true;
      }
      if (w.cache() == Workload.Cache.WARM && !w.afterDeletes()) {
        w.run(target); // warm-up, untimed (the deleted-row scans run after a full scan anyway)
      }
      List<CostSnapshot> costs = new ArrayList<>();
      for (int i = 0; i < runs; i++) {
        checkInterrupt();
        if (w.cache() == Workload.Cache.COLD
            || (w.cache() == Workload.Cache.BYPASS && cluster.whyNoColdCache() == null)) {
          cluster.dropCache(cr.table); // a bypassing read should find nothing cached, as in seed 000
        }
        CostSnapshot before = cluster.costs().table(cr.table);
        long start = System.nanoTime();
        Workload.Run run = w.run(target);
        m.millis.add((System.nanoTime() - start) / 1e6);
        CostSnapshot after = cluster.costs().table(cr.table);
        costs.add(before == null || after == null ? null : after.minus(before));
        m.rows = run.rows();
        m.latenciesMicros.addAll(run.latenciesMicros());
      }
      m.medianRunCosts = costs.get(medianIndex(m.millis));
    }
    cr.rawBytes = rawBytes(cr);
  }

  /** Uncompressed, unencoded bytes a full scan went through: from the cold scan's costs. */
  private static long rawBytes(Evaluation.ConfigResult cr) {
    Evaluation.Measured cold = cr.measured(Workload.SCAN_NO_CACHE);
    if (cold == null || cold.medianRunCosts == null) {
      return cr.storeFileBytes;
    }
    CostSnapshot c = cold.medianRunCosts;
    long decompressed = c.sumOver("decompress", "bytesOut");
    return decompressed > 0 ? decompressed : c.sumKinds("fs.read.bytes");
  }

  private static int medianIndex(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    double median = sorted.get((sorted.size() - 1) / 2);
    return values.indexOf(median);
  }

  private static void waitForCompaction(Admin admin, TableName t) throws Exception {
    long deadline = System.currentTimeMillis() + 300_000;
    Thread.sleep(500); // the request is queued; give the compaction a moment to register
    while (admin.getCompactionState(t) != CompactionState.NONE) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("major compaction of " + t + " did not finish in 5 min");
      }
      Thread.sleep(200);
    }
  }

  private static void checkInterrupt() throws InterruptedException {
    if (Thread.currentThread().isInterrupted()) {
      throw new InterruptedException("evaluate interrupted");
    }
  }

  /** Drops every scratch table this runner created and has not dropped yet. */
  void cleanUp() {
    if (scratch.isEmpty()) {
      return;
    }
    boolean wasInterrupted = Thread.interrupted(); // let the drops' RPCs run
    try (Connection c = cluster.phoenix()) {
      for (String table : List.copyOf(scratch)) {
        try {
          SeedTable.drop(c, table);
        } catch (Exception e) {
          // Phoenix may not know a table whose CREATE was interrupted: HBase drops it below
        }
      }
    } catch (Exception e) {
      // no Phoenix connection: HBase drops what it can below
    }
    try {
      Admin admin = cluster.admin();
      for (String table : List.copyOf(scratch)) {
        TableName tn = TableName.valueOf(table);
        try {
          if (admin.tableExists(tn)) {
            if (admin.isTableEnabled(tn)) {
              admin.disableTable(tn);
            }
            admin.deleteTable(tn);
          }
          scratch.remove(table);
        } catch (Exception e) {
          System.err.println("blockscope: could not drop scratch table " + table + ": "
              + e.getMessage());
        }
      }
    } catch (Exception e) {
      System.err.println("blockscope: could not drop scratch tables " + scratch + ": "
          + e.getMessage());
    } finally {
      if (wasInterrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Scratch tables not dropped yet. */
  Set<String> scratchTables() {
    return Set.copyOf(scratch);
  }
}
