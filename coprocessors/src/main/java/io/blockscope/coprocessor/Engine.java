package io.blockscope.coprocessor;

import com.codahale.metrics.Gauge;
import io.blockscope.coprocessor.accounting.CostAccumulator;
import io.blockscope.coprocessor.accounting.CostRegistry;
import io.blockscope.coprocessor.accounting.CostRegistry.RegionCosts;
import io.blockscope.coprocessor.accounting.QueryTracker;
import io.blockscope.coprocessor.accounting.RegionExport;
import io.blockscope.coprocessor.probe.BridgeHandle;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.coprocessor.probe.ProbeInstaller;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.HBaseScanMetrics;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.profile.ProfileWire;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Server;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.conf.ConfigurationObserver;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.OnlineRegions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * blockscope inside one region server JVM: the probes, the per-region costs, their export to JMX
 * and to HBase's coprocessor metric registry, and the attribution of reads to regions.
 *
 * <p>There is one engine per JVM however many regions, tables and class-loader copies of the
 * coprocessor there are: it is published through {@link ProbeBridge}, which every copy reaches.
 *
 * <h2>Attribution</h2>
 *
 * The probes fill a per-thread cost array while the thread's level slot is above OFF. The
 * RegionObserver brackets every client read (scanner open, scanner next, get, exists) and every
 * compaction batch with {@link #enter} and {@link #exit}: enter pushes a frame naming the region
 * and sets the thread's level to the region's, exit drains the array into the region's accumulator
 * and restores the outer frame's level. Frames nest (Phoenix serves some reads by issuing region
 * operations of its own inside a scan); the reads between two nested hooks go to the innermost
 * region. A frame holds its region ({@code RegionCosts.acquire}) so that a read still in flight
 * when the region closes is counted before the region's costs move to its table.
 *
 * <p>Post-hooks do not come when a read throws or an observer bypasses (HBase skips them), so a
 * frame is not closed by its post-hook alone: when the RPC call ends (the {@code rpcCall} probe:
 * {@code CallRunner.run} returns on a handler thread, or the short-circuit connection's {@code
 * doCall} returns on the thread of a coprocessor that called its own server), every frame the call
 * opened and left open is closed, its costs going to its own region and query; a handler thread is
 * back at depth 0 and level OFF before it serves another call. A post-hook closes the frame of its
 * own region (frames record it), with any frame left open above it. Where the probe is unavailable,
 * frames left open are dropped once the stack is {@link #MAX_DEPTH} deep, so the stack stays
 * bounded.
 *
 * <p>Reads outside these brackets (region open, prefetch-on-open, flushes) run at level OFF and are
 * not counted: HBase gives no region for them.
 */
final class Engine implements Hooks, ConfigurationObserver {
  private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

  static final int MAX_DEPTH = 32;

  /** Whether this copy said it joined another copy's engine: once, not at every region open. */
  private static final AtomicBoolean JOINED_SAID = new AtomicBoolean();

  /** The engine of this class loader's copy when no bridge could be set up at all. */
  private static Engine fallback;

  private final CostRegistry registry;
  private final QueryTracker queries = QueryTracker.withDefaults();
  private final BridgeHandle bridge;
  private final List<String> problems;

  /** The level each region's table asked for (its attribute), for regions whose table sets one. */
  private final Map<String, PerfLevel> tableLevels = new ConcurrentHashMap<>();

  /**
   * Table attributes already reported (a level above {@code blockscope.table.max.level}, a level
   * that does not parse): once each table and value, however many regions and reloads ask.
   */
  private final Set<String> tablesReported = ConcurrentHashMap.newKeySet();

  private final AtomicLong hookFailures = new AtomicLong();
  private final AtomicLong droppedFrames = new AtomicLong();
  private final AtomicLong exportRefreshes = new AtomicLong();
  private final ScheduledExecutorService exporter;
  private volatile PerfLevel serverLevel;
  private volatile PerfLevel queryMaxLevel;
  private volatile PerfLevel tableMaxLevel;
  private volatile boolean configObserverRegistered;

  /** HBase's own scan metrics for query profiles; null on an HBase without them. */
  private final HBaseScanMetricsReader hbaseScanMetrics;

  /** Why {@link #hbaseScanMetrics} is null, for the start line; empty when it is not. */
  private final List<String> noHBaseScanMetrics = new ArrayList<>();

  private static final class Frames {
    /**
     * The thread's cost array, which the probes fill ({@code ProbeBridge.costs()}): one per thread
     * for the thread's life, so it is looked up once, not at every hook. Null without a bridge.
     */
    final long[] costs;

    final RegionCosts[] stack = new RegionCosts[MAX_DEPTH];

    /**
     * The encoded name of the region each frame was opened for (its {@link #stack} entry is null
     * for a region not measured): a post-hook closes its own region's frame, never another's.
     */
    final String[] owner = new String[MAX_DEPTH];

    /** The tagged query each frame works for, if any (see {@link #queryActive}). */
    final QueryTracker.RegionCosts[] query = new QueryTracker.RegionCosts[MAX_DEPTH];

    /** Written by its thread only; volatile so that {@link #openFrames()} reads it current. */
    volatile int depth;

    /** The Scan last tagged on this thread, so that a second copy of blockscope does not tag it. */
    Object taggedScan;

    /** Which of a contended region's arrays this thread adds to (see {@link CostAccumulator}). */
    final CostAccumulator.Lane lane = new CostAccumulator.Lane();

    Frames(long[] costs) {
      this.costs = costs;
    }
  }

  /** Every thread's frames, for {@link #openFrames()}; a thread's entry goes with the thread. */
  private final Set<Frames> allFrames =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  /** Each thread's frames, made on the thread's first hook (after {@link #bridge} is set). */
  private final ThreadLocal<Frames> frames;

  /** Problems kept for operators; more are counted, not kept. */
  static final int MAX_PROBLEMS = 100;

  private final AtomicLong problemsNotKept = new AtomicLong();

  private Engine(BlockscopeConfig config, BridgeHandle bridge, List<String> problems) {
    this.bridge = bridge;
    this.frames =
        ThreadLocal.withInitial(
            () -> {
              Frames f = new Frames(bridge != null ? bridge.costs() : null);
              allFrames.add(f);
              return f;
            });
    this.problems = Collections.synchronizedList(new ArrayList<>());
    problems.forEach(this::problem);
    this.serverLevel = config.level;
    this.queryMaxLevel = config.queryMaxLevel;
    this.tableMaxLevel = config.tableMaxLevel;
    this.registry = new CostRegistry(config.export, config.retainMs, System::nanoTime);
    this.hbaseScanMetrics =
        HBaseScanMetricsReader.find(HRegionServer.class.getClassLoader(), noHBaseScanMetrics);
    registerProbeHealth();
    registry.registerOnce(
        MetricKeys.server("hooks.failures"), CostRegistry.readOnlyCounter(hookFailures::get));
    registry.registerOnce(
        MetricKeys.server("export.refreshes"), CostRegistry.readOnlyCounter(exportRefreshes::get));
    registry.registerOnce(
        MetricKeys.server("frames.dropped"), CostRegistry.readOnlyCounter(droppedFrames::get));
    registry.registerOnce(
        MetricKeys.server("queries.evicted"), CostRegistry.readOnlyCounter(queries::evicted));
    registry.registerOnce(MetricKeys.server("frames.open"), (Gauge<Integer>) this::openFrames);
    // the settings in force, as level ordinals (OFF 0, COUNT 1, TIME 2): what the server's own
    // configuration says, whatever a table asks
    registry.registerOnce(
        MetricKeys.server("settings.level"), (Gauge<Integer>) () -> serverLevel.ordinal());
    registry.registerOnce(
        MetricKeys.server("settings.query.max.level"),
        (Gauge<Integer>) () -> queryMaxLevel.ordinal());
    registry.registerOnce(
        MetricKeys.server("settings.table.max.level"),
        (Gauge<Integer>) () -> tableMaxLevel.ordinal());
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

  /**
   * The hooks of the JVM's engine, making the engine on first use from the settings of the region
   * server that opens {@code env}'s region ({@link #serverConfiguration}). Never throws: at worst
   * the engine runs without probes and says why in its probe health metrics.
   *
   * <p>Only the first region open of this copy reads the settings, asks {@link ProbeInstaller} and
   * resolves the engine; every later open takes the hooks it found ({@link #found}): the engine is
   * the JVM's for its life, and a per-open lookup cost every region of a server restart about a
   * hundred microseconds of its open (bin/blockscope region-open).
   */
  static Hooks hooks(RegionCoprocessorEnvironment env) {
    Hooks known = found;
    if (known != null) {
      return known;
    }
    List<String> problems = new ArrayList<>();
    Configuration conf = serverConfiguration(env);
    if (conf == null) {
      problems.add(
          "region "
              + env.getRegionInfo().getEncodedName()
              + " is open without a region server; blockscope uses its default settings");
      conf = new Configuration(false);
    }
    return hooks(conf, problems);
  }

  /**
   * The region server's own configuration ({@code hbase-site.xml}, the object {@code update_config}
   * reloads), or null for a region opened without a region server. Never the region's: {@code
   * env.getConfiguration()} is the {@code CompoundConfiguration} HBase builds in {@code HRegion}'s
   * constructor from the server's configuration plus the table descriptor's values (and a per-table
   * coprocessor's arguments on top, {@code RegionCoprocessorHost}), so whoever may alter a table
   * would set the whole server's blockscope through it. A plain coprocessor's environment hands out
   * the region server as {@code getOnlineRegions()} ({@code RegionServerServices}, which is an
   * HBase {@code Server}: {@code RegionCoprocessorHost.RegionEnvironment}).
   */
  static Configuration serverConfiguration(RegionCoprocessorEnvironment env) {
    OnlineRegions services = env.getOnlineRegions();
    return services instanceof Server ? ((Server) services).getConfiguration() : null;
  }

  private static Hooks hooks(Configuration conf, List<String> problems) {
    BlockscopeConfig config = new BlockscopeConfig(conf, problems);
    BridgeHandle bridge =
        ProbeInstaller.installAll(config.probesEnabled, config.attachTimeoutMs, problems);
    Object existing;
    if (bridge == null) {
      synchronized (Engine.class) {
        if (fallback == null) {
          fallback = start(config, null, problems);
        }
        existing = fallback;
      }
    } else {
      // one lock for the whole JVM, whichever copy asks: two copies starting at once must not
      // both make an engine (the second's JMX beans would clash with the first's)
      synchronized (bridge.setupLock()) {
        existing = bridge.engine(null);
        if (existing == null) {
          Engine engine = start(config, bridge, problems);
          existing = bridge.engine(engine);
          bridge.onCallEnd(engine::callEnded);
        }
      }
    }
    ready = true;
    if (existing instanceof Engine) {
      found = (Engine) existing;
      return (Engine) existing;
    }
    try {
      Hooks joined = ForeignHooks.of(existing);
      if (JOINED_SAID.compareAndSet(false, true)) {
        LOG.info(
            "blockscope: joining the engine of another blockscope copy ({})",
            existing.getClass().getClassLoader());
      }
      found = joined;
      return joined;
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn(
          "blockscope: cannot reach the engine of another blockscope copy; "
              + "this copy stays passive",
          e);
      return ForeignHooks.NONE;
    }
  }

  /** Makes the engine and says so in the region server's log. */
  private static Engine start(BlockscopeConfig config, BridgeHandle bridge, List<String> problems) {
    Engine engine = new Engine(config, bridge, problems);
    problems.forEach(p -> LOG.warn("blockscope: {}", p));
    LOG.info(
        "blockscope: engine started at level {} exporting regions {}; probes {}; {};"
            + " query max level {}, table max level {} (the region server's settings)",
        config.level,
        config.export,
        engine.probeSummary(),
        engine.noHBaseScanMetrics.isEmpty()
            ? "HBase's scan metrics in query profiles: available"
            : engine.noHBaseScanMetrics.get(0),
        config.queryMaxLevel,
        config.tableMaxLevel);
    return engine;
  }

  /** Set once this copy has made or joined the JVM's engine. */
  private static volatile boolean ready;

  /** The hooks this copy made or joined, which every later region open takes as they are. */
  private static volatile Hooks found;

  /** Whether this copy has made or joined the JVM's engine: then {@link #hooks} does not wait. */
  static boolean ready() {
    return ready;
  }

  /** The engine made by this class loader's copy, if it is the JVM's engine. */
  static Engine current() {
    synchronized (Engine.class) {
      if (fallback != null) {
        return fallback;
      }
    }
    try {
      Object e = BridgeHandle.resolve(ProbeBridge.class.getClassLoader(), null).engine(null);
      return e instanceof Engine ? (Engine) e : null;
    } catch (RuntimeException noBridge) {
      return null;
    }
  }

  // ---- region lifecycle -----------------------------------------------------------------------

  @Override
  public void regionOpened(RegionCoprocessorEnvironment env) {
    try {
      String region = env.getRegionInfo().getEncodedName();
      PerfLevel level = levelOf(env.getRegion().getTableDescriptor(), region);
      registry.open(env.getRegionInfo().getTable().getNameAsString(), region, level);
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
        tableLevels.remove(region);
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

  /**
   * A region's level: its table's attribute where it sets one, but never above {@code
   * blockscope.table.max.level}; the server's level otherwise.
   */
  private PerfLevel levelOf(TableDescriptor table, String region) {
    String value = table.getValue(Attributes.TABLE_LEVEL);
    if (value == null) {
      tableLevels.remove(region);
      return serverLevel;
    }
    try {
      PerfLevel asked = PerfLevel.parse(value);
      tableLevels.put(region, asked);
      return capped(table.getTableName().getNameAsString(), asked);
    } catch (IllegalArgumentException e) {
      tableLevels.remove(region);
      // said once per table and value, as a capped level is: every region of the table (and every
      // reload) comes here with the same answer
      if (tablesReported.size() < MAX_PROBLEMS
          && tablesReported.add(table.getTableName() + "=" + value + "!")) {
        String problem =
            "table "
                + table.getTableName()
                + ": attribute "
                + Attributes.TABLE_LEVEL
                + ": "
                + e.getMessage()
                + "; using the server level";
        LOG.warn("blockscope: {}", problem);
        problem(problem);
      }
      return serverLevel;
    }
  }

  /** What a table that asks for {@code asked} gets: at most {@code blockscope.table.max.level}. */
  private PerfLevel capped(String table, PerfLevel asked) {
    PerfLevel max = tableMaxLevel;
    if (asked.compareTo(max) <= 0) {
      return asked;
    }
    if (tablesReported.size() < MAX_PROBLEMS
        && tablesReported.add(table + "=" + asked + ">" + max)) {
      String problem =
          "table "
              + table
              + " asks "
              + Attributes.TABLE_LEVEL
              + "="
              + asked
              + ", above "
              + BlockscopeConfig.TABLE_MAX_LEVEL
              + "="
              + max
              + " on this server; measured at "
              + max;
      LOG.info("blockscope: {}", problem);
      problem(problem);
    }
    return max;
  }

  /** Hands the costs gathered so far to frame {@code d}'s query (if tagged) and region. */
  private static void settle(Frames f, int d, long[] costs) {
    RegionCosts region = f.stack[d];
    if (region == null) {
      return; // the costs stay on the thread for the frame that settles next
    }
    QueryTracker.RegionCosts q = f.query[d];
    if (MiscountDrill.active()) {
      MiscountDrill.settle(region, q, costs);
      return;
    }
    if (q != null) {
      q.costs.add(costs);
    }
    region.costs().drain(costs, f.lane);
  }

  /** Closes frame {@code d}, the innermost, after its costs were settled. */
  private static void pop(Frames f, int d) {
    RegionCosts region = f.stack[d];
    f.stack[d] = null;
    f.query[d] = null;
    f.owner[d] = null;
    f.depth = d;
    if (region != null) {
      region.release(f.lane);
    }
  }

  // ---- tagged queries -------------------------------------------------------------------------

  /**
   * The level a query may measure at: what it asks for, but never above {@code
   * blockscope.query.max.level}; -1 when it asks for none.
   */
  int queryLevel(int asked) {
    return asked < 0 ? -1 : Math.min(asked, queryMaxLevel.ordinal());
  }

  @Override
  public Object queryScan(
      byte[] queryId, String user, Object scan, RegionCoprocessorEnvironment env, int level) {
    try {
      String id = QueryTracker.parseId(queryId);
      if (id == null || user == null || queryMaxLevel == PerfLevel.OFF) {
        return null;
      }
      Frames f = frames.get();
      if (scan != null && f.taggedScan == scan) {
        return null; // another copy of blockscope tagged this scan already (both deployments)
      }
      QueryTracker.RegionCosts q = queries.region(id, user, env.getRegionInfo().getEncodedName());
      if (q == null) {
        return null;
      }
      f.taggedScan = scan;
      int allowed = queryLevel(level);
      if (allowed > q.level) {
        q.level = allowed;
      }
      RegionCosts region = registry.region(env.getRegionInfo().getEncodedName());
      if (region != null) {
        applyLevel(q, Math.max(level, q.level), region.level().ordinal());
      }
      return q;
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
      return null;
    }
  }

  /**
   * Records the level region {@code q} measures its query at, as {@link #queryActive} applies it to
   * the frame: the region's own level, raised to what the query may ask ({@code q.level}), but
   * never above OFF for a region at OFF; and why, against what the query asked ({@code asked}).
   */
  static void applyLevel(QueryTracker.RegionCosts q, int asked, int regionLevel) {
    int applied;
    int reason;
    if (regionLevel == PerfLevel.OFF.ordinal()) {
      applied = regionLevel;
      reason = ProfileWire.REGION_OFF;
    } else {
      applied = Math.max(regionLevel, q.level);
      reason =
          applied > asked
              ? ProfileWire.REGION_LEVEL
              : applied < asked ? ProfileWire.CAPPED : ProfileWire.AS_ASKED;
    }
    q.appliedReason = reason;
    q.applied = applied;
  }

  @Override
  public void scannerOpened(Object scanner, Object handle) {
    try {
      if (handle instanceof QueryTracker.RegionCosts) {
        queries.opened(scanner, (QueryTracker.RegionCosts) handle);
      }
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  /**
   * Marks the innermost frame as the query's. A query raises the frame's level to what it asked for
   * (within {@code blockscope.query.max.level}), but a region at OFF stays unmeasured.
   */
  @Override
  public void queryActive(Object handle, int rows) {
    if (!(handle instanceof QueryTracker.RegionCosts)) {
      return;
    }
    QueryTracker.RegionCosts q = (QueryTracker.RegionCosts) handle;
    try {
      Frames f = frames.get();
      if (f.depth > 0) {
        f.query[f.depth - 1] = q;
        if (q.level >= 0 && bridge != null) {
          long[] costs = f.costs;
          long current = costs[CostLayout.LEVEL];
          if (current != PerfLevel.OFF.ordinal() && current < q.level) {
            costs[CostLayout.LEVEL] = q.level;
          }
        }
      }
      if (rows > 0) {
        q.rows.addAndGet(rows);
      }
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  /**
   * Called where a scan RPC's batch ends ({@code postScannerNext}), before {@link #exit}: if the
   * innermost frame works for a tagged query and HBase tracked this RPC's scan metrics, they go to
   * that query's record for the region.
   */
  @Override
  public void scanBatchEnded() {
    HBaseScanMetricsReader reader = hbaseScanMetrics;
    if (reader == null) {
      return;
    }
    try {
      Frames f = frames.get();
      QueryTracker.RegionCosts q = f.depth > 0 ? f.query[f.depth - 1] : null;
      if (q != null && reader.addTo(q.hbase)) {
        q.hbaseTracked = true;
      }
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  /**
   * Where {@link #queryCosts} puts the level a region measured the query at, and the reason after
   * it: past the costs, the rows, the tracked flag and HBase's scan metrics.
   */
  static final int QUERY_LEVEL = CostLayout.SIZE + 2 + HBaseScanMetrics.NAMES.size();

  static final int QUERY_LEVEL_REASON = QUERY_LEVEL + 1;

  @Override
  public long[] queryCosts(String queryId, String user, String region) {
    try {
      QueryTracker.RegionCosts q = queries.costs(queryId, user, region);
      if (q == null) {
        return null;
      }
      int n = HBaseScanMetrics.NAMES.size();
      long[] out = new long[QUERY_LEVEL_REASON + 1];
      for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
        out[i] = q.costs.get(i);
      }
      out[CostLayout.SIZE] = q.rows.get();
      out[CostLayout.SIZE + 1] = q.hbaseTracked ? 1 : 0;
      for (int i = 0; i < n; i++) {
        out[CostLayout.SIZE + 2 + i] = q.hbase.get(i);
      }
      out[QUERY_LEVEL] = q.applied;
      out[QUERY_LEVEL_REASON] = q.appliedReason;
      return out;
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
      return null;
    }
  }

  @Override
  public void scannerClosed(Object scanner) {
    try {
      queries.closed(scanner);
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  /** The scanners of tagged queries seen by this JVM's region servers. */
  public QueryTracker queries() {
    return queries;
  }

  // ---- attribution ----------------------------------------------------------------------------

  @Override
  public boolean measures(RegionCoprocessorEnvironment env) {
    try {
      RegionCosts region = registry.region(env.getRegionInfo().getEncodedName());
      return bridge != null && region != null && region.level() != PerfLevel.OFF;
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
      return false;
    }
  }

  @Override
  public void enter(RegionCoprocessorEnvironment env) {
    if (bridge == null) {
      return;
    }
    try {
      Frames f = frames.get();
      long[] costs = f.costs;
      if (f.depth == MAX_DEPTH) {
        closeAll(f, costs); // frames whose post-hook never came, and no call end to close them
      }
      if (f.depth > 0) {
        settle(f, f.depth - 1, costs);
      }
      String name = env.getRegionInfo().getEncodedName();
      RegionCosts region = registry.region(name);
      if (region != null && region.level() == PerfLevel.OFF) {
        region = null; // nothing is counted for it, so nothing needs holding or settling
      } else if (region != null && !region.acquire(f.lane)) {
        region = null; // closed since the lookup: this read goes uncounted, HBase refuses it too
      }
      int d = f.depth;
      f.query[d] = null;
      f.owner[d] = name;
      f.stack[d] = region;
      f.depth = d + 1;
      costs[CostLayout.DEPTH] = d + 1L;
      costs[CostLayout.LEVEL] = region == null ? 0 : region.level().ordinal();
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  /**
   * Closes the innermost frame opened for {@code env}'s region. Frames above it are reads nested in
   * this one that threw or were bypassed before their post-hook, and the read of {@code env}'s
   * region went on after them: what was read since the last hook is this region's, and they are
   * closed with it. A post-hook whose frame is not open any more (closed at its call's end or
   * dropped at {@link #MAX_DEPTH}) closes nothing.
   */
  @Override
  public void exit(RegionCoprocessorEnvironment env) {
    if (bridge == null) {
      return;
    }
    try {
      Frames f = frames.get();
      String name = env.getRegionInfo().getEncodedName();
      int own = f.depth - 1;
      while (own >= 0 && !name.equals(f.owner[own])) {
        own--;
      }
      if (own < 0) {
        return;
      }
      long[] costs = f.costs;
      settle(f, own, costs);
      if (f.depth - 1 > own) {
        droppedFrames.addAndGet(f.depth - 1 - own);
      }
      while (f.depth > own) {
        pop(f, f.depth - 1);
      }
      resume(f, costs);
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  /** The thread goes on at its innermost open frame's level, or at OFF outside any frame. */
  private static void resume(Frames f, long[] costs) {
    RegionCosts outer = f.depth > 0 ? f.stack[f.depth - 1] : null;
    costs[CostLayout.DEPTH] = f.depth;
    costs[CostLayout.LEVEL] = outer == null ? 0 : outer.level().ordinal();
    costs[CostLayout.PENDING_MISS] = 0;
    if (f.depth == 0) {
      f.taggedScan = null;
    }
  }

  @Override
  public void compactionOpening(RegionCoprocessorEnvironment env) {
    if (bridge == null) {
      return;
    }
    try {
      Frames f = frames.get();
      if (f.depth > 0) {
        return; // a compaction run inside a frame: its reads are that frame's
      }
      long[] costs = f.costs;
      discardCosts(costs); // what an opening that failed before preCompact left
      RegionCosts region = registry.region(env.getRegionInfo().getEncodedName());
      costs[CostLayout.LEVEL] = region == null ? 0 : region.level().ordinal();
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  /**
   * The RPC call that started on this thread at frame depth {@code depthAtStart} ended with frames
   * it opened still open: what was read since the last hook goes to the innermost frame (the read
   * that failed), and every frame above {@code depthAtStart} is closed. Frames below it belong to
   * the caller (a coprocessor's read that made a short-circuit call) and stay open.
   */
  void callEnded(int depthAtStart) {
    try {
      Frames f = frames.get();
      long[] costs = f.costs;
      int keep = Math.max(0, depthAtStart);
      if (f.depth <= keep) {
        return;
      }
      settle(f, f.depth - 1, costs);
      if (keep == 0) {
        closeAll(f, costs);
        return;
      }
      droppedFrames.addAndGet(f.depth - keep);
      while (f.depth > keep) {
        pop(f, f.depth - 1);
      }
      resume(f, costs);
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  private void closeAll(Frames f, long[] costs) {
    droppedFrames.addAndGet(f.depth);
    while (f.depth > 0) {
      pop(f, f.depth - 1);
    }
    f.taggedScan = null;
    discardCosts(costs); // measured by none
    costs[CostLayout.DEPTH] = 0;
    costs[CostLayout.LEVEL] = 0;
  }

  /** Drops the costs gathered on this thread and not yet settled to any frame. */
  private static void discardCosts(long[] costs) {
    Arrays.fill(costs, CostLayout.FIRST_COST, CostLayout.SIZE, 0L);
    costs[CostLayout.PENDING_MISS] = 0;
    costs[CostLayout.CELL_SAMPLING] = 0; // and a timed seeker call whose exit never came
  }

  /**
   * Attribution frames open now, summed over every thread. Between RPC calls it is 0; a quiescent
   * server that shows more has a hook imbalance.
   */
  public int openFrames() {
    synchronized (allFrames) {
      int n = 0;
      for (Frames f : allFrames) {
        n += f.depth;
      }
      return n;
    }
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
      problem(problem);
    }
  }

  /**
   * Applies {@code blockscope.level}, {@code blockscope.query.max.level}, {@code
   * blockscope.table.max.level}, {@code blockscope.export.regions} and {@code
   * blockscope.export.retain.ms} from the region server's reloaded {@code hbase-site.xml} ({@code
   * update_config} in the HBase shell): regions whose table sets its own level keep it, within the
   * new cap.
   */
  @Override
  public void onConfigurationChange(Configuration conf) {
    List<String> found = new ArrayList<>();
    BlockscopeConfig config = new BlockscopeConfig(conf, found);
    found.forEach(p -> LOG.warn("blockscope: {}", p));
    found.forEach(this::problem);
    serverLevel = config.level;
    queryMaxLevel = config.queryMaxLevel;
    tableMaxLevel = config.tableMaxLevel;
    registry.export(config.export);
    registry.retain(config.retainMs);
    for (RegionCosts r : registry.regions()) {
      PerfLevel asked = tableLevels.get(r.region());
      r.level(asked == null ? config.level : capped(r.table(), asked));
    }
    updateMeasuring();
    LOG.info(
        "blockscope: configuration reloaded: level {}, query max level {}, table max level {},"
            + " regions exported {}, closed regions kept {} ms",
        config.level,
        config.queryMaxLevel,
        config.tableMaxLevel,
        config.export,
        config.retainMs);
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

  public boolean probeInstalled(int probe) {
    return bridge != null && bridge.installed().get(probe) == 1;
  }

  public long probeFailures(int probe) {
    return bridge == null ? 0 : bridge.failures().get(probe);
  }

  /** Makes one probe fail on every call (-1 stops it): a drill for the never-throw guarantee. */
  /** Makes probe {@code probe} fail or miscount ({@code ProbeBridge.DRILL_*}); -1: none. */
  void drill(int probe, int mode) {
    if (bridge != null) {
      bridge.drill(probe, mode);
    }
  }

  /** Keeps a problem for operators: the first {@value #MAX_PROBLEMS}, then only a count. */
  private void problem(String problem) {
    synchronized (problems) {
      if (problems.size() < MAX_PROBLEMS) {
        problems.add(problem);
        return;
      }
    }
    problemsNotKept.incrementAndGet();
  }

  /**
   * Problems found in settings and probe installation, for operators: the first {@value
   * #MAX_PROBLEMS}, and a last line counting those not kept.
   */
  public List<String> problems() {
    synchronized (problems) {
      List<String> all = new ArrayList<>(problems);
      long more = problemsNotKept.get();
      if (more > 0) {
        all.add(more + " more problems not kept (see the region server log)");
      }
      return all;
    }
  }

  public PerfLevel serverLevel() {
    return serverLevel;
  }

  public RegionExport export() {
    return registry.export();
  }

  /** Brings the exported series in line with the costs now; counted in export.refreshes. */
  public void refreshExport() {
    registry.refreshExport();
    exportRefreshes.incrementAndGet();
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
