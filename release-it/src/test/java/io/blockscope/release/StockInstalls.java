package io.blockscope.release;

import io.blockscope.harness.stock.StockCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** The stock installs the build prepared, as the surefire configuration names them. */
final class StockInstalls {
  private StockInstalls() {}

  /**
   * The version of {@link #hbase()}, as its processes report it (see StockChecks#assertVersions).
   */
  static final String HBASE_VERSION = "2.6.1";

  /** The stock HBase 2.6.1 install (stock-hbase's server class path). */
  static StockCluster.Install hbase() {
    return of(Path.of(System.getProperty("blockscope.server.classpath")));
  }

  /** Another HBase install, by the file listing its server class path. */
  static StockCluster.Install of(Path serverClasspath) {
    return StockCluster.Install.of(serverClasspath);
  }

  /** Phoenix 5.2.1's server side, as the stock suites add it to every server's lib/. */
  static List<Path> phoenixServerJars() throws IOException {
    return StockCluster.phoenixServerJars(
        Path.of(System.getProperty("blockscope.server.classpath")),
        Path.of(System.getProperty("blockscope.phoenix.classpath")));
  }
}
