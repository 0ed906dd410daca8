package io.blockscope.it;

import static io.blockscope.testsupport.ProfileCalls.askOneRegion;
import static io.blockscope.testsupport.ProfileCalls.scanRows;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.google.protobuf.Message;
import io.blockscope.coprocessor.BlockscopeConfig;
import io.blockscope.coprocessor.BlockscopeRegionObserver;
import io.blockscope.coprocessor.Diagnostics;
import io.blockscope.coprocessor.accounting.QueryTracker;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.profile.ProfileProtocol;
import io.blockscope.metrics.profile.ProfileWire;
import io.blockscope.workloads.RawTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.Superusers;
import org.apache.hadoop.hbase.security.User;
import org.junit.Test;

/**
 * One tenant of a shared region server cannot change the server's settings or another tenant's
 * query profiles (docs/security.md), on the shared embedded cluster (simple authentication: a
 * client's user is the name it sends, so the users here are HBase's testing users; the secured,
 * Kerberos form runs in release-it). The Kerberos cluster also checks that a region server
 * restarted with such a table opened first keeps its own settings; here the engine exists already,
 * so what is checked is where its settings come from and that a reload takes the server's.
 */
public class TenantIsolationIT extends ClusterTestBase {
  private static final int ROWS = 2_000;

  /**
   * HBase hands a region's coprocessor a configuration that carries its table descriptor's values
   * (the {@code CompoundConfiguration} of {@code HRegion}'s constructor): a table created with
   * blockscope's server keys in its METADATA shows them there. blockscope reads the region server's
   * configuration instead, so the server's caps stand and a table asking OFF silences only itself.
   */
  @Test
  public void aTablesMetadataNeverSetsTheServersSettings() throws Exception {
    HRegionServer rs = cluster.regionServer();
    Configuration server = rs.getConfiguration();
    server.set(BlockscopeConfig.QUERY_MAX_LEVEL, "COUNT");
    server.set(BlockscopeConfig.TABLE_MAX_LEVEL, "COUNT");
    cluster.admin().updateConfiguration(rs.getServerName());
    try {
      TableName hostile = newTable("tenant_hostile");
      cluster
          .admin()
          .createTable(
              TableDescriptorBuilder.newBuilder(hostile)
                  .setColumnFamily(
                      ColumnFamilyDescriptorBuilder.newBuilder(RawTable.SEED_FAMILY)
                          .setDataBlockEncoding(DataBlockEncoding.FAST_DIFF)
                          .setBlocksize(4096)
                          .build())
                  .setValue(Attributes.TABLE_LEVEL, "OFF")
                  .setValue(BlockscopeConfig.QUERY_MAX_LEVEL, "TIME")
                  .setValue(BlockscopeConfig.TABLE_MAX_LEVEL, "TIME")
                  .setValue(BlockscopeConfig.EXPORT_REGIONS, "none")
                  .setValue(BlockscopeConfig.JMX_ENABLED, "false")
                  .build());
      RawTable.loadSeed(cluster.connection(), cluster.admin(), hostile, ROWS, 7);

      RegionCoprocessorEnvironment env =
          onlyRegion(hostile)
              .getCoprocessorHost()
              .findCoprocessorEnvironment(BlockscopeRegionObserver.class.getName());
      assertNotNull("blockscope's observer runs in the hostile table's region", env);
      // HBase's behaviour this guards against: if this ever fails, HBase stopped mixing table
      // values into a coprocessor's configuration, and the guard can be revisited
      assertEquals("TIME", env.getConfiguration().get(BlockscopeConfig.QUERY_MAX_LEVEL));
      assertEquals("none", env.getConfiguration().get(BlockscopeConfig.EXPORT_REGIONS));
      Configuration source = Diagnostics.settingsSource(env);
      assertTrue("the region server's own configuration", source == server);
      assertEquals("COUNT", source.get(BlockscopeConfig.QUERY_MAX_LEVEL));
      assertEquals(null, source.get(BlockscopeConfig.EXPORT_REGIONS));

      // a reload (update_config) takes the server's values whatever tables are open
      cluster.admin().updateConfiguration(rs.getServerName());
      assertEquals(1, serverGauge("settings.query.max.level"));
      assertEquals(1, serverGauge("settings.table.max.level"));
      assertEquals(1, serverGauge("settings.level"));
      assertEquals(PerfLevel.COUNT, cluster.diagnostics().serverLevel());

      // the hostile table silenced itself, and only itself
      assertEquals(ROWS, scanRows(cluster.connection(), hostile, null, null));
      assertEquals(CostSnapshot.ZERO, regionCosts(onlyRegion(hostile)));
      TableName plain = loaded("tenant_plain", null);
      CostSnapshot cold = coldScan(plain);
      long[] trailer = SeedTables.dataBlocksAndCells(List.of(onlyRegion(plain)));
      assertEquals(cold.toString(), trailer[0], cold.get("blockCache.miss.data"));
      assertEquals(trailer[0], cold.get("fs.read.blocks.data"));
      assertEquals(trailer[1], cold.get("decode.FAST_DIFF.cells"));

    } finally {
      server.set(BlockscopeConfig.QUERY_MAX_LEVEL, "TIME");
      server.set(BlockscopeConfig.TABLE_MAX_LEVEL, "TIME");
      cluster.admin().updateConfiguration(rs.getServerName());
    }
    assertEquals(2, serverGauge("settings.query.max.level"));
  }

  /**
   * A table whose attribute asks TIME under a COUNT table cap is measured at the cap: its cold scan
   * counts every block and cell exactly and times nothing, and the server says so once (where its
   * bounded problem list still has room: the suite's JVM may have filled it). When the operator
   * raises the cap, the table gets what it asked at the reload.
   */
  @Test
  public void aTableAskingTimeAboveTheCapIsMeasuredAtTheCap() throws Exception {
    HRegionServer rs = cluster.regionServer();
    Configuration server = rs.getConfiguration();
    server.set(BlockscopeConfig.TABLE_MAX_LEVEL, "COUNT");
    cluster.admin().updateConfiguration(rs.getServerName());
    try {
      boolean room = cluster.diagnostics().problems().size() < Diagnostics.MAX_PROBLEMS;
      TableName timed = loaded("tenant_time", "TIME");
      String encoded = onlyRegion(timed).getRegionInfo().getEncodedName();
      CostSnapshot capped = coldScan(timed);
      assertEquals("not timed above the cap", 0, capped.get("decode.FAST_DIFF.nanos"));
      long[] trailer = SeedTables.dataBlocksAndCells(List.of(onlyRegion(timed)));
      assertEquals(capped.toString(), trailer[0], capped.get("blockCache.miss.data"));
      assertEquals(trailer[1], capped.get("decode.FAST_DIFF.cells"));
      assertEquals(PerfLevel.COUNT, cluster.diagnostics().registry().region(encoded).level());
      if (room) {
        assertTrue(
            cluster.diagnostics().problems().toString(),
            cluster.diagnostics().problems().stream()
                .anyMatch(
                    p ->
                        p.contains(
                                "table " + timed.getNameAsString() + " asks blockscope.level=TIME")
                            && p.contains("blockscope.table.max.level=COUNT")));
      }

      // the operator raises the cap: the table gets what it asked at the reload
      server.set(BlockscopeConfig.TABLE_MAX_LEVEL, "TIME");
      cluster.admin().updateConfiguration(rs.getServerName());
      assertEquals(PerfLevel.TIME, cluster.diagnostics().registry().region(encoded).level());
      assertTrue(coldScan(timed).get("decode.FAST_DIFF.nanos") > 0);
    } finally {
      server.set(BlockscopeConfig.TABLE_MAX_LEVEL, "TIME");
      cluster.admin().updateConfiguration(rs.getServerName());
    }
  }

  /**
   * A profile is its user's: another user who knows the id gets nothing for it, is refused when
   * naming its owner, and his scans tagged with that id make a query of his own, leaving the
   * owner's record exactly as it was; a superuser (here the region server's own user) reads the
   * owner's by name.
   */
  @Test
  public void aQueryProfileBelongsToTheUserWhoRanIt() throws Throwable {
    TableName t = loaded("tenant_profile", null);
    String encoded = onlyRegion(t).getRegionInfo().getEncodedName();
    // a new id each run: the drill (MiscountDrillIT) runs this test again in the same JVM
    String id = java.util.UUID.randomUUID().toString().replace("-", "");
    Configuration conf = cluster.conf();
    User alice = User.createUserForTesting(conf, "alice", new String[0]);
    User bob = User.createUserForTesting(conf, "bob", new String[0]);
    try (Connection ac = connect(alice);
        Connection bc = connect(bob)) {
      StoreFiles.evict(cluster.blockCache(), cluster.regions(t));
      assertEquals(ROWS, scanRows(ac, t, id, "COUNT"));
      long[] hers = cluster.diagnostics().queryCosts(id, "alice", encoded);
      assertEquals(ROWS, hers[CostLayout.SIZE]);
      assertEquals(
          "her cold scan read each data block of the store file once",
          SeedTables.dataBlocksAndCells(cluster.regions(t))[0],
          hers[CostLayout.slotOf("fs.read.blocks.data")]);

      assertFalse("bob has no query of that id", ProfileProtocol.found(profile(bc, t, id, null)));
      assertEquals(
          "rows of alice's profile bob read by naming her", 0, rowsNamed(bc, t, id, "alice"));

      // bob tags his scans with alice's id and asks for TIME: his own query
      assertEquals(ROWS, scanRows(bc, t, id, "TIME"));
      assertArrayEquals(
          "alice's record as it was", hers, cluster.diagnostics().queryCosts(id, "alice", encoded));
      assertEquals(1, cluster.diagnostics().queries().stats(id, "alice").scanners());
      assertEquals(1, cluster.diagnostics().queries().stats(id, "bob").scanners());
      // bob's record is his: measured at the TIME he asked, where alice's COUNT has no nanos
      long[] his = cluster.diagnostics().queryCosts(id, "bob", encoded);
      int nanos = CostLayout.slotOf("decode.FAST_DIFF.nanos");
      assertEquals(PerfLevel.TIME.ordinal(), his[Diagnostics.QUERY_LEVEL]);
      assertEquals(PerfLevel.COUNT.ordinal(), hers[Diagnostics.QUERY_LEVEL]);
      assertTrue("his decoding timed", his[nanos] > 0);
      assertEquals("hers not", 0, hers[nanos]);
      assertEquals(ROWS, his[CostLayout.SIZE]);

      Message own = profile(ac, t, id, null);
      assertEquals(ROWS, ProfileProtocol.rows(own));
      assertEquals(named(hers), ProfileProtocol.costs(own));
      assertEquals(ROWS, ProfileProtocol.rows(profile(bc, t, id, null)));

      // the region server's own user is a superuser (HBase's minicluster runs its servers as a
      // user of their own: Superusers' system user, which must not be made again with other groups)
      User superuser = Superusers.getSystemUser();
      try (Connection sc = connect(superuser)) {
        Message bySuperuser = profile(sc, t, id, "alice");
        assertEquals(ROWS, ProfileProtocol.rows(bySuperuser));
        assertEquals(named(hers), ProfileProtocol.costs(bySuperuser));
        assertFalse(
            "the superuser's own record of the id: none",
            ProfileProtocol.found(profile(sc, t, id, null)));
      }
    }
  }

  /**
   * Bob's flood of query ids, several times what the server keeps for all users together, evicts
   * only his own queries: alice, within her share, reads her profile back exactly as it was. The
   * server's limits are lowered for the test through its configuration and {@code update_config}
   * (200 ids and 400 records, shared by 4 users: 50 ids and 100 records each), so that bob's 1,200
   * ids, each scanning the three regions of an empty table, are 6 times the ids and 9 times the
   * records the server keeps, in 3,600 scanner opens rather than the 60,000 or more the defaults
   * would take.
   */
  @Test
  public void aFloodOfAnotherUsersQueryIdsLeavesAProfileAsItWas() throws Throwable {
    TableName t = loaded("tenant_fair", null);
    TableName flood = newTable("tenant_flood");
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(flood).splits(RawTable.seedRow(ROWS / 3), RawTable.seedRow(ROWS / 2)));
    assertEquals(3, cluster.regions(flood).size());
    String bobs = java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 24);
    int n = 1_200;
    HRegionServer rs = cluster.regionServer();
    Configuration server = rs.getConfiguration();
    server.set(BlockscopeConfig.QUERY_MAX_IDS, "200");
    server.set(BlockscopeConfig.QUERY_MAX_RECORDS, "400");
    server.set(BlockscopeConfig.QUERY_SHARE_USERS, "4");
    cluster.admin().updateConfiguration(rs.getServerName());
    QueryTracker queries = cluster.diagnostics().queries();
    try {
      aliceKeepsHerProfile(
          t,
          n,
          200,
          bob -> {
            for (int i = 0; i < n; i++) {
              assertEquals(0, scanRows(bob, flood, bobs + String.format("%08x", i), "COUNT"));
            }
            assertEquals(3, queries.stats(bobs + String.format("%08x", n - 1), "bob").scanners());
            assertEquals(
                "bob's oldest query",
                QueryTracker.Stats.NONE,
                queries.stats(bobs + "00000000", "bob"));
            assertAtMost("records kept", 400, queries.trackedRecords());
          });
    } finally {
      server.unset(BlockscopeConfig.QUERY_MAX_IDS);
      server.unset(BlockscopeConfig.QUERY_MAX_RECORDS);
      server.unset(BlockscopeConfig.QUERY_SHARE_USERS);
      cluster.admin().updateConfiguration(rs.getServerName());
    }
  }

  /**
   * The same flood at the shipped limits (10,000 ids and 20,000 records, shared by 10 users): bob
   * sends 30,000 distinct query ids, each a scan of a one-region empty table from one of four
   * threads, three times the ids the server keeps for all users together. Alice's profile, made
   * before his flood, reads back exactly as it was; the server keeps no more than its 10,000 ids,
   * bob's oldest among those gone.
   */
  @Test
  public void thirtyThousandOfBobsIdsAtTheShippedLimitsLeaveAlicesProfile() throws Throwable {
    HRegionServer rs = cluster.regionServer();
    for (String key :
        List.of(
            BlockscopeConfig.QUERY_MAX_IDS,
            BlockscopeConfig.QUERY_MAX_RECORDS,
            BlockscopeConfig.QUERY_SHARE_USERS)) {
      assertEquals(key + " as shipped", null, rs.getConfiguration().get(key));
    }
    TableName t = loaded("tenant_fair_shipped", null);
    TableName flood = newTable("tenant_flood_shipped");
    RawTable.create(cluster.admin(), new RawTable.Spec(flood));
    assertEquals(1, cluster.regions(flood).size());
    String bobs = java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 24);
    int n = 30_000;
    int threads = 4;
    QueryTracker queries = cluster.diagnostics().queries();
    aliceKeepsHerProfile(
        t,
        n,
        QueryTracker.Limits.DEFAULT.ids(),
        bob -> {
          java.util.concurrent.ExecutorService pool =
              java.util.concurrent.Executors.newFixedThreadPool(threads);
          try {
            List<java.util.concurrent.Future<Long>> parts = new java.util.ArrayList<>();
            for (int p = 0; p < threads; p++) {
              int first = p;
              parts.add(
                  pool.submit(
                      () -> {
                        long rows = 0;
                        for (int i = first; i < n; i += threads) {
                          rows += scanRows(bob, flood, bobs + String.format("%08x", i), "COUNT");
                        }
                        return rows;
                      }));
            }
            for (java.util.concurrent.Future<Long> part : parts) {
              assertEquals(0L, (long) part.get());
            }
          } finally {
            pool.shutdownNow();
          }
          assertEquals(1, queries.stats(bobs + String.format("%08x", n - 1), "bob").scanners());
          assertEquals(
              "bob's oldest query",
              QueryTracker.Stats.NONE,
              queries.stats(bobs + "00000000", "bob"));
        });
  }

  /** What bob does while alice's profile waits to be read. */
  private interface Flood {
    void run(Connection bob) throws Exception;
  }

  /**
   * Alice profiles a COUNT scan of {@code t}; bob runs {@code flood}, {@code n} query ids; then the
   * server keeps at most {@code kept} ids, has evicted at least {@code n - kept} queries (and at
   * most {@code n} plus those it held before: other tests of this JVM leave some), and alice's
   * record and her profile read back exactly as they were.
   */
  private static void aliceKeepsHerProfile(TableName t, int n, int kept, Flood flood)
      throws Throwable {
    String encoded = onlyRegion(t).getRegionInfo().getEncodedName();
    String id = java.util.UUID.randomUUID().toString().replace("-", "");
    User alice = User.createUserForTesting(cluster.conf(), "alice", new String[0]);
    User bob = User.createUserForTesting(cluster.conf(), "bob", new String[0]);
    QueryTracker queries = cluster.diagnostics().queries();
    try (Connection ac = connect(alice);
        Connection bc = connect(bob)) {
      assertEquals(ROWS, scanRows(ac, t, id, "COUNT"));
      long[] hers = cluster.diagnostics().queryCosts(id, "alice", encoded);
      Message before = profile(ac, t, id, null);
      assertEquals(ROWS, ProfileProtocol.rows(before));
      long evicted = serverCounter("queries.evicted");
      int heldBefore = queries.trackedQueries();

      flood.run(bc);
      assertAtMost("ids kept", kept, queries.trackedQueries());
      assertBetween(
          "queries evicted by bob's flood",
          n - kept,
          n + heldBefore,
          serverCounter("queries.evicted") - evicted);

      assertArrayEquals(
          "alice's record as it was", hers, cluster.diagnostics().queryCosts(id, "alice", encoded));
      Message after = profile(ac, t, id, null);
      assertEquals(ROWS, ProfileProtocol.rows(after));
      assertEquals(ProfileProtocol.costs(before), ProfileProtocol.costs(after));
    }
  }

  /**
   * The operator lowers {@code blockscope.query.max.level} from TIME to COUNT while a query that
   * asked TIME has a scanner open: at the reload its record's level reads COUNT, capped, and the
   * scanner's later batches decode more cells but record no nanos.
   */
  @Test
  public void aLoweredQueryCapReachesARunningQueryAtOnce() throws Exception {
    TableName t = loaded("tenant_lowered", "COUNT");
    String encoded = onlyRegion(t).getRegionInfo().getEncodedName();
    String id = "00000000000000000000000000c0ffee";
    int nanos = CostLayout.slotOf("decode.FAST_DIFF.nanos");
    int cells = CostLayout.slotOf("decode.FAST_DIFF.cells");
    HRegionServer rs = cluster.regionServer();
    Configuration server = rs.getConfiguration();
    User alice = User.createUserForTesting(cluster.conf(), "alice", new String[0]);
    try (Connection ac = connect(alice);
        Table table = ac.getTable(t)) {
      Scan s = new Scan().setCaching(100);
      s.setAttribute(Attributes.QUERY, id.getBytes(StandardCharsets.US_ASCII));
      s.setAttribute(Attributes.PROFILE, "TIME".getBytes(StandardCharsets.US_ASCII));
      long rows = 0;
      try (ResultScanner r = table.getScanner(s)) {
        for (; rows < ROWS / 2; rows++) {
          assertNotNull(r.next());
        }
        long[] timed = cluster.diagnostics().queryCosts(id, "alice", encoded);
        assertEquals(PerfLevel.TIME.ordinal(), timed[Diagnostics.QUERY_LEVEL]);
        assertEquals(ProfileWire.AS_ASKED, timed[Diagnostics.QUERY_LEVEL_REASON]);
        assertTrue("timed as asked", timed[nanos] > 0);

        server.set(BlockscopeConfig.QUERY_MAX_LEVEL, "COUNT");
        cluster.admin().updateConfiguration(rs.getServerName());
        long[] lowered = cluster.diagnostics().queryCosts(id, "alice", encoded);
        assertEquals(PerfLevel.COUNT.ordinal(), lowered[Diagnostics.QUERY_LEVEL]);
        assertEquals(ProfileWire.CAPPED, lowered[Diagnostics.QUERY_LEVEL_REASON]);

        for (; r.next() != null; rows++) {
          // the rest of the rows, read under the lowered cap
        }
        long[] after = cluster.diagnostics().queryCosts(id, "alice", encoded);
        assertEquals(ROWS, rows);
        assertTrue("the later batches decoded cells", after[cells] > lowered[cells]);
        assertEquals(
            "the scan decoded each cell of the store file once",
            SeedTables.dataBlocksAndCells(List.of(onlyRegion(t)))[1],
            after[cells]);
        assertEquals("and timed none of them", lowered[nanos], after[nanos]);
      }
    } finally {
      server.set(BlockscopeConfig.QUERY_MAX_LEVEL, "TIME");
      cluster.admin().updateConfiguration(rs.getServerName());
    }
  }

  /**
   * A scan whose PROFILE asks TIME under a COUNT query cap: its record is measured at COUNT,
   * capped, with no nanos, and counts each cell of the store file exactly once.
   */
  @Test
  public void aProfileAskingTimeUnderACountQueryCapRecordsNoTime() throws Exception {
    TableName t = loaded("tenant_query_cap", "COUNT");
    String encoded = onlyRegion(t).getRegionInfo().getEncodedName();
    String id = "000000000000000000000000000ca9ed";
    HRegionServer rs = cluster.regionServer();
    Configuration server = rs.getConfiguration();
    server.set(BlockscopeConfig.QUERY_MAX_LEVEL, "COUNT");
    cluster.admin().updateConfiguration(rs.getServerName());
    User alice = User.createUserForTesting(cluster.conf(), "alice", new String[0]);
    try (Connection ac = connect(alice)) {
      cluster.admin().clearBlockCache(t);
      assertEquals(ROWS, scanRows(ac, t, id, "TIME"));
      long[] record = cluster.diagnostics().queryCosts(id, "alice", encoded);
      assertEquals(
          "no time above the query cap", 0, record[CostLayout.slotOf("decode.FAST_DIFF.nanos")]);
      long[] trailer = SeedTables.dataBlocksAndCells(List.of(onlyRegion(t)));
      assertEquals(trailer[0], record[CostLayout.slotOf("blockCache.miss.data")]);
      assertEquals(trailer[1], record[CostLayout.slotOf("decode.FAST_DIFF.cells")]);
      assertEquals(ROWS, record[CostLayout.SIZE]);
      assertEquals(PerfLevel.COUNT.ordinal(), record[Diagnostics.QUERY_LEVEL]);
      assertEquals(ProfileWire.CAPPED, record[Diagnostics.QUERY_LEVEL_REASON]);
    } finally {
      server.set(BlockscopeConfig.QUERY_MAX_LEVEL, "TIME");
      cluster.admin().updateConfiguration(rs.getServerName());
    }
  }

  private long serverGauge(String name) {
    return ((Number)
            cluster
                .diagnostics()
                .registry()
                .metrics()
                .getGauges()
                .get(MetricKeys.server(name))
                .getValue())
        .longValue();
  }

  /**
   * A table whose {@code blockscope.level} does not parse is measured at the server's level, and
   * the operator is told once: not once per region, and not again at each reload.
   */
  @Test
  public void aMalformedTableLevelIsSaidOnceAndMeasuredAtTheServersLevel() throws Exception {
    TableName t = newTable("tenant_loud");
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(t)
            .blockSize(4096)
            .encoding(DataBlockEncoding.FAST_DIFF)
            .level("LOUD")
            .splits(RawTable.seedRow(ROWS / 4), RawTable.seedRow(ROWS / 2)));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, ROWS, 7);
    HRegionServer rs = cluster.regionServer();
    cluster.admin().updateConfiguration(rs.getServerName());
    List<HRegion> regions = cluster.util().getMiniHBaseCluster().getRegions(t);
    assertEquals(3, regions.size());
    PerfLevel server = cluster.diagnostics().serverLevel();
    for (HRegion r : regions) {
      String encoded = r.getRegionInfo().getEncodedName();
      assertEquals(server, cluster.diagnostics().registry().region(encoded).level());
    }
    List<String> said =
        cluster.diagnostics().problems().stream()
            .filter(p -> p.startsWith("table " + t.getNameAsString() + ": attribute"))
            .collect(java.util.stream.Collectors.toList());
    assertEquals(said.toString(), 1, said.size());
    assertTrue(
        said.get(0),
        said.get(0).contains("LOUD") && said.get(0).endsWith("using the server level"));
    // and it is measured: a cold scan counts every data block of its three store files
    cluster.admin().clearBlockCache(t);
    CostSnapshot before = CostSnapshot.ZERO;
    for (HRegion r : regions) {
      before = before.plus(regionCosts(r));
    }
    assertEquals(ROWS, scanRows(cluster.connection(), t, null, null));
    CostSnapshot after = CostSnapshot.ZERO;
    for (HRegion r : regions) {
      after = after.plus(regionCosts(r));
    }
    long[] trailer = SeedTables.dataBlocksAndCells(regions);
    assertEquals(trailer[0], after.minus(before).get("blockCache.miss.data"));
  }

  private static TableName loaded(String prefix, String level) throws IOException {
    TableName t = newTable(prefix);
    RawTable.Spec spec = new RawTable.Spec(t).blockSize(4096).encoding(DataBlockEncoding.FAST_DIFF);
    if (level != null) {
      spec.level(level);
    }
    RawTable.create(cluster.admin(), spec);
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, ROWS, 7);
    return t;
  }

  /** What a full scan of a table's one region cost, from an empty block cache. */
  private static CostSnapshot coldScan(TableName t) throws IOException {
    HRegion region = onlyRegion(t);
    cluster.admin().clearBlockCache(t);
    CostSnapshot before = regionCosts(region);
    assertEquals(ROWS, scanRows(cluster.connection(), t, null, null));
    return regionCosts(region).minus(before);
  }

  private static Connection connect(User user) throws Exception {
    return user.runAs(
        (PrivilegedExceptionAction<Connection>)
            () -> ConnectionFactory.createConnection(cluster.conf()));
  }

  /** The one region's answer of the profile endpoint, asked as {@code c}'s user. */
  private static Message profile(Connection c, TableName t, String id, String user)
      throws Throwable {
    return askOneRegion(
        c,
        t,
        ProfileProtocol.GET_PROFILE,
        ProfileProtocol.request(id, user),
        ProfileProtocol.RESPONSE);
  }

  /** What the profile endpoint sends for a record: its non-zero costs, its level and why. */
  private static Map<String, Long> named(long[] record) {
    Map<String, Long> m = new java.util.LinkedHashMap<>();
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      if (record[i] != 0) {
        m.put(CostLayout.name(i), record[i]);
      }
    }
    m.put(ProfileWire.LEVEL_APPLIED, record[Diagnostics.QUERY_LEVEL]);
    m.put(ProfileWire.LEVEL_REASON, record[Diagnostics.QUERY_LEVEL_REASON]);
    return m;
  }

  /**
   * The rows of {@code user}'s profile that {@code c}'s user reads by naming them: 0 when HBase
   * refuses the call with its AccessDeniedException (any other failure is thrown).
   */
  private static long rowsNamed(Connection c, TableName t, String id, String user)
      throws Throwable {
    Message answer;
    try {
      answer = profile(c, t, id, user);
    } catch (Throwable refused) {
      if (!deniedByHBase(refused)) {
        throw refused;
      }
      return 0;
    }
    return ProfileProtocol.found(answer) ? ProfileProtocol.rows(answer) : 0;
  }

  private static boolean deniedByHBase(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof AccessDeniedException
          || String.valueOf(c.getMessage()).contains(AccessDeniedException.class.getName())) {
        return true;
      }
    }
    return false;
  }
}
