package io.blockscope.cli;

import io.blockscope.coprocessor.BlockscopeConfig;
import io.blockscope.harness.BeanReader;
import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.workloads.RawTable;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.util.Bytes;
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
        "Live read costs per namespace, table and region across the region servers, from their"
            + " /jmx: cache hits and misses, file-system blocks and bytes, checksum, decompression"
            + " and decode time, cells decoded, cells and bytes read from the memstore, per"
            + " second; and each server's probe health. On a terminal, keys change the view"
            + " while it runs (h lists them).")
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
          "hits, misses, cache-inserts, cache-unread, fs-blocks, fs-bytes, checksum,"
              + " decompress, decode, cells, memstore-cells or memstore-bytes"
              + " (default ${DEFAULT-VALUE}).")
  String sort;

  @Option(
      names = "--mode",
      description =
          "namespace, table, region or user (the users whose reads they were): the rows the text"
              + " view shows (default: tables, then regions; on a terminal, tables).")
  String mode;

  @Option(
      names = "--filter",
      description =
          "Show only the rows whose name contains this text, any case (table, region or"
              + " server name).")
  String filter;

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

  @Option(
      names = "--readers",
      defaultValue = "" + ServerReads.DEFAULT_READERS,
      description =
          "Region servers read at once, each on a thread of its own (default ${DEFAULT-VALUE};"
              + " 1 to "
              + ServerReads.MAX_READERS
              + "); the others wait for a free reader within the same refresh.")
  int readers;

  private final PrintStream out = System.out;

  /** The least time a reading waits for the servers, whatever --interval says. */
  static final int READ_SECONDS = 10;

  /** Where readings come from. */
  interface Source {
    List<TopView.ServerReading> read() throws IOException, InterruptedException;
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
    TopView.Mode m = mode == null ? null : TopView.Mode.parse(mode);
    if (filter != null && filter.isBlank()) {
      throw new IllegalArgumentException("--filter needs some text");
    }
    ServerReads.checkReaders(readers);
    int views = once ? 1 : iterations;
    if (cluster.remote()) {
      try (ClusterClient c = ClusterClient.connect(cluster);
          ServerReads reads = new ServerReads(readers)) {
        // every server read in parallel, all given until the next refresh, and at least 10 s (a
        // first reading logs in and negotiates SPNEGO and TLS with every server)
        Duration deadline = Duration.ofSeconds(Math.max(interval, READ_SECONDS));
        return run(() -> http(c, reads, deadline), by, m, views);
      }
    }
    String note = cluster.ignoredConfigNote();
    if (note != null) {
      System.err.println("blockscope top: " + note);
    }
    return embedded(by, m, views);
  }

  @SuppressWarnings({
    "SystemConsoleNull", // Java 17: null unless input and output are a terminal
    "try" // the terminal is only closed: back as it was
  })
  private Integer run(Source source, TopView.Figure by, TopView.Mode m, int views)
      throws Exception {
    boolean terminal = !once && format.equals("text") && System.console() != null;
    if (terminal) {
      Terminal t;
      try {
        t = Terminal.raw();
      } catch (IOException noKeys) {
        t = null; // no stty: the view still redraws, without keys
      }
      if (t != null) {
        try (Terminal keys = t) {
          return interactive(
              source, new TopSession(m == null ? TopView.Mode.TABLE : m, filter, by), views);
        }
      }
    }
    TopView.Scope scope =
        m == null && filter == null
            ? null
            : new TopView.Scope(m == null ? TopView.Mode.TABLE : m, null, filter);
    List<TopView.ServerReading> before = source.read();
    long t0 = System.nanoTime();
    for (int n = 0; views == 0 || n < views; n++) {
      TimeUnit.SECONDS.sleep(interval);
      List<TopView.ServerReading> after = source.read();
      long t1 = System.nanoTime();
      TopView v = TopView.between(before, after, t1 - t0);
      String shown =
          switch (format) {
            case "json" -> v.json(by, filter);
            case "csv" -> v.csv(by, filter);
            default ->
                scope == null ? v.text(by, limit, now()) : v.text(by, limit, now(), scope, -1);
          };
      out.print(terminal ? CLEAR + shown : shown);
      if (!terminal && !once && format.equals("text")) {
        out.println();
      }
      out.flush();
      before = after;
      t0 = t1;
    }
    return 0;
  }

  private static final String CLEAR = "\033[H\033[2J";

  private static String now() {
    return LocalTime.now(ZoneId.systemDefault()).format(DateTimeFormatter.ofPattern("HH:mm:ss"));
  }

  /**
   * The view on a terminal with keys: a reading every --interval seconds, and each key applied to
   * the last view at once (sorting, changing mode, filtering and drilling down need no new
   * reading).
   */
  private Integer interactive(Source source, TopSession session, int views) throws Exception {
    BlockingQueue<Integer> keys = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> Terminal.readKeys(System.in, keys), "top-keys");
    reader.setDaemon(true);
    reader.start();
    out.print(CLEAR + session.screen(null, limit, null, interval));
    out.flush();
    List<TopView.ServerReading> before = source.read();
    long t0 = System.nanoTime();
    long due = t0 + TimeUnit.SECONDS.toNanos(interval);
    TopView view = null;
    String when = null;
    for (int n = 0; views == 0 || n < views; ) {
      long wait = due - System.nanoTime();
      Integer key = wait > 0 ? keys.poll(wait, TimeUnit.NANOSECONDS) : null;
      if (key != null) {
        if (!session.key(key, view)) {
          break;
        }
      } else if (System.nanoTime() >= due) {
        List<TopView.ServerReading> after = source.read();
        long t1 = System.nanoTime();
        view = TopView.between(before, after, t1 - t0);
        when = now();
        before = after;
        t0 = t1;
        due = t1 + TimeUnit.SECONDS.toNanos(interval);
        n++;
      } else {
        continue;
      }
      out.print(CLEAR + session.screen(view, limit, when, interval));
      out.flush();
    }
    out.println();
    out.flush();
    return 0;
  }

  /**
   * Every live region server's blockscope beans, from its info server's {@code /jmx}, read as the
   * cluster serves it (HTTP or HTTPS, SPNEGO): all servers in parallel, each shown late if it has
   * not answered within {@code deadline}.
   */
  static List<TopView.ServerReading> http(ClusterClient c, ServerReads reads, Duration deadline)
      throws IOException, InterruptedException {
    List<InfoServer> servers = new ArrayList<>();
    Map<ServerName, ServerMetrics> live =
        c.connection.getAdmin().getClusterMetrics().getLiveServerMetrics();
    for (Map.Entry<ServerName, ServerMetrics> e : live.entrySet()) {
      servers.add(
          new InfoServer(
              e.getKey().getServerName(),
              e.getKey().getHostname(),
              e.getValue().getInfoServerPort()));
    }
    return http(c.infoServers, servers, reads, deadline);
  }

  /** A region server by its name, and where its info server listens (port 0 or less: nowhere). */
  record InfoServer(String server, String host, int port) {}

  /** The blockscope beans of {@code servers}, read through {@code http} as one refresh. */
  static List<TopView.ServerReading> http(
      InfoServerClient http, List<InfoServer> servers, ServerReads reads, Duration deadline)
      throws InterruptedException {
    List<ServerReads.Task> tasks = new ArrayList<>();
    for (InfoServer s : servers) {
      tasks.add(new ServerReads.Task(s.server(), () -> readServer(http, s)));
    }
    return reads.read(tasks, deadline);
  }

  /** One region server's blockscope beans, or a failed reading that says why there are none. */
  private static TopView.ServerReading readServer(InfoServerClient http, InfoServer s) {
    if (s.port() <= 0) {
      return TopView.ServerReading.failed(
          s.server(), "no info port (hbase.regionserver.info.port), so no /jmx");
    }
    String where = s.host() + ":" + s.port();
    try {
      Map<String, Long> values =
          BeanReader.of(pathAndQuery -> http.get(s.host(), s.port(), pathAndQuery), where).all();
      return values.isEmpty()
          ? TopView.ServerReading.failed(s.server(), "no blockscope beans: coprocessor not loaded")
          : new TopView.ServerReading(s.server(), null, values);
    } catch (IOException | RuntimeException unreadable) {
      return TopView.ServerReading.failed(
          s.server(), http.scheme() + "://" + where + "/jmx: " + unreadable.getMessage());
    }
  }

  /** This JVM's blockscope beans: the embedded cluster's one region server. */
  static List<TopView.ServerReading> local(String server) throws IOException {
    Map<String, Long> values =
        BeanReader.of(ManagementFactory.getPlatformMBeanServer(), "this JVM").all();
    return List.of(new TopView.ServerReading(server, null, values));
  }

  /**
   * An embedded cluster with two tables and a reader on each (scans and random gets, looping),
   * shown until the views are done or the process is interrupted.
   */
  @SuppressWarnings("try") // quiet is only closed, before the cluster
  private Integer embedded(TopView.Figure by, TopView.Mode m, int views) throws Exception {
    System.err.println(
        "blockscope top: no --zk; starting an embedded cluster with two tables and a reader and"
            + " writer on each (about a minute)...");
    Configuration conf = new Configuration(false);
    conf.setLong(BlockscopeConfig.EXPORT_INTERVAL_MS, 1_000);
    try (EmbeddedCluster cluster = EmbeddedCluster.start(conf);
        AutoCloseable quiet = ShutdownLogging.beforeClose()) {
      List<TableName> tables =
          List.of(TableName.valueOf("top_fast_diff"), TableName.valueOf("top_row_index"));
      RawTable.create(
          cluster.admin(),
          new RawTable.Spec(tables.get(0))
              .encoding(DataBlockEncoding.FAST_DIFF)
              .level(PerfLevel.TIME));
      RawTable.create(
          cluster.admin(),
          new RawTable.Spec(tables.get(1))
              .encoding(DataBlockEncoding.ROW_INDEX_V1)
              .level(PerfLevel.TIME));
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
        return run(() -> local(server), by, m, views);
      } finally {
        readers.forEach(Thread::interrupt);
        for (Thread r : readers) {
          r.join(10_000);
        }
      }
    }
  }

  /**
   * A full scan, then 200 random gets, then 100 new rows written (they stay in the memstore, so
   * later scans read them from there), again and again, until interrupted.
   */
  private static void read(EmbeddedCluster cluster, TableName t) {
    Random random = new Random(t.hashCode());
    int written = 50_000;
    try (Table table = cluster.connection().getTable(t)) {
      while (!Thread.currentThread().isInterrupted()) {
        RawTable.scanCells(cluster.connection(), t, new Scan().setCacheBlocks(false));
        for (int i = 0; i < 200 && !Thread.currentThread().isInterrupted(); i++) {
          table.get(new Get(RawTable.seedRow(random.nextInt(written))));
        }
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < 100; i++, written++) {
          puts.add(
              new Put(RawTable.seedRow(written))
                  .addColumn(RawTable.SEED_FAMILY, RawTable.SEED_V1, Bytes.toBytes(i)));
        }
        table.put(puts);
      }
    } catch (IOException | RuntimeException stopped) {
      // the cluster is shutting down
    }
  }
}
