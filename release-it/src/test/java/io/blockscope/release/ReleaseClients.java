package io.blockscope.release;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.JvmFlags;
import io.blockscope.harness.stock.ClusterFiles;
import io.blockscope.harness.stock.StockCluster;
import io.blockscope.testsupport.SqllineCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/**
 * The release's client side as users run it, each a process of its own: {@code bin/blockscope} from
 * the release directory, and sqlline through the hints driver from the release's {@code client/}
 * jar beside Phoenix's client class path (docs/hints.md).
 */
final class ReleaseClients {
  private ReleaseClients() {}

  /**
   * evaluate's options for PerformanceEvaluation's shape, 2^11 rows, FAST_DIFF and GZ, one run of
   * the default plain-HBase workloads (StockDeployIT adds the others), the tables kept: what {@link
   * #assertColdScansCounted} checks against their store files, on an open and on a secured cluster
   * alike.
   */
  static final String[] PE_RUN = {
    "--shape",
    "pe",
    "--rows",
    "2^11",
    "--configs",
    "FAST_DIFF,NONE+GZ",
    "--runs",
    "1",
    "--keep-tables"
  };

  /** Runs {@code bin/blockscope args...} from the release; fails unless it exits 0. */
  static String blockscope(StockCluster cluster, Path release, String name, List<String> args)
      throws Exception {
    return blockscope(cluster, release, name, args, Map.of());
  }

  /** As {@link #blockscope(StockCluster, Path, String, List)}, with more environment. */
  static String blockscope(
      StockCluster cluster, Path release, String name, List<String> args, Map<String, String> env)
      throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(release.resolve("bin/blockscope").toString());
    cmd.addAll(args);
    Map<String, String> all = new java.util.HashMap<>(env);
    all.put("JAVA_HOME", System.getProperty("java.home"));
    all.put("BLOCKSCOPE_DEBUG", "1"); // a failure's stack trace in the process's log
    return cluster.run(name, cmd, all, 10);
  }

  /**
   * Runs {@code bin/blockscope evaluate} from the release against the cluster ({@code target}: how
   * to reach it), checks that it succeeded with blockscope's costs from {@code /jmx}, no skipped
   * workload and exact store sizes, and returns results.json's configurations.
   */
  static List<JsonObject> evaluate(
      StockCluster cluster, Path release, String name, List<String> target, String... options)
      throws Exception {
    return evaluate(cluster, release, name, target, Map.of(), options);
  }

  /** As {@link #evaluate(StockCluster, Path, String, List, String...)}, with more environment. */
  static List<JsonObject> evaluate(
      StockCluster cluster,
      Path release,
      String name,
      List<String> target,
      Map<String, String> env,
      String... options)
      throws Exception {
    Path out = cluster.home.resolve("evaluate-" + name);
    List<String> args = new ArrayList<>(List.of("evaluate", "--out", out.toString()));
    args.addAll(target);
    args.addAll(List.of(options));
    String printed = blockscope(cluster, release, "evaluate-" + name, args, env);
    assertTrue(printed, !printed.contains("Cost columns empty"));
    assertTrue(printed, !printed.contains("Store sizes in whole MB"));
    assertTrue(printed, !printed.contains("skipped"));
    JsonObject doc =
        JsonParser.parseString(Files.readString(out.resolve("results.json"))).getAsJsonObject();
    assertTrue(
        doc.toString(),
        doc.getAsJsonObject("cluster")
            .get("storeFileSizeResolution")
            .getAsString()
            .startsWith("bytes"));
    assertTrue(doc.toString(), doc.get("costsUnavailable").isJsonNull());
    List<JsonObject> configs = new ArrayList<>();
    for (var c : doc.getAsJsonArray("configs")) {
      JsonObject config = c.getAsJsonObject();
      long bytes = config.get("storeFileBytes").getAsLong();
      // the files' lengths, not whole megabytes
      assertTrue(config.get("config") + " " + bytes, bytes > 0 && bytes % 1048576 != 0);
      configs.add(config);
    }
    return configs;
  }

  /**
   * What evaluate's cold scan of PerformanceEvaluation's 2^11 rows cost in each configuration, as
   * read from the region servers, against each configuration's kept table's store files (HBase's
   * block reader walking them in this JVM): every data block missed and read from the file system
   * once, with the files' data sections' bytes, every byte checksummed, FAST_DIFF's 2,048 cells
   * decoded, GZ's blocks decompressed. Drops the kept tables.
   */
  static void assertColdScansCounted(StockCluster cluster, List<JsonObject> configs)
      throws Exception {
    for (JsonObject config : configs) {
      JsonObject cold = config.getAsJsonObject("results").getAsJsonObject("raw.scan.no.cache");
      JsonObject costs = cold.getAsJsonObject("costs");
      TableName kept = TableName.valueOf(config.get("hbaseTable").getAsString());
      try {
        ClusterFiles.DataSection file = cluster.files().dataSection(kept);
        String what = config.get("config") + " (" + kept + ", " + file + "): " + cold;
        assertEquals(what, file.blocks(), costs.get("fs.read.blocks.data").getAsLong());
        assertEquals(what, file.blocks(), costs.get("blockCache.miss.data").getAsLong());
        assertEquals(what, file.bytes(), costs.get("fs.read.bytes.data").getAsLong());
        assertEquals(what, file.bytes(), costs.get("checksum.bytes").getAsLong());
        if (config.get("encoding").getAsString().equals("FAST_DIFF")) {
          assertEquals(what, 2048L, costs.get("decode.FAST_DIFF.cells").getAsLong());
        } else {
          assertEquals(what, file.blocks(), costs.get("decompress.GZ.blocks").getAsLong());
        }
      } finally {
        try (Admin admin = cluster.admin()) {
          admin.disableTable(kept);
          admin.deleteTable(kept);
        }
      }
    }
  }

  /**
   * Runs statements in sqlline through the release's hints driver and returns what it printed;
   * fails unless it exits 0. {@code confDir} (a client configuration directory, or null) goes first
   * on the class path, as Phoenix's own sqlline.py puts HBase's configuration there; Phoenix's
   * client is this JVM's unshaded class path.
   */
  static String sqlline(
      StockCluster cluster,
      Path release,
      String name,
      String url,
      List<String> jvmOptions,
      Path confDir,
      String... statements)
      throws Exception {
    String classpath =
        (confDir == null ? "" : confDir + ":")
            + driverJar(release)
            + ":"
            + System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> options = new ArrayList<>(OPENS);
    options.addAll(jvmOptions);
    return sqllineProcess(cluster, name, classpath, url, options, statements);
  }

  /**
   * Phoenix's shaded client jar, as stock-hbase/phoenix-client/obtain.sh obtained it for this build
   * (its record, {@code blockscope.phoenix.client.record}: the jar, and whether it was built now or
   * reused from the local Maven repository). Prints where it came from.
   */
  static Path phoenixShadedClient() throws Exception {
    Path record = Path.of(System.getProperty("blockscope.phoenix.client.record"));
    assertTrue("no " + record + " (release-it's build writes it)", Files.isRegularFile(record));
    Properties p = new Properties();
    try (var in = Files.newBufferedReader(record)) {
      p.load(in);
    }
    Path jar = Path.of(p.getProperty("jar", ""));
    String obtained = p.getProperty("obtained", "");
    assertTrue(
        record + ": " + p, obtained.startsWith("built: ") || obtained.startsWith("reused: "));
    assertTrue("no " + jar + " (" + obtained + ")", Files.isRegularFile(jar));
    System.out.println("Phoenix's shaded client: " + jar + " (" + obtained + ")");
    return jar;
  }

  /**
   * Runs statements in sqlline as Phoenix 5.2.1's {@code bin/sqlline.py} starts it on a Phoenix
   * binary install, with blockscope's driver beside it as docs/hints.md says: the class path is
   * {@code confDir}, sqlline and its jline, the log4j2 jars (the stock HBase install's), Phoenix's
   * shaded {@code phoenix-client-embedded-hbase-2.6.jar} ({@link #phoenixShadedClient}) and the
   * release's client jar, and nothing else; the JVM flags are sqlline.py's for JDK 11 and later.
   * Fails unless it exits 0.
   */
  static String sqllineShaded(
      StockCluster cluster,
      Path release,
      String name,
      String url,
      Path confDir,
      String... statements)
      throws Exception {
    List<String> cp = new ArrayList<>();
    cp.add(confDir.toString());
    for (String e :
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"))
            .split(":")) {
      if (e.contains("/sqlline/") || e.contains("/org/jline/") || e.contains("/jansi/")) {
        cp.add(e);
      }
    }
    for (String e :
        Files.readString(Path.of(System.getProperty("blockscope.server.classpath")))
            .trim()
            .split(":")) {
      if (e.contains("/org/apache/logging/log4j/")) {
        cp.add(e);
      }
    }
    cp.add(phoenixShadedClient().toString());
    cp.add(driverJar(release).toString());
    List<String> options =
        new ArrayList<>(
            List.of(
                "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true",
                "--add-modules",
                "jdk.unsupported",
                "--add-opens",
                "java.base/java.nio=ALL-UNNAMED",
                "--add-opens",
                "java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens",
                "java.base/java.lang=ALL-UNNAMED",
                "--add-opens",
                "java.base/jdk.internal.ref=ALL-UNNAMED",
                "--add-opens",
                "java.base/java.lang.reflect=ALL-UNNAMED",
                "--add-exports",
                "java.base/jdk.internal.misc=ALL-UNNAMED",
                "--add-exports",
                "java.security.jgss/sun.security.krb5=ALL-UNNAMED",
                "--add-exports",
                "java.base/sun.net.dns=ALL-UNNAMED",
                "--add-exports",
                "java.base/sun.net.util=ALL-UNNAMED"));
    return sqllineProcess(cluster, name, String.join(":", cp), url, options, statements);
  }

  private static final List<String> OPENS = JvmFlags.opens();

  /** The release's hints driver jar (its {@code client/} directory holds that one jar). */
  static Path driverJar(Path release) throws java.io.IOException {
    try (Stream<Path> s = Files.list(release.resolve("client"))) {
      return s.findFirst().orElseThrow(() -> new AssertionError("no jar in client/"));
    }
  }

  private static String sqllineProcess(
      StockCluster cluster,
      String name,
      String classpath,
      String url,
      List<String> jvmOptions,
      String... statements)
      throws Exception {
    Path home = cluster.home.resolve("sqlline-" + name);
    Files.createDirectories(home);
    Path script = home.resolve("script.sql");
    Files.writeString(script, String.join("\n", statements) + "\n!quit\n");
    List<String> cmd =
        SqllineCommand.of(
            home,
            classpath,
            url,
            jvmOptions,
            List.of(
                "--outputformat=csv",
                "--showHeader=false",
                "--silent=true",
                "-f",
                script.toString()));
    return cluster.run("sqlline-" + name, cmd, Map.of(), 5);
  }
}
