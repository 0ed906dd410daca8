package io.blockscope.harness.stock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * The HDFS a {@link StockCluster} may keep its root directory on: a NameNode and DataNodes, each a
 * process of its own with its own configuration directory, as an HDFS install runs them (its {@code
 * hdfs namenode} and {@code hdfs datanode} commands start these classes). Loopback only; HDFS's
 * defaults otherwise (block checksums on, no short-circuit reads: that needs Hadoop's native
 * library, which Maven Central's jars do not carry). A cluster on the local file system starts
 * none.
 */
final class StockHdfs {
  private final Launcher launcher;
  private final Path home;

  /** The NameNode's RPC port once started, else 0. */
  private int nameNodePort;

  /** The DataNodes' HTTP ports (their /jmx), one per DataNode. */
  private final List<Integer> dataNodeHttpPorts = new ArrayList<>();

  /** The DataNodes' transfer addresses ({@code 127.0.0.1:port}), one per DataNode. */
  private final List<String> dataNodeAddresses = new ArrayList<>();

  /** The NameNode, then the DataNodes. */
  private final List<Daemon> daemons = new ArrayList<>();

  StockHdfs(Launcher launcher, Path home) {
    this.launcher = launcher;
    this.home = home;
  }

  /** Whether the NameNode and DataNodes run. */
  boolean running() {
    return nameNodePort > 0;
  }

  /** The file system's URI, {@code hdfs://127.0.0.1:<NameNode port>}. */
  String uri() {
    return "hdfs://127.0.0.1:" + nameNodePort;
  }

  List<Integer> dataNodeHttpPorts() {
    return dataNodeHttpPorts;
  }

  List<String> dataNodeAddresses() {
    return dataNodeAddresses;
  }

  /**
   * Formats and starts a NameNode, then {@code dataNodes} DataNodes, and waits until the NameNode
   * counts every DataNode live.
   */
  void start(int dataNodes, ClusterQueries queries) throws Exception {
    nameNodePort = StockCluster.freePort();
    int nameNodeHttp = StockCluster.freePort();
    Path dir = home.resolve("hdfs");
    Map<String, String> common = new LinkedHashMap<>();
    common.put("fs.defaultFS", uri());
    common.put("hadoop.tmp.dir", dir.resolve("tmp").toString());
    common.put("dfs.namenode.name.dir", dir.resolve("name").toUri().toString());
    common.put("dfs.namenode.http-address", "127.0.0.1:" + nameNodeHttp);
    common.put("dfs.namenode.rpc-bind-host", "127.0.0.1");
    common.put("dfs.replication", Integer.toString(Math.min(dataNodes, 3)));
    common.put("dfs.permissions.enabled", "false");
    // a DataNode on loopback registers as 127.0.0.1; the NameNode must not refuse it
    common.put("dfs.namenode.datanode.registration.ip-hostname-check", "false");
    Path nnConf = conf(dir.resolve("namenode-conf"), common, Map.of());
    Path webapps = webapps(dir.resolve("lib"));
    Process format =
        launcher.launch(
            nnConf,
            webapps,
            List.of("-Xmx256m"),
            "org.apache.hadoop.hdfs.server.namenode.NameNode",
            List.of("-format", "-force", "-nonInteractive"),
            home.resolve("logs/namenode-format.log"));
    if (!format.waitFor(120, TimeUnit.SECONDS) || format.exitValue() != 0) {
      throw new IOException(
          "formatting the NameNode failed: "
              + Launcher.tail(home.resolve("logs/namenode-format.log")));
    }
    Path nnLog = home.resolve("logs/namenode.log");
    started(
        launcher.launch(
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
      String transfer = "127.0.0.1:" + StockCluster.freePort();
      dataNodeAddresses.add(transfer);
      dn.put("dfs.datanode.address", transfer);
      int dataNodeHttp = StockCluster.freePort();
      dataNodeHttpPorts.add(dataNodeHttp);
      dn.put("dfs.datanode.http.address", "127.0.0.1:" + dataNodeHttp);
      dn.put("dfs.datanode.ipc.address", "127.0.0.1:" + StockCluster.freePort());
      Path dnLog = home.resolve("logs/datanode-" + i + ".log");
      started(
          launcher.launch(
              conf(dir.resolve("datanode" + i + "-conf"), common, dn),
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
    queries.await(
        dataNodes + " live DataNodes at the NameNode (" + home.resolve("logs") + ")",
        120,
        () -> {
          try {
            String body = StockCluster.httpGet(jmx);
            Matcher m = Pattern.compile("\"NumLiveDataNodes\"\\s*:\\s*(\\d+)").matcher(body);
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
  private static Path webapps(Path lib) throws IOException {
    Files.createDirectories(lib);
    try (ZipOutputStream out =
        new ZipOutputStream(Files.newOutputStream(lib.resolve("hdfs-webapps.jar")))) {
      for (String d :
          List.of("webapps/", "webapps/hdfs/", "webapps/datanode/", "webapps/static/")) {
        out.putNextEntry(new ZipEntry(d));
        out.closeEntry();
      }
    }
    return lib;
  }

  /** A NameNode's or DataNode's conf directory: {@code common} with its {@code own} entries. */
  private static Path conf(Path dir, Map<String, String> common, Map<String, String> own)
      throws IOException {
    Files.createDirectories(dir);
    Map<String, String> site = new LinkedHashMap<>(common);
    site.putAll(own);
    SiteFiles.write(
        dir.resolve("core-site.xml"), Map.of("fs.defaultFS", common.get("fs.defaultFS")));
    SiteFiles.write(dir.resolve("hdfs-site.xml"), site);
    return dir;
  }

  /** A NameNode or DataNode process, called by its log's name in failure messages. */
  private void started(Process p, Path log) {
    Daemon d = new Daemon(log.getFileName().toString());
    d.started(p, log);
    daemons.add(d);
  }

  List<Daemon> daemons() {
    return daemons;
  }
}
