package io.blockscope.coprocessor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.accounting.QueryTracker;
import io.blockscope.metrics.PerfLevel;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.Test;

public class BlockscopeConfigTest {
  @Test
  public void defaultsWhenNothingIsSet() {
    List<String> problems = new ArrayList<>();
    BlockscopeConfig c = new BlockscopeConfig(new Configuration(false), problems);
    assertEquals(PerfLevel.COUNT, c.level);
    assertEquals(
        "a query may not ask TIME unless the operator allows it", PerfLevel.COUNT, c.queryMaxLevel);
    assertEquals(
        "a table may not set TIME unless the operator allows it", PerfLevel.COUNT, c.tableMaxLevel);
    assertEquals("top:100", c.export.toString());
    assertEquals("top:200", c.exportTables.toString());
    assertEquals(300_000, c.exportMinMs);
    assertEquals(10_000, c.exportIntervalMs);
    assertTrue(c.probesEnabled);
    assertTrue(c.jmxEnabled);
    assertTrue(problems.isEmpty());
  }

  @Test
  public void readsGoodValues() {
    Configuration conf = new Configuration(false);
    conf.set(BlockscopeConfig.LEVEL, "time");
    conf.set(BlockscopeConfig.EXPORT_REGIONS, "top:50");
    conf.set(BlockscopeConfig.EXPORT_INTERVAL_MS, "30000");
    conf.set(BlockscopeConfig.PROBES_ENABLED, "false");
    conf.set(BlockscopeConfig.TABLE_MAX_LEVEL, " time ");
    List<String> problems = new ArrayList<>();
    BlockscopeConfig c = new BlockscopeConfig(conf, problems);
    assertEquals(PerfLevel.TIME, c.level);
    assertEquals(PerfLevel.TIME, c.tableMaxLevel);
    assertEquals(50, c.export.limit());
    assertEquals(30_000, c.exportIntervalMs);
    assertFalse(c.probesEnabled);
    assertTrue(problems.isEmpty());
  }

  @Test
  public void badValuesFallBackToTheDefaultsAndSayWhy() {
    Configuration conf = new Configuration(false);
    conf.set(BlockscopeConfig.LEVEL, "LOUD");
    conf.set(BlockscopeConfig.EXPORT_REGIONS, "top:lots");
    conf.set(BlockscopeConfig.EXPORT_INTERVAL_MS, "10");
    conf.set(BlockscopeConfig.JMX_ENABLED, "yes");
    conf.set(BlockscopeConfig.TABLE_MAX_LEVEL, "EVERYTHING");
    List<String> problems = new ArrayList<>();
    BlockscopeConfig c = new BlockscopeConfig(conf, problems);
    assertEquals(PerfLevel.COUNT, c.tableMaxLevel);
    assertEquals(PerfLevel.COUNT, c.level);
    assertEquals("top:100", c.export.toString());
    assertEquals(1_000, c.exportIntervalMs);
    assertTrue(c.jmxEnabled);
    assertEquals(problems.toString(), 5, problems.size());
    assertTrue(problems.get(0).contains("blockscope.level") && problems.get(0).contains("LOUD"));
    assertTrue(
        problems.get(1).contains("blockscope.table.max.level")
            && problems.get(1).contains("EVERYTHING"));
    assertTrue(problems.get(2).contains("top:lots"));
  }

  @Test
  public void theTableCapAndTheHoldAreReadAndBadOnesFallBackToTheirDefaults() {
    Configuration conf = new Configuration(false);
    conf.set(BlockscopeConfig.EXPORT_TABLES, " ALL ");
    conf.set(BlockscopeConfig.EXPORT_MIN_MS, "0");
    List<String> problems = new ArrayList<>();
    BlockscopeConfig c = new BlockscopeConfig(conf, problems);
    assertEquals("all", c.exportTables.toString());
    assertEquals(0, c.exportMinMs);
    assertTrue(problems.isEmpty());
    assertEquals(
        List.of(
            "bad value for blockscope.export.tables ('top:0'): top:N needs 1 <= N <= 100000, got 0;"
                + " using the default top:200",
            "blockscope.export.min.ms=-1 is negative; using 300000"),
        badCapAndHold("top:0", "-1"));
    assertEquals(
        List.of(
            "bad value for blockscope.export.tables ('busiest'): bad export limit 'busiest';"
                + " expected all, none or top:N; using the default top:200",
            "bad value for blockscope.export.min.ms ('5m'): For input string: \"5m\"; using the"
                + " default 300000"),
        badCapAndHold("busiest", "5m"));
  }

  /**
   * The problems of bad values of the table cap and the hold, after checking both defaults hold.
   */
  private static List<String> badCapAndHold(String tables, String minMs) {
    Configuration conf = new Configuration(false);
    conf.set(BlockscopeConfig.EXPORT_TABLES, tables);
    conf.set(BlockscopeConfig.EXPORT_MIN_MS, minMs);
    List<String> problems = new ArrayList<>();
    BlockscopeConfig c = new BlockscopeConfig(conf, problems);
    assertEquals("top:200", c.exportTables.toString());
    assertEquals(300_000, c.exportMinMs);
    return problems;
  }

  @Test
  public void queryLimitsAreReadAndBadOnesFallBackToTheirDefaults() {
    List<String> problems = new ArrayList<>();
    QueryTracker.Limits d = new BlockscopeConfig(new Configuration(false), problems).queryLimits;
    assertEquals(10_000, d.ids());
    assertEquals(20_000, d.records());
    assertEquals(100_000, d.scanners());
    assertEquals(10, d.users());
    assertTrue(problems.isEmpty());

    Configuration conf = new Configuration(false);
    conf.set(BlockscopeConfig.QUERY_MAX_IDS, " 500 ");
    conf.set(BlockscopeConfig.QUERY_MAX_RECORDS, "900");
    conf.set(BlockscopeConfig.QUERY_MAX_SCANNERS, "70");
    conf.set(BlockscopeConfig.QUERY_SHARE_USERS, "4");
    QueryTracker.Limits good = new BlockscopeConfig(conf, problems).queryLimits;
    assertEquals(
        "500 ids, 70 scanners, 900 records, a share of 125 ids and 225 records per user",
        good.toString());
    assertTrue(problems.isEmpty());

    conf.set(BlockscopeConfig.QUERY_MAX_IDS, "lots");
    conf.set(BlockscopeConfig.QUERY_MAX_RECORDS, "0");
    conf.set(BlockscopeConfig.QUERY_MAX_SCANNERS, "99999999999");
    conf.set(BlockscopeConfig.QUERY_SHARE_USERS, "-3");
    QueryTracker.Limits bad = new BlockscopeConfig(conf, problems).queryLimits;
    assertEquals(d.toString(), bad.toString());
    assertEquals(problems.toString(), 4, problems.size());
    assertTrue(
        problems.get(0),
        problems.get(0).startsWith("bad value for blockscope.query.max.ids ('lots')")
            && problems.get(0).endsWith("using the default 10000"));
    assertTrue(problems.get(1), problems.get(1).contains("99999999999"));
    assertEquals(
        "blockscope.query.max.records=0 is below 1; using the default 20000", problems.get(2));
    assertEquals(
        "blockscope.query.share.users=-3 is below 1; using the default 10", problems.get(3));
  }

  @Test
  public void userAccountsComeFromTheSettingOrItsDefault() {
    List<String> problems = new ArrayList<>();
    Configuration conf = new Configuration(false);
    assertEquals(20, new BlockscopeConfig(conf, problems).usersMax);
    conf.set(BlockscopeConfig.USERS_MAX, "3");
    assertEquals(3, new BlockscopeConfig(conf, problems).usersMax);
    assertTrue(problems.isEmpty());
    conf.set(BlockscopeConfig.USERS_MAX, "0");
    assertEquals(20, new BlockscopeConfig(conf, problems).usersMax);
    conf.set(BlockscopeConfig.USERS_MAX, "many");
    assertEquals(20, new BlockscopeConfig(conf, problems).usersMax);
    assertEquals("blockscope.users.max=0 is below 1; using the default 20", problems.get(0));
    assertTrue(
        problems.get(1),
        problems.get(1).startsWith("bad value for blockscope.users.max ('many')")
            && problems.get(1).endsWith("using the default 20"));
  }
}
