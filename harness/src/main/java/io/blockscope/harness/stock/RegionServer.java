package io.blockscope.harness.stock;

import io.blockscope.harness.BeanReader;
import io.blockscope.harness.stock.StockCluster.Deployment;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.ServerName;

/**
 * One region server of a {@link StockCluster}: its ports, its current process and deployment, and
 * its logs. Its jars are in {@code rs<index>/lib} and its conf directory in {@code rs<index>/conf}
 * under the cluster's home.
 */
public final class RegionServer {
  public final int index;
  public final int port = StockCluster.freePort();
  public final int infoPort = StockCluster.freePort();
  public final int jmxPort = StockCluster.freePort();
  public final int prometheusPort = StockCluster.freePort();
  private final Path home;
  private final StockSecurity realm;
  private final Launcher launcher;
  private final SiteFiles site;
  private final ClusterQueries queries;
  private final Daemon daemon;
  private Deployment deployment;
  private int starts;

  RegionServer(
      int index,
      Path home,
      StockSecurity realm,
      Launcher launcher,
      SiteFiles site,
      ClusterQueries queries) {
    this.index = index;
    this.daemon = new Daemon("region server " + index);
    this.home = home;
    this.realm = realm;
    this.launcher = launcher;
    this.site = site;
    this.queries = queries;
  }

  /** The operating system's id of the current process; -1 while there is none. */
  public long pid() {
    return daemon.pid();
  }

  /** The current process's log (a new file per start). */
  public Path log() {
    return daemon.log();
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
            return StockCluster.httpGet(infoUrl() + pathAndQuery);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted reading " + infoUrl());
          }
        },
        infoUrl());
  }

  /** The server name the master knows this process by, or null while it is not live. */
  public ServerName serverName() throws IOException {
    for (ServerName sn : queries.live()) {
      if (sn.getPort() == port) {
        return sn;
      }
    }
    return null;
  }

  /** This server's directory under the cluster's home. */
  Path dir() {
    return home.resolve("rs" + index);
  }

  /**
   * Writes this server's conf directory for {@code d} (the shared entries, its ports, then {@code
   * d}'s) and takes {@code d} as the deployment it runs.
   */
  void configure(Deployment d) throws IOException {
    this.deployment = d;
    Map<String, String> entries = site.base();
    entries.put("hbase.regionserver.port", Integer.toString(port));
    entries.put("hbase.regionserver.info.port", Integer.toString(infoPort));
    entries.putAll(d.site());
    site.writeConf(dir().resolve("conf"), entries);
  }

  /**
   * Starts a process with {@code d}: its jars copied into a fresh {@code lib/}, its conf, a log.
   */
  void start(Deployment d) throws IOException {
    Path lib = dir().resolve("lib");
    StockCluster.deleteTree(lib);
    Files.createDirectories(lib);
    for (Path jar : d.libJars()) {
      Files.copy(jar, lib.resolve(jar.getFileName()));
    }
    configure(d);
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
    Path log = home.resolve("logs").resolve("regionserver-" + index + "-" + starts + ".log");
    daemon.started(
        launcher.launch(
            dir().resolve("conf"),
            lib,
            opts,
            "org.apache.hadoop.hbase.regionserver.HRegionServer",
            List.of("start"),
            log),
        log);
  }

  Daemon daemon() {
    return daemon;
  }
}
