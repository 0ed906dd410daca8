package io.blockscope.cli;

import io.blockscope.cli.ClusterClient.InfoServer;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.ServerMetric;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hbase.CacheEvictionStats;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A real cluster, reached as an HBase client with the cluster's own configuration ({@link
 * ClusterClient}: {@code --config}, {@code --zk}, {@code --hbase-site}, Kerberos). blockscope's
 * costs are read from each region server's {@code /jmx} servlet, over HTTPS and SPNEGO where the
 * cluster serves them so; where the coprocessor is not deployed the cost columns stay empty and say
 * why.
 */
final class RemoteEvalCluster implements EvalCluster {
  private static final String NO_INFO_PORT =
      "no region server publishes an info port"
          + " (hbase.regionserver.info.port), so blockscope's figures cannot be read from /jmx";
  private final ClusterClient client;
  private final Configuration conf;
  private final String phoenixUrl;
  private final Connection connection;

  private RemoteEvalCluster(ClusterClient client) {
    this.client = client;
    this.conf = client.conf;
    this.connection = client.connection;
    this.phoenixUrl =
        "jdbc:phoenix:"
            + conf.get("hbase.zookeeper.quorum", "localhost")
            + ":"
            + conf.getInt("hbase.zookeeper.property.clientPort", 2181)
            + ":"
            + conf.get("zookeeper.znode.parent", "/hbase");
  }

  /** The cluster the options name; fails fast, saying why, when it cannot be reached. */
  static RemoteEvalCluster connect(ClusterOptions options) throws IOException {
    return new RemoteEvalCluster(ClusterClient.connect(options));
  }

  /** The cluster whose ZooKeeper is {@code host[,host...]:port[:/znode]}, with defaults else. */
  static RemoteEvalCluster connectZk(String zk) throws IOException {
    ClusterOptions o = new ClusterOptions();
    o.zk = zk;
    o.maxReplyMb = 256;
    return connect(o);
  }

  /** The connection and the info servers' reader this cluster uses. */
  ClusterClient client() {
    return client;
  }

  /** Who the run acts as on the cluster. */
  String user() {
    return client.describeUser();
  }

  /**
   * A Phoenix connection as the command's user, with the client configuration read here (Phoenix
   * builds its own from the class path and the connection's properties).
   */
  @Override
  public java.sql.Connection phoenix() throws SQLException {
    try {
      return client.as(() -> DriverManager.getConnection(phoenixUrl, client.phoenixProperties()));
    } catch (IOException e) {
      throw new SQLException("cannot connect Phoenix as " + client.describeUser() + ": " + e, e);
    }
  }

  @Override
  public Connection hbase() {
    return connection;
  }

  /** One source for the run, so that the reason a read failed outlives the read. */
  private final CostSource costs = newCostSource();

  @Override
  public CostSource costs() {
    return costs;
  }

  /** How long a read of the costs waits for the servers' exports, at most. */
  static final long EXPORT_WAIT_MS = 95_000;

  /**
   * Waits until every server's export ({@code export.refreshes}) has refreshed three times since
   * the call: a table's series appear, and a series that became non-zero is added, only at a
   * refresh, the second one started after every read before this call had been counted, and a
   * series it added reads 0 until the third. Costs up to three {@code
   * blockscope.export.interval.ms} (10 s by default, 1 s at the least) per read.
   */
  private void awaitExports(List<InfoServer> servers) throws IOException, InterruptedException {
    long[] seen = new long[servers.size()];
    for (int i = 0; i < seen.length; i++) {
      seen[i] = refreshes(servers.get(i));
    }
    long deadline = System.nanoTime() + EXPORT_WAIT_MS * 1_000_000L;
    for (int i = 0; i < seen.length; i++) {
      while (refreshes(servers.get(i)) < seen[i] + 3) {
        if (System.nanoTime() > deadline) {
          throw new IOException(
              servers.get(i)
                  + ": blockscope's export did not refresh three times within "
                  + EXPORT_WAIT_MS / 1000
                  + " s (blockscope.export.interval.ms too long?)");
        }
        Thread.sleep(200);
      }
    }
  }

  private long refreshes(InfoServer base) throws IOException {
    return client.beans(base).exportRefreshes();
  }

  private CostSource newCostSource() {
    return new CostSource() {
      private String why;

      @Override
      public CostSnapshot table(String table) {
        return tables(List.of(table)).get(table);
      }

      @Override
      public Map<String, CostSnapshot> tables(List<String> tables) {
        Map<String, CostSnapshot> m = new LinkedHashMap<>();
        for (String t : tables) {
          m.put(t, null);
        }
        try {
          List<InfoServer> bases = infoServers();
          if (bases.isEmpty()) {
            why = NO_INFO_PORT;
            return m;
          }
          awaitExports(bases);
          for (String t : tables) {
            CostSnapshot sum = CostSnapshot.ZERO;
            for (InfoServer base : bases) {
              sum = sum.plus(client.beans(base).table(t));
            }
            m.put(t, sum);
          }
          return m;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          why = "interrupted while reading region servers' /jmx";
          m.replaceAll((t, c) -> null);
          return m;
        } catch (Exception e) {
          why = "cannot read region servers' /jmx: " + e;
          m.replaceAll((t, c) -> null);
          return m;
        }
      }

      @Override
      public String unavailable() {
        if (why == null) {
          try {
            boolean any = false;
            if (infoServers().isEmpty()) {
              why = NO_INFO_PORT;
              return why;
            }
            for (InfoServer base : infoServers()) {
              any |= client.beans(base).deployed();
            }
            if (!any) {
              why =
                  "the blockscope coprocessor is not deployed on this cluster (no blockscope"
                      + " MBeans on any region server); timings are still measured";
            }
          } catch (Exception e) {
            why = "cannot read region servers' /jmx: " + e.getMessage();
          }
        }
        return why;
      }
    };
  }

  private List<InfoServer> infoServers() throws IOException {
    return new ArrayList<>(client.liveInfoServers().values());
  }

  /**
   * The servers whose {@code blockscope.table.max.level} (the gauge {@code
   * settings.table.max.level}) keeps this run's scratch tables below TIME, named; null when every
   * server allows TIME or none can say.
   */
  @Override
  public String whyNoTimings() {
    List<String> capped = new ArrayList<>();
    try {
      for (InfoServer server : infoServers()) {
        OptionalLong level =
            client.beans(server).serverValue(ServerMetric.SETTINGS_TABLE_MAX_LEVEL);
        if (level.isPresent() && level.getAsLong() < PerfLevel.TIME.ordinal()) {
          capped.add(server + " (" + PerfLevel.values()[(int) level.getAsLong()] + ")");
        }
      }
    } catch (IOException | RuntimeException e) {
      return null; // the cost reads will say what is wrong with /jmx
    }
    return capped.isEmpty()
        ? null
        : "no times (checksum, decompression and decode ms stay empty; counts are exact): "
            + "blockscope.table.max.level keeps the scratch tables below TIME on "
            + String.join(", ", capped)
            + "; an operator can set it to TIME for the run (docs/security.md)";
  }

  @Override
  public String whyNoColdCache() {
    return null;
  }

  /**
   * Drops the table's blocks from every region server's block cache through {@code
   * Admin.clearBlockCache(TableName)} (HBase 2.0 on: each server evicts the blocks of the table's
   * store files it serves); a server that could not is an error naming it, not a cold run that was
   * not cold. The OS page cache stays, as on the embedded cluster.
   */
  @Override
  public void dropCache(String table) throws IOException {
    CacheEvictionStats s = connection.getAdmin().clearBlockCache(TableName.valueOf(table));
    if (s.getExceptionCount() > 0) {
      List<String> why = new ArrayList<>();
      s.getExceptions().forEach((region, e) -> why.add(Bytes.toStringBinary(region) + ": " + e));
      throw new IOException(
          "Admin.clearBlockCache("
              + table
              + ") failed for "
              + s.getExceptionCount()
              + " regions: "
              + why);
    }
  }

  /**
   * The table's store files' lengths, to the byte, listed under the cluster's root directory
   * ({@code hbase.rootdir} from {@code --hbase-site}, else from the active master's {@code /conf});
   * where that file system cannot be read from this client, HBase's region metrics, which count
   * whole megabytes, and {@link #describe} says which and why.
   */
  @Override
  public long storeFileBytes(String table) throws IOException {
    TableName tn = TableName.valueOf(table);
    if (sizeFallback == null) {
      try {
        return storeFileLengths(tn);
      } catch (IOException | RuntimeException e) {
        sizeFallback = "cannot list the store files (" + e + ")";
      }
    }
    double mb = 0;
    for (ServerName sn : connection.getAdmin().getRegionServers()) {
      for (RegionMetrics rm : connection.getAdmin().getRegionMetrics(sn, tn)) {
        mb += rm.getStoreFileSize().get(Size.Unit.MEGABYTE);
      }
    }
    return (long) (mb * 1048576);
  }

  /** Why store sizes come from region metrics (whole MB), or null while they are exact. */
  private String sizeFallback;

  private org.apache.hadoop.fs.Path rootDir;

  /** Sums the files of every family directory of every region directory of the table. */
  private long storeFileLengths(TableName tn) throws IOException {
    if (rootDir == null) {
      rootDir = new org.apache.hadoop.fs.Path(rootDirName());
    }
    FileSystem fs = rootDir.getFileSystem(conf);
    org.apache.hadoop.fs.Path tableDir =
        new org.apache.hadoop.fs.Path(
            rootDir, "data/" + tn.getNamespaceAsString() + "/" + tn.getQualifierAsString());
    long bytes = 0;
    for (FileStatus region : fs.listStatus(tableDir)) {
      if (!region.isDirectory() || region.getPath().getName().startsWith(".")) {
        continue;
      }
      for (FileStatus family : fs.listStatus(region.getPath())) {
        String name = family.getPath().getName();
        if (!family.isDirectory() || name.startsWith(".") || name.equals("recovered.edits")) {
          continue;
        }
        for (FileStatus f : fs.listStatus(family.getPath())) {
          if (f.isFile() && !f.getPath().getName().startsWith(".")) {
            bytes += f.getLen();
          }
        }
      }
    }
    return bytes;
  }

  /** {@code hbase.rootdir} as the cluster has it. */
  private String rootDirName() throws IOException {
    String[] sources = conf.getPropertySources("hbase.rootdir");
    boolean fromSite =
        sources != null
            && sources.length > 0
            && !sources[sources.length - 1].contains("hbase-default.xml");
    if (fromSite) {
      return conf.get("hbase.rootdir");
    }
    ClusterMetrics cm = connection.getAdmin().getClusterMetrics();
    ServerName master = cm.getMasterName();
    int port = cm.getMasterInfoPort();
    if (master == null || port <= 0) {
      throw new IOException("the master publishes no info port, so no /conf to read hbase.rootdir");
    }
    Configuration remote = new Configuration(false);
    remote.addResource(
        new java.io.ByteArrayInputStream(
            client
                .infoServers
                .get(master.getHostname(), port, "/conf")
                .getBytes(StandardCharsets.UTF_8)),
        "master /conf");
    String dir = remote.get("hbase.rootdir");
    if (dir == null) {
      throw new IOException("the master's /conf has no hbase.rootdir");
    }
    return dir;
  }

  @Override
  public String storeFileSizeResolution() {
    return sizeFallback == null
        ? "bytes (store file lengths under " + rootDir + ")"
        : "MB (from region metrics): " + sizeFallback;
  }

  @Override
  public Map<String, Object> describe() throws IOException {
    Map<String, Object> m = new LinkedHashMap<>();
    ClusterMetrics cm = connection.getAdmin().getClusterMetrics();
    m.put("mode", "remote");
    m.put("user", client.describeUser());
    m.put("infoServers", client.infoServers.scheme());
    m.put("hbase", cm.getHBaseVersion());
    m.put("clusterId", cm.getClusterId());
    m.put("regionServers", cm.getLiveServerMetrics().size());
    m.put(
        "zookeeper",
        conf.get("hbase.zookeeper.quorum")
            + ":"
            + conf.get("hbase.zookeeper.property.clientPort")
            + conf.get("zookeeper.znode.parent"));
    return m;
  }

  @Override
  public void close() throws IOException {
    client.close();
  }
}
