package io.blockscope.harness.stock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link StockCluster}'s ZooKeeper: one standalone server ({@code ZooKeeperServerMain}) on a
 * loopback port, a process of its own with its data under the cluster's home; on a secured cluster
 * with its own SASL login.
 */
final class StockZooKeeper {
  final int port = StockCluster.freePort();
  private final Launcher launcher;
  private final Path home;
  private final StockSecurity realm;
  private final Daemon daemon = new Daemon("ZooKeeper");

  StockZooKeeper(Launcher launcher, Path home, StockSecurity realm) {
    this.launcher = launcher;
    this.home = home;
    this.realm = realm;
  }

  void start() throws IOException {
    Path data = home.resolve("zookeeper");
    Files.createDirectories(data);
    List<String> opts =
        new ArrayList<>(List.of("-Xmx128m", "-Dzookeeper.admin.enableServer=false"));
    if (realm != null) {
      opts.addAll(realm.zooKeeperOptions());
    }
    Path log = home.resolve("logs/zookeeper.log");
    daemon.started(
        launcher.launch(
            null,
            null,
            opts,
            "org.apache.zookeeper.server.ZooKeeperServerMain",
            List.of(Integer.toString(port), data.toString()),
            log),
        log);
  }

  Daemon daemon() {
    return daemon;
  }
}
