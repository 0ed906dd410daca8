package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.workloads.RawTable;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import picocli.CommandLine;

/**
 * {@code blockscope top} against the shared embedded cluster through ZooKeeper and the region
 * servers' {@code /jmx}, as against a real cluster: a second region server is started with an info
 * port (the first has none, as the embedded cluster runs it, and is reported unreadable), and a
 * cold scan between two readings shows, for its table and region, exactly what blockscope's engine
 * counted in between: every data block missed and read once, its bytes, cells and decode time.
 */
public class TopIT {
  private static EmbeddedCluster cluster;
  private static JVMClusterUtil.RegionServerThread withInfoPort;
  private static final TableName TABLE = TableName.valueOf("top_it");

  @BeforeClass
  public static void start() throws Exception {
    cluster = EmbeddedCluster.shared();
    withInfoPort = InfoPortServer.start(cluster);
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(TABLE).encoding(DataBlockEncoding.FAST_DIFF).level(PerfLevel.TIME));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), TABLE, 5_000, 2);
  }

  @AfterClass
  public static void stop() throws Exception {
    cluster.admin().disableTable(TABLE);
    cluster.admin().deleteTable(TABLE);
    InfoPortServer.stop(cluster, withInfoPort);
  }

  @Test(timeout = 180_000)
  public void aColdScanBetweenTwoReadingsIsWhatTheTrailerHas() throws Exception {
    List<HRegion> regions = cluster.regions(TABLE);
    String region = regions.get(0).getRegionInfo().getEncodedName();
    ClusterOptions options = new ClusterOptions();
    options.zk = cluster.zkAddress();
    options.maxReplyMb = 256;
    try (ClusterClient c = ClusterClient.connect(options);
        ServerReads reads = new ServerReads()) {
      // a first cached scan gives the table its block cache series before the readings
      RawTable.scanCells(cluster.connection(), TABLE, new Scan());
      for (JVMClusterUtil.RegionServerThread rs :
          cluster.util().getMiniHBaseCluster().getLiveRegionServerThreads()) {
        rs.getRegionServer().getBlockCache().ifPresent(b -> StoreFiles.evict(b, regions));
      }
      for (int i = 0; i < 3; i++) { // registered, then showing their figures
        cluster.diagnostics().refreshExport();
      }
      CostSnapshot held = cluster.diagnostics().registry().tableSnapshot(TABLE.getNameAsString());
      List<TopView.ServerReading> before = Top.http(c, reads, Duration.ofSeconds(30));
      RawTable.scanCells(cluster.connection(), TABLE, new Scan());
      cluster.diagnostics().refreshExport();
      List<TopView.ServerReading> after = Top.http(c, reads, Duration.ofSeconds(30));
      CostSnapshot rose =
          cluster.diagnostics().registry().tableSnapshot(TABLE.getNameAsString()).minus(held);
      TopView v = TopView.between(before, after, 1_000_000_000L);
      System.out.println(v.text(TopView.Figure.MISSES, 5, "TopIT"));
      assertEquals(2, v.servers.size());
      assertEquals(
          "the embedded cluster's first server has no info port",
          1,
          v.servers.stream().filter(s -> s.error() != null).count());
      TopView.Server readable =
          v.servers.stream().filter(s -> s.error() == null).findFirst().orElseThrow();
      assertEquals(readable.toString(), ProbeBridge.N_PROBES, readable.probes());
      assertEquals(readable.toString(), ProbeBridge.N_PROBES, readable.probesInstalled());
      TopView.Row t =
          v.tables.stream()
              .filter(r -> r.table().equals(TABLE.getNameAsString()))
              .findFirst()
              .orElseThrow();
      // a cold scan: every data block of the store file (as its trailer says) missed and read
      // once, and every cell decoded once; the bytes and times are the engine's rise
      long[] trailer = StoreFiles.trailerDataBlocksAndCells(regions);
      long misses = trailer[0];
      assertEquals(rose.toString(), misses, rose.sumKinds("blockCache.miss"));
      assertEquals(v.tables.toString(), misses, t.count(TopView.Figure.MISSES));
      assertEquals(misses, t.count(TopView.Figure.FS_BLOCKS));
      assertEquals(
          "each block missed went into the cache", misses, t.count(TopView.Figure.CACHE_INSERTS));
      assertEquals("the cache holds every table here", 0, t.count(TopView.Figure.CACHE_UNREAD));
      assertEquals(trailer[1], t.count(TopView.Figure.CELLS));
      assertEquals(rose.sumKinds("fs.read.bytes"), t.count(TopView.Figure.FS_BYTES));
      assertEquals(rose.get("decode.FAST_DIFF.nanos"), t.count(TopView.Figure.DECODE));
      TopView.Row r =
          v.regions.stream().filter(x -> x.region().equals(region)).findFirst().orElseThrow();
      assertEquals(misses, r.count(TopView.Figure.MISSES));
    }
  }

  @Test(timeout = 180_000)
  public void theCommandPrintsOneViewAndExits() throws Exception {
    PrintStream saved = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code;
    try (PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      code =
          new CommandLine(new BlockscopeCli())
              .execute(
                  "top",
                  "--zk",
                  cluster.zkAddress(),
                  "--once",
                  "--interval",
                  "1",
                  "--sort",
                  "misses");
    } finally {
      System.setOut(saved);
    }
    String printed = bytes.toString(StandardCharsets.UTF_8);
    System.out.println("blockscope top --once printed:\n" + printed);
    assertEquals(printed, 0, code);
    assertTrue(printed, printed.startsWith("blockscope top: 2 region servers, "));
    assertTrue(printed, printed.contains("unreadable: no info port"));
    assertTrue(printed, printed.contains(ProbeBridge.N_PROBES + "/" + ProbeBridge.N_PROBES));
    assertTrue(printed, printed.contains("cache miss/s"));
  }

  // ---- an interactive session in a real terminal ----------------------------------------------

  /** tmux, which the session runs in. */
  private static String tmux() {
    return DebianBinary.find("tmux", "tmux");
  }

  /** One tmux server of this test's own (its socket), with the session {@code top}. */
  private record Tmux(String binary, String socket) {
    String run(String... args) throws Exception {
      List<String> cmd = new ArrayList<>(List.of(binary, "-L", socket));
      cmd.addAll(List.of(args));
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue("tmux " + String.join(" ", args) + " hangs", p.waitFor(30, TimeUnit.SECONDS));
      assertEquals("tmux " + String.join(" ", args) + ": " + out, 0, p.exitValue());
      return out;
    }

    String screen() throws Exception {
      return run("capture-pane", "-p", "-t", "top").stripTrailing() + "\n";
    }

    void keys(String... keys) throws Exception {
      List<String> args = new ArrayList<>(List.of("send-keys", "-t", "top"));
      args.addAll(List.of(keys));
      run(args.toArray(new String[0]));
    }
  }

  /** Waits up to a minute for the screen to show what {@code shows} wants; returns it. */
  private static String await(Tmux t, String what, Predicate<String> shows) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String screen = t.screen();
    while (!shows.test(screen)) {
      if (System.nanoTime() > end) {
        throw new AssertionError("the screen never showed " + what + ":\n" + screen);
      }
      TimeUnit.MILLISECONDS.sleep(200);
      screen = t.screen();
    }
    return screen;
  }

  /** The memstore cells/s of a row of the view: the last column but one. */
  private static double memstore(String row) {
    String[] columns = row.trim().split("\\s+");
    return Double.parseDouble(columns[columns.length - 2].replace(",", ""));
  }

  /** The lines of a screen that are rows of its view (a marked or an indented label). */
  private static List<String> rowsOf(String screen, String header) {
    List<String> rows = new ArrayList<>();
    boolean in = false;
    for (String line : screen.split("\n")) {
      if (line.startsWith("  " + header + " ")) {
        in = true;
      } else if (in && (line.startsWith("> ") || line.startsWith("  ")) && !line.isBlank()) {
        rows.add(line);
      } else if (in) {
        break;
      }
    }
    return rows;
  }

  /**
   * {@code blockscope top} in a real terminal (a tmux pane, 320 x 50, wide enough for a region's
   * row), started as {@code bin/blockscope} starts it, driven by keys while it runs: tables first,
   * then namespaces, a filter, a sort column moved to the memstore's cells, a drill into a
   * namespace and into a table down to its region, back up twice, the filter cleared, the help, and
   * q. Every screen is kept in target/top-session.txt (docs/top.md shows them).
   */
  @Test(timeout = 600_000)
  public void aSessionInATerminalFollowsItsKeys() throws Exception {
    Tmux t = new Tmux(tmux(), "blockscope-top-" + ProcessHandle.current().pid());
    cluster.admin().createNamespace(NamespaceDescriptor.create("top_ns").build());
    TableName orders = TableName.valueOf("top_ns:orders");
    RawTable.create(cluster.admin(), new RawTable.Spec(orders).level(PerfLevel.COUNT));
    try (Table table = cluster.connection().getTable(orders)) {
      List<Put> puts = new ArrayList<>();
      for (int pk = 0; pk < 2_000; pk++) {
        puts.add(
            new Put(RawTable.seedRow(pk))
                .addColumn(RawTable.SEED_FAMILY, RawTable.SEED_V1, Bytes.toBytes(pk)));
      }
      table.put(puts); // left in the memstore: its reads are memstore reads
    }
    AtomicBoolean reading = new AtomicBoolean(true);
    Thread reader =
        new Thread(
            () -> {
              try {
                while (reading.get()) {
                  RawTable.scanCells(cluster.connection(), orders, new Scan());
                  RawTable.scanCells(cluster.connection(), TABLE, new Scan());
                }
              } catch (Exception stopped) {
                // the test is over
              }
            },
            "top-session-reader");
    reader.start();
    Path target = Path.of("target");
    Path script = target.resolve("top-session.sh");
    Files.writeString(
        script,
        "exec 2>"
            + target.toAbsolutePath().resolve("top-session.log")
            + "\n'"
            + Path.of(System.getProperty("java.home"), "bin", "java")
            + "' "
            + Files.readString(target.resolve("jvm.options")).trim()
            + " -Dlog4j.configuration=log4j-cli.properties -cp '"
            + target.toAbsolutePath().resolve("classes")
            + File.pathSeparator
            + Files.readString(target.resolve("classpath.txt")).trim()
            + "' io.blockscope.cli.BlockscopeCli top --zk "
            + cluster.zkAddress()
            + " --interval 1 --limit 8\necho \"top exited with $?\"\nsleep 600\n");
    StringBuilder session = new StringBuilder();
    try {
      t.run(
          "new-session",
          "-d",
          "-s",
          "top",
          "-x",
          "320",
          "-y",
          "50",
          "sh " + script.toAbsolutePath());
      // the memstore table's figures, once its series exist and have been read over an interval
      String s =
          await(
              t,
              "the first view, tables, with the memstore table's reads",
              x ->
                  x.contains("tables: ")
                      && rowsOf(x, "table").stream()
                          .anyMatch(
                              l ->
                                  l.contains(" " + orders.getNameAsString() + " ")
                                      && memstore(l) > 0));
      // the view after it, so that the rates are over a whole interval (a series that appeared
      // in the interval before counted from zero)
      String first = s.lines().findFirst().orElseThrow();
      s =
          await(
              t,
              "the next view",
              x ->
                  !x.startsWith(first)
                      && rowsOf(x, "table").stream()
                          .anyMatch(
                              l ->
                                  l.contains(" " + orders.getNameAsString() + " ")
                                      && memstore(l) > 0));
      session.append("$ bin/blockscope top --zk ... --interval 1 --limit 8\n").append(s);
      assertTrue(s, s.contains("sorted by fs MiB/s"));
      assertTrue(s, s.contains(TopSession.KEYS));

      t.keys("n");
      s = await(t, "namespaces", x -> x.contains("namespaces: "));
      session.append("\n[n]\n").append(s);
      assertTrue(
          s, rowsOf(s, "namespace").stream().anyMatch(l -> l.substring(2).startsWith("top_ns ")));
      assertTrue(
          s, rowsOf(s, "namespace").stream().anyMatch(l -> l.substring(2).startsWith("default ")));

      t.keys("/", "top_");
      s = await(t, "the filter being typed", x -> x.contains("filter: top__"));
      session.append("\n[/ top_]\n").append(s);
      t.keys("Enter");
      s = await(t, "the filter kept", x -> x.contains("namespaces matching 'top_': 1 of "));
      session.append("\n[/ top_ Enter]\n").append(s);
      assertEquals(s, 1, rowsOf(s, "namespace").size());
      assertTrue(s, rowsOf(s, "namespace").get(0).startsWith("> top_ns "));

      t.keys(">", ">", ">", ">", ">");
      s =
          await(
              t,
              "the sort moved right five columns",
              x -> x.contains("sorted by memstore cells/s"));
      session.append("\n[> > > > >]\n").append(s);

      t.keys("Enter");
      s = await(t, "the namespace's tables", x -> x.contains("tables in namespace top_ns"));
      session.append("\n[Enter]\n").append(s);
      assertEquals(
          s,
          List.of("> top_ns:orders"),
          rowsOf(s, "table").stream().map(l -> l.substring(0, l.indexOf("orders") + 6)).toList());

      t.keys("Enter");
      s = await(t, "the table's regions", x -> x.contains("regions of table top_ns:orders: 1 of "));
      session.append("\n[Enter]\n").append(s);
      String region = cluster.regions(orders).get(0).getRegionInfo().getEncodedName();
      List<String> rows = rowsOf(s, "region");
      assertEquals(s, 1, rows.size());
      assertTrue(s, rows.get(0).startsWith("> top_ns:orders/" + region + " ("));
      assertTrue("the region reads from the memstore: " + s, memstore(rows.get(0)) > 0);

      t.keys("u");
      s =
          await(
              t,
              "back to the namespace's tables",
              x -> x.contains("tables in namespace top_ns: 1 of "));
      session.append("\n[u]\n").append(s);
      t.keys("u");
      s =
          await(
              t,
              "back to the namespaces",
              x -> x.contains("namespaces: ") && !x.contains("matching"));
      session.append("\n[u]\n").append(s);
      assertTrue(s, rowsOf(s, "namespace").size() >= 2);

      t.keys("h");
      s = await(t, "the help", x -> x.contains("blockscope top: keys"));
      session.append("\n[h]\n").append(s);
      t.keys("x");
      s = await(t, "the view again", x -> x.contains("namespaces: "));
      session.append("\n[x]\n").append(s);

      // the readings went on while keys were pressed: the view is a new one within a minute
      String shown = s.lines().findFirst().orElseThrow();
      s = await(t, "a new reading", x -> !x.startsWith(shown) && x.contains("namespaces: "));
      session.append("\n[a new reading]\n").append(s);

      t.keys("q");
      s = await(t, "top's exit", x -> x.contains("top exited with "));
      session.append("\n[q]\n").append(s);
      assertTrue(s, s.contains("top exited with 0"));
    } finally {
      reading.set(false);
      reader.join(30_000);
      Files.writeString(target.resolve("top-session.txt"), session.toString());
      System.out.println("the session, screen by screen:\n" + session);
      try {
        t.run("kill-server");
      } catch (AssertionError | Exception gone) {
        // the server ended with its session
      }
      cluster.admin().disableTable(orders);
      cluster.admin().deleteTable(orders);
      cluster.admin().deleteNamespace("top_ns");
    }
  }
}
