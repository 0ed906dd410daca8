package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.accounting.CostRegistry;
import io.blockscope.coprocessor.accounting.SpaceSaving;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.metrics.CacheReuse;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.MetricKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.MiniHBaseCluster;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Waiter;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.apache.hadoop.hbase.util.VersionInfo;
import org.junit.BeforeClass;

/** What every integration test shares: the JVM's one embedded cluster and a few readings. */
public abstract class ClusterTestBase {
  private static final AtomicInteger TABLES = new AtomicInteger();

  protected static EmbeddedCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    String built = System.getProperty("blockscope.hbase.version");
    if (built != null) {
      // a version profile that resolved another HBase would otherwise test that one quietly
      assertEquals("the HBase on the test classpath", built, VersionInfo.getVersion());
    }
    cluster = EmbeddedCluster.shared();
  }

  /**
   * The user this JVM's client calls are made as (its short name): the owner of the queries its
   * tagged scans make, as the region server names it.
   */
  protected static String me() {
    try {
      return org.apache.hadoop.hbase.security.User.getCurrent().getShortName();
    } catch (java.io.IOException e) {
      throw new IllegalStateException("no current user", e);
    }
  }

  /** A table name no other test uses. */
  protected static TableName newTable(String prefix) {
    return TableName.valueOf(prefix + "_" + TABLES.incrementAndGet());
  }

  /** Costs of a table, summed over its regions on the region server. */
  protected static CostSnapshot tableCosts(TableName t) {
    return cluster.diagnostics().registry().tableSnapshot(t.getNameAsString());
  }

  /** A server-wide counter of the engine, by its name under {@code server.}. */
  protected static long serverCounter(String name) {
    return cluster
        .diagnostics()
        .registry()
        .metrics()
        .getCounters()
        .get(MetricKeys.server(name))
        .getCount();
  }

  /**
   * One block cache counter ({@link CacheReuse}) of a table and block kind, JVM-wide, as the
   * read-path bridge counts it.
   */
  protected static long cacheReuse(TableName t, int kind, int counter) {
    return ProbeBridge.cacheReuse(t.getNameAsString(), CacheReuse.slot(kind, counter));
  }

  protected static CostSnapshot serverCosts() {
    return cluster.diagnostics().registry().serverSnapshot();
  }

  /**
   * Every cost of the server equals the accounts' plus {@code (other)}'s, at a moment when no read
   * is between adding to its account and to its region (the cluster's own reads go on beside the
   * test): asked until one reading of the three agrees, for 30 s at most, on {@code c}'s engine.
   */
  static void awaitAccountsSumToTheServer(EmbeddedCluster c) throws Exception {
    CostRegistry registry = c.diagnostics().registry();
    List<String> last = new ArrayList<>();
    Waiter.waitFor(
        c.conf(),
        30_000,
        100,
        false,
        () -> {
          last.clear();
          CostSnapshot before = registry.serverSnapshot();
          long[] accounts = new long[CostLayout.SIZE];
          for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
            accounts[s] = c.diagnostics().users().total(s);
          }
          CostSnapshot after = registry.serverSnapshot();
          if (!before.equals(after)) {
            last.add("the server read meanwhile");
            return false;
          }
          for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
            if (accounts[s] != after.get(s)) {
              last.add(
                  CostLayout.name(s) + ": accounts " + accounts[s] + ", server " + after.get(s));
            }
          }
          return last.isEmpty();
        });
    assertTrue("accounts by user + (other) = server: " + last, last.isEmpty());
  }

  protected static HRegion onlyRegion(TableName t) {
    List<HRegion> regions = cluster.regions(t);
    if (regions.size() != 1) {
      throw new IllegalStateException(t + " has " + regions.size() + " regions");
    }
    return regions.get(0);
  }

  /** An account's costs now (a user's, a statement's), as a snapshot; zero for null. */
  protected static CostSnapshot accountCosts(SpaceSaving.Account a) {
    if (a == null) {
      return CostSnapshot.ZERO;
    }
    long[] s = new long[CostLayout.SIZE];
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      s[i] = a.get(i);
    }
    return CostSnapshot.ofSlots(s);
  }

  protected static CostSnapshot regionCosts(HRegion r) {
    return cluster.diagnostics().registry().regionSnapshot(r.getRegionInfo().getEncodedName());
  }

  /**
   * Starts a second region server with blockscope's observer but without the BLOCKSCOPE_V1
   * registrar, and waits until the master counts two live servers; {@link #stopSecondServer} takes
   * it away again.
   */
  protected static JVMClusterUtil.RegionServerThread startServerWithoutRegistrar()
      throws Exception {
    MiniHBaseCluster mini = cluster.util().getMiniHBaseCluster();
    Configuration conf = mini.getConf();
    String saved = conf.get("hbase.coprocessor.region.classes");
    JVMClusterUtil.RegionServerThread bare;
    conf.set(
        "hbase.coprocessor.region.classes",
        io.blockscope.coprocessor.BlockscopeRegionObserver.class.getName());
    try {
      bare = mini.startRegionServerAndWait(60_000);
    } finally {
      conf.set("hbase.coprocessor.region.classes", saved);
    }
    cluster
        .util()
        .waitFor(
            30_000,
            100,
            () -> cluster.admin().getClusterMetrics().getLiveServerMetrics().size() == 2);
    return bare;
  }

  /** Stops the server {@link #startServerWithoutRegistrar} started; one live server is left. */
  protected static void stopSecondServer(JVMClusterUtil.RegionServerThread server)
      throws Exception {
    MiniHBaseCluster mini = cluster.util().getMiniHBaseCluster();
    int index = mini.getLiveRegionServerThreads().indexOf(server);
    mini.stopRegionServer(index);
    mini.waitOnRegionServer(index);
    cluster
        .util()
        .waitFor(
            60_000,
            100,
            () -> cluster.admin().getClusterMetrics().getLiveServerMetrics().size() == 1);
  }

  /**
   * Fails unless {@code observed} is at most {@code bound}, in the words the miscount drill reads
   * ({@code expected at most:<bound> but was:<observed>}).
   */
  protected static void assertAtMost(String message, long bound, long observed) {
    if (observed > bound) {
      throw new AssertionError(
          message + " expected at most:<" + bound + "> but was:<" + observed + ">");
    }
  }

  /**
   * Fails unless {@code observed} lies in {@code [low, high]}, naming the side it left in the words
   * the miscount drill reads ({@code expected at least:<low> but was:<observed>}, or {@code at
   * most} and {@code high}).
   */
  protected static void assertBetween(String message, double low, double high, double observed) {
    failOutside(message, observed < low, low, observed > high, high, observed);
  }

  /** {@link #assertBetween(String, double, double, double)} for counts. */
  protected static void assertBetween(String message, long low, long high, long observed) {
    failOutside(message, observed < low, low, observed > high, high, observed);
  }

  private static void failOutside(
      String message, boolean below, Object low, boolean above, Object high, Object observed) {
    if (below || above) {
      throw new AssertionError(
          message
              + (below ? " expected at least:<" + low : " expected at most:<" + high)
              + "> but was:<"
              + observed
              + ">");
    }
  }

  /** Total block cache misses of all kinds in a snapshot. */
  protected static long misses(CostSnapshot s) {
    return s.sumKinds("blockCache.miss");
  }

  protected static long hits(CostSnapshot s) {
    return s.sumKinds("blockCache.hit");
  }
}
