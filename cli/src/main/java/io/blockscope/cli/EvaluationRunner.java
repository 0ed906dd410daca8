package io.blockscope.cli;

import com.sun.management.OperatingSystemMXBean;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.Stats;
import io.blockscope.workloads.DataShape;
import io.blockscope.workloads.RawTable;
import io.blockscope.workloads.SeedTable;
import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.util.PhoenixRuntime;

/**
 * Runs the matrix: per configuration, a scratch table holding the same rows, compacted to one store
 * file, read by every workload {@code runs} times with blockscope at TIME, then dropped.
 *
 * <p>Scratch tables are dropped when the run ends, fails or is interrupted ({@link #cleanUp}, also
 * called from the CLI's shutdown hook on Ctrl-C); the runner touches no other table. Each run has
 * an id of its own ({@link #runId}): its tables' names end in it, and each table carries it as the
 * attribute {@value #RUN_ATTRIBUTE}. A run drops only a table whose name ends in its id and that
 * carries no other run's, so runs beside each other on one cluster, and the tables earlier runs
 * kept, are left alone.
 */
final class EvaluationRunner {
  /**
   * evaluate's own Phoenix schema and HBase namespace: every table it creates lives there and
   * nothing else is ever created, altered or dropped. Plain HBase tables go to the namespace {@code
   * BLOCKSCOPE_EVAL}; Phoenix tables to the schema of that name, which Phoenix maps to the
   * namespace when {@code phoenix.schema.isNamespaceMappingEnabled} is on, and otherwise names
   * {@code BLOCKSCOPE_EVAL.T_...} in the default namespace.
   */
  static final String SCHEMA = "BLOCKSCOPE_EVAL";

  /** Matches every HBase table evaluate may create, under either naming. */
  static final Pattern SCRATCH_TABLES = Pattern.compile(SCHEMA + "[.:].*");

  /** The table attribute that names the run that created a table. */
  static final String RUN_ATTRIBUTE = "blockscope.evaluate.run";

  private static final SecureRandom RUN_IDS = new SecureRandom();

  /** Six letters and digits, drawn anew for each run (one in 2 billion that two runs share one). */
  static String newRunId() {
    StringBuilder id = new StringBuilder();
    for (int i = 0; i < 6; i++) {
      id.append(Character.toUpperCase(Character.forDigit(RUN_IDS.nextInt(36), 36)));
    }
    return id.toString();
  }

  private String runId = newRunId();

  private final EvalCluster cluster;
  private final DataShape shape;
  private final String sample;
  private final List<TableConfig> configs;
  private final List<Workload> workloads;
  private final int rows;
  private final int runs;
  private final Progress progress;
  private String labelSuffix = "";
  private boolean keepTables;
  private long sampleBytes = Long.MAX_VALUE;
  private boolean interleave;
  private ReplayBudget budget;
  private String budgetText;

  /** The sample's copy in this run's own table, which every configuration's table copies. */
  private TableName sampleSource;

  private RawTable.Sample sampled;

  /** Phoenix tables to drop (SQL names), and HBase tables to drop if still there. */
  private final Set<String> scratch = ConcurrentHashMap.newKeySet();

  private final Set<String> scratchHBase = ConcurrentHashMap.newKeySet();
  private volatile boolean createdNamespace;

  /**
   * How long {@link #cleanUp} waits for the drops: a cluster gone before the run ends would
   * otherwise hold it (and a Ctrl-C's shutdown) for as long as HBase's client retries.
   */
  static final long DROP_WAIT_MS = 60_000;

  private long dropWaitMs = DROP_WAIT_MS;

  EvaluationRunner(
      EvalCluster cluster,
      DataShape shape,
      String sample,
      List<TableConfig> configs,
      List<Workload> workloads,
      int rows,
      int runs,
      Progress progress) {
    this.cluster = cluster;
    this.shape = shape;
    this.sample = sample;
    this.configs = configs;
    this.workloads = workloads;
    this.rows = rows;
    this.runs = runs;
    this.progress = progress;
  }

  Evaluation run() throws Exception {
    long started = System.nanoTime();
    Evaluation result = new Evaluation();
    result.runId = runId;
    result.cluster = cluster.describe();
    result.costsUnavailable = cluster.costs().unavailable();
    String untimed = result.costsUnavailable == null ? cluster.whyNoTimings() : null;
    if (untimed != null) {
      result.notes.add(untimed);
    }
    String source = SCHEMA + ".SOURCE_" + runId;
    // Plain HBase shapes need no Phoenix (its first connection costs 15 s on a new cluster).
    try (Connection phoenix = shape.phoenix() ? cluster.phoenix() : null) {
      progress.start(
          interleave ? configs.size() + workloads.size() : configs.size() * (workloads.size() + 1));
      progress.note("run " + runId + ": its tables are " + SCHEMA + ".*_" + runId);
      if (shape == DataShape.SEEDS) {
        if (phoenix
            .unwrap(PhoenixConnection.class)
            .getQueryServices()
            .getProps()
            .getBoolean("phoenix.schema.isNamespaceMappingEnabled", false)) {
          try (Statement s = phoenix.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
          }
        }
        expectScratch(source);
        SeedTable.create(phoenix, source, TableConfig.parse("NONE")); // fails if it exists
        mark(hbaseName(phoenix, source));
        progress.note(String.format("writing %,d rows of the seeds' table", rows));
        SeedTable.fill(phoenix, source, rows, 20160217L);
      } else if (shape == DataShape.SAMPLE) {
        copySample(result);
      }
      for (int i = 0; i < configs.size(); i++) {
        TableConfig config = configs.get(i);
        checkInterrupt();
        if (budget != null && !budget.roomForAnother(System.nanoTime() - started)) {
          for (TableConfig c : configs.subList(i, configs.size())) {
            result.notReplayed.add(c.label());
          }
          String note =
              budget.note(
                  budgetText, System.nanoTime() - started, String.join(", ", result.notReplayed));
          result.notes.add(note);
          progress.skip(configs.size() - i); // one load step each in an interleaved replay
          progress.note(note);
          break;
        }
        Evaluation.ConfigResult cr;
        boolean encoder = config.encoding().equals("BLOCKSCOPE_V1");
        if (encoder && !result.notes.contains(ENCODER_NOTE)) {
          result.notes.add(ENCODER_NOTE);
        }
        long loading = System.nanoTime();
        try {
          cr = prepare(phoenix, source, config);
        } catch (Exception e) {
          String refused = encoder ? e.getMessage() : refusal(e);
          if (refused == null) {
            throw e;
          }
          // a cluster without the encoder (its master's guard refuses the table), or one whose
          // master refuses the compression (HBase's sanity check: no codec for it there)
          result.notes.add(config.label() + " skipped: " + refused);
          progress.note(config.label() + " skipped: " + refused);
          continue; // what it left is a scratch table, dropped at the end
        }
        result.configs.add(cr);
        if (interleave) {
          if (budget != null) {
            budget.prepared(System.nanoTime() - loading);
            if (result.configs.size() == 1) {
              trial(cr);
            }
          }
          continue; // measured with the others below
        }
        measure(phoenix, cr);
        if (keepTables) {
          keep(cr);
        } else {
          drop(phoenix, cr);
        }
      }
      if (interleave) {
        measureInterleaved(result.configs);
        for (Evaluation.ConfigResult cr : result.configs) {
          drop(phoenix, cr);
        }
      }
      if (result.costsUnavailable == null) {
        result.costsUnavailable = cluster.costs().unavailable();
      }
    } finally {
      cleanUp();
      progress.done();
    }
    result.cluster.put("storeFileSizeResolution", cluster.storeFileSizeResolution());
    return result;
  }

  /**
   * Reads the sample from the user's table once, spread over its regions ({@link
   * RawTable#copySample}), into this run's source table, unencoded and uncompressed with the user
   * table's families; each configuration's table is then filled from that copy, so the user's table
   * is read once whatever the number of configurations.
   */
  private void copySample(Evaluation result) throws Exception {
    Admin admin = cluster.admin();
    TableName user = TableName.valueOf(sample);
    if (!admin.tableExists(user)) {
      throw new IllegalArgumentException("--sample: no table '" + sample + "' on this cluster");
    }
    ensureNamespace(admin);
    sampleSource = TableName.valueOf(SCHEMA, "SOURCE_" + runId);
    if (admin.tableExists(sampleSource)) {
      throw new IllegalStateException(
          sampleSource
              + " exists already: this run ("
              + runId
              + ") creates only tables of its own");
    }
    scratchTable(sampleSource.getNameAsString());
    RawTable.create(
        admin,
        sampleSource,
        List.of(admin.getDescriptor(user).getColumnFamilies()),
        TableConfig.parse("NONE"));
    mark(sampleSource);
    progress.note(
        String.format(
            Locale.ROOT,
            "sampling up to %,d rows (%,d MB) of %s, spread over its regions",
            rows,
            Math.min(sampleBytes >> 20, 1L << 30),
            sample));
    sampled = RawTable.copySample(cluster.hbase(), user, sampleSource, rows, sampleBytes, 7);
    if (sampled.rows() == 0) {
      throw new IllegalArgumentException("--sample: table '" + sample + "' has no rows");
    }
    result.sample = sampled;
    admin.flush(sampleSource);
  }

  /** The most cell bytes the sample copies from the user's table (default: no bound). */
  EvaluationRunner sampleBytes(long bytes) {
    this.sampleBytes = bytes;
    return this;
  }

  /**
   * Why the master refused a configuration's table (HBase's table sanity check, a {@code
   * DoNotRetryIOException}: a compression without a codec on the cluster), on one line; null for
   * any other failure.
   */
  static String refusal(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      // the check's own class, not its subclasses (an access denial, a table that exists)
      if (c.getClass() == org.apache.hadoop.hbase.DoNotRetryIOException.class) {
        String m = String.valueOf(c.getMessage());
        int nl = m.indexOf('\n');
        return "the master refused its table: " + (nl < 0 ? m : m.substring(0, nl));
      }
    }
    return null;
  }

  /** Shown with any result set that has blockscope's own encoding in it. */
  static final String ENCODER_NOTE =
      "BLOCKSCOPE_V1 is blockscope's own data block encoding: a real cluster needs the encoder"
          + " jar on every region server and the master's guard (docs/encoder.md); the embedded"
          + " cluster has both.";

  private Evaluation.ConfigResult prepare(Connection phoenix, String source, TableConfig config)
      throws Exception {
    progress.step(config.label() + labelSuffix + ": load, flush, major compact");
    Admin admin = cluster.admin();
    String table;
    TableName tn;
    switch (shape) {
      case SEEDS -> {
        table = SCHEMA + ".T_" + config.tableSuffix() + "_" + runId;
        expectScratch(table);
        SeedTable.create(phoenix, table, config); // fails if it exists
        tn = hbaseName(phoenix, table);
        if (config.checksumAlgorithm() != null) {
          for (ColumnFamilyDescriptor f : admin.getDescriptor(tn).getColumnFamilies()) {
            admin.modifyColumnFamily(tn, RawTable.family(f, config));
          }
        }
        SeedTable.copy(phoenix, source, table);
      }
      case PE, SAMPLE -> {
        ensureNamespace(admin);
        tn = TableName.valueOf(SCHEMA, "T_" + config.tableSuffix() + "_" + runId);
        table = tn.getNameAsString();
        if (admin.tableExists(tn)) {
          throw new IllegalStateException(
              table + " exists already: this run (" + runId + ") creates only tables of its own");
        }
        scratchTable(table);
        if (shape == DataShape.PE) {
          RawTable.create(
              admin, tn, List.of(ColumnFamilyDescriptorBuilder.of(RawTable.PE_FAMILY)), config);
          RawTable.loadPe(cluster.hbase(), tn, rows, 20100401L);
        } else {
          RawTable.create(
              admin, tn, List.of(admin.getDescriptor(sampleSource).getColumnFamilies()), config);
        }
      }
      default -> throw new IllegalStateException(shape.name());
    }
    Evaluation.ConfigResult cr = new Evaluation.ConfigResult(config, table, tn.getNameAsString());
    cr.label = config.label() + labelSuffix;
    switch (shape) {
      case SEEDS -> cr.keys = Workload.seedKeys(rows);
      case PE -> cr.keys = r -> RawTable.peRow(r.nextInt(rows));
      default -> {
        RawTable.copySample(
            cluster.hbase(), sampleSource, tn, Integer.MAX_VALUE, Long.MAX_VALUE, 7);
        List<byte[]> keys = sampled.keys();
        cr.keys = r -> keys.get(r.nextInt(keys.size()));
      }
    }
    admin.flush(tn);
    admin.majorCompact(tn);
    Workload.awaitCompaction(admin, tn);
    admin.modifyTable(
        TableDescriptorBuilder.newBuilder(admin.getDescriptor(tn))
            .setValue(Attributes.TABLE_LEVEL, PerfLevel.TIME.name())
            .setValue(RUN_ATTRIBUTE, runId)
            .build());
    cr.storeFileBytes = cluster.storeFileBytes(cr.hbaseTable);
    return cr;
  }

  /**
   * Keeps each configuration's table after the run (in evaluate's own schema, named and marked with
   * the run's id; no later run drops it), so that it can be checked against its store files; the
   * seeds' source table is dropped as ever.
   */
  EvaluationRunner keepTables(boolean keep) {
    this.keepTables = keep;
    return this;
  }

  private void keep(Evaluation.ConfigResult cr) {
    scratch.remove(cr.table);
    scratchHBase.remove(cr.table);
    scratchHBase.remove(cr.table.replace('.', ':'));
    scratchHBase.remove(cr.hbaseTable);
    createdNamespace = false; // it holds the kept table
    progress.note("kept " + cr.hbaseTable + " (--keep-tables)");
  }

  /** This run's id: the end of its tables' names and their {@value #RUN_ATTRIBUTE}. */
  String runId() {
    return runId;
  }

  /** Gives the run the id {@code id} (tests: a run whose names another run's table has taken). */
  EvaluationRunner runId(String id) {
    this.runId = id;
    return this;
  }

  /** The HBase table behind a Phoenix table, under whichever naming the cluster uses. */
  private static TableName hbaseName(Connection phoenix, String sqlName) throws Exception {
    return TableName.valueOf(
        PhoenixRuntime.getTable(phoenix, sqlName).getPhysicalName().getString());
  }

  /** Marks a table this run created with its id (the seeds' source; the others when prepared). */
  private void mark(TableName tn) throws Exception {
    Admin admin = cluster.admin();
    admin.modifyTable(
        TableDescriptorBuilder.newBuilder(admin.getDescriptor(tn))
            .setValue(RUN_ATTRIBUTE, runId)
            .build());
  }

  /**
   * Whether this run may drop {@code tn}: its name ends in this run's id and it carries no other
   * run's (a table whose creation was cut short carries none yet).
   */
  boolean owns(Admin admin, TableName tn) throws IOException {
    if (!tn.getQualifierAsString().endsWith("_" + runId)) {
      return false;
    }
    String mark = admin.getDescriptor(tn).getValue(RUN_ATTRIBUTE);
    return mark == null || mark.equals(runId);
  }

  /** Appended to every configuration's label, e.g. the block cache setup of the run. */
  EvaluationRunner labelSuffix(String suffix) {
    this.labelSuffix = suffix;
    return this;
  }

  /** A Phoenix table about to be created: dropped at clean-up under either HBase naming. */
  private void expectScratch(String sqlName) {
    scratch.add(sqlName);
    scratchTable(sqlName);
    scratchTable(sqlName.replace('.', ':'));
  }

  /** An HBase table about to be created: dropped at clean-up if it is there. */
  void scratchTable(String hbaseName) {
    scratchHBase.add(hbaseName);
  }

  private void ensureNamespace(Admin admin) throws Exception {
    if (Arrays.stream(admin.listNamespaces()).noneMatch(SCHEMA::equals)) {
      admin.createNamespace(NamespaceDescriptor.create(SCHEMA).build());
      createdNamespace = true;
    }
  }

  private void drop(Connection phoenix, Evaluation.ConfigResult cr) throws Exception {
    TableName tn = TableName.valueOf(cr.hbaseTable);
    if (!owns(cluster.admin(), tn)) {
      throw new IllegalStateException(
          cr.hbaseTable + " carries another run's id: this run (" + runId + ") does not drop it");
    }
    if (shape == DataShape.SEEDS) {
      SeedTable.drop(phoenix, cr.table);
      scratch.remove(cr.table);
    } else {
      cluster.admin().disableTable(tn);
      cluster.admin().deleteTable(tn);
    }
    scratchHBase.removeIf(
        t -> {
          try {
            return !cluster.admin().tableExists(TableName.valueOf(t));
          } catch (Exception e) {
            return false;
          }
        });
  }

  private void measure(Connection phoenix, Evaluation.ConfigResult cr) throws Exception {
    List<Workload> ordered = new ArrayList<>(workloads);
    ordered.sort(
        Comparator.comparing(Workload::afterDeletes).thenComparing(w -> w == Workload.COMPACTION));
    String noVerify = cr.config.hbaseVerifies() ? null : cluster.whyNoVerifyToggle();
    if (!cr.config.hbaseVerifies() && noVerify == null) {
      cluster.hbaseChecksumVerification(cr.hbaseTable, false);
    }
    try {
      measureAll(phoenix, cr, ordered, noVerify);
    } finally {
      if (!cr.config.hbaseVerifies() && noVerify == null) {
        cluster.hbaseChecksumVerification(cr.hbaseTable, true);
      }
    }
    cr.rawBytes = rawBytes(cr);
  }

  private void measureAll(
      Connection phoenix, Evaluation.ConfigResult cr, List<Workload> ordered, String skipAll)
      throws Exception {
    boolean deleted = false;
    Workload.Target target =
        new Workload.Target(phoenix, cluster.hbase(), cr.table, cr.hbaseTable, rows, 42, cr.keys);
    OperatingSystemMXBean os =
        cluster.cpuTimeIncludesServer()
            ? (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()
            : null;
    for (Workload w : ordered) {
      checkInterrupt();
      progress.step(cr.label + ": " + w.key());
      Evaluation.Measured m = new Evaluation.Measured();
      cr.workloads.put(w, m);
      if (skipAll != null) {
        m.skipped = skipAll;
        continue;
      }
      if (w.phoenixOnly() && !shape.phoenix()) {
        m.skipped =
            "a Phoenix workload; "
                + shape.name().toLowerCase(Locale.ROOT)
                + " tables are plain HBase tables";
        continue;
      }
      if (w.cache() == Workload.Cache.COLD && cluster.whyNoColdCache() != null) {
        m.skipped = cluster.whyNoColdCache();
        continue;
      }
      if (w.needsIndex()) {
        Workload.prepareIndex(phoenix, cr.table);
      }
      if (w.afterDeletes() && !deleted) {
        Workload.deleteMost(phoenix, cr.table);
        cluster.admin().flush(TableName.valueOf(cr.hbaseTable));
        deleted = true;
      }
      if (w.cache() == Workload.Cache.WARM && !w.afterDeletes()) {
        w.warmUp(target); // untimed (the deleted-row scans run after a full scan anyway)
      }
      List<CostSnapshot> costs = new ArrayList<>();
      for (int i = 0; i < runs; i++) {
        costs.add(runOnce(cr, w, target, m, os));
      }
      m.medianRunCosts = costs.get(Stats.medianIndex(m.millis));
    }
  }

  /**
   * One timed run of {@code w} on {@code cr}'s table, its time, CPU, rows and latencies added to
   * {@code m}; blockscope's costs of the run, or null where they cannot be read.
   */
  private CostSnapshot runOnce(
      Evaluation.ConfigResult cr,
      Workload w,
      Workload.Target target,
      Evaluation.Measured m,
      OperatingSystemMXBean os)
      throws Exception {
    checkInterrupt();
    if (drops(w)) {
      cluster.dropCache(
          cr.hbaseTable); // a bypassing read should find nothing cached, as in seed 000
    }
    CostSnapshot before = cluster.costs().table(cr.hbaseTable);
    timedRun(w, target, m, os);
    CostSnapshot after = cluster.costs().table(cr.hbaseTable);
    return costsOfRun(m, before, after);
  }

  /** Times one run of {@code w}, adding its time, CPU, rows and latencies to {@code m}. */
  private static void timedRun(
      Workload w, Workload.Target target, Evaluation.Measured m, OperatingSystemMXBean os)
      throws Exception {
    long cpu = os == null ? 0 : os.getProcessCpuTime();
    long start = System.nanoTime();
    Workload.Run run = w.run(target);
    m.millis.add((System.nanoTime() - start) / 1e6);
    if (os != null) {
      m.cpuMillis.add((os.getProcessCpuTime() - cpu) / 1e6);
    }
    m.rows = run.rows();
    m.latenciesMicros.addAll(run.latenciesMicros());
  }

  /** A run's costs from the table's readings around it (its server time added to {@code m}). */
  private static CostSnapshot costsOfRun(
      Evaluation.Measured m, CostSnapshot before, CostSnapshot after) {
    if (before == null || after == null) {
      return null;
    }
    CostSnapshot costs = after.minus(before);
    m.serverNanos.add((double) costs.serverNanos());
    return costs;
  }

  /**
   * Measures every prepared configuration's table with each workload, the configurations taking
   * turns run by run in a rotating order, so that a slow minute of the machine, or the first runs'
   * warm-up of the client, falls on all of them alike ({@link #interleave}). Plain HBase workloads
   * only: no index, no deletes, HBase's own checksum verification.
   *
   * <p>The costs are read for every table at once at the ends of each round (every configuration's
   * run), not around each run: a remote cluster's reading waits for three export refreshes, and a
   * round's readings then cost one wait, not two per configuration. Each table is read by its own
   * run only within a round, so its difference over the round is its run's costs. A cold workload's
   * tables have their blocks dropped at the start of each round, before its first reading.
   */
  private void measureInterleaved(List<Evaluation.ConfigResult> crs) throws Exception {
    OperatingSystemMXBean os =
        cluster.cpuTimeIncludesServer()
            ? (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()
            : null;
    List<Workload.Target> targets = new ArrayList<>();
    List<String> tables = new ArrayList<>();
    for (Evaluation.ConfigResult cr : crs) {
      targets.add(target(cr));
      tables.add(cr.hbaseTable);
    }
    for (Workload w : workloads) {
      if (w.phoenixOnly() || w.needsIndex() || w.afterDeletes()) {
        throw new IllegalStateException(w.key() + " cannot be interleaved");
      }
      progress.step("every setting, in turns: " + w.key());
      boolean drops = drops(w);
      List<List<CostSnapshot>> costs = new ArrayList<>();
      for (int k = 0; k < crs.size(); k++) {
        Evaluation.Measured m = new Evaluation.Measured();
        crs.get(k).workloads.put(w, m);
        costs.add(new ArrayList<>());
        if (w.cache() == Workload.Cache.COLD && cluster.whyNoColdCache() != null) {
          m.skipped = cluster.whyNoColdCache();
        } else if (w.cache() == Workload.Cache.WARM) {
          w.warmUp(targets.get(k)); // untimed
        }
      }
      Map<String, CostSnapshot> before = drops ? null : cluster.costs().tables(tables);
      for (int i = 0; i < runs; i++) {
        checkInterrupt();
        if (drops) {
          for (int k = 0; k < crs.size(); k++) {
            if (crs.get(k).workloads.get(w).skipped == null) {
              cluster.dropCache(crs.get(k).hbaseTable);
            }
          }
          before = cluster.costs().tables(tables);
        }
        for (int j = 0; j < crs.size(); j++) {
          int k = (i + j) % crs.size();
          Evaluation.Measured m = crs.get(k).workloads.get(w);
          if (m.skipped == null) {
            timedRun(w, targets.get(k), m, os);
          }
        }
        Map<String, CostSnapshot> after = cluster.costs().tables(tables);
        for (int k = 0; k < crs.size(); k++) {
          Evaluation.Measured m = crs.get(k).workloads.get(w);
          if (m.skipped == null) {
            String t = crs.get(k).hbaseTable;
            costs.get(k).add(costsOfRun(m, before.get(t), after.get(t)));
          }
        }
        before = after;
      }
      for (int k = 0; k < crs.size(); k++) {
        Evaluation.Measured m = crs.get(k).workloads.get(w);
        if (m.skipped == null) {
          m.medianRunCosts = costs.get(k).get(Stats.medianIndex(m.millis));
        }
      }
    }
    for (Evaluation.ConfigResult cr : crs) {
      cr.rawBytes = rawBytes(cr);
    }
  }

  /** A plain HBase workload's target: the configuration's table and the sample's keys. */
  private Workload.Target target(Evaluation.ConfigResult cr) throws IOException {
    return new Workload.Target(null, cluster.hbase(), cr.table, cr.hbaseTable, rows, 42, cr.keys);
  }

  /** Whether each run of {@code w} starts with the table's blocks dropped from the cache. */
  private boolean drops(Workload w) {
    return w.cache() == Workload.Cache.COLD
        || (w.cache() == Workload.Cache.BYPASS && cluster.whyNoColdCache() == null);
  }

  /**
   * The budget's estimate of the interleaved measurement, from the first setting's table: one cost
   * reading, and each workload once (a warm one after its warm-up, also timed), untimed for the
   * results. A setting costs each warm workload's warm-up and its runs, a cold one's drops and
   * runs; the readings (per workload {@code runs} + 1, or two per round with drops) are shared.
   */
  private void trial(Evaluation.ConfigResult cr) throws Exception {
    Workload.Target t = target(cr);
    long start = System.nanoTime();
    cluster.costs().tables(List.of(cr.hbaseTable));
    long reading = System.nanoTime() - start;
    long perSetting = 0;
    long shared = 0;
    for (Workload w : workloads) {
      if (w.cache() == Workload.Cache.COLD && cluster.whyNoColdCache() != null) {
        continue;
      }
      checkInterrupt();
      boolean drops = drops(w);
      long warmUp = 0;
      if (w.cache() == Workload.Cache.WARM) {
        long s = System.nanoTime();
        w.warmUp(t);
        warmUp = System.nanoTime() - s;
      }
      long s = System.nanoTime();
      if (drops) {
        cluster.dropCache(cr.hbaseTable);
      }
      w.run(t);
      perSetting += warmUp + runs * (System.nanoTime() - s);
      shared += (drops ? 2L * runs : runs + 1L) * reading;
    }
    budget.measurement(perSetting, shared);
  }

  /**
   * Loads settings only while the replay's estimate, loads and measurement, ends within {@code
   * limit} ({@link ReplayBudget}); the ones left are named in the results' notes. Interleaved
   * replays only.
   */
  EvaluationRunner budget(Duration limit, String asGiven) {
    this.budget = new ReplayBudget(limit);
    this.budgetText = asGiven;
    return this;
  }

  /**
   * Prepares every configuration's table first, then measures them in turns ({@link
   * #measureInterleaved}); advise's replay, where the settings are compared with each other.
   */
  EvaluationRunner interleave(boolean on) {
    this.interleave = on;
    return this;
  }

  /** Uncompressed, unencoded bytes a full scan went through: from the cold scan's costs. */
  private static long rawBytes(Evaluation.ConfigResult cr) {
    if (!cr.cacheBytesMeasured()) {
      return cr.storeFileBytes;
    }
    CostSnapshot c = cr.coldScan().medianRunCosts;
    long decompressed = c.sumOver("decompress", "bytesOut");
    return decompressed > 0 ? decompressed : c.sumKinds("fs.read.bytes");
  }

  private static void checkInterrupt() throws InterruptedException {
    if (Thread.currentThread().isInterrupted()) {
      throw new InterruptedException("evaluate interrupted");
    }
  }

  /**
   * Whether this run owns the HBase table behind a Phoenix name under whichever naming exists (or
   * neither exists: Phoenix's DROP ... IF EXISTS then drops nothing of anyone's).
   */
  private boolean ownsEither(Admin admin, String sqlName) throws IOException {
    for (TableName tn :
        List.of(TableName.valueOf(sqlName), TableName.valueOf(sqlName.replace('.', ':')))) {
      if (admin.tableExists(tn)) {
        return owns(admin, tn);
      }
    }
    return true;
  }

  /**
   * Drops every scratch table this runner created and has not dropped yet (through Phoenix, then
   * through HBase for whatever Phoenix did not know), and the namespace if this run created it and
   * left it empty.
   */
  void cleanUp() {
    if (scratch.isEmpty() && scratchHBase.isEmpty() && !createdNamespace) {
      return;
    }
    // The drops run on a thread of their own, which no interrupt of the caller's reaches: an
    // embedding caller that interrupts again while the drops run (or a second Ctrl-C's hook)
    // would otherwise fail an RPC and leave the table. The caller's interrupt is kept for it.
    Thread dropper = new Thread(this::dropScratchTables, "blockscope-evaluate-drops");
    dropper.setDaemon(true);
    dropper.start();
    boolean interrupted = false;
    long deadline = System.nanoTime() + dropWaitMs * 1_000_000L;
    while (dropper.isAlive()) {
      long left = (deadline - System.nanoTime()) / 1_000_000L;
      if (left <= 0) {
        System.err.println(
            "blockscope: the cluster did not answer the drops of run "
                + runId
                + " within "
                + dropWaitMs / 1000
                + " s; these scratch tables may be left: "
                + new TreeSet<>(scratchHBase)
                + ". They carry the run's id; drop them (disable, drop in the HBase shell) once"
                + " the cluster answers.");
        break;
      }
      try {
        dropper.join(left);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Sets how long {@link #cleanUp} waits for the drops (default {@value #DROP_WAIT_MS} ms). */
  EvaluationRunner dropWait(long ms) {
    this.dropWaitMs = ms;
    return this;
  }

  private synchronized void dropScratchTables() {
    try (Connection c = shape.phoenix() && !scratch.isEmpty() ? cluster.phoenix() : null) {
      for (String table : c == null ? List.<String>of() : List.copyOf(scratch)) {
        try {
          if (!ownsEither(cluster.admin(), table)) {
            scratch.remove(table);
            continue;
          }
          SeedTable.drop(c, table);
          scratch.remove(table);
        } catch (Exception e) {
          // Phoenix may not know a table whose CREATE was interrupted: HBase drops it below
        }
      }
    } catch (Exception e) {
      // no Phoenix connection: HBase drops what it can below
    }
    try {
      Admin admin = cluster.admin();
      for (String table : List.copyOf(scratchHBase)) {
        TableName tn = TableName.valueOf(table);
        try {
          if (admin.tableExists(tn) && !owns(admin, tn)) {
            System.err.println(
                "blockscope: left "
                    + table
                    + " alone: it carries another run's id, not this run's ("
                    + runId
                    + ")");
          } else if (admin.tableExists(tn)) {
            if (admin.isTableEnabled(tn)) {
              admin.disableTable(tn);
            }
            admin.deleteTable(tn);
          }
          scratchHBase.remove(table);
        } catch (Exception e) {
          System.err.println(
              "blockscope: could not drop scratch table " + table + ": " + e.getMessage());
        }
      }
      scratch.clear();
      if (createdNamespace && admin.listTableNamesByNamespace(SCHEMA).length == 0) {
        admin.deleteNamespace(SCHEMA);
        createdNamespace = false;
      }
    } catch (Exception e) {
      System.err.println(
          "blockscope: could not drop scratch tables " + scratchHBase + ": " + e.getMessage());
    }
  }
}
