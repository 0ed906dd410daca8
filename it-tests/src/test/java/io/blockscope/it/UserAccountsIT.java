package io.blockscope.it;

import static io.blockscope.testsupport.ProfileCalls.scanRows;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.BlockscopeConfig;
import io.blockscope.coprocessor.accounting.UserAccounts;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.workloads.RawTable;
import java.lang.management.ManagementFactory;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.security.User;
import org.junit.Test;

/**
 * The region server's accounts by user on the shared embedded cluster (simple authentication: the
 * users are HBase's testing users, each client's name as it sends it): every read's costs go to the
 * account of the user whose RPC made it, exactly, and the accounts plus {@code (other)} are the
 * server's figures, also when more users read than the server keeps accounts for.
 */
public class UserAccountsIT extends ClusterTestBase {
  private static final int ROWS = 2_000;

  private static UserAccounts users() {
    return cluster.diagnostics().users();
  }

  /** A user's account now, as a snapshot; zero if the user has none. */
  private static CostSnapshot account(String user) {
    return accountCosts(users().account(user));
  }

  private static TableName loaded(String prefix) throws Exception {
    TableName t = newTable(prefix);
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(t).blockSize(4096).encoding(DataBlockEncoding.FAST_DIFF));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, ROWS, 7);
    return t;
  }

  private static Connection connect(User user) throws Exception {
    return user.runAs(
        (PrivilegedExceptionAction<Connection>)
            () -> ConnectionFactory.createConnection(cluster.conf()));
  }

  /** One get of the table's first row: the connection then knows the region's location. */
  private static void locate(Connection c, TableName t) throws Exception {
    try (Table table = c.getTable(t)) {
      table.get(new Get(RawTable.seedRow(0)));
    }
  }

  /**
   * carol scans the whole table cold, dave then gets 100 of its rows warm: each one's account grows
   * by exactly what the table's region counted while they read (their connections located the
   * region first, so neither reads hbase:meta meanwhile), and not at all while the other reads.
   */
  @Test
  public void eachUsersAccountGrowsByExactlyTheCostsOfTheirOwnReads() throws Exception {
    TableName t = loaded("user_accounts_exact");
    HRegion region = onlyRegion(t);
    User carol = User.createUserForTesting(cluster.conf(), "carol", new String[0]);
    User dave = User.createUserForTesting(cluster.conf(), "dave", new String[0]);
    long letGo = users().lettings();
    try (Connection cc = connect(carol);
        Connection dc = connect(dave)) {
      locate(cc, t);
      locate(dc, t);
      cluster.admin().clearBlockCache(t);

      CostSnapshot carolBefore = account("carol");
      CostSnapshot daveBefore = account("dave");
      CostSnapshot regionBefore = regionCosts(region);
      assertEquals(ROWS, scanRows(cc, t, null, null));
      CostSnapshot scanned = regionCosts(region).minus(regionBefore);
      // the region's own figures against the file's trailer, so that a probe counting double or
      // half fails here and not only in both the account and the region alike
      long[] file = StoreFiles.trailerDataBlocksAndCells(List.of(region));
      assertEquals(scanned.toString(), file[0], scanned.get("blockCache.miss.data"));
      assertEquals(scanned.toString(), file[1], scanned.get("decode.FAST_DIFF.cells"));
      assertEquals("carol's account: her scan", scanned, account("carol").minus(carolBefore));
      assertEquals("dave's account while carol read", daveBefore, account("dave"));

      carolBefore = account("carol");
      regionBefore = regionCosts(region);
      try (Table table = dc.getTable(t)) {
        for (int i = 0; i < 100; i++) {
          assertTrue(table.get(new Get(RawTable.seedRow(i * 17))).size() > 0);
        }
      }
      CostSnapshot got = regionCosts(region).minus(regionBefore);
      assertTrue("dave's gets hit the cache: " + got, hits(got) > 0);
      assertEquals("dave's account: his gets", got, account("dave").minus(daveBefore));
      assertEquals("carol's account while dave read", carolBefore, account("carol"));
    }
    assertEquals("no account was let go meanwhile", letGo, users().lettings());
    System.out.printf(
        "user accounts: carol %s; dave %s%n",
        account("carol").nonZero(), account("dave").nonZero());

    // the same figures through JMX, once the series read them (two refreshes)
    cluster.diagnostics().refreshExport();
    Object count =
        ManagementFactory.getPlatformMBeanServer()
            .getAttribute(
                MetricKeys.objectName(MetricKeys.user("carol", "blockCache.miss.data")), "Count");
    assertEquals(account("carol").get("blockCache.miss.data"), ((Number) count).longValue());
  }

  /**
   * With {@code blockscope.users.max} reloaded as 2, twelve users read: the server keeps 2
   * accounts, has let 10 or more go, and the accounts plus {@code (other)} still equal the server's
   * figures for every cost; the setting comes back at the end.
   */
  @Test
  public void moreUsersThanAccountsStayWithinTheSettingAndSumToTheServer() throws Exception {
    TableName t = loaded("user_accounts_many");
    HRegionServer rs = cluster.regionServer();
    Configuration server = rs.getConfiguration();
    server.set(BlockscopeConfig.USERS_MAX, "2");
    cluster.admin().updateConfiguration(rs.getServerName());
    try {
      assertEquals(2, users().max());
      long letGo = users().lettings();
      List<Connection> connections = new ArrayList<>();
      try {
        for (int u = 0; u < 12; u++) {
          User user = User.createUserForTesting(cluster.conf(), "many" + u, new String[0]);
          Connection c = connect(user);
          connections.add(c);
          try (Table table = c.getTable(t)) {
            table.get(new Get(RawTable.seedRow(u)));
          }
        }
      } finally {
        for (Connection c : connections) {
          c.close();
        }
      }
      assertTrue("accounts kept: " + users().accounts().size(), users().accounts().size() <= 2);
      assertTrue(
          "accounts let go: " + (users().lettings() - letGo), users().lettings() - letGo >= 10);
      awaitAccountsSumToTheServer(cluster);
      cluster.diagnostics().refreshExport();
      assertNotNull(
          "(other)'s series",
          cluster
              .diagnostics()
              .registry()
              .metrics()
              .getCounters()
              .get(MetricKeys.user(MetricKeys.OTHER_USER, "blockCache.hit.data")));
    } finally {
      server.unset(BlockscopeConfig.USERS_MAX);
      cluster.admin().updateConfiguration(rs.getServerName());
    }
    assertEquals(UserAccounts.DEFAULT_MAX, users().max());
  }

  /** The same sum on the cluster as every earlier test of this JVM left it. */
  @Test
  public void accountsAndOtherAreTheServersFiguresForEveryCost() throws Exception {
    awaitAccountsSumToTheServer(cluster);
    assertTrue("the cluster's reads went to accounts", users().accounts().size() >= 1);
  }
}
