package io.blockscope.metrics;

import javax.management.ObjectName;

/**
 * The server's own metrics besides its cost totals (those are named by {@link CostLayout}): the one
 * list that the engine registers from and every reader (the harness, {@code top}, the benchmarks)
 * reads by, so that a name is spelled in one place. docs/metrics.md lists the same names ("Other
 * server metrics"), and a test holds the two together.
 */
public enum ServerMetric {
  /** Gauge: regions blockscope tracks on this server. */
  REGIONS_OPEN("regions.open"),
  /** Gauge: regions that currently have series. */
  REGIONS_EXPORTED("regions.exported"),
  /** Gauge: regions closed here whose costs are kept for the retention period. */
  REGIONS_RETAINED("regions.retained"),
  /** Counter: export refreshes done. */
  EXPORT_REFRESHES("export.refreshes"),
  /** Counter: RegionObserver hooks that caught an error. */
  HOOKS_FAILURES("hooks.failures"),
  /** Counter: attribution frames whose post-hook never came. */
  FRAMES_DROPPED("frames.dropped"),
  /** Gauge: attribution frames open now over all threads. */
  FRAMES_OPEN("frames.open"),
  /**
   * Counter: calls of the profile endpoint on this server's regions, one per region asked, refused
   * ones included.
   */
  PROFILE_REQUESTS("profile.requests"),
  /** Gauge: user accounts kept now ({@code blockscope.users.max} at most). */
  USERS_ACCOUNTS("users.accounts"),
  /** Counter: user accounts let go to make room for another user's, their figures to (other). */
  USERS_LET_GO("users.letGo"),
  /** Counter: tagged query ids dropped to stay within the limit. */
  QUERIES_EVICTED("queries.evicted"),
  /** Gauge: HFile names kept with their table for the block cache reuse series. */
  BLOCK_CACHE_FILES("blockCache.files"),
  /** Gauge: the server's {@code blockscope.level} in force (0, 1, 2). */
  SETTINGS_LEVEL("settings.level"),
  /** Gauge: the server's {@code blockscope.query.max.level} in force (0, 1, 2). */
  SETTINGS_QUERY_MAX_LEVEL("settings.query.max.level"),
  /** Gauge: the server's {@code blockscope.table.max.level} in force (0, 1, 2). */
  SETTINGS_TABLE_MAX_LEVEL("settings.table.max.level");

  private final String metric;

  ServerMetric(String metric) {
    this.metric = metric;
  }

  /** The metric's name, e.g. {@code regions.open}: the {@code name=} of its bean. */
  public String metric() {
    return metric;
  }

  /** Its key in the engine's registry ({@link MetricKeys#server}). */
  public String key() {
    return MetricKeys.server(metric);
  }

  /** Its JMX ObjectName, {@code blockscope:type=Server,name=<metric>}. */
  public ObjectName bean() {
    return MetricKeys.serverBean(metric);
  }

  @Override
  public String toString() {
    return metric;
  }
}
