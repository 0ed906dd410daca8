package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.harness.StoreFiles;
import io.blockscope.harness.stock.StockCluster;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.workloads.RawTable;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Waiter;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The Prometheus JMX exporter with the configuration blockscope ships (docs/prometheus), scraping
 * the shared cluster's region server over a JMX connector from a process of its own: the exporter's
 * HTTP server ({@code jmx_prometheus_httpserver}, the same rules engine as its javaagent), started
 * with {@code java -jar} and the shipped file with a {@code jmxUrl:} line added, as
 * docs/dashboards.md tells an operator who cannot add an agent to the region server.
 *
 * <p>What the scrape must give: every metric docs/dashboards.md documents, nothing it does not, the
 * documented labels, a namespaced table's name without JMX's quotes, and for a known cold scan of a
 * GZ FAST_DIFF table at level TIME, exactly the counts the region's and the table's beans hold; and
 * every query of the Grafana dashboard refers only to metrics and labels the scrape has (and {@code
 * instance} and {@code job}, which every scrape adds). A Prometheus server scraping the exporter
 * answers every query of the dashboard and evaluates every alert rule ({@link
 * #aPrometheusServerAnswersEveryPanelVariableAndRule}).
 */
public class PrometheusExporterIT extends ClusterTestBase {
  private static final TableName TABLE = TableName.valueOf("bs_prom", "scraped.t-1");

  private static LocalJmxConnector connector;
  private static Exporter exporter;
  private static Path work;
  private static final List<Sample> SCRAPE = new ArrayList<>();
  private static String scraped;

  /** One sample of the exposition text: a series' name, labels and value. */
  record Sample(String name, Map<String, String> labels, double value) {}

  private static Path docs() {
    return Path.of(System.getProperty("blockscope.docs"));
  }

  @BeforeClass
  public static void scrape() throws Exception {
    cluster.admin().createNamespace(NamespaceDescriptor.create("bs_prom").build());
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(TABLE)
            .encoding(DataBlockEncoding.FAST_DIFF)
            .compression(Compression.Algorithm.GZ)
            .blockSize(4096)
            .level(PerfLevel.TIME));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), TABLE, 5_000, 7);
    writeUnflushed(TABLE, 5_000, 100); // read from the memstore by every scan below
    StoreFiles.evict(cluster.blockCache(), cluster.regions(TABLE));
    RawTable.scanCells(cluster.connection(), TABLE, new Scan()); // cold: misses
    RawTable.scanCells(cluster.connection(), TABLE, new Scan()); // warm: hits
    // the region server's cache holds every table here: a cache of a quarter of the table's store
    // file, in this JVM, evicts and removes its blocks
    PrivateLruRead.evictUnread(cluster.regions(TABLE), cluster.conf());
    try (Table t = cluster.connection().getTable(TABLE)) { // point reads: seeks in a block
      for (int pk = 0; pk < 5_000; pk += 500) {
        assertTrue(!t.get(new Get(RawTable.seedRow(pk))).isEmpty());
      }
    }
    cluster.diagnostics().refreshExport();

    connector = new LocalJmxConnector();
    work = Files.createTempDirectory("blockscope-exporter");
    exporter = startExporter(shipped(), "exporter");
    scraped = get(exporter);
    SCRAPE.addAll(parse(scraped));
  }

  /** Rows {@code from..from+n-1} of the seed's shape, left in the memstore (not flushed). */
  private static void writeUnflushed(TableName t, int from, int n) throws IOException {
    try (Table table = cluster.connection().getTable(t)) {
      List<Put> puts = new ArrayList<>();
      for (int pk = from; pk < from + n; pk++) {
        puts.add(
            new Put(RawTable.seedRow(pk))
                .addColumn(RawTable.SEED_FAMILY, RawTable.SEED_V1, Bytes.toBytes((float) pk)));
      }
      table.put(puts);
    }
  }

  /** The shipped configuration, as docs/prometheus has it. */
  private static String shipped() throws IOException {
    return Files.readString(docs().resolve("prometheus/blockscope-jmx-exporter.yaml"));
  }

  /**
   * An exporter process with {@code yaml} and a {@code jmxUrl:} line; its files named {@code name}.
   */
  private static Exporter startExporter(String yaml, String name) throws IOException {
    Path config = work.resolve(name + ".yaml");
    Files.writeString(config, "jmxUrl: " + connector.url + "\n" + yaml);
    int port = StockCluster.freePort();
    File jar = new File(System.getProperty("blockscope.exporter.jar"));
    assertTrue(jar + " (copied by the build)", jar.isFile());
    Process p =
        new ProcessBuilder(
                System.getProperty("java.home") + "/bin/java",
                "-Xmx128m",
                "-jar",
                jar.getPath(),
                "127.0.0.1:" + port,
                config.toString())
            .redirectErrorStream(true)
            .redirectOutput(work.resolve(name + ".log").toFile())
            .start();
    return new Exporter(p, port, work.resolve(name + ".log"));
  }

  /** An exporter process, the port it listens on and the file its output goes to. */
  record Exporter(Process process, int port, Path log) {
    void stop() throws InterruptedException {
      process.destroy();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  @AfterClass
  public static void stop() throws Exception {
    if (exporter != null) {
      exporter.stop();
    }
    if (connector != null) {
      connector.close();
    }
    if (work != null) {
      try (var files = Files.walk(work)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
    cluster.admin().disableTable(TABLE);
    cluster.admin().deleteTable(TABLE);
    cluster.admin().deleteNamespace(TABLE.getNamespaceAsString());
  }

  /**
   * The exporter's answer, once it answers (it connects to JMX when first asked). Its first answer
   * walks every bean of the minicluster's JVM; beside the release suite's stock processes on two
   * cores that took 69 s, so one answer may take 150 s and the whole wait 300 s.
   */
  private static String get(Exporter e) throws Exception {
    String url = "http://127.0.0.1:" + e.port() + "/metrics";
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (true) {
      try {
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
        c.setConnectTimeout(5_000);
        c.setReadTimeout(150_000);
        if (c.getResponseCode() == 200) {
          try (var in = c.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
          }
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      if (!e.process().isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError(
            "the exporter did not answer; it printed:\n" + Files.readString(e.log()));
      }
      Thread.sleep(500);
    }
  }

  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** The samples of Prometheus's text format (comments left out). */
  static List<Sample> parse(String text) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.lastIndexOf(' ');
      String name = brace >= 0 ? line.substring(0, brace) : line.substring(0, space);
      Map<String, String> labels = new LinkedHashMap<>();
      if (brace >= 0) {
        Matcher m = LABEL.matcher(line.substring(brace, line.lastIndexOf('}') + 1));
        while (m.find()) {
          labels.put(m.group(1), m.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
        }
      }
      samples.add(new Sample(name, labels, Double.parseDouble(line.substring(space + 1))));
    }
    return samples;
  }

  private static Set<String> blockscopeNames() {
    Set<String> names = new TreeSet<>();
    for (Sample s : SCRAPE) {
      if (s.name().startsWith("blockscope_")) {
        names.add(s.name());
      }
    }
    return names;
  }

  /** The label names each blockscope metric carries in the scrape. */
  private static Map<String, Set<String>> labelsByName() {
    Map<String, Set<String>> m = new HashMap<>();
    for (Sample s : SCRAPE) {
      m.computeIfAbsent(s.name(), k -> new TreeSet<>()).addAll(s.labels().keySet());
    }
    return m;
  }

  /**
   * The metrics docs/dashboards.md documents, with their labels: its table's rows {@code |
   * `blockscope_<scope>_x_total` | kind | ...}, {@code <scope>} standing for server, table and
   * region (whose series add table, and table and region).
   */
  private static Map<String, Set<String>> documented() throws IOException {
    Map<String, Set<String>> m = new LinkedHashMap<>();
    Pattern row = Pattern.compile("^\\| `(blockscope_[a-z_<>]+)` \\| ([^|]*) \\|");
    for (String line : Files.readAllLines(docs().resolve("dashboards.md"))) {
      Matcher r = row.matcher(line);
      if (!r.find()) {
        continue;
      }
      Set<String> labels = new TreeSet<>();
      for (String l : r.group(2).split(",")) {
        if (!l.isBlank() && !l.trim().equals("-")) {
          labels.add(l.trim().replace("`", ""));
        }
      }
      String name = r.group(1);
      if (name.contains("<scope>")) {
        m.put(name.replace("<scope>", "server"), labels);
        Set<String> table = new TreeSet<>(labels);
        table.add("table");
        m.put(name.replace("<scope>", "table"), table);
        Set<String> region = new TreeSet<>(table);
        region.add("region");
        m.put(name.replace("<scope>", "region"), region);
        Set<String> user = new TreeSet<>(labels);
        user.add("user");
        m.put(name.replace("<scope>", "user"), user);
      } else {
        m.put(name, labels);
      }
    }
    assertTrue("docs/dashboards.md documents metrics", m.size() > 30);
    return m;
  }

  /**
   * Documented metrics this test's reads cannot make appear: a region's, table's or user's series
   * exists only once its figure is non-zero, no checksum fails here, the cluster's few users all
   * have accounts (none inherited an estimate), and no block of an in-memory family or of a
   * BucketCache is evicted here.
   */
  private static final Set<String> NOT_PRODUCED_HERE =
      Set.of(
          "blockscope_table_block_cache_evicted_hit_unknown_total",
          "blockscope_server_block_cache_evicted_hit_unknown_total",
          "blockscope_table_checksum_failures_total",
          "blockscope_region_checksum_failures_total",
          "blockscope_user_checksum_failures_total",
          "blockscope_user_accesses_uncounted_max");

  @Test
  public void theScrapeHasEveryDocumentedMetricAndNoOther() throws Exception {
    System.out.println("exporter scrape, blockscope's part:");
    scraped
        .lines()
        .filter(
            l ->
                l.contains("blockscope_")
                    && (l.startsWith("#")
                        || l.contains(TABLE.getQualifierAsString())
                        || l.startsWith("blockscope_server")
                        || l.startsWith("blockscope_probe")))
        .forEach(System.out::println);
    Map<String, Set<String>> documented = documented();
    Map<String, Set<String>> labels = labelsByName();
    Set<String> undocumented = new TreeSet<>(blockscopeNames());
    undocumented.removeAll(documented.keySet());
    assertTrue("scraped but not in docs/dashboards.md: " + undocumented, undocumented.isEmpty());
    for (Map.Entry<String, Set<String>> d : documented.entrySet()) {
      if (NOT_PRODUCED_HERE.contains(d.getKey())) {
        continue;
      }
      assertTrue("documented but not scraped: " + d.getKey(), labels.containsKey(d.getKey()));
      assertEquals("labels of " + d.getKey(), d.getValue(), labels.get(d.getKey()));
    }
  }

  /** A row of docs/dashboards.md's metric table, its scope spelled out. */
  record Row(String type, String from) {}

  private static final Pattern ROW =
      Pattern.compile("^\\| `(blockscope_[a-z_<>]+)` \\| [^|]* \\| (\\w+) \\| (.*) \\|$");

  private static Map<String, Row> documentedRows() throws IOException {
    Map<String, Row> rows = new HashMap<>();
    for (String line : Files.readAllLines(docs().resolve("dashboards.md"))) {
      Matcher r = ROW.matcher(line);
      if (r.find()) {
        for (String scope : List.of("server", "table", "region", "user")) {
          rows.put(r.group(1).replace("<scope>", scope), new Row(r.group(2), r.group(3)));
        }
      }
    }
    return rows;
  }

  /**
   * The bean and attribute a scraped sample comes from, as docs/dashboards.md's "from" column says
   * (its first name, the label's value put in for {@code <kind>}, {@code <algorithm>} or {@code
   * <encoding>}; a setting's name from its label), at the sample's scope.
   */
  private static ObjectName beanOf(Sample sample, Row row) throws Exception {
    Map<String, String> l = sample.labels();
    Matcher first = Pattern.compile("`([^`]+)`").matcher(row.from());
    assertTrue(sample.name() + ": a bean name in " + row.from(), first.find());
    String cost = first.group(1);
    for (String label : List.of("kind", "algorithm", "encoding")) {
      if (l.containsKey(label)) {
        cost = cost.replace("<" + label + ">", l.get(label));
      }
    }
    if (l.containsKey("setting")) {
      cost = "settings." + l.get("setting").substring("blockscope.".length());
    }
    String key;
    if (sample.name().startsWith("blockscope_probe_")) {
      key = MetricKeys.probe(l.get("probe"), cost);
    } else if (sample.name().startsWith("blockscope_region_")) {
      key = MetricKeys.region(l.get("table"), l.get("region"), cost);
    } else if (sample.name().startsWith("blockscope_table_")) {
      key = MetricKeys.table(l.get("table"), cost);
    } else if (sample.name().startsWith("blockscope_user_")) {
      key = MetricKeys.user(l.get("user"), cost);
    } else {
      key = MetricKeys.server(cost);
    }
    return MetricKeys.objectName(key);
  }

  private static double attribute(ObjectName bean, String type) throws Exception {
    return ((Number)
            ManagementFactory.getPlatformMBeanServer()
                .getAttribute(bean, type.equals("counter") ? "Count" : "Value"))
        .doubleValue();
  }

  /**
   * Every blockscope sample of a scrape, at every scope, against the bean it comes from: the value
   * (scaled to seconds where the page says so) lies between the bean's reading just before the
   * scrape and just after it (equal to it for a series nothing read in between), and its {@code #
   * TYPE} is the page's.
   */
  @Test
  public void everySampleIsItsBeanAtTheDocumentedTypeAndScale() throws Exception {
    Map<String, Row> rows = documentedRows();
    Map<String, Double> before = new HashMap<>();
    for (Sample s : SCRAPE) {
      if (s.name().startsWith("blockscope_")) {
        Row row = rows.get(s.name());
        before.put(s.name() + s.labels(), attribute(beanOf(s, row), row.type()));
      }
    }
    String text = get(exporter);
    Map<String, Double> after = new HashMap<>();
    List<Sample> scrape = parse(text);
    for (Sample s : scrape) {
      if (s.name().startsWith("blockscope_")) {
        Row row = rows.get(s.name());
        after.put(s.name() + s.labels(), attribute(beanOf(s, row), row.type()));
      }
    }
    Map<String, String> types = new HashMap<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("# TYPE blockscope_")) {
        String[] t = line.split(" ");
        types.put(t[2], t[3]);
      }
    }
    Map<String, Integer> checked = new TreeMap<>();
    for (Sample s : scrape) {
      if (!s.name().startsWith("blockscope_")) {
        continue;
      }
      Row row = rows.get(s.name());
      assertTrue(s.name() + " in docs/dashboards.md's table", row != null);
      assertEquals("# TYPE of " + s.name(), row.type(), types.get(s.name()));
      String series = s.name() + s.labels();
      // a series first scraped now has no reading from before: its bean's reading after stands
      double lo = before.getOrDefault(series, after.get(series));
      double hi = after.get(series);
      double scale = row.from().contains("/ 10^9") ? 1e-9 : 1;
      double slack = 1e-9 * Math.max(Math.abs(hi), 1) * scale;
      assertTrue(
          series
              + " = "
              + s.value()
              + ", its bean read "
              + lo
              + " then "
              + hi
              + " (x"
              + scale
              + ")",
          s.value() >= Math.min(lo, hi) * scale - slack
              && s.value() <= Math.max(lo, hi) * scale + slack);
      checked.merge(s.name().replaceFirst("^blockscope_([a-z]+)_.*", "$1"), 1, Integer::sum);
    }
    System.out.println("samples checked against their beans, by scope: " + checked);
    assertEquals(Set.of("probe", "region", "server", "table", "user"), checked.keySet());
    assertTrue(checked.toString(), checked.get("region") >= 20 && checked.get("table") >= 20);
  }

  /** The scraped value of one series; fails if there is not exactly one. */
  private static double value(String name, Map<String, String> labels) {
    List<Double> found = new ArrayList<>();
    for (Sample s : SCRAPE) {
      if (s.name().equals(name) && s.labels().equals(labels)) {
        found.add(s.value());
      }
    }
    assertEquals(name + labels + " in the scrape", 1, found.size());
    return found.get(0);
  }

  @Test
  public void aKnownScanCountsTheSameThroughTheExporter() throws Exception {
    String table = TABLE.getNameAsString(); // "bs_prom:scraped.t-1": quoted in JMX, not here
    List<HRegion> regions = cluster.regions(TABLE);
    assertEquals(1, regions.size());
    String region = regions.get(0).getRegionInfo().getEncodedName();
    long[] truth = SeedTables.dataBlocksAndCells(regions);
    CostSnapshot r = regionCosts(regions.get(0));
    CostSnapshot t = tableCosts(TABLE);
    Map<String, String> regionLabels = Map.of("table", table, "region", region, "kind", "data");
    // the cold scan: every data block missed and read once (as the trailer says); the warm scan
    // and the gets hit
    assertEquals(truth[0], (long) value("blockscope_region_block_cache_miss_total", regionLabels));
    assertEquals(
        r.get("blockCache.hit.data"),
        (long) value("blockscope_region_block_cache_hit_total", regionLabels));
    assertTrue(r.get("blockCache.hit.data") >= truth[0] + 10);
    assertEquals(truth[0], (long) value("blockscope_region_fs_read_blocks_total", regionLabels));
    assertEquals(
        r.get("fs.read.bytes.data"),
        (long) value("blockscope_region_fs_read_bytes_total", regionLabels));
    assertEquals(
        t.get("fs.read.bytes.data"),
        (long)
            value("blockscope_table_fs_read_bytes_total", Map.of("table", table, "kind", "data")));
    Map<String, String> gz = Map.of("table", table, "region", region, "algorithm", "GZ");
    assertEquals(
        r.get("decompress.GZ.blocks"),
        (long) value("blockscope_region_decompress_blocks_total", gz));
    assertEquals(
        r.get("decompress.GZ.bytesOut"),
        (long) value("blockscope_region_decompress_bytes_out_total", gz));
    Map<String, String> fastDiff =
        Map.of("table", table, "region", region, "encoding", "FAST_DIFF");
    assertEquals(
        r.get("decode.FAST_DIFF.cells"),
        (long) value("blockscope_region_decode_cells_total", fastDiff));
    assertTrue("two full scans and the gets", r.get("decode.FAST_DIFF.cells") > 2 * truth[1]);
    assertEquals(
        r.get("decode.FAST_DIFF.seeks"),
        (long) value("blockscope_region_decode_seeks_total", fastDiff));
    // nanoseconds become seconds
    assertEquals(
        r.get("decode.FAST_DIFF.nanos") / 1e9,
        value("blockscope_region_decode_seconds_total", fastDiff),
        1e-9);
    assertTrue(r.get("decode.FAST_DIFF.nanos") > 0);
    // the 100 rows written after the load, read from the memstore (docs/metrics.md): each of the
    // two full scans lands on them and on the segment's first once more, each of the 10 gets of
    // a flushed row on the segment's first and where its seek lands
    Map<String, String> inRegion = Map.of("table", table, "region", region);
    assertEquals(r.toString(), 2 * (100 + 1) + 10 * 2, r.get("memstore.cells"));
    assertEquals(
        r.get("memstore.cells"), (long) value("blockscope_region_memstore_cells_total", inRegion));
    assertEquals(
        r.get("memstore.bytes"), (long) value("blockscope_region_memstore_bytes_total", inRegion));
    assertEquals(
        t.get("memstore.cells"),
        (long) value("blockscope_table_memstore_cells_total", Map.of("table", table)));
    for (String probe : MEASURING_PROBES) {
      assertEquals(probe, 1.0, value("blockscope_probe_installed", Map.of("probe", probe)), 0);
    }
  }

  /** The probes that measure a read's costs; each is installed on the embedded cluster. */
  private static final List<String> MEASURING_PROBES =
      List.of("blockCache", "fsRead", "checksum", "decompress", "decode", "memstore", "cacheReuse");

  /** Metric names a PromQL expression refers to. */
  private static final Pattern METRIC = Pattern.compile("\\bblockscope_[a-z_]+\\b");

  /** Label names in {@code by (...)} and in selectors ({@code {a=~"..", b="..."}}). */
  private static final Pattern BY = Pattern.compile("\\bby \\(([^)]*)\\)");

  private static final Pattern MATCHER = Pattern.compile("(\\w+)\\s*(?:=~|!~|!=|=)\\s*\"");

  @Test
  public void everyDashboardQueryRefersToScrapedMetricsAndLabels() throws Exception {
    JsonObject dashboard = dashboard();
    List<String> exprs = new ArrayList<>();
    for (JsonElement p : dashboard.getAsJsonArray("panels")) {
      for (JsonElement t : p.getAsJsonObject().getAsJsonArray("targets")) {
        exprs.add(t.getAsJsonObject().get("expr").getAsString());
      }
    }
    for (JsonElement v : dashboard.getAsJsonObject("templating").getAsJsonArray("list")) {
      if (v.getAsJsonObject().get("type").getAsString().equals("query")) {
        exprs.add(v.getAsJsonObject().get("query").getAsString());
      }
    }
    assertTrue(exprs.size() > 10);
    assertReferToScrapedMetricsAndLabels(exprs, Set.of("instance", "job"));
  }

  /** docs/dashboards.md's two edits that add HBase's region server metrics to the shipped file. */
  static final String INCLUDE_BOTH =
      "includeObjectNames: [\"blockscope:*\", \"Hadoop:service=HBase,name=RegionServer,*\"]";

  static final String CATCH_ALL = "  - pattern: 'Hadoop<.*'";

  /**
   * The merged configuration docs/dashboards.md gives a shop that exports HBase's own region server
   * metrics with the same exporter: blockscope's series are exactly the shipped file's (its rules
   * come first), and HBase's come beside them in the exporter's default format, the region server's
   * block cache misses among them.
   */
  @Test
  public void theMergedConfigurationExportsHBasesMetricsBesideBlockscopes() throws Exception {
    String page = Files.readString(docs().resolve("dashboards.md"));
    assertTrue("dashboards.md gives " + INCLUDE_BOTH, page.contains(INCLUDE_BOTH));
    assertTrue("dashboards.md gives " + CATCH_ALL.trim(), page.contains(CATCH_ALL.trim()));
    String shipped = shipped();
    String include = "includeObjectNames: [\"blockscope:*\"]";
    assertTrue(shipped.contains(include));
    String merged = shipped.replace(include, INCLUDE_BOTH) + CATCH_ALL + "\n";
    Exporter both = startExporter(merged, "merged");
    try {
      List<Sample> samples = parse(get(both));
      Set<String> blockscope = new TreeSet<>();
      Set<String> hbase = new TreeSet<>();
      Sample misses = null;
      for (Sample x : samples) {
        if (x.name().startsWith("blockscope_")) {
          blockscope.add(x.name());
        } else if (x.name().startsWith("Hadoop_HBase_")) {
          hbase.add(x.name());
          if (x.name().endsWith("_blockCacheMissCount")) {
            misses = x;
          }
        }
      }
      assertEquals(blockscopeNames(), blockscope);
      assertTrue("HBase's region server metrics: " + hbase.size(), hbase.size() > 50);
      assertTrue("HBase's block cache misses among " + hbase, misses != null);
      assertEquals("RegionServer", misses.labels().get("name"));
      System.out.println(
          "merged exporter configuration: "
              + blockscope.size()
              + " blockscope metrics, "
              + hbase.size()
              + " of HBase's region server, e.g. "
              + misses);
    } finally {
      both.stop();
    }
  }

  /**
   * Every alert rule of docs/prometheus/blockscope-alerts.yml (its {@code expr:} lines) names only
   * metrics the scrape has, and groups and filters only by their labels or by what every scrape
   * adds ({@code instance}, {@code job}) and the documented scrape configuration ({@code server}).
   * The rules' behaviour is {@code AlertRulesIT}'s.
   */
  @Test
  public void everyAlertRuleRefersToScrapedMetricsAndLabels() throws Exception {
    List<String> exprs = new ArrayList<>();
    for (String line : Files.readAllLines(docs().resolve("prometheus/blockscope-alerts.yml"))) {
      String t = line.trim();
      if (t.startsWith("expr:")) {
        exprs.add(t.substring("expr:".length()).trim());
      }
    }
    assertEquals(AlertRulesIT.RULES, exprs.size());
    assertReferToScrapedMetricsAndLabels(exprs, Set.of("server", "instance", "job"));
  }

  /** The table the Prometheus server's test reads, apart from {@link #TABLE}'s exact figures. */
  private static final TableName RATED = TableName.valueOf("bs_prom", "rated");

  /**
   * A Prometheus server (Debian's {@code prometheus}) scraping the exporter with the scrape
   * configuration docs/dashboards.md gives (its target replaced by the exporter's address) and
   * loading the shipped alert rules, while a TIME-level GZ FAST_DIFF table is read cold and warm
   * between scrapes: the table's series start at 0 in Prometheus (its first reads registered them
   * right after a periodic export refresh) and end at the table's figure; every query of the
   * dashboard, with its variables at "All" and {@code $__rate_interval} at one minute, answers
   * series, each rate and ratio above 0 and no probe failing; each variable lists this region
   * server and the table; every alert rule evaluates without error and none fires.
   */
  @Test
  public void aPrometheusServerAnswersEveryPanelVariableAndRule() throws Exception {
    Path prometheus = PrometheusBinaries.require("prometheus");
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(RATED)
            .encoding(DataBlockEncoding.FAST_DIFF)
            .compression(Compression.Algorithm.GZ)
            .blockSize(4096)
            .level(PerfLevel.TIME));
    PrometheusServer server = null;
    try {
      RawTable.loadSeed(cluster.connection(), cluster.admin(), RATED, 2_000, 11);
      writeUnflushed(RATED, 2_000, 100); // every scan reads them from the memstore
      String target = "127.0.0.1:" + exporter.port();
      server = PrometheusServer.start(prometheus, work, documentedScrapeConfig(target));
      server.awaitTargetUp();
      long pictureStart = System.currentTimeMillis() / 1000;
      String blocks =
          "blockscope_table_fs_read_blocks_total{table=\""
              + RATED.getNameAsString()
              + "\",kind=\"data\"}";
      // right after a periodic export refresh (every 10 s here), the table's first reads and one
      // refresh: its series are registered and read 0 until the next, seconds later, which
      // Prometheus (scraping every few seconds) takes as their first samples
      long refreshes = serverCounter("export.refreshes");
      Waiter.waitFor(
          cluster.conf(), 30_000, 20, () -> serverCounter("export.refreshes") != refreshes);
      long afterPeriodic = serverCounter("export.refreshes");
      // on a loaded machine the first round can outlast the 10 s to the next periodic refresh,
      // which then gives the new series their figure before Prometheus's first scrape of them
      boolean quiet = true;
      // eight rounds of a cold and a warm scan, each round scraped before the next: every
      // counter the panels rate goes up between samples
      int rounds = 8;
      for (int round = 0; round < rounds; round++) {
        StoreFiles.evict(cluster.blockCache(), cluster.regions(RATED));
        RawTable.scanCells(cluster.connection(), RATED, new Scan());
        RawTable.scanCells(cluster.connection(), RATED, new Scan());
        PrivateLruRead.evictUnread(cluster.regions(RATED), cluster.conf()); // evicted unread
        if (round == 0) {
          cluster.diagnostics().refreshExportOnce();
          server.awaitValue(blocks, v -> true); // a scrape has the new series, at 0
          quiet = serverCounter("export.refreshes") - afterPeriodic == 1;
        } else {
          cluster.diagnostics().refreshExport();
          long now = tableCosts(RATED).get("fs.read.blocks.data");
          server.awaitValue(blocks, v -> v == now); // a scrape has this round's reads
        }
      }

      System.out.println("scrape targets after the rounds: " + server.targets());
      // the table's series started at 0 in Prometheus, so its rates count its first reads, and
      // it ends at the table's figure: every data block of its store file read once per cold scan
      long dataBlocks = SeedTables.dataBlocksAndCells(cluster.regions(RATED))[0];
      assertEquals(rounds * dataBlocks, tableCosts(RATED).get("fs.read.blocks.data"));
      JsonArray first = server.query("min_over_time(" + blocks + "[5m])");
      JsonArray last = server.query(blocks);
      assertEquals(blocks + " " + first, 1, first.size());
      double firstSample =
          first.get(0).getAsJsonObject().getAsJsonArray("value").get(1).getAsDouble();
      System.out.printf(
          "first sample of %s: %s (%s)%n",
          blocks, firstSample, quiet ? "no refresh between" : "a periodic refresh came between");
      if (quiet) {
        assertEquals("the first sample of " + blocks, 0.0, firstSample, 0);
      } else {
        // a periodic refresh came between the first reads and the first scrape: the first sample
        // is 0 or already the first round's figure, one cold scan's data blocks
        assertTrue(
            "the first sample of "
                + blocks
                + " after a periodic refresh came between: "
                + firstSample,
            firstSample == 0 || firstSample == dataBlocks);
      }
      assertEquals(
          blocks,
          rounds * dataBlocks,
          (long) last.get(0).getAsJsonObject().getAsJsonArray("value").get(1).getAsDouble());

      JsonObject dashboard = dashboard();
      int panels = 0;
      for (JsonElement p : dashboard.getAsJsonArray("panels")) {
        String title = p.getAsJsonObject().get("title").getAsString();
        for (JsonElement t : p.getAsJsonObject().getAsJsonArray("targets")) {
          String expr = DashboardPicture.expr(t.getAsJsonObject().get("expr").getAsString(), "1m");
          JsonArray result = server.query(expr);
          System.out.println(title + ": " + result.size() + " series for " + expr);
          assertTrue(title + ": no series for " + expr, result.size() > 0);
          if (expr.contains("by (instance)")) {
            assertEquals(title + ": one series per region server", 1, result.size());
          } else if (expr.contains("by (instance, probe)")) {
            assertEquals(title + ": one per probe", ProbeBridge.N_PROBES, result.size());
          }
          panels++;
          boolean rated = false;
          for (JsonElement series : result) {
            JsonObject metric = series.getAsJsonObject().getAsJsonObject("metric");
            double v = series.getAsJsonObject().getAsJsonArray("value").get(1).getAsDouble();
            if (metric.has("instance")) {
              assertEquals(expr, target, metric.get("instance").getAsString());
            }
            if (expr.contains("probe_failures")) {
              assertEquals(title + " " + metric, 0.0, v, 0);
            } else if (expr.contains("probe_installed")) {
              String probe = metric.get("probe").getAsString();
              assertTrue(title + " " + metric, v == 1 || !MEASURING_PROBES.contains(probe));
            } else if (!metric.has("table")
                || metric.get("table").getAsString().equals(RATED.getNameAsString())) {
              // other tests' tables may not have been read in the last minute
              rated |= metric.has("table");
              assertTrue(title + " " + metric + " = " + v, v > 0 && !Double.isNaN(v));
              assertTrue(title + " " + metric + " = " + v, !expr.contains(" / (") || v <= 1);
            }
          }
          assertTrue(title + ": no series of " + RATED, rated || !expr.contains("by (table"));
        }
      }
      assertEquals("the dashboard's queries", 18, panels);

      int variables = 0;
      for (JsonElement v : dashboard.getAsJsonObject("templating").getAsJsonArray("list")) {
        JsonObject variable = v.getAsJsonObject();
        if (!variable.get("type").getAsString().equals("query")) {
          continue;
        }
        Matcher lv =
            Pattern.compile("label_values\\((\\w+), (\\w+)\\)")
                .matcher(variable.get("query").getAsString());
        assertTrue(variable.toString(), lv.matches());
        Set<String> values = server.labelValues(lv.group(2), lv.group(1));
        System.out.println("variable " + variable.get("name").getAsString() + ": " + values);
        String expected =
            lv.group(2).equals("instance")
                ? target
                : lv.group(2).equals("table") ? RATED.getNameAsString() : null;
        assertTrue(lv.group(2) + " " + values, values.contains(expected));
        variables++;
      }
      assertEquals("the dashboard's query variables", 2, variables);

      Map<String, JsonObject> rules = server.awaitRulesEvaluated();
      assertEquals(new TreeSet<>(AlertRulesIT.ALERTS), rules.keySet());
      for (Map.Entry<String, JsonObject> r : rules.entrySet()) {
        assertEquals(
            r.getKey() + " " + r.getValue(), "ok", r.getValue().get("health").getAsString());
        assertEquals(
            r.getKey() + " " + r.getValue(), "inactive", r.getValue().get("state").getAsString());
      }
      drawDashboard(dashboard, server, pictureStart);
    } finally {
      if (server != null) {
        server.stop();
      }
      cluster.admin().disableTable(RATED);
      cluster.admin().deleteTable(RATED);
    }
  }

  /**
   * The dashboard as a picture of this run (docs/dashboards.md shows it): {@code
   * target/dashboard.svg}, and the file {@code -Dblockscope.dashboard.out} names (relative to the
   * source tree's root) when given. Each panel must have drawn a series.
   */
  private static void drawDashboard(JsonObject dashboard, PrometheusServer server, long start)
      throws IOException {
    long end = System.currentTimeMillis() / 1000;
    DashboardPicture.Drawing drawing =
        DashboardPicture.draw(
            dashboard,
            new DashboardPicture.Source() {
              @Override
              public JsonArray range(String promql) throws IOException {
                return server.queryRange(promql, start, end, 1);
              }

              @Override
              public JsonArray instant(String promql) throws IOException {
                return server.query(promql);
              }
            },
            start,
            end,
            "Prometheus's answers to the panels' queries over an embedded cluster: "
                + RATED.getNameAsString()
                + " (GZ, FAST_DIFF, level TIME) scanned cold and warm eight times");
    System.out.println("dashboard picture: " + drawing.seriesByPanel());
    assertEquals(
        "the dashboard's panels drawn",
        dashboard.getAsJsonArray("panels").size(),
        drawing.seriesByPanel().size());
    drawing.seriesByPanel().forEach((title, n) -> assertTrue(title + ": no series drawn", n > 0));
    Files.writeString(Path.of("target/dashboard.svg"), drawing.svg());
    String out = System.getProperty("blockscope.dashboard.out", "");
    if (!out.isBlank()) {
      Path to = docs().getParent().resolve(out);
      Files.writeString(to, drawing.svg());
      System.out.println("dashboard picture written to " + to.normalize());
    }
  }

  private static JsonObject dashboard() throws IOException {
    return JsonParser.parseString(
            Files.readString(docs().resolve("grafana/blockscope-dashboard.json")))
        .getAsJsonObject();
  }

  /**
   * docs/dashboards.md's scrape configuration (its yaml block with {@code scrape_configs:}), its
   * example targets replaced by {@code target}.
   */
  private static String documentedScrapeConfig(String target) throws IOException {
    String page = Files.readString(docs().resolve("dashboards.md"));
    Matcher block =
        Pattern.compile("```yaml\n(scrape_configs:\n.*?)```", Pattern.DOTALL).matcher(page);
    assertTrue("dashboards.md gives a scrape configuration", block.find());
    String examples = "['rs1.example.com:9404', 'rs2.example.com:9404']";
    assertTrue(block.group(1), block.group(1).contains(examples));
    return block.group(1).replace(examples, "['" + target + "']");
  }

  private static void assertReferToScrapedMetricsAndLabels(
      List<String> exprs, Set<String> scrapeLabels) {
    Map<String, Set<String>> labels = labelsByName();
    for (String expr : exprs) {
      Set<String> available = new TreeSet<>(scrapeLabels);
      Matcher m = METRIC.matcher(expr);
      int metrics = 0;
      while (m.find()) {
        metrics++;
        assertTrue(m.group() + " in " + expr + " is not scraped", labels.containsKey(m.group()));
        available.addAll(labels.get(m.group()));
      }
      assertTrue("no blockscope metric in " + expr, metrics > 0);
      List<String> used = new ArrayList<>();
      Matcher by = BY.matcher(expr);
      while (by.find()) {
        for (String l : by.group(1).split(",")) {
          used.add(l.trim());
        }
      }
      Matcher sel = MATCHER.matcher(expr);
      while (sel.find()) {
        used.add(sel.group(1));
      }
      Matcher lv = Pattern.compile("label_values\\(\\w+, (\\w+)\\)").matcher(expr);
      while (lv.find()) {
        used.add(lv.group(1));
      }
      for (String l : used) {
        assertTrue(
            l + " in " + expr + " is not a label of its metrics " + available,
            available.contains(l));
      }
    }
  }
}
