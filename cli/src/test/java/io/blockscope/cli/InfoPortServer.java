package io.blockscope.cli;

import io.blockscope.harness.EmbeddedCluster;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.MiniHBaseCluster;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.util.JVMClusterUtil;

/**
 * A second region server in the shared embedded cluster, started with an info port (the first has
 * none, as the embedded cluster runs it), for the commands that read servers' {@code /jmx}.
 */
final class InfoPortServer {
  private InfoPortServer() {}

  /** Starts the server and waits until the master knows its info port. */
  static JVMClusterUtil.RegionServerThread start(EmbeddedCluster cluster) throws Exception {
    return start(cluster, Map.of());
  }

  /** Starts the server with these settings too, and waits until the master knows its info port. */
  static JVMClusterUtil.RegionServerThread start(
      EmbeddedCluster cluster, Map<String, String> settings) throws Exception {
    MiniHBaseCluster mini = cluster.util().getMiniHBaseCluster();
    Configuration conf = mini.getConf(); // what a region server it starts copies
    Map<String, String> all = new HashMap<>(settings);
    all.put("hbase.regionserver.info.port", "0"); // any free port, reported to the master
    Map<String, String> saved = new HashMap<>();
    for (Map.Entry<String, String> e : all.entrySet()) {
      saved.put(e.getKey(), conf.get(e.getKey()));
      conf.set(e.getKey(), e.getValue());
    }
    JVMClusterUtil.RegionServerThread rs;
    try {
      rs = mini.startRegionServerAndWait(60_000);
    } finally {
      for (Map.Entry<String, String> e : saved.entrySet()) {
        if (e.getValue() == null) {
          conf.unset(e.getKey());
        } else {
          conf.set(e.getKey(), e.getValue());
        }
      }
    }
    // the master learns the port from the server's next report (every 3 s)
    ServerName started = rs.getRegionServer().getServerName();
    cluster
        .util()
        .waitFor(
            30_000,
            200,
            () -> {
              ServerMetrics m =
                  cluster.admin().getClusterMetrics().getLiveServerMetrics().get(started);
              return m != null && m.getInfoServerPort() > 0;
            });
    return rs;
  }

  /** Stops a server {@link #start} started. */
  static void stop(EmbeddedCluster cluster, JVMClusterUtil.RegionServerThread rs) {
    MiniHBaseCluster mini = cluster.util().getMiniHBaseCluster();
    int index = mini.getLiveRegionServerThreads().indexOf(rs);
    mini.stopRegionServer(index);
    mini.waitOnRegionServer(index);
  }
}
