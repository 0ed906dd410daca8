package io.blockscope.harness.stock;

import io.blockscope.harness.BeanReader;
import io.blockscope.harness.JvmFlags;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Waiter;
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
  /**
   * What a region server runs with, beyond the stock install. In a JVM option, {@code ${lib}}
   * stands for the server's {@code lib/} and {@code ${prometheus.port}} for its exporter port.
   */
  public record Deployment(List<Path> libJars, Map<String, String> site, List<String> jvmOptions) {}

  /** One region server: its ports, its current process and deployment, and its logs. */
  public final class RegionServer {
    public final int index;
    public final int port = freePort();
    public final int infoPort = freePort();
    public final int jmxPort = freePort();
    public final int prometheusPort = freePort();
    private Process process;
    private Deployment deployment;
    private int starts;
    private Path log;

    private RegionServer(int index) {
      this.index = index;
    }

    /** The operating system's id of the current process; -1 while there is none. */
    public long pid() {
      Process p = process;
      return p == null ? -1 : p.pid();
    }

    /** The current process's log (a new file per start). */
    public Path log() {
      return log;
    }

    public Deployment deployment() {
      return deployment;
    }

    public String infoUrl() {
      return realm == null
          ? "http://127.0.0.1:" + infoPort
          : "https://" + realm.host() + ":" + infoPort;
    }

    /**
     * This server's blockscope beans through its {@code /jmx} servlet, over plain HTTP (a secured
     * server's servlet wants SPNEGO: read its beans over JMX instead).
     */
    public BeanReader beans() {
      return BeanReader.of(
          pathAndQuery -> {
            try {
              return httpGet(infoUrl() + pathAndQuery);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new java.io.InterruptedIOException("interrupted reading " + infoUrl());
            }
          },
          infoUrl());
    }

    /** The server name the master knows this process by, or null while it is not live. */
    public ServerName serverName() throws IOException {
      for (ServerName sn : live()) {
        if (sn.getPort() == port) {
          return sn;
        }
      }
      return null;
    }

    /** The {@code hbase-site.xml} entries this server runs {@code d} with. */
    private Map<String, String> site(Deployment d) {
      Map<String, String> site = baseSite();
      site.put("hbase.regionserver.port", Integer.toString(port));
      site.put("hbase.regionserver.info.port", Integer.toString(infoPort));
      site.putAll(d.site());
      return site;
    }

    private void start(Deployment d) throws IOException {
      this.deployment = d;
      Path dir = home.resolve("rs" + index);
      Path lib = dir.resolve("lib");
      deleteTree(lib);
      Files.createDirectories(lib);
      for (Path jar : d.libJars()) {
        Files.copy(jar, lib.resolve(jar.getFileName()));
      }
      Path conf = writeConf(dir.resolve("conf"), site(d));
      List<String> opts = new ArrayList<>();
      opts.add("-Xmx640m");
      if (realm == null) {
        // remote JMX without authentication, for the open cluster's tests; a secured server opens
        // none, so that its beans are read only through its secured /jmx
        opts.add("-Dcom.sun.management.jmxremote.port=" + jmxPort);
        opts.add("-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort);
        opts.add("-Dcom.sun.management.jmxremote.authenticate=false");
        opts.add("-Dcom.sun.management.jmxremote.ssl=false");
        opts.add("-Djava.rmi.server.hostname=127.0.0.1");
      }
      for (String o : d.jvmOptions()) {
        opts.add(
            o.replace("${lib}", lib.toString())
                .replace("${prometheus.port}", Integer.toString(prometheusPort)));
      }
      starts++;
      log = home.resolve("logs").resolve("regionserver-" + index + "-" + starts + ".log");
      process =
          launch(
              conf,
              lib,
              opts,
              "org.apache.hadoop.hbase.regionserver.HRegionServer",
              List.of("start"),
              log);
    }
  }

  public final Path home;
  public final int zkPort = freePort();
  public final int masterPort = freePort();
  public final int masterInfoPort = freePort();
  private final String serverClasspath;
  private final List<String> hbaseJvmFlags;
  private final List<Process> processes = new ArrayList<>();
  private final List<RegionServer> servers = new ArrayList<>();

  /** The Kerberos, TLS and ACL setting of a secured cluster; null for an open one. */
  private final StockSecurity realm;

  /** Who the test's own connection is: HBase's superuser on a secured cluster, else null. */
  private final UserGroupInformation superuser;

  /** HDFS's NameNode RPC port when the cluster runs on HDFS processes, else 0 (local files). */
  private int nameNodePort;

  /** The DataNodes' HTTP ports (their /jmx), one per DataNode. */
  private final List<Integer> dataNodeHttpPorts = new ArrayList<>();

  /** The DataNodes' transfer addresses ({@code 127.0.0.1:port}), one per DataNode. */
  private final List<String> dataNodeAddresses = new ArrayList<>();

  /** The NameNode's and DataNodes' processes, with their logs. */
  private final Map<Process, Path> hdfs = new LinkedHashMap<>();

  private Process zk;
  private Process master;
  private int masterStarts;
  private Connection connection;

  private StockCluster(Path home, StockSecurity realm, Install install) throws IOException {
    this.home = home;
    this.realm = realm;
    this.superuser = realm == null ? null : realm.login("hbase");
    this.serverClasspath = Files.readString(install.serverClasspath()).trim();
    this.hbaseJvmFlags = install.jvmFlags();
    Runtime.getRuntime().addShutdownHook(new Thread(this::killAll, "stock-cluster-kill"));
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
      startHdfs(dataNodes);
    }
    startZooKeeper();
    startMaster(masterDeployment);
    for (int i = 0; i < deployments.size(); i++) {
      RegionServer rs = new RegionServer(i + 1);
      servers.add(rs);
      rs.start(deployments.get(i));
    }
    connection = asSuperuser(() -> ConnectionFactory.createConnection(clientConf()));
    awaitServers(deployments.size());
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
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", "127.0.0.1");
    conf.setInt("hbase.zookeeper.property.clientPort", zkPort);
    if (realm != null) {
      conf.set("hadoop.security.authentication", "kerberos");
      conf.set("hbase.security.authentication", "kerberos");
      conf.set("hbase.master.kerberos.principal", realm.hbasePrincipal());
      conf.set("hbase.regionserver.kerberos.principal", realm.hbasePrincipal());
      String protection = realm.serverSite().get(RPC_PROTECTION);
      if (protection != null) {
        conf.set(RPC_PROTECTION, protection); // the SASL protection the servers ask, privacy
      }
    }
    return conf;
  }

  /**
   * Changes {@code rs}'s settings without a restart, as an operator does: its {@code
   * hbase-site.xml} is written again with {@code changes} over its deployment's entries, and the
   * server reloads it ({@code Admin.updateConfiguration}, HBase's {@code update_config}: {@code
   * HRegionServer.updateConfiguration} re-reads the configuration's files and tells its observers).
   * The deployment {@code rs} runs is changed to match, for its next restart.
   */
  public void reconfigure(RegionServer rs, Map<String, String> changes) throws IOException {
    Map<String, String> site = new LinkedHashMap<>(rs.deployment.site());
    site.putAll(changes);
    rs.deployment = new Deployment(rs.deployment.libJars(), site, rs.deployment.jvmOptions());
    writeConf(home.resolve("rs" + rs.index).resolve("conf"), rs.site(rs.deployment));
    try (Admin admin = admin()) {
      admin.updateConfiguration(rs.serverName());
    }
  }

  /** What a secured cluster's clients are given: its client configuration directory. */
  public Path clientConfDir() throws IOException {
    if (realm == null) {
      throw new IllegalStateException("an open cluster needs no client configuration");
    }
    return realm.clientConfDir(home.resolve("client-conf"), "127.0.0.1", zkPort);
  }

  /** Runs {@code action} as HBase's superuser on a secured cluster, as this JVM's user else. */
  public <T> T asSuperuser(java.security.PrivilegedExceptionAction<T> action) throws Exception {
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
    ServerName sn = rs.serverName();
    List<RegionInfo> moved = new ArrayList<>();
    try (Admin admin = admin()) {
      if (sn != null) {
        List<ServerName> others = new ArrayList<>(live());
        others.remove(sn);
        int next = 0;
        for (RegionInfo r : admin.getRegions(sn)) {
          if (!others.isEmpty()) {
            admin.move(r.getEncodedNameAsBytes(), others.get(next++ % others.size()));
            moved.add(r);
          }
        }
      }
      stop(rs);
      awaitNoneInTransition("no region in transition after region server " + rs.index + " stopped");
      relaunch(rs, d);
      awaitServers(servers.size());
      ServerName back = rs.serverName();
      if (first != null) {
        // A move returns once the master took it, and a server the master counts live may not
        // serve yet (the master's warm-up call fails and the region is assigned elsewhere): the
        // first table's regions are moved again, every 3 s, until they are open there.
        List<RegionInfo> leading = new ArrayList<>();
        for (RegionInfo r : moved) {
          if (r.getTable().equals(first)) {
            leading.add(r);
          }
        }
        long[] lastMove = {0};
        await(
            first + " back on region server " + rs.index + " first",
            120,
            () -> {
              try {
                List<RegionInfo> there = admin.getRegions(back);
                if (there.containsAll(leading) && inTransition() == 0) {
                  return true;
                }
                if (inTransition() == 0 && System.nanoTime() - lastMove[0] > 3_000_000_000L) {
                  for (RegionInfo r : leading) {
                    if (!there.contains(r)) {
                      admin.move(r.getEncodedNameAsBytes(), back);
                    }
                  }
                  lastMove[0] = System.nanoTime();
                }
                return false;
              } catch (IOException e) {
                return false;
              }
            });
        moved.removeAll(leading);
      }
      for (RegionInfo r : moved) {
        admin.move(r.getEncodedNameAsBytes(), back);
      }
      awaitNoneInTransition("regions back on region server " + rs.index);
    }
  }

  /**
   * Stops a region server's process (SIGTERM: HBase's shutdown hook closes its regions) and waits
   * until the master no longer counts it live. The regions it held wait for a server to take them;
   * {@link #relaunch} starts it again.
   */
  public void stop(RegionServer rs) throws Exception {
    stopProcess(rs.process, "region server " + rs.index);
    rs.process = null;
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
    if (rs.process != null) {
      throw new IllegalStateException("region server " + rs.index + " is running");
    }
    rs.start(d);
  }

  private void awaitNoneInTransition(String what) throws Exception {
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

  /** The regions in transition, as the master counts them. */
  public int inTransition() throws IOException {
    try (Admin admin = admin()) {
      return admin
          .getClusterMetrics(EnumSet.of(ClusterMetrics.Option.REGIONS_IN_TRANSITION))
          .getRegionStatesInTransition()
          .size();
    }
  }

  private List<ServerName> live() throws IOException {
    try (Admin admin = admin()) {
      return new ArrayList<>(
          admin
              .getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS))
              .getLiveServerMetrics()
              .keySet());
    }
  }

  private void awaitServers(int n) throws Exception {
    await(
        n
            + " live region servers and no region in transition"
            + (accessControlled() ? ", and the AccessController's hbase:acl online" : ""),
        240,
        () -> {
          try {
            for (RegionServer rs : servers) {
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

  /** Whether the master runs HBase's AccessController, which makes {@code hbase:acl}. */
  private boolean accessControlled() {
    return realm != null
        && String.valueOf(realm.serverSite().get("hbase.coprocessor.master.classes"))
            .contains("AccessController");
  }

  private boolean aclOnline() throws IOException {
    TableName acl = TableName.valueOf("hbase:acl");
    try (Admin admin = connection.getAdmin()) {
      return admin.tableExists(acl) && admin.isTableAvailable(acl);
    }
  }

  /** Waits for a condition, failing early with a log's end when a process of the cluster died. */
  public void await(String what, int seconds, BooleanSupplier done) throws Exception {
    await(what, seconds, 250, done);
  }

  /** As {@link #await(String, int, BooleanSupplier)}, asking every {@code pollMs}. */
  public void await(String what, int seconds, long pollMs, BooleanSupplier done) throws Exception {
    // a dead process ends the wait at once
    Waiter.waitFor(
        clientConf(),
        TimeUnit.SECONDS.toMillis(seconds),
        pollMs,
        true,
        new Waiter.ExplainingPredicate<IOException>() {
          @Override
          public boolean evaluate() throws IOException {
            checkAlive();
            return done.getAsBoolean();
          }

          @Override
          public String explainFailure() {
            return "waiting for " + what;
          }
        });
  }

  private void checkAlive() throws IOException {
    for (Map.Entry<Process, Path> p : hdfs.entrySet()) {
      if (!p.getKey().isAlive()) {
        throw new AssertionError(p.getValue().getFileName() + " exited:\n" + tail(p.getValue()));
      }
    }
    if (zk != null && !zk.isAlive()) {
      throw new AssertionError("ZooKeeper exited:\n" + tail(home.resolve("logs/zookeeper.log")));
    }
    if (master != null && !master.isAlive()) {
      throw new AssertionError("HMaster exited:\n" + tail(masterLog()));
    }
    for (RegionServer rs : servers) {
      if (rs.process != null && !rs.process.isAlive()) {
        throw new AssertionError("region server " + rs.index + " exited:\n" + tail(rs.log()));
      }
    }
  }

  /** The last 60 lines of a log, for a failure message. */
  public static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  /** hbase.rootdir: on HDFS when the cluster runs HDFS processes, else a local directory. */
  public String rootDir() {
    return nameNodePort > 0
        ? "hdfs://127.0.0.1:" + nameNodePort + "/hbase"
        : home.resolve("hbase").toUri().toString();
  }

  /**
   * Formats and starts a NameNode, then {@code dataNodes} DataNodes, each a process of its own with
   * its own configuration directory, as an HDFS install runs them (its {@code hdfs namenode} and
   * {@code hdfs datanode} commands start these classes), and waits until the NameNode counts every
   * DataNode live. Loopback only; HDFS's defaults otherwise (block checksums on, no short-circuit
   * reads: that needs Hadoop's native library, which Maven Central's jars do not carry).
   */
  private void startHdfs(int dataNodes) throws Exception {
    nameNodePort = freePort();
    int nameNodeHttp = freePort();
    Path dir = home.resolve("hdfs");
    Map<String, String> common = new LinkedHashMap<>();
    common.put("fs.defaultFS", "hdfs://127.0.0.1:" + nameNodePort);
    common.put("hadoop.tmp.dir", dir.resolve("tmp").toString());
    common.put("dfs.namenode.name.dir", dir.resolve("name").toUri().toString());
    common.put("dfs.namenode.http-address", "127.0.0.1:" + nameNodeHttp);
    common.put("dfs.namenode.rpc-bind-host", "127.0.0.1");
    common.put("dfs.replication", Integer.toString(Math.min(dataNodes, 3)));
    common.put("dfs.permissions.enabled", "false");
    // a DataNode on loopback registers as 127.0.0.1; the NameNode must not refuse it
    common.put("dfs.namenode.datanode.registration.ip-hostname-check", "false");
    Path nnConf = hdfsConf(dir.resolve("namenode-conf"), common, Map.of());
    Path webapps = hdfsWebapps(dir.resolve("lib"));
    Process format =
        launch(
            nnConf,
            webapps,
            List.of("-Xmx256m"),
            "org.apache.hadoop.hdfs.server.namenode.NameNode",
            List.of("-format", "-force", "-nonInteractive"),
            home.resolve("logs/namenode-format.log"));
    if (!format.waitFor(120, TimeUnit.SECONDS) || format.exitValue() != 0) {
      throw new IOException(
          "formatting the NameNode failed: " + tail(home.resolve("logs/namenode-format.log")));
    }
    Path nnLog = home.resolve("logs/namenode.log");
    hdfs.put(
        launch(
            nnConf,
            webapps,
            List.of("-Xmx256m"),
            "org.apache.hadoop.hdfs.server.namenode.NameNode",
            List.of(),
            nnLog),
        nnLog);
    for (int i = 1; i <= dataNodes; i++) {
      Map<String, String> dn = new LinkedHashMap<>();
      dn.put("dfs.datanode.data.dir", dir.resolve("data" + i).toUri().toString());
      String transfer = "127.0.0.1:" + freePort();
      dataNodeAddresses.add(transfer);
      dn.put("dfs.datanode.address", transfer);
      int dataNodeHttp = freePort();
      dataNodeHttpPorts.add(dataNodeHttp);
      dn.put("dfs.datanode.http.address", "127.0.0.1:" + dataNodeHttp);
      dn.put("dfs.datanode.ipc.address", "127.0.0.1:" + freePort());
      Path dnLog = home.resolve("logs/datanode-" + i + ".log");
      hdfs.put(
          launch(
              hdfsConf(dir.resolve("datanode" + i + "-conf"), common, dn),
              webapps,
              List.of("-Xmx256m"),
              "org.apache.hadoop.hdfs.server.datanode.DataNode",
              List.of(),
              dnLog),
          dnLog);
    }
    String jmx =
        "http://127.0.0.1:"
            + nameNodeHttp
            + "/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState";
    await(
        dataNodes + " live DataNodes at the NameNode (" + home.resolve("logs") + ")",
        120,
        () -> {
          try {
            String body = httpGet(jmx);
            java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("\"NumLiveDataNodes\"\\s*:\\s*(\\d+)")
                    .matcher(body);
            return m.find() && Integer.parseInt(m.group(1)) >= dataNodes;
          } catch (Exception | AssertionError e) {
            return false;
          }
        });
  }

  /**
   * A directory holding one jar with the {@code webapps/hdfs}, {@code webapps/datanode} and {@code
   * webapps/static} directories that Hadoop's HTTP servers look up on the class path at start.
   * Hadoop's own install has them; the hadoop-hdfs jar this build machine's Maven serves does not,
   * and without them the NameNode and DataNodes stop at start ({@code webapps/hdfs not found in
   * CLASSPATH}). Empty: the servers' /jmx and the NameNode's RPC are registered in code.
   */
  private static Path hdfsWebapps(Path lib) throws IOException {
    Files.createDirectories(lib);
    try (java.util.zip.ZipOutputStream out =
        new java.util.zip.ZipOutputStream(Files.newOutputStream(lib.resolve("hdfs-webapps.jar")))) {
      for (String d :
          List.of("webapps/", "webapps/hdfs/", "webapps/datanode/", "webapps/static/")) {
        out.putNextEntry(new java.util.zip.ZipEntry(d));
        out.closeEntry();
      }
    }
    return lib;
  }

  private static Path hdfsConf(Path dir, Map<String, String> common, Map<String, String> own)
      throws IOException {
    Files.createDirectories(dir);
    Map<String, String> site = new LinkedHashMap<>(common);
    site.putAll(own);
    writeSite(dir.resolve("core-site.xml"), Map.of("fs.defaultFS", common.get("fs.defaultFS")));
    writeSite(dir.resolve("hdfs-site.xml"), site);
    return dir;
  }

  private void startZooKeeper() throws IOException {
    Path data = home.resolve("zookeeper");
    Files.createDirectories(data);
    List<String> opts =
        new ArrayList<>(List.of("-Xmx128m", "-Dzookeeper.admin.enableServer=false"));
    if (realm != null) {
      opts.addAll(realm.zooKeeperOptions());
    }
    zk =
        launch(
            null,
            null,
            opts,
            "org.apache.zookeeper.server.ZooKeeperServerMain",
            List.of(Integer.toString(zkPort), data.toString()),
            home.resolve("logs/zookeeper.log"));
  }

  private void startMaster(Deployment d) throws IOException {
    Map<String, String> site = baseSite();
    site.put("hbase.master.port", Integer.toString(masterPort));
    site.put("hbase.master.info.port", Integer.toString(masterInfoPort));
    site.putAll(d.site());
    Path conf = writeConf(home.resolve("master/conf"), site);
    Path lib = home.resolve("master/lib");
    Files.createDirectories(lib);
    for (Path jar : d.libJars()) {
      Files.copy(jar, lib.resolve(jar.getFileName()));
    }
    masterStarts++;
    master =
        launch(
            conf,
            lib,
            Stream.concat(Stream.of("-Xmx384m"), d.jvmOptions().stream()).toList(),
            "org.apache.hadoop.hbase.master.HMaster",
            List.of("start"),
            masterLog());
  }

  /** The current master process's log (a new file per start). */
  public Path masterLog() {
    return home.resolve("logs/master-" + masterStarts + ".log");
  }

  /**
   * Restarts the master with another deployment (SIGTERM, then a new process) and waits until it
   * counts every region server live again with no region in transition.
   */
  public void restartMaster(Deployment d) throws Exception {
    stopProcess(master, "the master");
    deleteTree(home.resolve("master/lib"));
    startMaster(d);
    awaitServers(servers.size());
  }

  /**
   * Runs a class on a region server's class path (conf, its lib/, the server class path), as {@code
   * hbase <class> <args>} runs it on that host; returns its exit status and output.
   */
  public record Run(int status, String output) {}

  public Run runOnServerClasspath(RegionServer rs, String main, List<String> args)
      throws Exception {
    Path dir = home.resolve("rs" + rs.index);
    Path log = home.resolve("logs").resolve(main.substring(main.lastIndexOf('.') + 1) + ".log");
    Process p =
        launch(dir.resolve("conf"), dir.resolve("lib"), List.of("-Xmx256m"), main, args, log);
    if (!p.waitFor(3, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(main + " still running after 3 min:\n" + tail(log));
    }
    return new Run(p.exitValue(), Files.readString(log));
  }

  private Map<String, String> baseSite() {
    Map<String, String> site = new LinkedHashMap<>();
    site.put("hbase.cluster.distributed", "true");
    site.put("hbase.rootdir", rootDir());
    site.put("hbase.zookeeper.quorum", "127.0.0.1");
    site.put("hbase.zookeeper.property.clientPort", Integer.toString(zkPort));
    if (nameNodePort == 0) {
      // the local file system has no hflush/hsync capability; HBase's own advice for such a setup
      site.put("hbase.unsafe.stream.capability.enforce", "false");
    }
    if (realm != null) {
      site.putAll(realm.serverSite());
    }
    return site;
  }

  private Path writeConf(Path dir, Map<String, String> site) throws IOException {
    Files.createDirectories(dir);
    writeSite(dir.resolve("hbase-site.xml"), site);
    if (realm != null) {
      writeSite(dir.resolve("core-site.xml"), realm.coreSite());
    }
    Files.writeString(
        dir.resolve("log4j2.properties"),
        """
        status = warn
        appender.console.type = Console
        appender.console.name = console
        appender.console.target = SYSTEM_OUT
        appender.console.layout.type = PatternLayout
        appender.console.layout.pattern = %d{ISO8601} %-5p [%t] %c{1}: %m%n
        rootLogger = INFO,console
        """);
    return dir;
  }

  private Process launch(
      Path conf, Path lib, List<String> opts, String main, List<String> args, Path log)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(hbaseJvmFlags);
    if (realm != null && conf != null) {
      cmd.addAll(realm.jvmOptions());
    }
    cmd.addAll(opts);
    cmd.add("-cp");
    StringBuilder cp = new StringBuilder();
    if (conf != null) {
      cp.append(conf).append(':');
    }
    if (lib != null) {
      cp.append(lib).append("/*:");
    }
    cp.append(serverClasspath);
    cmd.add(cp.toString());
    cmd.add(main);
    cmd.addAll(args);
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
            .start();
    synchronized (processes) {
      processes.add(p);
    }
    return p;
  }

  private void stopProcess(Process p, String what) throws InterruptedException {
    if (p == master) {
      master = null;
    }
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroy();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      throw new AssertionError(what + " did not stop within 90 s of SIGTERM");
    }
  }

  private void killAll() {
    synchronized (processes) {
      for (Process p : processes) {
        p.destroyForcibly();
      }
    }
  }

  @Override
  public void close() throws IOException {
    if (connection != null) {
      connection.close();
    }
    // region servers first, then the master, then ZooKeeper; no flush is needed of scratch data
    for (RegionServer rs : servers) {
      if (rs.process != null) {
        rs.process.destroyForcibly();
      }
    }
    if (master != null) {
      master.destroyForcibly();
    }
    if (zk != null) {
      zk.destroyForcibly();
    }
    // HDFS last: HBase's processes are gone
    for (Process p : hdfs.keySet()) {
      p.destroyForcibly();
    }
    for (Process p : processes) {
      try {
        p.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** The one region of a one-region table. */
  public RegionInfo regionOf(TableName t) throws IOException {
    try (Admin admin = admin()) {
      List<RegionInfo> regions = admin.getRegions(t);
      if (regions.size() != 1) {
        throw new AssertionError(t + " has " + regions.size() + " regions, not 1");
      }
      return regions.get(0);
    }
  }

  /** The region server hosting a one-region table. */
  /** Starts one more region server with deployment {@code d} and waits until the master has it. */
  public RegionServer addRegionServer(Deployment d) throws Exception {
    RegionServer rs = new RegionServer(servers.size() + 1);
    servers.add(rs);
    rs.start(d);
    awaitServers(servers.size());
    return rs;
  }

  /**
   * Moves the one region of table {@code t} to {@code rs} and waits until it is open there. A
   * server the master has just counted live may not serve yet (the master's warm-up call fails and
   * the region is opened elsewhere): the move is asked again every 3 s until it holds.
   */
  public void moveTo(TableName t, RegionServer rs) throws Exception {
    byte[] region = regionOf(t).getEncodedNameAsBytes();
    long[] lastMove = {0};
    try (Admin admin = admin()) {
      await(
          t + " open on region server " + rs.index,
          120,
          () -> {
            try {
              if (hosting(t) == rs && inTransition() == 0) {
                return true;
              }
              if (inTransition() == 0 && System.nanoTime() - lastMove[0] > 3_000_000_000L) {
                admin.move(region, rs.serverName());
                lastMove[0] = System.nanoTime();
              }
              return false;
            } catch (IOException e) {
              return false;
            }
          });
    }
  }

  public RegionServer hosting(TableName t) throws IOException {
    ServerName sn =
        connection
            .getRegionLocator(t)
            .getRegionLocation(HConstants.EMPTY_START_ROW, true)
            .getServerName();
    for (RegionServer rs : servers) {
      if (rs.port == sn.getPort()) {
        return rs;
      }
    }
    throw new AssertionError(t + " is on " + sn + ", not one of the cluster's region servers");
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
    return dataNodeHttpPorts;
  }

  List<String> dataNodeAddresses() {
    return dataNodeAddresses;
  }

  /**
   * Runs a command as a process of its own with its output in {@code logs/<name>.log}; fails unless
   * it exits 0 within {@code minutes}. Returns what it printed.
   */
  public String run(String name, List<String> cmd, Map<String, String> env, int minutes)
      throws Exception {
    Path log = home.resolve("logs").resolve(name + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    synchronized (processes) {
      processes.add(p);
    }
    if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(name + " still running after " + minutes + " min:\n" + tail(log));
    }
    String printed = Files.readString(log);
    if (p.exitValue() != 0) {
      throw new AssertionError(name + " exited " + p.exitValue() + ":\n" + printed);
    }
    return printed;
  }

  /**
   * Phoenix 5.2.1's server side as release-it adds it to every server's {@code lib/} (the stand-in
   * for the shaded phoenix-server-hbase-2.6 jar, which Maven Central does not carry): each jar of
   * {@code phoenixClasspath} (stock-hbase/phoenix's class path) whose artifact the server class
   * path does not already have in some version.
   */
  public static List<Path> phoenixServerJars(Path serverClasspath, Path phoenixClasspath)
      throws IOException {
    java.util.Set<String> have = new java.util.HashSet<>();
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
    java.net.http.HttpResponse<String> r =
        HTTP.send(
            java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException(url + ": " + r.statusCode() + " " + r.body());
    }
    return r.body();
  }

  private static final java.net.http.HttpClient HTTP =
      java.net.http.HttpClient.newBuilder()
          .connectTimeout(java.time.Duration.ofSeconds(10))
          .build();

  /**
   * Writes {@code entries} as a Hadoop configuration file ({@code hbase-site.xml} and the like).
   */
  public static void writeSite(Path file, Map<String, String> entries) throws IOException {
    Configuration c = new Configuration(false);
    entries.forEach(c::set);
    try (java.io.OutputStream out = Files.newOutputStream(file)) {
      c.writeXml(out);
    }
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
      for (Path q : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
