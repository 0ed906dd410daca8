package io.blockscope.harness;

import io.blockscope.coprocessor.BlockscopeRegionObserver;
import io.blockscope.coprocessor.Diagnostics;
import java.io.IOException;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;

/**
 * A real HBase cluster in this JVM (MiniDFS + ZooKeeper + master + one region server) with
 * blockscope deployed cluster-wide and Phoenix's server side configured, for the integration tests,
 * the demo and the benchmarks.
 *
 * <p>Starting one costs 15 to 20 seconds and the first Phoenix connection as much again, so a JVM
 * keeps one: {@link #shared()} starts it on first use and stops it when the JVM exits.
 */
public final class EmbeddedCluster implements AutoCloseable {
  private static EmbeddedCluster shared;

  private final HBaseTestingUtility util;
  private boolean phoenixReady;

  private EmbeddedCluster(Configuration overrides) throws Exception {
    this(overrides, 1);
  }

  private EmbeddedCluster(Configuration overrides, int regionServers) throws Exception {
    util = new HBaseTestingUtility();
    Configuration conf = util.getConfiguration();
    // blockscope's read-cost observer, and the BLOCKSCOPE_V1 encoding on every server (its
    // registrar in each region, its guard in the master): docs/deploy.md, docs/encoder.md.
    conf.set(
        "hbase.coprocessor.region.classes",
        BlockscopeRegionObserver.class.getName()
            + ","
            + io.blockscope.encoding.EncodingRegistrar.class.getName());
    conf.set(
        "hbase.coprocessor.master.classes", io.blockscope.encoding.EncodingGuard.class.getName());
    // PROFILE(TIME) and a table's own blockscope.level=TIME are honoured here (a production
    // server caps both at COUNT by default: docs/security.md).
    conf.set(io.blockscope.coprocessor.BlockscopeConfig.QUERY_MAX_LEVEL, "TIME");
    conf.set(io.blockscope.coprocessor.BlockscopeConfig.TABLE_MAX_LEVEL, "TIME");
    // Phoenix's server side, as its own test harness configures it.
    conf.set(
        "hbase.regionserver.wal.codec",
        "org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec");
    conf.set(
        "hbase.region.server.rpc.scheduler.factory.class",
        "org.apache.hadoop.hbase.ipc.PhoenixRpcSchedulerFactory");
    conf.set(
        "hbase.rpc.controllerfactory.class",
        "org.apache.hadoop.hbase.ipc.controller.ServerRpcControllerFactory");
    // A 2-core machine: few handlers, no web UIs, no balancer moving regions under a test.
    conf.setInt("hbase.regionserver.handler.count", 10);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    conf.setBoolean("hbase.balancer.tablesOnMaster", false);
    conf.setBoolean("hbase.master.balancer.stochastic.runMaxSteps", false);
    conf.setInt("hbase.hstore.compactionThreshold", 100); // compactions only when asked
    for (var e : overrides) {
      conf.set(e.getKey(), e.getValue());
    }
    util.startMiniCluster(regionServers);
  }

  /** The JVM's cluster, started on first use and stopped at JVM exit. */
  public static synchronized EmbeddedCluster shared() throws Exception {
    if (shared == null) {
      shared = new EmbeddedCluster(new Configuration(false));
      EmbeddedCluster c = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(c::closeQuietly, "blockscope-cluster-stop"));
    }
    return shared;
  }

  /** A new cluster with extra settings (caller closes it); for tools, not for tests. */
  public static EmbeddedCluster start(Configuration overrides) throws Exception {
    return new EmbeddedCluster(overrides, 1);
  }

  /** A new cluster of {@code regionServers} region servers (in this JVM, one engine). */
  public static EmbeddedCluster start(Configuration overrides, int regionServers) throws Exception {
    return new EmbeddedCluster(overrides, regionServers);
  }

  public HBaseTestingUtility util() {
    return util;
  }

  /** Major-compacts a table and waits, up to {@code millis}, until no compaction runs on it. */
  public void majorCompactAndWait(TableName table, long millis) throws Exception {
    Admin admin = admin();
    admin.majorCompact(table);
    util.waitFor(millis, () -> admin.getCompactionState(table) == CompactionState.NONE);
  }

  /** Waits, up to {@code millis}, until every region of a table is open. */
  public void waitTableAvailable(TableName table, long millis) throws Exception {
    util.waitTableAvailable(table, millis);
  }

  public Configuration conf() {
    return util.getConfiguration();
  }

  /** The first ZooKeeper server of the cluster, as {@code --zk} takes it: host:port. */
  public String zkAddress() {
    Configuration c = conf();
    return c.get("hbase.zookeeper.quorum").split(",")[0]
        + ":"
        + c.get("hbase.zookeeper.property.clientPort");
  }

  public Connection connection() throws IOException {
    return util.getConnection();
  }

  public Admin admin() throws IOException {
    return util.getAdmin();
  }

  public HRegionServer regionServer() {
    return util.getMiniHBaseCluster().getRegionServer(0);
  }

  public BlockCache blockCache() {
    return regionServer().getBlockCache().orElseThrow();
  }

  public List<HRegion> regions(TableName table) {
    return util.getMiniHBaseCluster().getRegions(table);
  }

  /** What the blockscope engine running inside this JVM's region server shows. */
  public Diagnostics diagnostics() {
    Diagnostics d = Diagnostics.current();
    if (d == null) {
      throw new IllegalStateException("blockscope engine not started: no region opened yet?");
    }
    return d;
  }

  /** The JDBC URL of this cluster's Phoenix. */
  public String phoenixUrl() {
    return "jdbc:phoenix:localhost:" + util.getZkCluster().getClientPort() + ":/hbase";
  }

  /** A new Phoenix connection (the first one creates Phoenix's SYSTEM tables). */
  public synchronized java.sql.Connection phoenix() throws SQLException {
    Properties p = new Properties();
    java.sql.Connection c = DriverManager.getConnection(phoenixUrl(), p);
    phoenixReady = true;
    return c;
  }

  public boolean phoenixStarted() {
    return phoenixReady;
  }

  private void closeQuietly() {
    try {
      close();
    } catch (Exception e) {
      // the JVM is exiting
    }
  }

  @Override
  public void close() throws IOException {
    util.shutdownMiniCluster();
  }
}
