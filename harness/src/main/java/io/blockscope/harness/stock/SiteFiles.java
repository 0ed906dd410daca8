package io.blockscope.harness.stock;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;

/**
 * A {@link StockCluster}'s configuration as its operator would write it: the settings every HBase
 * server shares, a server's conf directory ({@code hbase-site.xml}, on a secured cluster {@code
 * core-site.xml}, and {@code log4j2.properties}), and what its clients are given.
 */
final class SiteFiles {
  private final Path home;
  private final StockSecurity realm;
  private final StockZooKeeper zooKeeper;
  private final StockHdfs hdfs;

  SiteFiles(Path home, StockSecurity realm, StockZooKeeper zooKeeper, StockHdfs hdfs) {
    this.home = home;
    this.realm = realm;
    this.zooKeeper = zooKeeper;
    this.hdfs = hdfs;
  }

  /** hbase.rootdir: on HDFS when the cluster runs HDFS processes, else a local directory. */
  String rootDir() {
    return hdfs.running() ? hdfs.uri() + "/hbase" : home.resolve("hbase").toUri().toString();
  }

  /** The {@code hbase-site.xml} entries the master and every region server share. */
  Map<String, String> base() {
    Map<String, String> site = new LinkedHashMap<>();
    site.put("hbase.cluster.distributed", "true");
    site.put("hbase.rootdir", rootDir());
    site.put("hbase.zookeeper.quorum", "127.0.0.1");
    site.put("hbase.zookeeper.property.clientPort", Integer.toString(zooKeeper.port));
    if (!hdfs.running()) {
      // the local file system has no hflush/hsync capability; HBase's own advice for such a setup
      site.put("hbase.unsafe.stream.capability.enforce", "false");
    }
    if (realm != null) {
      site.putAll(realm.serverSite());
    }
    return site;
  }

  /** Writes a server's conf directory at {@code dir} with {@code site} as its hbase-site.xml. */
  Path writeConf(Path dir, Map<String, String> site) throws IOException {
    Files.createDirectories(dir);
    write(dir.resolve("hbase-site.xml"), site);
    if (realm != null) {
      write(dir.resolve("core-site.xml"), realm.coreSite());
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

  /** A client configuration for this cluster, as an operator's client hbase-site.xml gives it. */
  Configuration client() {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", "127.0.0.1");
    conf.setInt("hbase.zookeeper.property.clientPort", zooKeeper.port);
    if (realm != null) {
      conf.set("hadoop.security.authentication", "kerberos");
      conf.set("hbase.security.authentication", "kerberos");
      conf.set("hbase.master.kerberos.principal", realm.hbasePrincipal());
      conf.set("hbase.regionserver.kerberos.principal", realm.hbasePrincipal());
      String protection = realm.serverSite().get(StockCluster.RPC_PROTECTION);
      if (protection != null) {
        // the SASL protection the servers ask, privacy
        conf.set(StockCluster.RPC_PROTECTION, protection);
      }
    }
    return conf;
  }

  /** What a secured cluster's clients are given: its client configuration directory. */
  Path clientConfDir() throws IOException {
    if (realm == null) {
      throw new IllegalStateException("an open cluster needs no client configuration");
    }
    return realm.clientConfDir(home.resolve("client-conf"), "127.0.0.1", zooKeeper.port);
  }

  /** Writes {@code entries} as a Hadoop configuration file. */
  static void write(Path file, Map<String, String> entries) throws IOException {
    Configuration c = new Configuration(false);
    entries.forEach(c::set);
    try (OutputStream out = Files.newOutputStream(file)) {
      c.writeXml(out);
    }
  }
}
