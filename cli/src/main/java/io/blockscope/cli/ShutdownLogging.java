package io.blockscope.cli;

import org.apache.log4j.Level;
import org.apache.log4j.LogManager;

/**
 * The embedded cluster's shutdown, without its noise in the user's terminal: stopping MiniDFS,
 * ZooKeeper and HBase logs errors that are part of stopping (a DataNode's command processor
 * "encountered interrupt and exit", region servers losing their ZooKeeper session), which
 * log4j-cli.properties would print as it prints every ERROR of a run. From here on only
 * blockscope's own warnings are shown. Only under bin/blockscope (which sets that configuration):
 * tests keep their logs.
 */
final class ShutdownLogging {
  private ShutdownLogging() {}

  /** Called once the work is done, right before the embedded cluster is closed. */
  static void quiet() {
    if ("log4j-cli.properties".equals(System.getProperty("log4j.configuration"))) {
      LogManager.getRootLogger().setLevel(Level.OFF);
    }
  }

  /** A resource whose close quiets the logs: declared after the cluster, closed before it. */
  static AutoCloseable beforeClose() {
    return ShutdownLogging::quiet;
  }
}
