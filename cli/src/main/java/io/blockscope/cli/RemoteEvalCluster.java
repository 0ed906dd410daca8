package io.blockscope.cli;

import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.CostSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CacheEvictionStats;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/**
 * A real cluster reached through ZooKeeper ({@code --zk host:port[:/znode]}) or an {@code
 * hbase-site.xml} ({@code --hbase-site}). blockscope's costs are read from each region server's
 * {@code /jmx} servlet; where the coprocessor is not deployed the cost columns stay empty and say
 * why.
 */
final class RemoteEvalCluster implements EvalCluster {
  private static final String NO_INFO_PORT =
      "no region server publishes an info port"
          + " (hbase.regionserver.info.port), so blockscope's figures cannot be read from /jmx";
  private final Configuration conf;
  private final String phoenixUrl;
  private final Connection connection;

  private RemoteEvalCluster(Configuration conf, String quorum, int port, String znode)
      throws IOException {
    this.conf = conf;
    this.phoenixUrl = "jdbc:phoenix:" + quorum + ":" + port + ":" + znode;
    this.connection = ConnectionFactory.createConnection(conf);
  }

  /** Parses {@code host[,host...]:port[:/znode]} and checks that ZooKeeper answers. */
  static RemoteEvalCluster connectZk(String zk) throws IOException {
    String[] parts = zk.split(":", 3);
    if (parts.length < 2 || parts[0].isBlank()) {
      throw new IllegalArgumentException("bad --zk '" + zk + "': expected host:port[:/znode]");
    }
    int port;
    try {
      port = Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "bad --zk '" + zk + "': port '" + parts[1] + "' is not a number");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("bad --zk '" + zk + "': port out of range");
    }
    String znode = parts.length == 3 ? parts[2] : "/hbase";
    if (!znode.startsWith("/")) {
      throw new IllegalArgumentException("bad --zk '" + zk + "': znode must start with /");
    }
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", parts[0]);
    conf.setInt("hbase.zookeeper.property.clientPort", port);
    conf.set("zookeeper.znode.parent", znode);
    return connect(conf);
  }

  static RemoteEvalCluster connectSite(String file) throws IOException {
    Path p = Path.of(file);
    if (!Files.isReadable(p)) {
      throw new IllegalArgumentException("cannot read --hbase-site " + file);
    }
    Configuration conf = HBaseConfiguration.create();
    conf.addResource(new org.apache.hadoop.fs.Path(p.toAbsolutePath().toString()));
    return connect(conf);
  }

  private static RemoteEvalCluster connect(Configuration conf) throws IOException {
    String quorum = conf.get("hbase.zookeeper.quorum", "localhost");
    int port = conf.getInt("hbase.zookeeper.property.clientPort", 2181);
    String znode = conf.get("zookeeper.znode.parent", "/hbase");
    String first = quorum.split(",")[0].trim();
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(first, port), 3000);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot reach ZooKeeper at " + first + ":" + port + " (" + e.getMessage() + ")");
    }
    // Fail fast instead of HBase's default minutes of retries against a wrong cluster.
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("zookeeper.recovery.retry", 1);
    return new RemoteEvalCluster(conf, quorum, port, znode);
  }

  @Override
  public java.sql.Connection phoenix() throws SQLException {
    return DriverManager.getConnection(phoenixUrl);
  }

  @Override
  public Connection hbase() {
    return connection;
  }

  @Override
  public CostSource costs() {
    return new CostSource() {
      private String why;

      @Override
      public CostSnapshot table(String table) {
        try {
          long[] slots = new long[CostLayout.SIZE];
          int servers = 0;
          for (String base : infoServers()) {
            String q =
                URLEncoder.encode(
                    "blockscope:type=Table,table="
                        + io.blockscope.metrics.MetricKeys.value(table)
                        + ",*",
                    StandardCharsets.UTF_8);
            JsonObject doc = JsonParser.parseString(get(base + "/jmx?qry=" + q)).getAsJsonObject();
            JsonArray beans = doc.getAsJsonArray("beans");
            servers++;
            for (JsonElement b : beans) {
              JsonObject bean = b.getAsJsonObject();
              String name = bean.get("name").getAsString();
              int slot = CostLayout.slotOf(name.substring(name.lastIndexOf("name=") + 5));
              if (slot >= 0 && bean.has("Count")) {
                slots[slot] += bean.get("Count").getAsLong();
              }
            }
          }
          if (servers == 0) {
            why = NO_INFO_PORT;
            return null;
          }
          return JmxCosts.snapshot(slots);
        } catch (Exception e) {
          why = "cannot read region servers' /jmx: " + e.getMessage();
          return null;
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
            for (String base : infoServers()) {
              any |= get(base + "/jmx?qry=blockscope:type=Probe,*").contains("blockscope:");
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

  private List<String> infoServers() throws IOException {
    List<String> urls = new ArrayList<>();
    ClusterMetrics cm = connection.getAdmin().getClusterMetrics();
    for (Map.Entry<ServerName, ServerMetrics> e : cm.getLiveServerMetrics().entrySet()) {
      int port = e.getValue().getInfoServerPort();
      if (port > 0) {
        urls.add("http://" + e.getKey().getHostname() + ":" + port);
      }
    }
    return urls;
  }

  /** The body of an HTTP GET (3 s to connect, 10 s to read). */
  static String get(String url) throws IOException {
    HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
    c.setConnectTimeout(3000);
    c.setReadTimeout(10000);
    try (InputStream in = c.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      c.disconnect();
    }
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

  /** From region metrics, which HBase reports in whole megabytes. */
  @Override
  public long storeFileBytes(String table) throws IOException {
    double mb = 0;
    TableName tn = TableName.valueOf(table);
    for (ServerName sn : connection.getAdmin().getRegionServers()) {
      for (RegionMetrics rm : connection.getAdmin().getRegionMetrics(sn, tn)) {
        mb += rm.getStoreFileSize().get(Size.Unit.MEGABYTE);
      }
    }
    return (long) (mb * 1048576);
  }

  @Override
  public Map<String, Object> describe() throws IOException {
    Map<String, Object> m = new LinkedHashMap<>();
    ClusterMetrics cm = connection.getAdmin().getClusterMetrics();
    m.put("mode", "remote");
    m.put("hbase", cm.getHBaseVersion());
    m.put("clusterId", cm.getClusterId());
    m.put("regionServers", cm.getLiveServerMetrics().size());
    m.put(
        "zookeeper",
        conf.get("hbase.zookeeper.quorum")
            + ":"
            + conf.get("hbase.zookeeper.property.clientPort")
            + conf.get("zookeeper.znode.parent"));
    m.put("storeFileSizeResolution", "MB (from region metrics)");
    return m;
  }

  @Override
  public void close() throws IOException {
    connection.close();
  }
}
