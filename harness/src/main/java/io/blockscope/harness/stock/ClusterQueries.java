package io.blockscope.harness.stock;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Waiter;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionInfo;

/**
 * What a {@link StockCluster}'s master and its region locations say (the live servers, the regions
 * in transition, where a table's region is), and the waits built on them: every wait asks a
 * condition until it holds and ends at once, with the log's end, when a process of the cluster has
 * died.
 */
final class ClusterQueries {
  private final StockCluster cluster;
  private final StockSecurity realm;

  ClusterQueries(StockCluster cluster, StockSecurity realm) {
    this.cluster = cluster;
    this.realm = realm;
  }

  /** The regions in transition, as the master counts them. */
  int inTransition() throws IOException {
    try (Admin admin = cluster.admin()) {
      return admin
          .getClusterMetrics(EnumSet.of(ClusterMetrics.Option.REGIONS_IN_TRANSITION))
          .getRegionStatesInTransition()
          .size();
    }
  }

  /** The region servers the master counts live. */
  List<ServerName> live() throws IOException {
    try (Admin admin = cluster.admin()) {
      return new ArrayList<>(
          admin
              .getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS))
              .getLiveServerMetrics()
              .keySet());
    }
  }

  /** The one region of a one-region table. */
  RegionInfo regionOf(TableName t) throws IOException {
    try (Admin admin = cluster.admin()) {
      List<RegionInfo> regions = admin.getRegions(t);
      if (regions.size() != 1) {
        throw new AssertionError(t + " has " + regions.size() + " regions, not 1");
      }
      return regions.get(0);
    }
  }

  /** The region server hosting a one-region table. */
  RegionServer hosting(TableName t) throws IOException {
    ServerName sn =
        cluster
            .connection()
            .getRegionLocator(t)
            .getRegionLocation(HConstants.EMPTY_START_ROW, true)
            .getServerName();
    for (RegionServer rs : cluster.regionServers()) {
      if (rs.port == sn.getPort()) {
        return rs;
      }
    }
    throw new AssertionError(t + " is on " + sn + ", not one of the cluster's region servers");
  }

  /**
   * Waits until the master counts {@code n} region servers live, every one of the cluster's among
   * them, with no region in transition (and, where the AccessController runs, its {@code hbase:acl}
   * online).
   */
  void awaitServers(int n) throws Exception {
    await(
        n
            + " live region servers and no region in transition"
            + (accessControlled() ? ", and the AccessController's hbase:acl online" : ""),
        240,
        () -> {
          try {
            for (RegionServer rs : cluster.regionServers()) {
              if (rs.serverName() == null) {
                return false;
              }
            }
            // the master creates hbase:acl once the AccessController starts, which can be after
            // every region server is live: a grant before it fails with TableNotFoundException
            return live().size() == n
                && inTransition() == 0
                && (!accessControlled() || aclOnline());
          } catch (IOException e) {
            return false;
          }
        });
  }

  void awaitNoneInTransition(String what) throws Exception {
    await(
        what,
        180,
        () -> {
          try {
            return inTransition() == 0;
          } catch (IOException e) {
            return false;
          }
        });
  }

  /** Whether the master runs HBase's AccessController, which makes {@code hbase:acl}. */
  private boolean accessControlled() {
    return realm != null
        && String.valueOf(realm.serverSite().get("hbase.coprocessor.master.classes"))
            .contains("AccessController");
  }

  private boolean aclOnline() throws IOException {
    TableName acl = TableName.valueOf("hbase:acl");
    try (Admin admin = cluster.connection().getAdmin()) {
      return admin.tableExists(acl) && admin.isTableAvailable(acl);
    }
  }

  /** Asks {@code done} every 250 ms for up to {@code seconds}; see the class comment. */
  void await(String what, int seconds, BooleanSupplier done) throws Exception {
    await(what, seconds, 250, done);
  }

  /** As {@link #await(String, int, BooleanSupplier)}, asking every {@code pollMs}. */
  void await(String what, int seconds, long pollMs, BooleanSupplier done) throws Exception {
    // a dead process ends the wait at once
    Waiter.waitFor(
        cluster.clientConf(),
        TimeUnit.SECONDS.toMillis(seconds),
        pollMs,
        true,
        new Waiter.ExplainingPredicate<IOException>() {
          @Override
          public boolean evaluate() throws IOException {
            cluster.checkAlive();
            return done.getAsBoolean();
          }

          @Override
          public String explainFailure() {
            return "waiting for " + what;
          }
        });
  }
}
