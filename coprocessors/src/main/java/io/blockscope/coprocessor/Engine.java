package io.blockscope.coprocessor;

import com.codahale.metrics.Gauge;
import io.blockscope.coprocessor.accounting.CostRegistry;
import io.blockscope.coprocessor.accounting.ExportLimit;
import io.blockscope.coprocessor.accounting.QueryTracker;
import io.blockscope.coprocessor.accounting.StatementStats;
import io.blockscope.coprocessor.accounting.UserAccounts;
import io.blockscope.coprocessor.probe.BridgeHandle;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.ServerMetric;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.conf.ConfigurationObserver;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.OnlineRegions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * blockscope inside one region server JVM: the probes, the per-region costs, their export to JMX
 * and to HBase's coprocessor metric registry, and the attribution of reads to regions and queries.
 * One engine per JVM however many regions, tables and class-loader copies of the coprocessor there
 * are ({@link JvmEngine} makes, joins and finds it); it answers the RegionObserver's {@link Hooks}
 * through its parts, one job each:
 *
 * <ul>
 *   <li>{@link Attribution}: each thread's frames, which hand what the probes counted to the region
 *       (and query) being read;
 *   <li>{@link QueryTagging}: tagged queries and their per-region records;
 *   <li>{@link Levels}: the server's levels and caps, and what each table asked for;
 *   <li>{@link Problems}: what went wrong, kept for operators;
 *   <li>this class: region open and close, live reload of the server's settings, and the export of
 *       the costs on a schedule.
 * </ul>
 *
 * <p>Reads outside the observer's brackets (region open, prefetch-on-open, flushes) run at level
 * OFF and are not counted: HBase gives no region for them.
 */
final class Engine implements Hooks, ConfigurationObserver {
  private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

  private final CostRegistry registry;
  private final UserAccounts users;
  private final StatementTagging statements;
  private final BridgeHandle bridge;
  private final Problems problems = new Problems();
  private final Levels levels;
  private final Attribution attribution;
  private final QueryTagging tagging;

  private final AtomicLong hookFailures = new AtomicLong();
  private final AtomicLong exportRefreshes = new AtomicLong();
  private final AtomicLong profileRequests = new AtomicLong();
  private final ScheduledExecutorService exporter;
  private volatile boolean configObserverRegistered;

  /**
   * Why HBase's scan metrics are not in query profiles, for the start line; empty when they are.
   */
  private final List<String> noHBaseScanMetrics = new ArrayList<>();

  /** Made by {@link JvmEngine} only: one per JVM. */
  Engine(BlockscopeConfig config, BridgeHandle bridge, List<String> problems) {
    this.bridge = bridge;
    problems.forEach(this.problems::add);
    this.levels = new Levels(config, this.problems);
    this.registry = new CostRegistry(config.export, config.retainMs, System::nanoTime);
    registry.exportTables(config.exportTables);
    registry.hold(config.exportMinMs);
    this.users = new UserAccounts(config.usersMax);
    registry.users(users);
    if (bridge != null) {
      registry.cacheReuse(bridge.cacheReuseCounts(), bridge::cacheTables);
    }
    this.attribution = new Attribution(registry, users, bridge, hookFailures);
    this.statements =
        new StatementTagging(
            new StatementStats(config.statementsUsers, config.statementsPerUser),
            attribution,
            this.problems,
            hookFailures);
    this.tagging =
        new QueryTagging(
            registry,
            attribution,
            levels,
            HBaseScanMetricsReader.find(HRegionServer.class.getClassLoader(), noHBaseScanMetrics),
            hookFailures,
            config.queryLimits);
    registerProbeHealth();
    registry.registerOnce(
        ServerMetric.HOOKS_FAILURES.key(), CostRegistry.readOnlyCounter(hookFailures::get));
    registry.registerOnce(
        ServerMetric.EXPORT_REFRESHES.key(), CostRegistry.readOnlyCounter(exportRefreshes::get));
    registry.registerOnce(
        ServerMetric.FRAMES_DROPPED.key(),
        CostRegistry.readOnlyCounter(attribution::droppedFrames));
    registry.registerOnce(
        ServerMetric.PROFILE_REQUESTS.key(), CostRegistry.readOnlyCounter(profileRequests::get));
    registry.registerOnce(
        ServerMetric.QUERIES_EVICTED.key(),
        CostRegistry.readOnlyCounter(tagging.queries()::evicted));
    registry.registerOnce(ServerMetric.FRAMES_OPEN.key(), (Gauge<Integer>) this::openFrames);
    registry.registerOnce(
        ServerMetric.BLOCK_CACHE_FILES.key(),
        (Gauge<Integer>) () -> bridge == null ? 0 : bridge.cacheFiles());
    // the settings in force, as level ordinals (OFF 0, COUNT 1, TIME 2): what the server's own
    // configuration says, whatever a table asks
    registry.registerOnce(
        ServerMetric.SETTINGS_LEVEL.key(), (Gauge<Integer>) () -> levels.server().ordinal());
    registry.registerOnce(
        ServerMetric.SETTINGS_QUERY_MAX_LEVEL.key(),
        (Gauge<Integer>) () -> levels.queryMax().ordinal());
    registry.registerOnce(
        ServerMetric.SETTINGS_TABLE_MAX_LEVEL.key(),
        (Gauge<Integer>) () -> levels.tableMax().ordinal());
    if (config.jmxEnabled) {
      registry.startJmx(ManagementFactory.getPlatformMBeanServer());
    }
    exporter =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "blockscope-export");
              t.setDaemon(true);
              return t;
            });
    ScheduledFuture<?> unusedExport =
        exporter.scheduleWithFixedDelay(
            this::refreshExportQuietly,
            config.exportIntervalMs,
            config.exportIntervalMs,
            TimeUnit.MILLISECONDS);
  }

  // ---- region lifecycle -----------------------------------------------------------------------

  @Override
  public void regionOpened(RegionCoprocessorEnvironment env) {
    try {
      String region = env.getRegionInfo().getEncodedName();
      levels.open(env.getRegion().getTableDescriptor(), region, registry);
      updateMeasuring();
      HBaseExport.register(
          env.getMetricRegistryForRegionServer(),
          registry,
          this::probeInstalled,
          this::probeFailures);
      watchConfiguration(env);
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
      LOG.warn("blockscope: cannot track region {}", env.getRegionInfo(), t);
    }
  }

  @Override
  public void regionClosed(RegionCoprocessorEnvironment env) {
    try {
      String region = env.getRegionInfo().getEncodedName();
      registry.close(region);
      if (registry.region(region) == null) {
        levels.forget(region);
      }
      updateMeasuring();
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
      LOG.warn("blockscope: cannot untrack region {}", env.getRegionInfo(), t);
    }
  }

  /**
   * Lets the probes skip the thread-local while no region is above OFF. Synchronized so that the
   * last change of the registry is the one whose answer stands; O(1), so that a server opening
   * thousands of regions does not walk them all at each open.
   */
  private synchronized void updateMeasuring() {
    if (bridge != null) {
      bridge.measuring(registry.anyMeasured());
    }
  }

  // ---- attribution and tagged queries: the parts' own ------------------------------------------

  @Override
  public boolean measures(RegionCoprocessorEnvironment env) {
    return attribution.measures(env);
  }

  @Override
  public void enter(RegionCoprocessorEnvironment env) {
    attribution.enter(env);
  }

  @Override
  public void exit(RegionCoprocessorEnvironment env) {
    attribution.exit(env);
  }

  @Override
  public void compactionOpening(RegionCoprocessorEnvironment env) {
    attribution.compactionOpening(env);
  }

  /** The RPC call that started at frame depth {@code depthAtStart} ended: {@link Attribution}. */
  void callEnded(int depthAtStart) {
    attribution.callEnded(depthAtStart);
  }

  /**
   * Attribution frames open now, summed over every thread. Between RPC calls it is 0; a quiescent
   * server that shows more has a hook imbalance.
   */
  public int openFrames() {
    return attribution.openFrames();
  }

  @Override
  public Object queryScan(
      byte[] queryId, String user, Object scan, RegionCoprocessorEnvironment env, int level) {
    return tagging.queryScan(queryId, user, scan, env, level);
  }

  @Override
  public void scannerOpened(Object scanner, Object handle) {
    tagging.scannerOpened(scanner, handle);
  }

  @Override
  public Object statementScan(
      byte[] fingerprint, byte[] text, byte[] execution, String region, String user) {
    return statements.statementScan(fingerprint, text, execution, region, user);
  }

  @Override
  public void statementActive(Object handle, int rows) {
    statements.statementActive(handle, rows);
  }

  /** The statements by user this server keeps. */
  StatementStats statementStats() {
    return statements.stats();
  }

  @Override
  public void queryActive(Object handle, int rows) {
    tagging.queryActive(handle, rows);
  }

  @Override
  public void scanBatchEnded() {
    tagging.scanBatchEnded();
  }

  @Override
  public long[] queryCosts(String queryId, String user, String region) {
    return tagging.queryCosts(queryId, user, region);
  }

  @Override
  public byte[] statementsReport(String server, String user, boolean all, boolean reset) {
    return statements.report(server, user, all, reset);
  }

  @Override
  public void profileAsked() {
    profileRequests.incrementAndGet();
  }

  @Override
  public void scannerClosed(Object scanner) {
    tagging.scannerClosed(scanner);
  }

  /** The scanners of tagged queries seen by this JVM's region servers. */
  public QueryTracker queries() {
    return tagging.queries();
  }

  // ---- configuration ----------------------------------------------------------------------------

  private void watchConfiguration(RegionCoprocessorEnvironment env) {
    if (configObserverRegistered) {
      return;
    }
    // A plain (non-core) coprocessor's environment does not offer RegionServerServices, but
    // getOnlineRegions() hands out the region server itself
    // (RegionCoprocessorHost.RegionEnvironment).
    //
    // HRegionServer.getConfigurationManager() is public on HBase 2.6 but package-private on 2.5
    // and marked for tests (@RestrictedApi), so it is looked up, not linked: where it cannot be
    // called, live reload is off and said so; the region is tracked all the same.
    OnlineRegions services = env.getOnlineRegions();
    if (!(services instanceof HRegionServer)) {
      return;
    }
    configObserverRegistered = true;
    try {
      Object manager = HRegionServer.class.getMethod("getConfigurationManager").invoke(services);
      manager
          .getClass()
          .getMethod("registerObserver", ConfigurationObserver.class)
          .invoke(manager, this);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      // once per engine (configObserverRegistered): the operator's log says it, as problems() does
      String problem =
          "live configuration reload (update_config) unavailable on this HBase: "
              + e
              + "; blockscope's settings change at restart";
      LOG.warn("blockscope: {}", problem);
      problems.add(problem);
    }
  }

  /**
   * Applies {@code blockscope.level}, {@code blockscope.query.max.level}, {@code
   * blockscope.table.max.level}, {@code blockscope.export.regions}, {@code
   * blockscope.export.tables}, {@code blockscope.export.min.ms}, {@code
   * blockscope.export.retain.ms} and the limits of query tracking ({@code blockscope.query.max.*},
   * {@code blockscope.query.share.users}), {@code blockscope.users.max} and the statements kept
   * ({@code blockscope.statements.users}, {@code blockscope.statements.per.user}), from the region
   * server's reloaded {@code hbase-site.xml} ({@code update_config} in the HBase shell): regions
   * whose table sets its own level keep it, within the new cap; lowered limits drop what is over
   * them at once.
   */
  @Override
  public void onConfigurationChange(Configuration conf) {
    List<String> found = new ArrayList<>();
    BlockscopeConfig config = new BlockscopeConfig(conf, found);
    found.forEach(p -> LOG.warn("blockscope: {}", p));
    found.forEach(problems::add);
    registry.export(config.export);
    registry.exportTables(config.exportTables);
    registry.hold(config.exportMinMs);
    registry.retain(config.retainMs);
    tagging.queries().limits(config.queryLimits);
    users.max(config.usersMax);
    statements.stats().limits(config.statementsUsers, config.statementsPerUser);
    levels.reload(config, registry);
    tagging.relevel();
    updateMeasuring();
    LOG.info(
        "blockscope: configuration reloaded: level {}, query max level {}, table max level {},"
            + " regions exported {}, tables exported {}, exported at least {} ms, closed regions"
            + " kept {} ms, tagged queries: {}, user accounts {}, statements {} users x {}",
        config.level,
        config.queryMaxLevel,
        config.tableMaxLevel,
        config.export,
        config.exportTables,
        config.exportMinMs,
        config.retainMs,
        config.queryLimits,
        config.usersMax,
        config.statementsUsers,
        config.statementsPerUser);
  }

  // ---- export ---------------------------------------------------------------------------------

  private void refreshExportQuietly() {
    try {
      refreshExport();
    } catch (Throwable t) {
      LOG.warn("blockscope: export refresh failed", t);
    }
  }

  private void registerProbeHealth() {
    for (int p = 0; p < ProbeBridge.N_PROBES; p++) {
      final int probe = p;
      registry.registerOnce(
          MetricKeys.probe(ProbeBridge.PROBE_NAMES[p], "installed"),
          (Gauge<Integer>) () -> probeInstalled(probe) ? 1 : 0);
      registry.registerOnce(
          MetricKeys.probe(ProbeBridge.PROBE_NAMES[p], "failures"),
          CostRegistry.readOnlyCounter(() -> probeFailures(probe)));
    }
  }

  // ---- what operators, tests and the demo read ------------------------------------------------

  public CostRegistry registry() {
    return registry;
  }

  /** The server's read costs by user. */
  public UserAccounts users() {
    return users;
  }

  public boolean probeInstalled(int probe) {
    return bridge != null && bridge.installed().get(probe) == 1;
  }

  public long probeFailures(int probe) {
    return bridge == null ? 0 : bridge.failures().get(probe);
  }

  /** Sets how many times each probe counts an event, for a test drill; null: once. */
  void drill(java.util.function.IntUnaryOperator counts) {
    if (bridge != null) {
      bridge.drill(counts);
    }
  }

  /**
   * Problems found in settings and probe installation, for operators: the first {@value
   * Problems#MAX_PROBLEMS}, and a last line counting those not kept.
   */
  public List<String> problems() {
    return problems.all();
  }

  public PerfLevel serverLevel() {
    return levels.server();
  }

  public ExportLimit export() {
    return registry.export();
  }

  /** Brings the exported series in line with the costs now; counted in export.refreshes. */
  public void refreshExport() {
    registry.refreshExport();
    exportRefreshes.incrementAndGet();
  }

  /** Whether query profiles carry HBase's own scan metrics, and if not why: for the start line. */
  String hbaseScanMetricsSummary() {
    return noHBaseScanMetrics.isEmpty()
        ? "HBase's scan metrics in query profiles: available"
        : noHBaseScanMetrics.get(0);
  }

  String probeSummary() {
    StringBuilder sb = new StringBuilder();
    for (int p = 0; p < ProbeBridge.N_PROBES; p++) {
      sb.append(p == 0 ? "" : ", ")
          .append(ProbeBridge.PROBE_NAMES[p])
          .append(probeInstalled(p) ? "=installed" : "=unavailable");
    }
    return sb.toString();
  }
}
