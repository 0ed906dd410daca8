package io.blockscope.benchmarks;

import io.blockscope.harness.stock.StockCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Where the benchmarks that start processes find the build's files: the source tree they run in.
 */
final class SourceTree {
  private SourceTree() {}

  /** The project's root: the first directory above this class's location with a pom and docs/. */
  static Path root() throws Exception {
    Path p =
        Paths.get(SourceTree.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    for (Path q = p; q != null; q = q.getParent()) {
      if (Files.isRegularFile(q.resolve("pom.xml")) && Files.isDirectory(q.resolve("docs"))) {
        return q;
      }
    }
    throw new IllegalStateException("this runs from the source tree; no project root above " + p);
  }

  /**
   * The stock HBase 2.6.1 install the build resolved (stock-hbase's server class path), its
   * processes on the JVM flags the build gives its own ({@link StockCluster.Install#of}).
   */
  static StockCluster.Install stockInstall(Path root) {
    Path serverClasspath = root.resolve("stock-hbase/target/server-classpath.txt");
    if (!Files.isRegularFile(serverClasspath)) {
      throw new IllegalStateException(
          serverClasspath + " is missing: build first (./mvnw install -DskipTests)");
    }
    return StockCluster.Install.of(serverClasspath);
  }

  /** The region server jar the release ships (coprocessors' shaded jar). */
  static Path coprocessorJar(Path root) throws Exception {
    Path target = root.resolve("coprocessors/target");
    if (Files.isDirectory(target)) {
      try (var files = Files.list(target)) {
        var jar =
            files
                .filter(
                    f -> {
                      String n = f.getFileName().toString();
                      return n.startsWith("blockscope-coprocessors-")
                          && n.endsWith(".jar")
                          && !n.endsWith("-sources.jar")
                          && !n.endsWith("-tests.jar");
                    })
                .findFirst();
        if (jar.isPresent()) {
          return jar.get();
        }
      }
    }
    throw new IllegalStateException(
        "no blockscope-coprocessors jar in "
            + target
            + ": build first (./mvnw install -DskipTests)");
  }
}
