package io.blockscope.coprocessor;

import io.blockscope.coprocessor.accounting.ExportLimit;
import io.blockscope.coprocessor.accounting.QueryTracker;
import io.blockscope.coprocessor.accounting.StatementStats;
import io.blockscope.coprocessor.accounting.UserAccounts;
import io.blockscope.metrics.PerfLevel;
import java.util.List;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;

/**
 * blockscope's server settings, read from the region server's own configuration ({@code
 * hbase-site.xml}, reloaded by {@code update_config}) and never from a region's: HBase gives each
 * region a {@code CompoundConfiguration} of the server's configuration plus its table descriptor's
 * values ({@code HRegion}'s constructor), which the table's owner sets. The one per-table setting
 * is the table attribute {@code blockscope.level}, capped by {@link #TABLE_MAX_LEVEL}. A bad value
 * never stops a region from opening: it is reported in {@code problems} and the documented default
 * is used.
 */
public final class BlockscopeConfig {
  /** Profiling level of the region server: OFF, COUNT (default) or TIME. */
  public static final String LEVEL = "blockscope.level";

  /**
   * The highest level a query's PROFILE hint may ask for: OFF (queries are not tracked at all),
   * COUNT (default) or TIME. A query never raises a region at OFF, and never above this.
   */
  public static final String QUERY_MAX_LEVEL = "blockscope.query.max.level";

  /**
   * The highest level a table's own {@code blockscope.level} attribute may set: OFF, COUNT
   * (default) or TIME. A table may always lower its level; above this it is measured at this level.
   * Whoever may alter a table sets its attribute, so on a shared cluster this is what keeps one
   * tenant from raising the server's cost.
   */
  public static final String TABLE_MAX_LEVEL = "blockscope.table.max.level";

  /** Which regions get their own series: top:N (default top:100), all or none. */
  public static final String EXPORT_REGIONS = "blockscope.export.regions";

  /**
   * Which tables get their own series: top:N (default top:200), all or none; the others are summed
   * as the table {@code (other)}.
   */
  public static final String EXPORT_TABLES = "blockscope.export.tables";

  /**
   * How long a region or table that enters the export keeps its series at least, in milliseconds
   * (default 300000, five minutes; 0: no hold), even if it drops out of the top N meanwhile.
   */
  public static final String EXPORT_MIN_MS = "blockscope.export.min.ms";

  static final long DEFAULT_MIN_MS = 300_000;

  /** How often series are added, ranked and removed, in milliseconds (default 10000). */
  public static final String EXPORT_INTERVAL_MS = "blockscope.export.interval.ms";

  /**
   * How long a closed region's costs are kept on the server, in milliseconds (default 600000, ten
   * minutes; 0: not kept). A region that opens again here within it (a reopen, a move back) goes on
   * from them, and a table's series stays, without restarting, across a split, a merge or the move
   * of its last region here for as long as one of its regions is kept.
   */
  public static final String EXPORT_RETAIN_MS = "blockscope.export.retain.ms";

  static final long DEFAULT_RETAIN_MS = 600_000;

  /** Whether to weave the read-path probes at all (default true). */
  public static final String PROBES_ENABLED = "blockscope.probes.enabled";

  /**
   * How long a region open waits, once per JVM, for blockscope to attach its probes when the region
   * server was not started with {@code -javaagent} (default 30000 ms).
   */
  public static final String ATTACH_TIMEOUT_MS = "blockscope.probes.attach.timeout.ms";

  /** Whether to register blockscope's own MBeans on the platform MBeanServer (default true). */
  public static final String JMX_ENABLED = "blockscope.jmx.enabled";

  /** The most tagged query ids the server keeps, all users together (default 10000). */
  public static final String QUERY_MAX_IDS = "blockscope.query.max.ids";

  /**
   * The most (query, region) cost records the server keeps for profiles, all users together
   * (default 20000).
   */
  public static final String QUERY_MAX_RECORDS = "blockscope.query.max.records";

  /** The most open scanners of tagged queries the server tracks (default 100000). */
  public static final String QUERY_MAX_SCANNERS = "blockscope.query.max.scanners";

  /**
   * How many users the query ids and records are shared by (default 10): each user is guaranteed
   * {@code max.ids / users} ids and {@code max.records / users} records (at least 1), which no
   * other user's queries evict ({@link QueryTracker}).
   */
  public static final String QUERY_SHARE_USERS = "blockscope.query.share.users";

  /**
   * How many users have an account of their own on each region server (default 20): the rest are
   * summed as the user {@code (other)} ({@link io.blockscope.coprocessor.accounting.UserAccounts}).
   */
  public static final String USERS_MAX = "blockscope.users.max";

  /**
   * How many users keep statement statistics on each region server (default 20), each at most
   * {@link #STATEMENTS_PER_USER} statements ({@link
   * io.blockscope.coprocessor.accounting.StatementStats}).
   */
  public static final String STATEMENTS_USERS = "blockscope.statements.users";

  /** How many statements each of those users keeps (default 25). */
  public static final String STATEMENTS_PER_USER = "blockscope.statements.per.user";

  static final long MIN_INTERVAL_MS = 1_000;
  static final long DEFAULT_INTERVAL_MS = 10_000;

  final PerfLevel level;
  final PerfLevel queryMaxLevel;
  final PerfLevel tableMaxLevel;
  final ExportLimit export;
  final ExportLimit exportTables;
  final long exportMinMs;
  final long exportIntervalMs;
  final long retainMs;
  final boolean probesEnabled;
  final long attachTimeoutMs;
  final boolean jmxEnabled;
  final QueryTracker.Limits queryLimits;
  final int usersMax;
  final int statementsUsers;
  final int statementsPerUser;

  BlockscopeConfig(Configuration conf, List<String> problems) {
    level = parse(conf, LEVEL, PerfLevel.DEFAULT, PerfLevel::parse, problems);
    queryMaxLevel = parse(conf, QUERY_MAX_LEVEL, PerfLevel.COUNT, PerfLevel::parse, problems);
    tableMaxLevel = parse(conf, TABLE_MAX_LEVEL, PerfLevel.COUNT, PerfLevel::parse, problems);
    export = parse(conf, EXPORT_REGIONS, ExportLimit.DEFAULT, ExportLimit::parse, problems);
    exportTables =
        parse(conf, EXPORT_TABLES, ExportLimit.DEFAULT_TABLES, ExportLimit::parse, problems);
    exportMinMs = notNegative(conf, EXPORT_MIN_MS, DEFAULT_MIN_MS, problems);
    long interval = parse(conf, EXPORT_INTERVAL_MS, DEFAULT_INTERVAL_MS, Long::parseLong, problems);
    if (interval < MIN_INTERVAL_MS) {
      problems.add(
          EXPORT_INTERVAL_MS
              + "="
              + interval
              + " is below "
              + MIN_INTERVAL_MS
              + " ms; using "
              + MIN_INTERVAL_MS);
      interval = MIN_INTERVAL_MS;
    }
    exportIntervalMs = interval;
    retainMs = notNegative(conf, EXPORT_RETAIN_MS, DEFAULT_RETAIN_MS, problems);
    probesEnabled = parse(conf, PROBES_ENABLED, true, BlockscopeConfig::bool, problems);
    long attach = parse(conf, ATTACH_TIMEOUT_MS, 30_000L, Long::parseLong, problems);
    if (attach < 1) {
      problems.add(ATTACH_TIMEOUT_MS + "=" + attach + " is not positive; using 30000");
      attach = 30_000;
    }
    attachTimeoutMs = attach;
    jmxEnabled = parse(conf, JMX_ENABLED, true, BlockscopeConfig::bool, problems);
    QueryTracker.Limits d = QueryTracker.Limits.DEFAULT;
    queryLimits =
        new QueryTracker.Limits(
            positive(conf, QUERY_MAX_IDS, d.ids(), problems),
            positive(conf, QUERY_MAX_SCANNERS, d.scanners(), problems),
            positive(conf, QUERY_MAX_RECORDS, d.records(), problems),
            positive(conf, QUERY_SHARE_USERS, d.users(), problems));
    usersMax = positive(conf, USERS_MAX, UserAccounts.DEFAULT_MAX, problems);
    statementsUsers = positive(conf, STATEMENTS_USERS, StatementStats.DEFAULT_USERS, problems);
    statementsPerUser =
        positive(conf, STATEMENTS_PER_USER, StatementStats.DEFAULT_PER_USER, problems);
  }

  /** A time of at least 0 ms; negative, or not a whole number, the default, with the reason why. */
  private static long notNegative(
      Configuration conf, String key, long dflt, List<String> problems) {
    long value = parse(conf, key, dflt, Long::parseLong, problems);
    if (value < 0) {
      problems.add(key + "=" + value + " is negative; using " + dflt);
      return dflt;
    }
    return value;
  }

  /** A count of at least 1; below it, or not a whole number, the default, with the reason why. */
  private static int positive(Configuration conf, String key, int dflt, List<String> problems) {
    int value = parse(conf, key, dflt, Integer::parseInt, problems);
    if (value < 1) {
      problems.add(key + "=" + value + " is below 1; using the default " + dflt);
      return dflt;
    }
    return value;
  }

  /** Parses one setting; on a bad value records why and returns the default. */
  static <T> T parse(
      Configuration conf, String key, T dflt, Function<String, T> parser, List<String> problems) {
    String raw = conf.get(key);
    if (raw == null) {
      return dflt;
    }
    try {
      return parser.apply(raw.trim());
    } catch (RuntimeException e) {
      problems.add(
          "bad value for "
              + key
              + " ('"
              + raw
              + "'): "
              + e.getMessage()
              + "; using the default "
              + dflt);
      return dflt;
    }
  }

  private static boolean bool(String s) {
    if (s.equalsIgnoreCase("true")) {
      return true;
    }
    if (s.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException("expected true or false");
  }
}
