package io.blockscope.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * How a command reaches a real cluster, as HBase's own commands take it: the cluster's client
 * configuration directory ({@code --config}, else {@code HBASE_CONF_DIR}), or a ZooKeeper quorum on
 * top of it, a Kerberos login, and the limits of reading its info servers. Without {@code --zk},
 * {@code --config} or {@code --hbase-site} a command uses its embedded cluster.
 */
final class ClusterOptions {
  @Option(
      names = "--zk",
      paramLabel = "host[,host...]:port[:/znode]",
      description =
          "ZooKeeper of the cluster. The rest of the client configuration comes from --config,"
              + " else from $HBASE_CONF_DIR when it is set.")
  String zk;

  @Option(
      names = "--config",
      paramLabel = "DIR",
      description =
          "The cluster's client configuration directory, as `hbase --config DIR` takes it:"
              + " hbase-site.xml, core-site.xml, hdfs-site.xml and ssl-client.xml from there"
              + " (Kerberos, TLS, the quorum).")
  Path config;

  @Option(
      names = "--hbase-site",
      paramLabel = "FILE",
      description = "One hbase-site.xml describing the cluster (with --config: read after it).")
  Path hbaseSite;

  @Option(
      names = "--principal",
      paramLabel = "PRINCIPAL",
      description =
          "Kerberos principal to log in as, with --keytab (default: the configuration's"
              + " hbase.client.keytab.principal, else the ticket cache of kinit).")
  String principal;

  @Option(
      names = "--keytab",
      paramLabel = "FILE",
      description =
          "Keytab of --principal (default: the configuration's hbase.client.keytab.file).")
  Path keytab;

  @Option(
      names = "--max-reply-mb",
      defaultValue = "256",
      paramLabel = "MB",
      description =
          "Largest /jmx reply read from one server (default ${DEFAULT-VALUE}; 1 to 4096): a"
              + " server with thousands of regions serves a large one.")
  int maxReplyMb;

  /** Whether the options name a real cluster (else the command uses its embedded one). */
  boolean remote() {
    return zk != null || config != null || hbaseSite != null;
  }

  /** The configuration directory in force: {@code --config}, else {@code $HBASE_CONF_DIR}. */
  Path configDir() {
    if (config != null) {
      return config;
    }
    String env = System.getenv("HBASE_CONF_DIR");
    return env == null || env.isBlank() ? null : Path.of(env);
  }

  /** Checks the options that need no cluster; throws with what is wrong. */
  void validate() {
    if ((principal == null) != (keytab == null)) {
      throw new IllegalArgumentException("give --principal and --keytab together");
    }
    if (maxReplyMb < 1 || maxReplyMb > 4096) {
      throw new IllegalArgumentException("--max-reply-mb must be 1 to 4096, got " + maxReplyMb);
    }
  }

  /** A note for a command that falls back to its embedded cluster while one is configured. */
  String ignoredConfigNote() {
    String env = System.getenv("HBASE_CONF_DIR");
    return env == null || env.isBlank()
        ? null
        : "HBASE_CONF_DIR is set ("
            + env
            + ") but without --zk or --config this runs on an embedded cluster; pass --config"
            + " \"$HBASE_CONF_DIR\" to use that cluster";
  }
}
