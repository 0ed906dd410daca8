package io.blockscope.coprocessor;

import io.blockscope.metrics.CostRegistry;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.QueryTracker;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * What the blockscope engine of this JVM shows besides its JMX series, for the embedded cluster's
 * command line and for tests: its registry of costs, query tracking, probe health, problems, and
 * the two actions a test or the embedded {@code evaluate} needs (an export refresh now, a new
 * configuration as {@code update_config} would bring). The engine itself and its hooks stay inside
 * this package. Nothing here is on a read path.
 */
public final class Diagnostics {
  private final Engine engine;

  private Diagnostics(Engine engine) {
    this.engine = engine;
  }

  /** The engine this copy of blockscope runs in this JVM, or null if none runs here (yet). */
  public static Diagnostics current() {
    Engine e = Engine.current();
    return e == null ? null : new Diagnostics(e);
  }

  /** The costs of every open (and recently closed) region and table, and the metric series. */
  public CostRegistry registry() {
    return engine.registry();
  }

  /** The queries tracked for PROFILE and their open scanners. */
  public QueryTracker queries() {
    return engine.queries();
  }

  /** The costs region {@code region} recorded for query {@code queryId}, then its rows; or null. */
  public long[] queryCosts(String queryId, String region) {
    return engine.queryCosts(queryId, region);
  }

  /** Brings the metric series in line with the costs now (counted in export.refreshes). */
  public void refreshExport() {
    engine.refreshExport();
  }

  /** Applies {@code conf} as a live configuration change would. */
  public void reloadConfiguration(Configuration conf) {
    engine.onConfigurationChange(conf);
  }

  /** The server's default level. */
  public PerfLevel serverLevel() {
    return engine.serverLevel();
  }

  /** The problems the engine reported (bad settings, probes it could not place...). */
  public List<String> problems() {
    return engine.problems();
  }

  /** Attribution frames open on all threads now (0 when no read is running). */
  public int openFrames() {
    return engine.openFrames();
  }

  /** Whether probe {@code probe} (a {@code ProbeBridge} index) is woven into HBase. */
  public boolean probeInstalled(int probe) {
    return engine.probeInstalled(probe);
  }

  /** How often probe {@code probe} failed and was contained. */
  public long probeFailures(int probe) {
    return engine.probeFailures(probe);
  }

  /**
   * Makes probe {@code probe} fail on every call inside its advice ({@code -1} stops it): a drill
   * for the never-throw guarantee.
   */
  public void injectFault(int probe) {
    engine.injectFault(probe);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Diagnostics d && d.engine == engine;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(engine);
  }
}
