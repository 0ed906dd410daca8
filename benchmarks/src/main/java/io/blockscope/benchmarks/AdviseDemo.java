package io.blockscope.benchmarks;

import io.blockscope.coprocessor.BlockscopeConfig;
import io.blockscope.coprocessor.BlockscopeRegionObserver;
import io.blockscope.harness.BeanReader;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.Stats;
import io.blockscope.workloads.RawTable;
import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;

/**
 * {@code bin/blockscope advise-demo}: issue 58's demonstration on a stock HBase 2.6.1 region server
 * with blockscope. Three tables are read live, each with its own mix, while {@code bin/blockscope
 * advise} watches them: two hold the same rows (the seeds' shape, FAST_DIFF), one read with random
 * gets and one with full scans; the third holds 1,000-byte random values, read with both. Then, for
 * each table advise told to change, a copy with the current setting and a copy with the advised
 * one, each holding every row of the table, are driven with the table's mix, interleaved round by
 * round, and the figures advise promised are compared: the client's, the server's time per read
 * (blockscope's own figures) and the store files.
 *
 * <p>Options: {@code --rows N} (rows of the two seeds-shaped tables, default 300,000), {@code
 * --window 2m} (the live window), {@code --rounds N} (verification rounds, default 10), {@code
 * --size-weight W} (advise's, default 0.25), {@code --configs LIST} (advise's candidates, default
 * ROW_INDEX_V1+GZ,FAST_DIFF+GZ,ROW_INDEX_V1,NONE), {@code --out DIR}.
 */
public final class AdviseDemo {
  private static final TableName GETS = TableName.valueOf("demo_gets");
  private static final TableName SCANS = TableName.valueOf("demo_scans");
  private static final TableName FLAT = TableName.valueOf("demo_flat");
  private static final int FLAT_ROWS = 20_000;
  private static final int GETS_PER_ROUND = 2_000;

  private int rows = 300_000;
  private String window = "2m";
  private int rounds = 10;
  private Path out = Path.of("blockscope-advise-demo");
  private String sizeWeight = "0.25";
  private String configs = "ROW_INDEX_V1+GZ,FAST_DIFF+GZ,ROW_INDEX_V1,NONE";
  private Connection connection;

  public static void main(String[] args) throws Exception {
    AdviseDemo d = new AdviseDemo();
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--rows" -> d.rows = Integer.parseInt(args[i + 1]);
        case "--window" -> d.window = args[i + 1];
        case "--rounds" -> d.rounds = Integer.parseInt(args[i + 1]);
        case "--out" -> d.out = Path.of(args[i + 1]);
        case "--size-weight" -> d.sizeWeight = args[i + 1];
        case "--configs" -> d.configs = args[i + 1];
        default -> {
          System.err.println("advise-demo: unknown option " + args[i]);
          System.exit(2);
        }
      }
    }
    d.run();
    System.exit(0);
  }

  private void run() throws Exception {
    Files.createDirectories(out);
    try (StockServer s =
        StockServer.start(
            "advise-demo",
            Map.of(
                "hbase.coprocessor.region.classes",
                BlockscopeRegionObserver.class.getName(),
                BlockscopeConfig.TABLE_MAX_LEVEL,
                PerfLevel.TIME.name(),
                BlockscopeConfig.EXPORT_INTERVAL_MS,
                "1000"),
            List.of())) {
      connection = s.cluster.connection();
      Admin admin = s.cluster.admin();
      create(admin, GETS, DataBlockEncoding.FAST_DIFF, Compression.Algorithm.NONE);
      create(admin, SCANS, DataBlockEncoding.FAST_DIFF, Compression.Algorithm.NONE);
      RawTable.loadSeed(connection, admin, GETS, rows, 7);
      RawTable.loadSeed(connection, admin, SCANS, rows, 7);
      admin.createTable(
          TableDescriptorBuilder.newBuilder(FLAT)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(RawTable.PE_FAMILY))
              .build());
      RawTable.loadPe(connection, FLAT, FLAT_ROWS, 9);
      for (TableName t : List.of(GETS, SCANS, FLAT)) {
        admin.flush(t);
        admin.majorCompact(t);
        Workload.awaitCompaction(admin, t);
      }
      System.out.println("advise-demo: driving the three mixes while advise watches them");
      AtomicBoolean driving = new AtomicBoolean(true);
      List<Thread> drivers =
          List.of(
              driver("gets", driving, () -> gets(GETS, rows, new Random(1), 200)),
              driver("scans", driving, () -> scan(SCANS, true)),
              driver(
                  "flat",
                  driving,
                  () -> {
                    gets(FLAT, FLAT_ROWS, new Random(2), 100);
                    scan(FLAT, true);
                  }));
      drivers.forEach(Thread::start);
      String zk = s.cluster.zkQuorum();
      Path reports = out.resolve("advise");
      List<String> lines =
          advise(
              List.of(
                  "advise",
                  "--zk",
                  zk,
                  GETS.getNameAsString(),
                  SCANS.getNameAsString(),
                  FLAT.getNameAsString(),
                  "--window",
                  window,
                  "--configs",
                  configs,
                  "--runs",
                  "5",
                  "--size-weight",
                  sizeWeight,
                  "--out",
                  reports.toString()),
              driving);
      for (Thread d : drivers) {
        d.join();
      }
      Files.write(out.resolve("advise.txt"), lines);
      Map<String, Object> results = new LinkedHashMap<>();
      for (TableName t : List.of(GETS, SCANS, FLAT)) {
        String json =
            Files.readString(reports.resolve(t.getNameAsString()).resolve("results.json"));
        boolean keep = json.contains("\"keep\": true");
        String winner = group(json, "\"winner\": \"([A-Z0-9_+@]+)\"");
        String current = group(json, "\"current\": \"([A-Z0-9_+@]+)\"");
        System.out.printf(
            Locale.ROOT, "advise-demo: %s: %s%n", t, keep ? "keep " + current : winner);
        results.put(t + ".advised", keep ? "keep " + current : winner);
        if (!keep && !t.equals(FLAT)) {
          results.put(t + ".verified", verify(s, t, current, winner, promised(json)));
        }
      }
      Files.writeString(out.resolve("demo.txt"), results.toString() + System.lineSeparator());
      System.out.println("advise-demo: " + results);
      s.succeeded();
    }
  }

  private static String group(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    return m.find() ? m.group(1) : "?";
  }

  private static void create(Admin admin, TableName t, DataBlockEncoding e, Compression.Algorithm c)
      throws Exception {
    RawTable.create(admin, new RawTable.Spec(t).encoding(e).compression(c));
  }

  private interface Step {
    void run() throws Exception;
  }

  private static Thread driver(String name, AtomicBoolean driving, Step step) {
    Thread t =
        new Thread(
            () -> {
              try {
                while (driving.get()) {
                  step.run();
                }
              } catch (Exception e) {
                System.err.println("advise-demo: driver " + name + " stopped: " + e);
              }
            },
            "demo-" + name);
    t.setDaemon(true);
    return t;
  }

  /** {@code n} random gets of the table's rows; each one's latency in microseconds. */
  private List<Double> gets(TableName t, int tableRows, Random r, int n) throws Exception {
    List<Double> micros = new ArrayList<>();
    try (Table table = connection.getTable(t)) {
      for (int i = 0; i < n; i++) {
        byte[] row =
            t.equals(FLAT)
                ? RawTable.peRow(r.nextInt(tableRows))
                : RawTable.seedRow(r.nextInt(tableRows));
        long t0 = System.nanoTime();
        table.get(new Get(row));
        micros.add((System.nanoTime() - t0) / 1e3);
      }
    }
    return micros;
  }

  /** One full scan; its time in milliseconds. */
  private double scan(TableName t, boolean cacheBlocks) throws Exception {
    long t0 = System.nanoTime();
    RawTable.scanCells(connection, t, new Scan().setCaching(1000).setCacheBlocks(cacheBlocks));
    return (System.nanoTime() - t0) / 1e6;
  }

  /**
   * Runs {@code bin/blockscope} with {@code args} as a user would, echoing its output, and stops
   * the drivers once the window is over (advise prints each table's reads then).
   */
  private static List<String> advise(List<String> args, AtomicBoolean driving) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(SourceTree.root().resolve("bin/blockscope").toString());
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        System.out.println("  | " + line);
        lines.add(line);
        if (line.startsWith("== ")) {
          driving.set(false);
        }
      }
    }
    driving.set(false);
    int code = p.waitFor();
    if (code != 0) {
      throw new IllegalStateException("advise exited with " + code);
    }
    return lines;
  }

  /**
   * Two copies of the table, one with the current setting and one with the advised one, each
   * holding every row, major compacted; then {@link #rounds} rounds of the table's mix on each, in
   * alternating order. Each round gives both copies' client figure (the gets' median latency, or
   * the full scan's time) and their server time per read (blockscope's checksum, decompression and
   * decoding nanos, from the server's beans); the copies' store files are measured once. The
   * figures advise promised are compared: medians of the rounds and their ratio.
   */
  private Map<String, Object> verify(
      StockServer s, TableName t, String current, String advised, List<String> promised)
      throws Exception {
    Admin admin = s.cluster.admin();
    TableName a = TableName.valueOf(t.getNameAsString() + "_current");
    TableName b = TableName.valueOf(t.getNameAsString() + "_advised");
    for (Object[] copy : new Object[][] {{a, current}, {b, advised}}) {
      TableName name = (TableName) copy[0];
      TableConfig setting = TableConfig.parse((String) copy[1]);
      // the table's families with the setting, at TIME, so that the server's beans time the
      // copies' checksums, decompression and decoding
      TableDescriptorBuilder d =
          TableDescriptorBuilder.newBuilder(name)
              .setValue(Attributes.TABLE_LEVEL, PerfLevel.TIME.name());
      for (ColumnFamilyDescriptor f : admin.getDescriptor(t).getColumnFamilies()) {
        d.setColumnFamily(RawTable.family(f, setting));
      }
      admin.createTable(d.build());
      RawTable.copySample(connection, t, name, Integer.MAX_VALUE, Long.MAX_VALUE, 1);
      admin.flush(name);
      admin.majorCompact(name);
      Workload.awaitCompaction(admin, name);
    }
    long sizeA = storeFileBytes(s, a);
    long sizeB = storeFileBytes(s, b);
    boolean getMix = t.equals(GETS);
    Map<TableName, List<Double>> client = Map.of(a, new ArrayList<>(), b, new ArrayList<>());
    Map<TableName, List<Double>> server = Map.of(a, new ArrayList<>(), b, new ArrayList<>());
    // warm both
    gets(a, rows, new Random(3), GETS_PER_ROUND);
    gets(b, rows, new Random(3), GETS_PER_ROUND);
    scan(a, true);
    scan(b, true);
    BeanReader beans = s.server.beans();
    beans.awaitExport(30_000);
    Map<TableName, CostSnapshot> before = new HashMap<>();
    for (TableName x : List.of(a, b)) {
      before.put(x, beans.table(x.getNameAsString()));
    }
    for (int round = 0; round < rounds; round++) {
      for (TableName x : round % 2 == 0 ? List.of(a, b) : List.of(b, a)) {
        if (getMix) {
          client.get(x).add(Stats.median(gets(x, rows, new Random(100 + round), GETS_PER_ROUND)));
        } else {
          client.get(x).add(scan(x, true));
        }
      }
      beans.awaitExport(30_000);
      for (TableName x : List.of(a, b)) {
        CostSnapshot after = beans.table(x.getNameAsString());
        long nanos = after.minus(before.get(x)).serverNanos();
        // per get in us, or per full scan in ms
        server.get(x).add(getMix ? nanos / 1e3 / GETS_PER_ROUND : nanos / 1e6);
        before.put(x, after);
      }
      System.out.printf(
          Locale.ROOT,
          "advise-demo: %s round %d: current %.1f, advised %.1f %s; server %.2f, %.2f %s%n",
          t,
          round,
          client.get(a).get(round),
          client.get(b).get(round),
          getMix ? "us (get p50)" : "ms (full scan)",
          server.get(a).get(round),
          server.get(b).get(round),
          getMix ? "us per get" : "ms per scan");
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("promised", promised);
    m.put(
        getMix ? "get p50 us (median of rounds)" : "full scan ms (median of rounds)",
        compare(client.get(a), client.get(b)));
    m.put(
        getMix ? "server us per get (median of rounds)" : "server ms per scan (median of rounds)",
        compare(server.get(a), server.get(b)));
    m.put(
        "store file bytes",
        String.format(
            Locale.ROOT,
            "current %,d, advised %,d, ratio %.3f",
            sizeA,
            sizeB,
            sizeB / (double) sizeA));
    return m;
  }

  /** The current and advised copies' medians and their ratio, advised / current. */
  private static String compare(List<Double> current, List<Double> advised) {
    double c = Stats.median(current);
    double d = Stats.median(advised);
    return String.format(Locale.ROOT, "current %.2f, advised %.2f, ratio %.3f", c, d, d / c);
  }

  /**
   * The bytes of a major-compacted table's store files under the cluster's local root directory:
   * each family's newest file, the compaction's output (the files it replaced stay beside it until
   * HBase's compacted-file discharger archives them, every 2 minutes by default).
   */
  private static long storeFileBytes(StockServer s, TableName t) throws Exception {
    Path dir =
        Path.of(URI.create(s.cluster.rootDir()))
            .resolve("data")
            .resolve(t.getNamespaceAsString())
            .resolve(t.getQualifierAsString());
    long bytes = 0;
    try (Stream<Path> regions = Files.list(dir)) {
      for (Path region : regions.filter(AdviseDemo::visible).toList()) {
        try (Stream<Path> families = Files.list(region)) {
          for (Path family : families.filter(f -> visible(f) && Files.isDirectory(f)).toList()) {
            if (family.getFileName().toString().equals("recovered.edits")) {
              continue;
            }
            Path newest = null;
            try (Stream<Path> files = Files.list(family)) {
              for (Path f : files.filter(AdviseDemo::visible).toList()) {
                if (newest == null
                    || Files.getLastModifiedTime(f).compareTo(Files.getLastModifiedTime(newest))
                        > 0) {
                  newest = f;
                }
              }
            }
            bytes += newest == null ? 0 : Files.size(newest);
          }
        }
      }
    }
    return bytes;
  }

  private static boolean visible(Path p) {
    return !p.getFileName().toString().startsWith(".");
  }

  /** The figures an advice's results.json says it promised. */
  static List<String> promised(String json) {
    List<String> keys = new ArrayList<>();
    int at = json.indexOf("\"promised\": [");
    if (at < 0) {
      return keys;
    }
    String list = json.substring(at, json.indexOf(']', at));
    Matcher m = Pattern.compile("\"figure\": \"([^\"]+)\"").matcher(list);
    while (m.find()) {
      keys.add(m.group(1));
    }
    return keys;
  }
}
