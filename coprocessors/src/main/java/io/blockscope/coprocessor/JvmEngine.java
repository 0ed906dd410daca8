package io.blockscope.coprocessor;

import io.blockscope.coprocessor.probe.BridgeHandle;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.coprocessor.probe.ProbeInstaller;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Server;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.OnlineRegions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM's one {@link Engine}: made by the first copy of blockscope whose region opens, joined by
 * every other copy (another class loader's, through {@link ProbeBridge} and {@link
 * OtherCopyHooks}), found by the diagnostics.
 */
final class JvmEngine {
  private static final Logger LOG = LoggerFactory.getLogger(JvmEngine.class);

  /** Whether this copy said it joined another copy's engine: once, not at every region open. */
  private static final AtomicBoolean JOINED_SAID = new AtomicBoolean();

  /** The engine of this class loader's copy when no bridge could be set up at all. */
  private static Engine fallback;

  private JvmEngine() {}

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
    long begun = System.nanoTime();
    BlockscopeConfig config = new BlockscopeConfig(conf, problems);
    BridgeHandle bridge =
        ProbeInstaller.installAll(config.probesEnabled, config.attachTimeoutMs, problems);
    long woven = System.nanoTime();
    Object existing;
    if (bridge == null) {
      synchronized (JvmEngine.class) {
        if (fallback == null) {
          fallback = start(config, null, problems, begun, woven);
        }
        existing = fallback;
      }
    } else {
      // one lock for the whole JVM, whichever copy asks: two copies starting at once must not
      // both make an engine (the second's JMX beans would clash with the first's)
      synchronized (bridge.setupLock()) {
        existing = bridge.engine(null);
        if (existing == null) {
          Engine engine = start(config, bridge, problems, begun, woven);
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
      Hooks joined = OtherCopyHooks.of(existing);
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
      return OtherCopyHooks.NONE;
    }
  }

  /**
   * Makes the engine and says so in the region server's log, with the time its start took from
   * {@code begun} (the settings read), of which installing the probes until {@code woven} (getting
   * instrumentation, which is a self-attach without the agent, the checks of HBase's methods and
   * the weaving): the one-time cost the first blockscope region open of a server pays.
   */
  private static Engine start(
      BlockscopeConfig config, BridgeHandle bridge, List<String> problems, long begun, long woven) {
    String drill = DrillSeam.fromProperty();
    if (drill != null) {
      problems.add(drill);
    }
    Engine engine = new Engine(config, bridge, problems);
    problems.forEach(p -> LOG.warn("blockscope: {}", p));
    long now = System.nanoTime();
    LOG.info(
        "blockscope: engine started at level {} exporting regions {}; probes {}; {};"
            + " query max level {}, table max level {} (the region server's settings);"
            + " started in {} ms, of which {} ms installing the probes; {}",
        config.level,
        config.export,
        engine.probeSummary(),
        engine.hbaseScanMetricsSummary(),
        config.queryMaxLevel,
        config.tableMaxLevel,
        (now - begun) / 1_000_000,
        (woven - begun) / 1_000_000,
        build());
    return engine;
  }

  /**
   * This copy's version, from its jar's manifest, and the jar it was loaded from: which build a
   * server runs, after an upgrade that replaced the jar under the same name (docs/upgrading.md).
   */
  static String build() {
    Package p = JvmEngine.class.getPackage();
    String version = p == null ? null : p.getImplementationVersion();
    String from;
    try {
      CodeSource source = JvmEngine.class.getProtectionDomain().getCodeSource();
      from = source == null || source.getLocation() == null ? "?" : source.getLocation().toString();
    } catch (SecurityException e) {
      from = "?";
    }
    return "blockscope "
        + (version == null ? "of no version (not loaded from a release jar)" : version)
        + " from "
        + from;
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
    synchronized (JvmEngine.class) {
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
}
