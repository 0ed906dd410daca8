package io.blockscope.coprocessor;

import io.blockscope.coprocessor.accounting.CostRegistry;
import io.blockscope.coprocessor.accounting.CostRegistry.RegionCosts;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.PerfLevel;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The levels in force: the server's ({@code blockscope.level}), the caps on what a query and a
 * table may ask ({@code blockscope.query.max.level}, {@code blockscope.table.max.level}), all from
 * the region server's own configuration, and the level each region's table asked for through its
 * attribute. A reload ({@link #reload}) changes the server's settings and re-levels every open
 * region, keeping what its table asked within the new cap.
 */
final class Levels {
  private static final Logger LOG = LoggerFactory.getLogger(Levels.class);

  private final Problems problems;

  private volatile PerfLevel server;
  private volatile PerfLevel queryMax;
  private volatile PerfLevel tableMax;

  /** The level each region's table asked for (its attribute), for regions whose table sets one. */
  private final Map<String, PerfLevel> asked = new ConcurrentHashMap<>();

  /**
   * Table attributes already reported (a level above {@code blockscope.table.max.level}, a level
   * that does not parse): once each table and value, however many regions and reloads ask.
   */
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  Levels(BlockscopeConfig config, Problems problems) {
    this.problems = problems;
    set(config);
  }

  private void set(BlockscopeConfig config) {
    server = config.level;
    queryMax = config.queryMaxLevel;
    tableMax = config.tableMaxLevel;
  }

  PerfLevel server() {
    return server;
  }

  PerfLevel queryMax() {
    return queryMax;
  }

  PerfLevel tableMax() {
    return tableMax;
  }

  /**
   * The cap a query's level is held to: {@code blockscope.query.max.level} (none while a test drill
   * leaves the caps out).
   */
  PerfLevel queryCap() {
    return DrillSeam.levelCapsIgnored() ? PerfLevel.TIME : queryMax;
  }

  /**
   * The level a query may measure at: what it asks for, but never above {@code
   * blockscope.query.max.level}; -1 when it asks for none.
   */
  int queryLevel(int asked) {
    return asked < 0 ? -1 : Math.min(asked, queryCap().ordinal());
  }

  /**
   * A region's level: its table's attribute where it sets one, but never above {@code
   * blockscope.table.max.level}; the server's level otherwise.
   */
  PerfLevel ofRegion(TableDescriptor table, String region) {
    String value = table.getValue(Attributes.TABLE_LEVEL);
    if (value == null) {
      asked.remove(region);
      return server;
    }
    try {
      PerfLevel level = PerfLevel.parse(value);
      asked.put(region, level);
      return capped(table.getTableName().getNameAsString(), level);
    } catch (IllegalArgumentException e) {
      asked.remove(region);
      // said once per table and value, as a capped level is: every region of the table (and every
      // reload) comes here with the same answer
      if (firstReport(table.getTableName() + "=" + value + "!")) {
        String problem =
            "table "
                + table.getTableName()
                + ": attribute "
                + Attributes.TABLE_LEVEL
                + ": "
                + e.getMessage()
                + "; using the server level";
        LOG.warn("blockscope: {}", problem);
        problems.add(problem);
      }
      return server;
    }
  }

  /**
   * Works out an opening region's level and adds it to {@code registry} in one step that no reload
   * comes between: a region that opens while {@code update_config} runs ends at the new level.
   * (Were the two steps apart, a level worked out under the old caps could be added after the
   * reload walked the registry, and keep the old level.)
   */
  synchronized void open(TableDescriptor table, String region, CostRegistry registry) {
    registry.open(table.getTableName().getNameAsString(), region, ofRegion(table, region));
  }

  /** Forgets what the table of {@code region}, closed for good, asked for. */
  void forget(String region) {
    asked.remove(region);
  }

  /**
   * Takes the levels of a reloaded configuration and re-levels every open region of {@code
   * registry}: a region whose table asks for a level keeps it, within the new cap.
   */
  synchronized void reload(BlockscopeConfig config, CostRegistry registry) {
    set(config);
    for (RegionCosts r : registry.regions()) {
      PerfLevel level = asked.get(r.region());
      r.level(level == null ? config.level : capped(r.table(), level));
    }
  }

  /** What a table that asks for {@code level} gets: at most {@code blockscope.table.max.level}. */
  private PerfLevel capped(String table, PerfLevel level) {
    PerfLevel max = DrillSeam.levelCapsIgnored() ? PerfLevel.TIME : tableMax;
    if (level.compareTo(max) <= 0) {
      return level;
    }
    if (firstReport(table + "=" + level + ">" + max)) {
      String problem =
          "table "
              + table
              + " asks "
              + Attributes.TABLE_LEVEL
              + "="
              + level
              + ", above "
              + BlockscopeConfig.TABLE_MAX_LEVEL
              + "="
              + max
              + " on this server; measured at "
              + max;
      LOG.info("blockscope: {}", problem);
      problems.add(problem);
    }
    return max;
  }

  /** True the first time {@code what} is reported, while fewer than the problems kept were. */
  private boolean firstReport(String what) {
    return reported.size() < Problems.MAX_PROBLEMS && reported.add(what);
  }
}
