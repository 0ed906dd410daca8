package io.blockscope.harness.stock;

import io.blockscope.harness.JvmFlags;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * A stock HBase 2.6 cluster whose ZooKeeper, HMaster and HRegionServers are operating-system
 * processes of their own, on loopback ports, each on exactly the server class path of an HBase
 * install (stock-hbase/target/server-classpath.txt: hbase-server's declared dependencies from Maven
 * Central, Dropwizard 3.2.6 among them, and log4j2) with a conf directory first, as {@code
 * bin/hbase} builds it. The root directory is on the local file system.
 *
 * <p>With a {@link StockSecurity} the cluster is a secured one, every process as an operator sets
 * it up: ZooKeeper with SASL, Kerberos RPC, the AccessController, TLS and SPNEGO on the info
 * servers; the test's own connection is HBase's superuser ({@code hbase}).
 *
 * <p>What blockscope a region server gets is its {@link Deployment}: jars copied into its own
 * {@code lib/}, {@code hbase-site.xml} entries and JVM options, exactly what docs/deploy.md tells
 * an operator to change. {@link #restart} stops a region server the way HBase's graceful_stop does
 * (its regions moved to the other servers first) and starts it again with another deployment.
 */
public final class StockCluster implements AutoCloseable {
  /* The cluster is the parts it holds, each with one job. The Launcher starts every process on
   * the install's class path and keeps them all for the kill at exit. StockHdfs, StockZooKeeper,
   * StockMaster and each RegionServer own their ports, directories and start; each of their
   * processes is a Daemon, the current process with its log, which every wait checks is alive.
   * SiteFiles writes what an operator's conf directories hold and the client configuration.
   * ClusterQueries asks the master and waits on its answers; RegionMoves moves regions through it
   * around a restart. This class starts the parts in order, closes them in the reverse order, and
   * is what callers hold; ClusterFiles, the store files, is reached through files(). */

  /**
   * What a region server runs with, beyond the stock install. In a JVM option, {@code ${lib}}
   * stands for the server's {@code lib/} and {@code ${prometheus.port}} for its exporter port.
   */
  public record Deployment(List<Path> libJars, Map<String, String> site, List<String> jvmOptions) {}

  public final Path home;
  public final int zkPort;
  public final int masterPort;
  public final int masterInfoPort;
  private final List<RegionServer> servers = new ArrayList<>();

  /** The Kerberos, TLS and ACL setting of a secured cluster; null for an open one. */
  private final StockSecurity realm;

  /** Who the test's own connection is: HBase's superuser on a secured cluster, else null. */
  private final UserGroupInformation superuser;

  private final Launcher launcher;
  private final StockHdfs hdfs;
  private final StockZooKeeper zooKeeper;
  private final SiteFiles site;
  private final StockMaster master;
  private final ClusterQueries queries;
  private final RegionMoves moves;
  private Connection connection;

  private StockCluster(Path home, StockSecurity realm, Install install) throws IOException {
    this.home = home;
    this.realm = realm;
    this.superuser = realm == null ? null : realm.login("hbase");
    this.launcher = new Launcher(home, install, realm);
    this.hdfs = new StockHdfs(launcher, home);
    this.zooKeeper = new StockZooKeeper(launcher, home, realm);
    this.site = new SiteFiles(home, realm, zooKeeper, hdfs);
    this.master = new StockMaster(launcher, site, home);
    this.queries = new ClusterQueries(this, realm);
    this.moves = new RegionMoves(this, queries);
    this.zkPort = zooKeeper.port;
    this.masterPort = master.port;
    this.masterInfoPort = master.infoPort;
  }

  /**
   * An HBase install the cluster's processes run: the file listing its server class path
   * (stock-hbase's {@code target/server-classpath.txt} of that version), and the JVM flags every
   * process takes.
   */
  public record Install(Path serverClasspath, List<String> jvmFlags) {
    /**
     * An install whose processes take the JDK 17 module openings HBase and Hadoop need, as the
     * project's build gives them to its own JVMs ({@link JvmFlags#opens()}) without blockscope's
     * attach flags: a stock region server has none.
     */
    public static Install of(Path serverClasspath) {
      return new Install(serverClasspath, JvmFlags.opens());
    }
  }

  /**
   * Starts ZooKeeper, a master with its deployment and {@code deployments.size()} region servers of
   * {@code install}, and waits until all are up.
   */
  public static StockCluster start(
      Path home, Install install, Deployment masterDeployment, List<Deployment> deployments)
      throws Exception {
    return start(home, install, masterDeployment, deployments, null, 0);
  }

  /**
   * As {@link #start(Path, Install, Deployment, List)}, secured by {@code realm} unless it is null;
   * with {@code dataNodes} above 0, HBase's root directory is on HDFS run as processes of their own
   * (a NameNode and that many DataNodes, from the Hadoop jars of the server class path), not on the
   * local file system.
   */
  public static StockCluster start(
      Path home,
      Install install,
      Deployment masterDeployment,
      List<Deployment> deployments,
      StockSecurity realm,
      int dataNodes)
      throws Exception {
    deleteTree(home);
    Files.createDirectories(home.resolve("logs"));
    StockCluster c = new StockCluster(home, realm, install);
    try {
      c.startAll(masterDeployment, deployments, dataNodes);
    } catch (Exception | AssertionError e) {
      c.close();
      throw e;
    }
    return c;
  }

  private void startAll(Deployment masterDeployment, List<Deployment> deployments, int dataNodes)
      throws Exception {
    if (dataNodes > 0) {
      if (realm != null) {
        throw new IllegalArgumentException("HDFS processes are not set up for a secured cluster");
      }
      hdfs.start(dataNodes, queries);
    }
    zooKeeper.start();
    master.start(masterDeployment);
    for (int i = 0; i < deployments.size(); i++) {
      RegionServer rs = newRegionServer();
      rs.start(deployments.get(i));
    }
    connection = asSuperuser(() -> ConnectionFactory.createConnection(clientConf()));
    queries.awaitServers(deployments.size());
  }

  private RegionServer newRegionServer() {
    RegionServer rs = new RegionServer(servers.size() + 1, home, realm, launcher, site, queries);
    servers.add(rs);
    return rs;
  }

  public List<RegionServer> regionServers() {
    return servers;
  }

  public Connection connection() {
    return connection;
  }

  public Admin admin() throws IOException {
    return connection.getAdmin();
  }

  /** The setting of the SASL quality of protection of HBase's RPC, clients and servers alike. */
  public static final String RPC_PROTECTION = "hbase.rpc.protection";

  /** A client configuration for this cluster, as an operator's client hbase-site.xml gives it. */
  public Configuration clientConf() {
    return site.client();
  }

  /**
   * Changes {@code rs}'s settings without a restart, as an operator does: its {@code
   * hbase-site.xml} is written again with {@code changes} over its deployment's entries, and the
   * server reloads it ({@code Admin.updateConfiguration}, HBase's {@code update_config}: {@code
   * HRegionServer.updateConfiguration} re-reads the configuration's files and tells its observers).
   * The deployment {@code rs} runs is changed to match, for its next restart.
   */
  public void reconfigure(RegionServer rs, Map<String, String> changes) throws IOException {
    Map<String, String> entries = new LinkedHashMap<>(rs.deployment().site());
    entries.putAll(changes);
    rs.configure(new Deployment(rs.deployment().libJars(), entries, rs.deployment().jvmOptions()));
    try (Admin admin = admin()) {
      admin.updateConfiguration(rs.serverName());
    }
  }

  /** What a secured cluster's clients are given: its client configuration directory. */
  public Path clientConfDir() throws IOException {
    return site.clientConfDir();
  }

  /** Runs {@code action} as HBase's superuser on a secured cluster, as this JVM's user else. */
  public <T> T asSuperuser(PrivilegedExceptionAction<T> action) throws Exception {
    return superuser == null ? action.run() : superuser.doAs(action);
  }

  public String zkQuorum() {
    return "127.0.0.1:" + zkPort;
  }

  /**
   * Restarts one region server with a new deployment, as HBase's {@code graceful_stop.sh --restart
   * --reload} does: its regions are moved to the other live servers first, then it stops (SIGTERM:
   * HBase's shutdown hook closes what is left), starts again, the method waits until the master
   * counts it live, and the regions are moved back to it.
   */
  public void restart(RegionServer rs, Deployment d) throws Exception {
    restart(rs, d, null);
  }

  /**
   * As {@link #restart(RegionServer, Deployment)}, moving the regions of table {@code first} back
   * before any other (null: in the order they left), so that they are the first regions the new
   * process opens.
   */
  public void restart(RegionServer rs, Deployment d, TableName first) throws Exception {
    moves.restart(rs, d, first);
  }

  /**
   * Stops a region server's process (SIGTERM: HBase's shutdown hook closes its regions) and waits
   * until the master no longer counts it live. The regions it held wait for a server to take them;
   * {@link #relaunch} starts it again.
   */
  public void stop(RegionServer rs) throws Exception {
    rs.daemon().stop();
    await(
        "the master to drop region server " + rs.index,
        180,
        () -> {
          try {
            return rs.serverName() == null;
          } catch (IOException e) {
            return false;
          }
        });
  }

  /**
   * Starts a new process for a region server that {@link #stop} stopped, with a deployment, and
   * returns once it is launched: the caller waits for what it needs (live, its regions open).
   */
  public void relaunch(RegionServer rs, Deployment d) throws IOException {
    if (rs.daemon().launched()) {
      throw new IllegalStateException("region server " + rs.index + " is running");
    }
    rs.start(d);
  }

  /** Starts one more region server with deployment {@code d} and waits until the master has it. */
  public RegionServer addRegionServer(Deployment d) throws Exception {
    RegionServer rs = newRegionServer();
    rs.start(d);
    queries.awaitServers(servers.size());
    return rs;
  }

  /** The regions in transition, as the master counts them. */
  public int inTransition() throws IOException {
    return queries.inTransition();
  }

  /** Waits for a condition, failing early with a log's end when a process of the cluster died. */
  public void await(String what, int seconds, BooleanSupplier done) throws Exception {
    queries.await(what, seconds, done);
  }

  /** As {@link #await(String, int, BooleanSupplier)}, asking every {@code pollMs}. */
  public void await(String what, int seconds, long pollMs, BooleanSupplier done) throws Exception {
    queries.await(what, seconds, pollMs, done);
  }

  /** Fails, with the log's end, when a process of the cluster that should run has exited. */
  void checkAlive() throws IOException {
    for (Daemon d : daemons()) {
      d.checkAlive();
    }
  }

  /** Every daemon of the cluster, in the order they start: HDFS's, ZooKeeper, master, servers. */
  private List<Daemon> daemons() {
    List<Daemon> all = new ArrayList<>(hdfs.daemons());
    all.add(zooKeeper.daemon());
    all.add(master.daemon());
    for (RegionServer rs : servers) {
      all.add(rs.daemon());
    }
    return all;
  }

  /** The last 60 lines of a log, for a failure message. */
  public static String tail(Path log) throws IOException {
    return Launcher.tail(log);
  }

  /** hbase.rootdir: on HDFS when the cluster runs HDFS processes, else a local directory. */
  public String rootDir() {
    return site.rootDir();
  }

  /** The current master process's log (a new file per start). */
  public Path masterLog() {
    return master.log();
  }

  /**
   * Restarts the master with another deployment (SIGTERM, then a new process) and waits until it
   * counts every region server live again with no region in transition.
   */
  public void restartMaster(Deployment d) throws Exception {
    master.stop();
    master.start(d);
    queries.awaitServers(servers.size());
  }

  /**
   * Runs a class on a region server's class path (conf, its lib/, the server class path), as {@code
   * hbase <class> <args>} runs it on that host; returns its exit status and output.
   */
  public record Run(int status, String output) {}

  public Run runOnServerClasspath(RegionServer rs, String main, List<String> args)
      throws Exception {
    return launcher.runToEnd(rs.dir().resolve("conf"), rs.dir().resolve("lib"), main, args);
  }

  /**
   * Runs a command as a process of its own with its output in {@code logs/<name>.log}; fails unless
   * it exits 0 within {@code minutes}. Returns what it printed.
   */
  public String run(String name, List<String> cmd, Map<String, String> env, int minutes)
      throws Exception {
    return launcher.run(name, cmd, env, minutes);
  }

  @Override
  public void close() throws IOException {
    if (connection != null) {
      connection.close();
    }
    // in the reverse of their start: region servers first, then the master, then ZooKeeper, HDFS
    // last when HBase's processes are gone; no flush is needed of scratch data
    List<Daemon> daemons = daemons();
    Collections.reverse(daemons);
    for (Daemon d : daemons) {
      d.kill();
    }
    launcher.awaitExit();
  }

  /** The one region of a one-region table. */
  public RegionInfo regionOf(TableName t) throws IOException {
    return queries.regionOf(t);
  }

  /**
   * Moves the one region of table {@code t} to {@code rs} and waits until it is open there. A
   * server the master has just counted live may not serve yet (the master's warm-up call fails and
   * the region is opened elsewhere): the move is asked again every 3 s until it holds.
   */
  public void moveTo(TableName t, RegionServer rs) throws Exception {
    moves.moveTo(t, rs);
  }

  /** The region server hosting a one-region table. */
  public RegionServer hosting(TableName t) throws IOException {
    return queries.hosting(t);
  }

  /**
   * The data blocks of a one-region table's one store file in {@code family}, as HBase's block
   * reader walks it off the cluster's file system (see {@link ClusterFiles#dataSection(
   * org.apache.hadoop.fs.Path)}).
   */
  public long dataBlocks(TableName t, String family) throws IOException {
    return files().dataSection(t, family).blocks();
  }

  /** The cluster's store files, read without blockscope or the region servers. */
  public ClusterFiles files() {
    return new ClusterFiles(this);
  }

  List<Integer> dataNodeHttpPorts() {
    return hdfs.dataNodeHttpPorts();
  }

  List<String> dataNodeAddresses() {
    return hdfs.dataNodeAddresses();
  }

  /**
   * Phoenix 5.2.1's server side as release-it adds it to every server's {@code lib/} (the stand-in
   * for the shaded phoenix-server-hbase-2.6 jar, which Maven Central does not carry): each jar of
   * {@code phoenixClasspath} (stock-hbase/phoenix's class path) whose artifact the server class
   * path does not already have in some version.
   */
  public static List<Path> phoenixServerJars(Path serverClasspath, Path phoenixClasspath)
      throws IOException {
    Set<String> have = new HashSet<>();
    for (String jar : Files.readString(serverClasspath).trim().split(":")) {
      have.add(artifact(Path.of(jar)));
    }
    List<Path> jars = new ArrayList<>();
    String phoenix = Files.readString(phoenixClasspath).trim();
    for (String jar : phoenix.split(":")) {
      Path p = Path.of(jar);
      if (!have.contains(artifact(p))) {
        jars.add(p);
      }
    }
    return jars;
  }

  /** A jar's artifact id and classifier without its version, from the local repository's layout. */
  private static String artifact(Path jar) {
    // ~/.m2/repository/<group path>/<artifact>/<version>/<artifact>-<version>[-classifier].jar
    String version = jar.getParent().getFileName().toString();
    String artifactId = jar.getParent().getParent().getFileName().toString();
    String name = jar.getFileName().toString();
    String classifier = name.substring((artifactId + "-" + version).length(), name.length() - 4);
    return jar.getParent().getParent().getParent() + "/" + artifactId + classifier;
  }

  /** The body of an HTTP GET of {@code url}; an answer other than 200 is an IOException. */
  public static String httpGet(String url) throws IOException, InterruptedException {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException(url + ": " + r.statusCode() + " " + r.body());
    }
    return r.body();
  }

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  /**
   * Writes {@code entries} as a Hadoop configuration file ({@code hbase-site.xml} and the like).
   */
  public static void writeSite(Path file, Map<String, String> entries) throws IOException {
    SiteFiles.write(file, entries);
  }

  /**
   * A loopback port no process listens on and this JVM has not handed out before, taken below the
   * kernel's ephemeral range. A port the kernel chose for {@code new ServerSocket(0)} lies inside
   * that range, where any outgoing connection made before the port's server binds (a data node
   * dialling its name node, a client dialling the KDC) can be given it: the secured cluster's
   * ZooKeeper once failed to start so, with "Address already in use". Below the range only a
   * listener can take a port, and every listener of a stock cluster gets its port from here.
   */
  public static int freePort() {
    return PORTS.next();
  }

  private static final PortRange PORTS = PortRange.belowEphemeral();

  public static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (var walk = Files.walk(p)) {
      for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
