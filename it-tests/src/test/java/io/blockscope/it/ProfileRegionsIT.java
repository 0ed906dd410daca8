package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.google.protobuf.Message;
import com.google.protobuf.Service;
import io.blockscope.hints.BlockscopePhoenix;
import io.blockscope.hints.BlockscopeResultSet;
import io.blockscope.hints.QueryProfile;
import io.blockscope.metrics.ServerMetric;
import io.blockscope.metrics.profile.ProfileWire;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.EndpointObserver;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.AfterClass;
import org.junit.Before;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * A profile asks only the regions its query read: PROFILE and EXPLAIN ANALYZE call the profile
 * endpoint on exactly the regions whose rows the query's scans covered, whatever the table's size
 * and the query's shape (point lookups, ranges that start or end on a region boundary, IN lists,
 * descending order, joins, unions, salted tables).
 *
 * <p>The regions called are counted twice: by HBase's own hook ({@code
 * EndpointObserver.preEndpointInvocation}, which {@code HRegion.execService} calls before any
 * endpoint runs) in a test coprocessor on the tables, which knows nothing of blockscope, and by the
 * server's {@code profile.requests} counter. The expected regions come from the cluster's regions
 * and the primary keys the query's WHERE clause selects.
 */
public class ProfileRegionsIT extends ClusterTestBase {
  private static final String TABLE = "PROFILE_REGIONS";
  private static final String OTHER = "PROFILE_REGIONS_B";
  private static final String SALTED = "PROFILE_REGIONS_SALTED";

  /** Rows 0..999 in 50 regions, split every 20 keys. */
  private static final int ROWS = 1000;

  private static final int STEP = 20;

  /** The encoded names of the regions the profile endpoint was called on, as HBase called it. */
  public static final class EndpointCalls implements RegionCoprocessor, EndpointObserver {
    static final Queue<String> CALLED = new ConcurrentLinkedQueue<>();

    @Override
    public Optional<EndpointObserver> getEndpointObserver() {
      return Optional.of(this);
    }

    @Override
    public Message preEndpointInvocation(
        ObserverContext<RegionCoprocessorEnvironment> c,
        Service service,
        String methodName,
        Message request) {
      if (service
          .getDescriptorForType()
          .getFullName()
          .equals(ProfileWire.PACKAGE + "." + ProfileWire.SERVICE)) {
        CALLED.add(c.getEnvironment().getRegionInfo().getEncodedName());
      }
      return request;
    }
  }

  @BeforeClass
  public static void load() throws Exception {
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement()) {
      for (String t : new String[] {TABLE, OTHER}) {
        StringBuilder splits = new StringBuilder();
        for (int k = STEP; k < ROWS; k += STEP) {
          splits.append(splits.length() == 0 ? "" : ", ").append(k);
        }
        s.execute(
            "CREATE TABLE " + t + " (pk INTEGER PRIMARY KEY, v INTEGER) SPLIT ON (" + splits + ")");
      }
      s.execute("CREATE TABLE " + SALTED + " (pk INTEGER PRIMARY KEY, v INTEGER) SALT_BUCKETS=8");
      for (String t : new String[] {TABLE, OTHER, SALTED}) {
        for (int k = 0; k < ROWS; k++) {
          s.execute("UPSERT INTO " + t + " VALUES (" + k + ", " + (k * 7) + ")");
        }
      }
      c.commit();
    }
    for (String t : new String[] {TABLE, OTHER, SALTED}) {
      TableName name = TableName.valueOf(t);
      cluster
          .admin()
          .modifyTable(
              TableDescriptorBuilder.newBuilder(cluster.admin().getDescriptor(name))
                  .setCoprocessor(EndpointCalls.class.getName())
                  .build());
    }
    assertEquals(ROWS / STEP, regions(TABLE).size());
  }

  @AfterClass
  public static void drop() throws Exception {
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement()) {
      for (String t : new String[] {TABLE, OTHER, SALTED}) {
        s.execute("DROP TABLE IF EXISTS " + t);
      }
    }
  }

  @Before
  public void forget() {
    EndpointCalls.CALLED.clear();
  }

  private static List<HRegion> regions(String table) {
    return cluster.regions(TableName.valueOf(table));
  }

  /** The encoded names of {@code table}'s regions holding a key of {@code [lo, hi]}. */
  private static Set<String> holding(String table, int lo, int hi) {
    byte[] from = SeedTables.phoenixKey(lo);
    byte[] to = SeedTables.phoenixKey(hi + 1);
    Set<String> names = new TreeSet<>();
    for (HRegion r : regions(table)) {
      byte[] start = r.getRegionInfo().getStartKey();
      byte[] end = r.getRegionInfo().getEndKey();
      if ((end.length == 0 || Bytes.compareTo(from, end) < 0) && Bytes.compareTo(start, to) < 0) {
        names.add(r.getRegionInfo().getEncodedName());
      }
    }
    return names;
  }

  /** The encoded names of the region of {@code table} holding row {@code row}. */
  private static Set<String> holdingRow(String table, byte[] row) {
    Set<String> names = new TreeSet<>();
    for (HRegion r : regions(table)) {
      if (r.getRegionInfo().containsRow(row)) {
        names.add(r.getRegionInfo().getEncodedName());
      }
    }
    return names;
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> u = new TreeSet<>(a);
    u.addAll(b);
    return u;
  }

  /**
   * Runs {@code sql} with PROFILE through blockscope's driver to its end and asserts the profile
   * endpoint was called on exactly {@code expected}, once each, by HBase's count and by
   * blockscope's, and that the profile's regions are among them; returns the profile.
   */
  @SuppressWarnings("try") // the result set is closed before its profile is read
  private static QueryProfile assertAsks(String sql, Set<String> expected) throws Exception {
    long before = serverCounter(ServerMetric.PROFILE_REQUESTS.metric());
    QueryProfile p;
    try (Connection c = SeedTables.blockscope(cluster);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql.replaceFirst("SELECT ", "SELECT /*+ PROFILE */ "))) {
      while (rs.next()) {
        rs.getObject(1);
      }
      rs.close();
      p = rs.unwrap(BlockscopeResultSet.class).profile();
    }
    List<String> called = new ArrayList<>(EndpointCalls.CALLED);
    EndpointCalls.CALLED.clear();
    assertEquals(sql + ": regions called", expected, new TreeSet<>(called));
    assertEquals(sql + ": each once " + called, expected.size(), called.size());
    assertEquals(
        sql + ": profile.requests",
        expected.size(),
        serverCounter(ServerMetric.PROFILE_REQUESTS.metric()) - before);
    assertEquals(
        sql + ": regions asked, as the profile says", expected.size(), p.read().regionsAsked());
    for (QueryProfile.Region r : p.regions()) {
      assertTrue(
          sql + ": " + r.region() + " recorded but not expected", expected.contains(r.region()));
    }
    return p;
  }

  @Test
  public void aPointLookupAsksOneRegionOfFifty() throws Exception {
    QueryProfile p =
        assertAsks("SELECT v FROM " + TABLE + " WHERE pk = 45", holding(TABLE, 45, 45));
    assertEquals(1, p.regions().size());
    assertEquals(1, p.read().calls());
  }

  /** A key equal to a split point is the first row of the region it starts, and of no other. */
  @Test
  public void aPointLookupOnASplitKeyAsksOnlyTheRegionItStarts() throws Exception {
    assertAsks("SELECT v FROM " + TABLE + " WHERE pk = 40", holding(TABLE, 40, 40));
    assertAsks("SELECT v FROM " + TABLE + " WHERE pk = 39", holding(TABLE, 39, 39));
  }

  /** {@code [20, 60)} is two regions; an end key taken as inclusive would ask a third. */
  @Test
  public void aRangeOnRegionBoundariesAsksItsRegionsAndNotTheNext() throws Exception {
    Set<String> two = holding(TABLE, 20, 59);
    assertEquals(2, two.size());
    assertAsks("SELECT COUNT(*) FROM " + TABLE + " WHERE pk >= 20 AND pk < 60", two);
    assertAsks("SELECT v FROM " + TABLE + " WHERE pk >= 20 AND pk < 60", two);
  }

  /** The table's first region has an empty start key; asking it alone is not asking the table. */
  @Test
  public void aRangeFromTheTablesStartAsksFromTheFirstRegion() throws Exception {
    assertAsks("SELECT v FROM " + TABLE + " WHERE pk < 60", holding(TABLE, -1, 59));
    assertAsks("SELECT v FROM " + TABLE + " WHERE pk < 5", holding(TABLE, -1, 4));
    assertAsks("SELECT v FROM " + TABLE + " WHERE pk >= 975", holding(TABLE, 975, ROWS));
  }

  @Test
  public void anInListAsksTheRegionsOfItsKeysOnly() throws Exception {
    Set<String> three =
        union(holding(TABLE, 5, 5), union(holding(TABLE, 505, 505), holding(TABLE, 985, 985)));
    assertEquals(3, three.size());
    assertAsks("SELECT v FROM " + TABLE + " WHERE pk IN (5, 505, 985)", three);
  }

  /** Phoenix turns a descending scan around in place; its regions are the same. */
  @Test
  public void aDescendingScanAsksItsRegions() throws Exception {
    assertAsks(
        "SELECT pk FROM " + TABLE + " WHERE pk >= 100 AND pk < 200 ORDER BY pk DESC",
        holding(TABLE, 100, 199));
  }

  @Test
  public void aFullScanAsksEveryRegionInOneCall() throws Exception {
    QueryProfile p = assertAsks("SELECT COUNT(*) FROM " + TABLE, holding(TABLE, -1, ROWS));
    assertEquals(ROWS / STEP, p.read().regionsAsked());
    assertEquals(1, p.read().calls());
  }

  @Test
  public void aJoinAsksEachSidesRegions() throws Exception {
    assertAsks(
        "SELECT COUNT(*) FROM "
            + TABLE
            + " a JOIN "
            + OTHER
            + " b ON a.pk = b.pk WHERE a.pk BETWEEN 300 AND 339 AND b.pk BETWEEN 300 AND 339",
        union(holding(TABLE, 300, 339), holding(OTHER, 300, 339)));
  }

  @Test
  public void aUnionAsksEachBranchsRegions() throws Exception {
    assertAsks(
        "SELECT pk FROM "
            + TABLE
            + " WHERE pk BETWEEN 100 AND 110 UNION ALL SELECT pk FROM "
            + OTHER
            + " WHERE pk BETWEEN 700 AND 745",
        union(holding(TABLE, 100, 110), holding(OTHER, 700, 745)));
  }

  /** A salted point lookup reads one bucket: its key carries the salt byte. */
  @Test
  public void aSaltedPointLookupAsksOneBucket() throws Exception {
    assertEquals(8, regions(SALTED).size());
    assertAsks("SELECT v FROM " + SALTED + " WHERE pk = 321", holdingRow(SALTED, saltedRow(321)));
  }

  /** The row key Phoenix wrote for {@code pk} in the salted table: a salt byte, then the key. */
  private static byte[] saltedRow(int pk) throws Exception {
    byte[] key = SeedTables.phoenixKey(pk);
    try (Table t = cluster.connection().getTable(TableName.valueOf(SALTED));
        ResultScanner rows = t.getScanner(new Scan())) {
      for (Result r : rows) {
        byte[] row = r.getRow();
        if (Bytes.equals(row, 1, row.length - 1, key, 0, key.length)) {
          return row;
        }
      }
    }
    throw new AssertionError("no row of " + SALTED + " holds pk " + pk);
  }

  @Test
  public void explainAnalyzeSaysWhatItAsked() throws Exception {
    long before = serverCounter(ServerMetric.PROFILE_REQUESTS.metric());
    List<String> lines = new ArrayList<>();
    try (Connection c = SeedTables.blockscope(cluster);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("EXPLAIN ANALYZE SELECT v FROM " + TABLE + " WHERE pk = 45")) {
      while (rs.next()) {
        lines.add(rs.getString(1));
      }
    }
    assertTrue(
        lines.toString(),
        lines.stream().anyMatch(l -> l.startsWith("  profile read: 1 region asked in 1 call, ")));
    assertEquals(holding(TABLE, 45, 45), new TreeSet<>(EndpointCalls.CALLED));
    assertEquals(1, serverCounter(ServerMetric.PROFILE_REQUESTS.metric()) - before);
  }

  /**
   * The Java API's profile of a table, which knows no key range, asks every region of it in one
   * call: the form a query whose plan is unknown falls back to.
   */
  @Test
  public void aProfileOfAWholeTableAsksEveryRegion() throws Exception {
    String id;
    try (Connection c = SeedTables.blockscope(cluster);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT /*+ PROFILE */ v FROM " + TABLE + " WHERE pk = 45")) {
      while (rs.next()) {
        rs.getObject(1);
      }
      id = rs.unwrap(BlockscopeResultSet.class).queryId();
      EndpointCalls.CALLED.clear(); // not counted: the close
      long before = serverCounter(ServerMetric.PROFILE_REQUESTS.metric());
      QueryProfile whole = BlockscopePhoenix.fetchProfile(c, TABLE, id);
      assertEquals(holding(TABLE, -1, ROWS), new TreeSet<>(EndpointCalls.CALLED));
      assertEquals(ROWS / STEP, serverCounter(ServerMetric.PROFILE_REQUESTS.metric()) - before);
      assertEquals(ROWS / STEP, whole.read().regionsAsked());
      assertEquals(1, whole.read().calls());
      assertEquals(holding(TABLE, 45, 45).iterator().next(), whole.regions().get(0).region());
    }
  }
}
