package io.blockscope.harness.stock;

import io.blockscope.harness.stock.StockCluster.Deployment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionInfo;

/**
 * Regions moved between a {@link StockCluster}'s region servers through the master, as an operator
 * moves them: around a region server's restart, as HBase's {@code graceful_stop.sh} does, and a
 * table's region onto a chosen server.
 */
final class RegionMoves {
  /* A move returns once the master took it, and a server the master has just counted live may not
   * serve yet: the master's warm-up call to it fails and the region is opened elsewhere. Where a
   * region must end up on one server, the move is therefore asked again, every 3 s while no region
   * is in transition, until the region is open there. */

  private final StockCluster cluster;
  private final ClusterQueries queries;

  RegionMoves(StockCluster cluster, ClusterQueries queries) {
    this.cluster = cluster;
    this.queries = queries;
  }

  /**
   * Moves {@code rs}'s regions to the other live servers, stops it, starts it again with {@code d},
   * waits until the master counts it live and moves the regions back, those of table {@code first}
   * (unless null) before any other.
   */
  void restart(RegionServer rs, Deployment d, TableName first) throws Exception {
    ServerName sn = rs.serverName();
    List<RegionInfo> moved = new ArrayList<>();
    try (Admin admin = cluster.admin()) {
      if (sn != null) {
        List<ServerName> others = new ArrayList<>(queries.live());
        others.remove(sn);
        int next = 0;
        for (RegionInfo r : admin.getRegions(sn)) {
          if (!others.isEmpty()) {
            admin.move(r.getEncodedNameAsBytes(), others.get(next++ % others.size()));
            moved.add(r);
          }
        }
      }
      cluster.stop(rs);
      queries.awaitNoneInTransition(
          "no region in transition after region server " + rs.index + " stopped");
      cluster.relaunch(rs, d);
      queries.awaitServers(cluster.regionServers().size());
      ServerName back = rs.serverName();
      if (first != null) {
        List<RegionInfo> leading = new ArrayList<>();
        for (RegionInfo r : moved) {
          if (r.getTable().equals(first)) {
            leading.add(r);
          }
        }
        moveUntil(
            first + " back on region server " + rs.index + " first",
            () -> admin.getRegions(back).containsAll(leading),
            () -> {
              List<RegionInfo> there = admin.getRegions(back);
              for (RegionInfo r : leading) {
                if (!there.contains(r)) {
                  admin.move(r.getEncodedNameAsBytes(), back);
                }
              }
            });
        moved.removeAll(leading);
      }
      for (RegionInfo r : moved) {
        admin.move(r.getEncodedNameAsBytes(), back);
      }
      queries.awaitNoneInTransition("regions back on region server " + rs.index);
    }
  }

  /** Moves the one region of table {@code t} to {@code rs} and waits until it is open there. */
  void moveTo(TableName t, RegionServer rs) throws Exception {
    byte[] region = queries.regionOf(t).getEncodedNameAsBytes();
    try (Admin admin = cluster.admin()) {
      moveUntil(
          t + " open on region server " + rs.index,
          () -> queries.hosting(t) == rs,
          () -> admin.move(region, rs.serverName()));
    }
  }

  /** Whether a region is where it should be, as the master says. */
  private interface Placed {
    boolean holds() throws IOException;
  }

  /** Asks the master to move a region. */
  private interface Move {
    void ask() throws IOException;
  }

  /**
   * Waits up to 120 s until {@code placed} holds with no region in transition, asking {@code move}
   * again every 3 s while none is in transition (see the note at the top).
   */
  private void moveUntil(String what, Placed placed, Move move) throws Exception {
    long[] lastMove = {0};
    cluster.await(
        what,
        120,
        () -> {
          try {
            boolean settled = queries.inTransition() == 0;
            if (settled && placed.holds()) {
              return true;
            }
            if (settled && System.nanoTime() - lastMove[0] > 3_000_000_000L) {
              move.ask();
              lastMove[0] = System.nanoTime();
            }
            return false;
          } catch (IOException e) {
            return false;
          }
        });
  }
}
