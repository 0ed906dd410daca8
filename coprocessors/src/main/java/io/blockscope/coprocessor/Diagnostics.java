package io.blockscope.coprocessor;

import io.blockscope.coprocessor.accounting.CostRegistry;
import io.blockscope.coprocessor.accounting.QueryTracker;
import io.blockscope.coprocessor.accounting.StatementStats;
import io.blockscope.coprocessor.accounting.UserAccounts;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.metrics.PerfLevel;
import java.util.Arrays;
import java.util.Collections;
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
    Engine e = JvmEngine.current();
    return e == null ? null : new Diagnostics(e);
  }

  /**
   * The configuration blockscope takes its server settings from for a region of {@code env}: the
   * region server's own, never the region's (which carries its table descriptor's values); null for
   * a region opened without a region server.
   */
  public static Configuration settingsSource(
      org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment env) {
    return JvmEngine.serverConfiguration(env);
  }

  /** The costs of every open (and recently closed) region and table, and the metric series. */
  public CostRegistry registry() {
    return engine.registry();
  }

  /** The server's read costs by user. */
  public UserAccounts users() {
    return engine.users();
  }

  /** The statements by user the engine keeps. */
  public StatementStats statements() {
    return engine.statementStats();
  }

  /** The queries tracked for PROFILE and their open scanners. */
  public QueryTracker queries() {
    return engine.queries();
  }

  /**
   * The costs region {@code region} recorded for user {@code user}'s query {@code queryId}, then
   * its rows; or null.
   */
  /** In a {@link #queryCosts} record: the level the region measured the query at, and why. */
  public static final int QUERY_LEVEL = QueryTagging.QUERY_LEVEL;

  public static final int QUERY_LEVEL_REASON = QueryTagging.QUERY_LEVEL_REASON;

  public long[] queryCosts(String queryId, String user, String region) {
    return engine.queryCosts(queryId, user, region);
  }

  /**
   * Brings the metric series in line with the costs now: two export refreshes (each counted in
   * export.refreshes), the first registering the series of costs that became non-zero, which read 0
   * until the next refresh (as a counter starts at 0), the second letting them read their figures.
   */
  public void refreshExport() {
    engine.refreshExport();
    engine.refreshExport();
  }

  /**
   * One export refresh, as the periodic task runs it: the series of costs that became non-zero are
   * registered, reading 0 until the next refresh.
   */
  public void refreshExportOnce() {
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
   * The JVM system property that starts a test drill in a region server process when its engine
   * starts, for the release suites (the drill's classes come from the coprocessors' test jar);
   * never set on a production server (the engine's start says so when it is).
   */
  public static final String DRILL_PROPERTY = DrillSeam.PROPERTY;

  /** How many problems the engine keeps ({@link #problems}); later ones are counted, not kept. */
  public static final int MAX_PROBLEMS = Problems.MAX_PROBLEMS;

  /** The engine, for the test suite's drills in this package. */
  Engine engine() {
    return engine;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Diagnostics && ((Diagnostics) o).engine == engine;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(engine);
  }

  /**
   * The probes blockscope weaves into HBase, by name, in the order of the indexes {@link
   * #probeInstalled} and {@link #probeFailures} take: the names their series carry.
   */
  public static List<String> probeNames() {
    return Collections.unmodifiableList(Arrays.asList(ProbeBridge.PROBE_NAMES.clone()));
  }
}
