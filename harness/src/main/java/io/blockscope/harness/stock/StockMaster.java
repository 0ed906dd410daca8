package io.blockscope.harness.stock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A {@link StockCluster}'s HMaster: its ports, its current process with its deployment's jars in
 * {@code master/lib}, and a log per start.
 */
final class StockMaster {
  final int port = StockCluster.freePort();
  final int infoPort = StockCluster.freePort();
  private final Launcher launcher;
  private final SiteFiles site;
  private final Path home;
  private final Daemon daemon = new Daemon("HMaster");
  private int starts;

  StockMaster(Launcher launcher, SiteFiles site, Path home) {
    this.launcher = launcher;
    this.site = site;
    this.home = home;
  }

  void start(StockCluster.Deployment d) throws IOException {
    Map<String, String> entries = site.base();
    entries.put("hbase.master.port", Integer.toString(port));
    entries.put("hbase.master.info.port", Integer.toString(infoPort));
    entries.putAll(d.site());
    Path conf = site.writeConf(home.resolve("master/conf"), entries);
    Path lib = home.resolve("master/lib");
    Files.createDirectories(lib);
    for (Path jar : d.libJars()) {
      Files.copy(jar, lib.resolve(jar.getFileName()));
    }
    starts++;
    daemon.started(
        launcher.launch(
            conf,
            lib,
            Stream.concat(Stream.of("-Xmx384m"), d.jvmOptions().stream()).toList(),
            "org.apache.hadoop.hbase.master.HMaster",
            List.of("start"),
            log()),
        log());
  }

  /** Stops the process (SIGTERM) and empties {@code master/lib} for the next start. */
  void stop() throws Exception {
    daemon.stop();
    StockCluster.deleteTree(home.resolve("master/lib"));
  }

  /** The current process's log (a new file per start). */
  Path log() {
    return home.resolve("logs/master-" + starts + ".log");
  }

  Daemon daemon() {
    return daemon;
  }
}
