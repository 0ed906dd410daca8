package io.blockscope.cli;

import io.blockscope.harness.BeanReader;
import java.io.IOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * A real cluster reached as HBase's own clients reach it: its client configuration (from {@link
 * ClusterOptions}), a Kerberos login where the cluster uses Kerberos (a keytab and principal given
 * or configured, else the ticket cache), an HBase connection as that user, and its info servers
 * read over HTTP or HTTPS with SPNEGO ({@link InfoServerClient}).
 */
final class ClusterClient implements AutoCloseable {
  final Configuration conf;
  final UserGroupInformation user;
  final Connection connection;
  final InfoServerClient infoServers;

  private ClusterClient(
      Configuration conf, UserGroupInformation user, Connection connection, InfoServerClient http) {
    this.conf = conf;
    this.user = user;
    this.connection = connection;
    this.infoServers = http;
  }

  /** Reads the configuration the options name, logs in, and connects; fails fast and says why. */
  static ClusterClient connect(ClusterOptions o) throws IOException {
    o.validate();
    Configuration conf = configuration(o);
    UserGroupInformation user = login(conf, o);
    String quorum = conf.get("hbase.zookeeper.quorum", "localhost");
    int port = conf.getInt("hbase.zookeeper.property.clientPort", 2181);
    String first = quorum.split(",")[0].trim();
    int colon = first.lastIndexOf(':');
    if (colon > 0) { // a quorum entry may carry its own port
      port = Integer.parseInt(first.substring(colon + 1));
      first = first.substring(0, colon);
    }
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(first, port), 3000);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot reach ZooKeeper at " + first + ":" + port + " (" + e.getMessage() + ")");
    }
    // Fail fast instead of HBase's default minutes of retries against a wrong cluster.
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("zookeeper.recovery.retry", 1);
    Connection connection;
    try {
      connection =
          user.doAs(
              (PrivilegedExceptionAction<Connection>)
                  () -> ConnectionFactory.createConnection(conf, User.create(user)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while connecting", e);
    }
    return new ClusterClient(
        conf,
        user,
        connection,
        new InfoServerClient(conf, o.configDir(), user, o.maxReplyMb * 1024L * 1024L));
  }

  /**
   * HBase's defaults, then {@code core-site.xml}, {@code hdfs-site.xml} and {@code hbase-site.xml}
   * of the configuration directory, then {@code --hbase-site}, then {@code --zk}.
   */
  static Configuration configuration(ClusterOptions o) {
    Configuration conf = HBaseConfiguration.create();
    if (o.config != null) {
      if (!Files.isDirectory(o.config)) {
        throw new IllegalArgumentException("--config " + o.config + " is not a directory");
      }
      if (!Files.isReadable(o.config.resolve("hbase-site.xml"))) {
        throw new IllegalArgumentException(
            "--config " + o.config + " has no readable hbase-site.xml");
      }
    }
    Path dir = o.configDir();
    if (dir != null) {
      for (String name : List.of("core-site.xml", "hdfs-site.xml", "hbase-site.xml")) {
        Path f = dir.resolve(name);
        if (Files.isReadable(f)) {
          conf.addResource(new org.apache.hadoop.fs.Path(f.toAbsolutePath().toUri()));
        }
      }
    }
    if (o.hbaseSite != null) {
      if (!Files.isReadable(o.hbaseSite)) {
        throw new IllegalArgumentException("cannot read --hbase-site " + o.hbaseSite);
      }
      conf.addResource(new org.apache.hadoop.fs.Path(o.hbaseSite.toAbsolutePath().toUri()));
    }
    if (o.zk != null) {
      applyZk(conf, o.zk);
    }
    // HBase's Kerberos setting implies Hadoop's for the client's login (UserGroupInformation)
    if ("kerberos".equalsIgnoreCase(conf.get("hbase.security.authentication"))
        && conf.get("hadoop.security.authentication", "simple").equals("simple")) {
      conf.set("hadoop.security.authentication", "kerberos");
    }
    return conf;
  }

  /** Parses {@code host[,host...]:port[:/znode]} into the configuration. */
  static void applyZk(Configuration conf, String zk) {
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
    conf.set("hbase.zookeeper.quorum", parts[0]);
    conf.setInt("hbase.zookeeper.property.clientPort", port);
    conf.set("zookeeper.znode.parent", znode);
  }

  /**
   * The user the command acts as: logged in from a keytab where one is given ({@code --principal}
   * and {@code --keytab}, else {@code hbase.client.keytab.principal} and {@code
   * hbase.client.keytab.file}, the keys HBase's own clients log in with), else the current user
   * (with Kerberos, the ticket cache {@code kinit} filled).
   */
  static UserGroupInformation login(Configuration conf, ClusterOptions o) throws IOException {
    UserGroupInformation.setConfiguration(conf);
    String principal =
        o.principal != null ? o.principal : conf.get("hbase.client.keytab.principal");
    String keytab = o.keytab != null ? o.keytab.toString() : conf.get("hbase.client.keytab.file");
    boolean kerberos = UserGroupInformation.isSecurityEnabled();
    if (o.principal != null && !kerberos) {
      throw new IllegalArgumentException(
          "--principal given, but the cluster's configuration does not use Kerberos"
              + " (hbase.security.authentication / hadoop.security.authentication): pass the"
              + " cluster's --config");
    }
    if (kerberos && principal != null && keytab != null) {
      if (!Files.isReadable(Path.of(keytab))) {
        throw new IllegalArgumentException("cannot read the keytab " + keytab);
      }
      UserGroupInformation.loginUserFromKeytab(principal, keytab);
      return UserGroupInformation.getLoginUser();
    }
    UserGroupInformation current = UserGroupInformation.getCurrentUser();
    if (kerberos && !current.hasKerberosCredentials()) {
      throw new IllegalArgumentException(
          "the cluster uses Kerberos and this command has no credentials: give --principal and"
              + " --keytab, or run kinit first");
    }
    return current;
  }

  /**
   * Connection properties for Phoenix: the client configuration read here (Phoenix builds its own
   * from the class path and these), so Phoenix speaks Kerberos and finds the quorum as HBase does.
   */
  Properties phoenixProperties() {
    Properties p = new Properties();
    for (Map.Entry<String, String> e : conf) {
      String k = e.getKey();
      if (k.startsWith("hbase.")
          || k.startsWith("hadoop.security.")
          || k.startsWith("zookeeper.")) {
        p.setProperty(k, e.getValue());
      }
    }
    return p;
  }

  /**
   * Runs {@code action} as the command's user (Phoenix's and HBase's calls need its Subject). A
   * checked failure other than an IOException (Phoenix's SQLException) comes back as an IOException
   * that names it, where {@code doAs} would hand over a bare UndeclaredThrowableException.
   */
  <T> T as(PrivilegedExceptionAction<T> action) throws IOException {
    try {
      return user.doAs(action);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } catch (UndeclaredThrowableException e) {
      Throwable why = e.getCause() != null ? e.getCause() : e;
      throw new IOException(why.toString(), why);
    }
  }

  /** A region server's info server. */
  record InfoServer(String host, int port) {
    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  /**
   * The info server of each live region server that has one, from one reading of the cluster's
   * metrics.
   */
  Map<ServerName, InfoServer> liveInfoServers() throws IOException {
    Map<ServerName, InfoServer> servers = new java.util.LinkedHashMap<>();
    for (Map.Entry<ServerName, ServerMetrics> e :
        connection.getAdmin().getClusterMetrics().getLiveServerMetrics().entrySet()) {
      if (e.getValue().getInfoServerPort() > 0) {
        servers.put(
            e.getKey(), new InfoServer(e.getKey().getHostname(), e.getValue().getInfoServerPort()));
      }
    }
    return servers;
  }

  /** A region server's beans, read as the cluster serves {@code /jmx} (HTTPS, SPNEGO). */
  BeanReader beans(InfoServer server) {
    return BeanReader.of(
        pathAndQuery -> infoServers.get(server.host(), server.port(), pathAndQuery),
        server.toString());
  }

  /**
   * Why blockscope's figures cannot be read from a region server whose info server is {@code where}
   * (null: none, no info port), an unreadable {@code /jmx} or no blockscope there; null when they
   * can.
   */
  String whyNoBlockscope(InfoServer where) {
    if (where == null) {
      return "has no info port (hbase.regionserver.info.port), so no /jmx to read";
    }
    try {
      return beans(where).deployed()
          ? null
          : "has no blockscope beans on its /jmx (the coprocessor is not loaded there)";
    } catch (IOException e) {
      return "could not be read: "
          + infoServers.scheme()
          + "://"
          + where
          + "/jmx: "
          + e.getMessage();
    }
  }

  /** Who the command acts as and how, for reports. */
  String describeUser() {
    return user.getUserName()
        + (UserGroupInformation.isSecurityEnabled() ? " (Kerberos)" : " (simple authentication)");
  }

  @Override
  public void close() throws IOException {
    connection.close();
  }
}
