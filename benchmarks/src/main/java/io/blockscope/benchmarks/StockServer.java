package io.blockscope.benchmarks;

import io.blockscope.harness.stock.RegionServer;
import io.blockscope.harness.stock.StockCluster;
import io.blockscope.harness.stock.StockCluster.Deployment;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

/**
 * The process-level benchmarks' cluster: a stock HBase 2.6.1 install's ZooKeeper, master and one
 * region server as processes of their own ({@link StockCluster}), the region server with the
 * release's coprocessor jar in its {@code lib/} and its {@code -javaagent}, as docs/deploy.md's way
 * 1 installs it, and a jar holding only {@link EmptyObserver} beside it. The master has both jars
 * too (it checks that a table's coprocessor class loads) and no agent. The cluster's files live in
 * a scratch directory, removed on close after {@link #succeeded}, kept (and named) otherwise.
 */
final class StockServer implements AutoCloseable {
  final Path coprocessorJar;
  final StockCluster cluster;
  final RegionServer server;
  private final String command;
  private final Path work;
  private boolean succeeded;

  private StockServer(String command, Path work, Path jar, StockCluster cluster) {
    this.command = command;
    this.work = work;
    this.coprocessorJar = jar;
    this.cluster = cluster;
    this.server = cluster.regionServers().get(0);
  }

  /** Starts the cluster; {@code site} and {@code jvmOptions} are the region server's extras. */
  static StockServer start(String command, Map<String, String> site, List<String> jvmOptions)
      throws Exception {
    Path root = SourceTree.root();
    StockCluster.Install install = SourceTree.stockInstall(root);
    Path jar = SourceTree.coprocessorJar(root);
    Path work = Files.createTempDirectory("blockscope-" + command);
    Path emptyObserver = emptyObserverJar(work.resolve("empty-observer.jar"));
    List<String> options = new ArrayList<>(jvmOptions);
    options.add("-javaagent:${lib}/" + jar.getFileName());
    try {
      StockCluster c =
          StockCluster.start(
              work.resolve("cluster"),
              install,
              new Deployment(List.of(jar, emptyObserver), Map.of(), List.of()),
              List.of(new Deployment(List.of(jar, emptyObserver), site, options)));
      return new StockServer(command, work, jar, c);
    } catch (Exception | AssertionError e) {
      System.err.println(command + ": the cluster's logs are in " + work.resolve("cluster/logs"));
      throw e;
    }
  }

  /** The run got its figures: close removes the cluster's files. */
  void succeeded() {
    succeeded = true;
  }

  @Override
  public void close() throws IOException {
    cluster.close();
    if (succeeded) {
      StockCluster.deleteTree(work);
    } else {
      System.err.println(command + ": the cluster's logs are in " + work.resolve("cluster/logs"));
    }
  }

  /** A jar holding {@link EmptyObserver} alone, for a server's {@code lib/}. */
  private static Path emptyObserverJar(Path jar) throws IOException {
    String entry = EmptyObserver.class.getName().replace('.', '/') + ".class";
    try (InputStream in = StockServer.class.getClassLoader().getResourceAsStream(entry);
        JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      if (in == null) {
        throw new IllegalStateException("no " + entry + " on the class path");
      }
      out.putNextEntry(new JarEntry(entry));
      in.transferTo(out);
      out.closeEntry();
    }
    return jar;
  }
}
