package io.blockscope.harness.stock;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * What makes a {@link StockCluster} a secured one: the Kerberos realm, TLS stores and access
 * control its processes are set up with. The cluster writes these entries and options into every
 * process it starts; where the realm comes from (a test KDC, an operator's) is the implementation's
 * business.
 */
public interface StockSecurity {
  /** The host name the servers' principals and TLS certificate name. */
  String host();

  /** The HBase daemons' principal as hbase-site.xml gives it ({@code hbase/_HOST@REALM}). */
  String hbasePrincipal();

  /** Logs {@code user} in from its keytab, without touching the JVM's login user. */
  UserGroupInformation login(String user) throws IOException;

  /** The master's and region servers' {@code hbase-site.xml} entries. */
  Map<String, String> serverSite();

  /** {@code core-site.xml} of every HBase process. */
  Map<String, String> coreSite();

  /** JVM options of every process that speaks Kerberos. */
  List<String> jvmOptions();

  /** ZooKeeper's JVM options: its own SASL login. */
  List<String> zooKeeperOptions() throws IOException;

  /** Writes a client configuration directory for the cluster at {@code where}; returns it. */
  Path clientConfDir(Path where, String quorum, int zkPort) throws IOException;
}
