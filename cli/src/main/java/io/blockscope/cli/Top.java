package io.blockscope.cli;

import io.blockscope.coprocessor.BlockscopeConfig;
import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.workloads.RawTable;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code blockscope top}: read costs across a cluster's region servers, live, from their {@code
 * /jmx} (or, without {@code --zk}, from an embedded cluster with a reader running, for a try).
 */
@Command(
    name = "top",
    mixinStandardHelpOptions = true,
    description =
        "Live read costs per table and region across the region servers, from their /jmx:"
            + " cache hits and misses, file-system blocks and bytes, checksum, decompression and"
            + " decode time, cells decoded, per second; and each server's probe health.")
final class Top implements Callable<Integer> {
  /** The cluster to read; without --zk, --config or --hbase-site, an embedded one. */
  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Option(
      names = "--interval",
      defaultValue = "5",
      description = "Seconds between readings (default ${DEFAULT-VALUE}; 1 to 3600).")
  int interval;

  @Option(
      names = "--once",
      description = "Print one view (two readings --interval apart) and exit.")
  boolean once;

  @Option(
      names = "--format",
      defaultValue = "text",
      description = "text, json or csv (default ${DEFAULT-VALUE}).")
  String format;

  @Option(
      names = "--sort",
      defaultValue = "fs-bytes",
      description =
          "hits, misses, fs-blocks, fs-bytes, checksum, decompress, decode or cells (default"
              + " ${DEFAULT-VALUE}).")
  String sort;

  @Option(
      names = "--limit",
      defaultValue = "15",
      description = "Tables and regions shown in text (default ${DEFAULT-VALUE}).")
  int limit;

  @Option(
      names = "--iterations",
      defaultValue = "0",
      description = "Views to print before exiting (default: until interrupted).")
  int iterations;

  private final PrintStream out = System.out;

  /** Where readings come from. */
  interface Source {
    List<TopView.ServerReading> read() throws IOException;
  }

  @Override
  public Integer call() throws Exception {
    if (interval < 1 || interval > 3600) {
      throw new IllegalArgumentException("--interval must be 1 to 3600 seconds, got " + interval);
    }
    if (!List.of("text", "json", "csv").contains(format)) {
      throw new IllegalArgumentException("bad --format '" + format + "': use text, json or csv");
    }
    if (limit < 1) {
      throw new IllegalArgumentException("--limit must be at least 1, got " + limit);
    }
    TopView.Figure by = TopView.Figure.parse(sort);
    int views = once ? 1 : iterations;
    if (cluster.remote()) {
      try (ClusterClient c = ClusterClient.connect(cluster)) {
        return run(() -> http(c), by, views);
      }
    }
    String note = cluster.ignoredConfigNote();
    if (note != null) {
      System.err.println("blockscope top: " + note);
    }
    return embedded(by, views);
  }

  @SuppressWarnings("SystemConsoleNull") // Java 17: null when the output is not a terminal
  private Integer run(Source source, TopView.Figure by, int views) throws Exception {
    boolean clear = !once && format.equals("text") && System.console() != null;
    List<TopView.ServerReading> before = source.read();
    long t0 = System.nanoTime();
    for (int n = 0; views == 0 || n < views; n++) {
      TimeUnit.SECONDS.sleep(interval);
      List<TopView.ServerReading> after = source.read();
      long t1 = System.nanoTime();
      TopView v = TopView.between(before, after, t1 - t0);
      String when =
          LocalTime.now(ZoneId.systemDefault()).format(DateTimeFormatter.ofPattern("HH:mm:ss"));
      String shown =
          switch (format) {
            case "json" -> v.json(by);
            case "csv" -> v.csv(by);
            default -> v.text(by, limit, when);
          };
      out.print(clear ? "\033[H\033[2J" + shown : shown);
      if (!clear && !once && format.equals("text")) {
        out.println();
      }
      out.flush();
      before = after;
      t0 = t1;
    }
    return 0;
  }

  /**
   * Every live region server's blockscope beans, from its info server's {@code /jmx}, read as the
   * cluster serves it (HTTP or HTTPS, SPNEGO).
   */
  static List<TopView.ServerReading> http(ClusterClient c) throws IOException {
    List<TopView.ServerReading> readings = new ArrayList<>();
    String q = URLEncoder.encode("blockscope:*", StandardCharsets.UTF_8);
    Map<ServerName, ServerMetrics> live =
        c.connection.getAdmin().getClusterMetrics().getLiveServerMetrics();
    for (Map.Entry<ServerName, ServerMetrics> e : live.entrySet()) {
      String server = e.getKey().getServerName();
      int port = e.getValue().getInfoServerPort();
      if (port <= 0) {
        readings.add(
            TopView.ServerReading.failed(
                server, "no info port (hbase.regionserver.info.port), so no /jmx"));
        continue;
      }
      String host = e.getKey().getHostname();
      try {
        Map<String, Long> values = new LinkedHashMap<>();
        JsonObject doc =
            JsonParser.parseString(c.infoServers.get(host, port, "/jmx?qry=" + q))
                .getAsJsonObject();
        for (JsonElement b : doc.getAsJsonArray("beans")) {
          JsonObject bean = b.getAsJsonObject();
          JsonElement v = bean.has("Count") ? bean.get("Count") : bean.get("Value");
          if (v != null && v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber()) {
            values.put(bean.get("name").getAsString(), v.getAsLong());
          }
        }
        if (values.isEmpty()) {
          readings.add(
              TopView.ServerReading.failed(server, "no blockscope beans: coprocessor not loaded"));
        } else {
          readings.add(new TopView.ServerReading(server, null, values));
        }
      } catch (IOException | RuntimeException unreadable) {
        readings.add(
            TopView.ServerReading.failed(
                server,
                c.infoServers.scheme()
                    + "://"
                    + host
                    + ":"
                    + port
                    + "/jmx: "
                    + unreadable.getMessage()));
      }
    }
    return readings;
  }

  /** This JVM's blockscope beans: the embedded cluster's one region server. */
  static List<TopView.ServerReading> local(String server) throws IOException {
    MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
    Map<String, Long> values = new LinkedHashMap<>();
    try {
      for (ObjectName n : mbs.queryNames(new ObjectName("blockscope:*"), null)) {
        Object v;
        try {
          v = mbs.getAttribute(n, "Count");
        } catch (javax.management.AttributeNotFoundException notACounter) {
          v = mbs.getAttribute(n, "Value");
        }
        if (v instanceof Number num) {
          values.put(n.getCanonicalName(), num.longValue());
        }
      }
    } catch (javax.management.JMException e) {
      throw new IOException("cannot read this JVM's blockscope beans: " + e, e);
    }
    return List.of(new TopView.ServerReading(server, null, values));
  }

  /**
   * An embedded cluster with two tables and a reader on each (scans and random gets, looping),
   * shown until the views are done or the process is interrupted.
   */
  @SuppressWarnings("try") // quiet is only closed, before the cluster
  private Integer embedded(TopView.Figure by, int views) throws Exception {
    System.err.println(
        "blockscope top: no --zk; starting an embedded cluster with two tables and a reader on each"
            + " (about a minute)...");
    Configuration conf = new Configuration(false);
    conf.setLong(BlockscopeConfig.EXPORT_INTERVAL_MS, 1_000);
    try (EmbeddedCluster cluster = EmbeddedCluster.start(conf);
        AutoCloseable quiet = ShutdownLogging.beforeClose()) {
      List<TableName> tables =
          List.of(TableName.valueOf("top_fast_diff"), TableName.valueOf("top_row_index"));
      RawTable.create(
          cluster.admin(),
          new RawTable.Spec(tables.get(0)).encoding(DataBlockEncoding.FAST_DIFF).level("TIME"));
      RawTable.create(
          cluster.admin(),
          new RawTable.Spec(tables.get(1)).encoding(DataBlockEncoding.ROW_INDEX_V1).level("TIME"));
      for (TableName t : tables) {
        RawTable.loadSeed(cluster.connection(), cluster.admin(), t, 50_000, 1);
      }
      List<Thread> readers = new ArrayList<>();
      for (TableName t : tables) {
        Thread r = new Thread(() -> read(cluster, t), "top-reader-" + t.getNameAsString());
        r.setDaemon(true);
        r.start();
        readers.add(r);
      }
      String server = cluster.regionServer().getServerName().getServerName();
      try {
        return run(() -> local(server), by, views);
      } finally {
        readers.forEach(Thread::interrupt);
        for (Thread r : readers) {
          r.join(10_000);
        }
      }
    }
  }

  /** A full scan, then 200 random gets, again and again, until interrupted. */
  private static void read(EmbeddedCluster cluster, TableName t) {
    Random random = new Random(t.hashCode());
    try (Table table = cluster.connection().getTable(t)) {
      while (!Thread.currentThread().isInterrupted()) {
        RawTable.scanCells(cluster.connection(), t, new Scan().setCacheBlocks(false));
        for (int i = 0; i < 200 && !Thread.currentThread().isInterrupted(); i++) {
          table.get(new Get(RawTable.seedRow(random.nextInt(50_000))));
        }
      }
    } catch (IOException | RuntimeException stopped) {
      // the cluster is shutting down
    }
  }
}
