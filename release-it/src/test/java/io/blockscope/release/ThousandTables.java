package io.blockscope.release;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.BeanReader;
import io.blockscope.harness.stock.RegionServer;
import io.blockscope.harness.stock.StockCluster;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.Stats;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A thousand one-region tables on one stock region server, under blockscope's default export caps
 * ({@code blockscope.export.regions} {@code top:100}, {@code blockscope.export.tables} {@code
 * top:200}): the shape of docs/deploy.md's sizing row "1,000 regions, 1,000 tables, the defaults",
 * which {@code bin/blockscope region-scale} measured in one JVM, here on a real server through its
 * info server's {@code /jmx} and the exporter's agent.
 *
 * <p>Each table is GZ and FAST_DIFF with no bloom filter, as region-scale's typical read is; table
 * {@code i} is read with {@link #gets(int)} gets of one row (1 to 10), so that tables rank apart
 * and every table's figures are known exactly: one data block missed and read from the file system,
 * the rest hits. After the reads the server is measured twice: as a scraper finds it at once, while
 * the tables and regions that entered the export during the reads are held ({@code
 * blockscope.export.min.ms}, 5 minutes by default), and at the steady state those holds end in,
 * reached here by reloading the hold as 0 rather than waiting 5 minutes.
 */
final class ThousandTables {
  static final int TABLES = 1_000;
  private static final int ROWS = 20;
  private static final int BATCH = 50;
  private static final byte[] F = StockChecks.F;

  /** docs/deploy.md's computed series for 1,000 tables: the defaults' figure per server. */
  private static final Pattern SIZING_ROW = Pattern.compile("\\| 10 \\| 1,000 \\| ([0-9,]+) \\|");

  private final StockCluster cluster;
  private final StockChecks checks;
  private final RegionServer rs;

  ThousandTables(StockCluster cluster, StockChecks checks, RegionServer rs) {
    this.cluster = cluster;
    this.checks = checks;
    this.rs = rs;
  }

  static TableName name(int i) {
    return TableName.valueOf(String.format("series_t%04d", i));
  }

  /** How many gets table {@code i} gets: 1 to 10, a hundred tables each, spread over the names. */
  static int gets(int i) {
    return 1 + (i * 7919 % TABLES) / 100;
  }

  /** StockChecks' GZ, FAST_DIFF table of 4 KB blocks, without a bloom filter. */
  private TableDescriptor descriptor(TableName t) {
    TableDescriptorBuilder b = checks.table(t);
    return b.modifyColumnFamily(
            ColumnFamilyDescriptorBuilder.newBuilder(b.build().getColumnFamily(F))
                .setBloomFilterType(BloomType.NONE)
                .build())
        .build();
  }

  /**
   * Creates the tables (a few creations in flight at once) and gives each one store file of {@link
   * #ROWS} rows, flushing every {@link #BATCH} tables: a region that takes a write holds a 2 MB
   * memstore chunk until it flushes, and a thousand of them do not fit the server's heap.
   */
  void create() throws Exception {
    long start = System.nanoTime();
    java.util.concurrent.ExecutorService flushers =
        java.util.concurrent.Executors.newFixedThreadPool(8);
    try (Admin admin = cluster.admin()) {
      Deque<Future<Void>> inFlight = new ArrayDeque<>();
      for (int i = 0; i < TABLES; i++) {
        inFlight.add(admin.createTableAsync(descriptor(name(i))));
        if (inFlight.size() >= 16) {
          inFlight.poll().get(5, TimeUnit.MINUTES);
        }
      }
      while (!inFlight.isEmpty()) {
        inFlight.poll().get(5, TimeUnit.MINUTES);
      }
      long created = System.nanoTime();
      for (int from = 0; from < TABLES; from += BATCH) {
        List<byte[]> regions = new ArrayList<>();
        for (int i = from; i < Math.min(TABLES, from + BATCH); i++) {
          try (Table table = cluster.connection().getTable(name(i))) {
            List<Put> puts = new ArrayList<>();
            for (int r = 0; r < ROWS; r++) {
              puts.add(
                  new Put(Bytes.toBytes(String.format("row-%04d", r)))
                      .addColumn(F, Bytes.toBytes("a"), Bytes.toBytes("value-" + i + "-" + r)));
            }
            table.put(puts);
          }
          try (RegionLocator locator = cluster.connection().getRegionLocator(name(i))) {
            regions.add(locator.getAllRegionLocations().get(0).getRegion().getRegionName());
          }
        }
        // region by region, a few at once: Admin.flushRegionServer asks every region of the
        // server each time
        List<Future<?>> flushes = new ArrayList<>();
        for (byte[] region : regions) {
          flushes.add(
              flushers.submit(
                  () -> {
                    admin.flushRegion(region);
                    return null;
                  }));
        }
        for (Future<?> f : flushes) {
          f.get(5, TimeUnit.MINUTES);
        }
      }
      System.out.printf(
          "%d tables created in %.1f s, written and flushed in %.1f s%n",
          TABLES, (created - start) / 1e9, (System.nanoTime() - created) / 1e9);
    } finally {
      flushers.shutdownNow();
    }
  }

  /** Reads table {@code i} with {@link #gets(int)} gets of its first row. */
  void read() throws Exception {
    long start = System.nanoTime();
    for (int i = 0; i < TABLES; i++) {
      try (Table table = cluster.connection().getTable(name(i))) {
        for (int g = 0; g < gets(i); g++) {
          assertTrue(name(i).toString(), !table.get(new Get(Bytes.toBytes("row-0000"))).isEmpty());
        }
      }
    }
    System.out.printf("the gets took %.1f s%n", (System.nanoTime() - start) / 1e9);
  }

  /** What the server exports now, as one reading of its blockscope beans. */
  static final class Export {
    final int series;
    final Map<String, Integer> byType = new TreeMap<>();
    final Map<String, Integer> perEntity = new TreeMap<>();
    final Map<String, Set<String>> names = new TreeMap<>();
    final Set<String> tables = new HashSet<>();
    final Set<String> regions = new HashSet<>();
    final Map<String, long[]> tableCosts = new TreeMap<>();
    long[] other = new long[CostLayout.SIZE];
    final long[] server = new long[CostLayout.SIZE];

    Export(int series) {
      this.series = series;
    }
  }

  Export export() throws Exception {
    List<BeanReader.Reading> beans = rs.beans().read(MetricKeys.allBeans());
    Export e = new Export(beans.size());
    for (BeanReader.Reading r : beans) {
      String type = MetricKeys.property(r.name(), "type");
      e.byType.merge(type, 1, Integer::sum);
      String entity =
          type
              + "/"
              + MetricKeys.property(r.name(), "table")
              + "/"
              + MetricKeys.property(r.name(), "region");
      e.perEntity.merge(entity, 1, Integer::sum);
      e.names
          .computeIfAbsent(entity, k -> new java.util.TreeSet<>())
          .add(MetricKeys.property(r.name(), "name"));
      int slot = CostLayout.slotOf(MetricKeys.property(r.name(), "name"));
      if ("Region".equals(type)) {
        e.regions.add(MetricKeys.property(r.name(), "region"));
      } else if ("Table".equals(type)) {
        String table = MetricKeys.property(r.name(), "table");
        e.tables.add(table);
        if (slot >= CostLayout.FIRST_COST) {
          e.tableCosts.computeIfAbsent(table, k -> new long[CostLayout.SIZE])[slot] += r.value();
        }
      } else if ("Server".equals(type) && slot >= CostLayout.FIRST_COST) {
        e.server[slot] += r.value();
      }
    }
    long[] other = e.tableCosts.remove(MetricKeys.OTHER_TABLE);
    e.tables.remove(MetricKeys.OTHER_TABLE);
    if (other != null) {
      e.other = other;
    }
    return e;
  }

  /** An export that reads the same twice in a row: no read landed while its beans were listed. */
  Export quietExport() throws Exception {
    Export[] last = {export()};
    cluster.await(
        "two readings in a row of the server's figures alike (a quiet server)",
        10,
        500,
        () -> {
          try {
            Export now = export();
            boolean same =
                Arrays.equals(now.server, last[0].server)
                    && Arrays.equals(now.other, last[0].other);
            last[0] = now;
            return same;
          } catch (Exception e) {
            return false;
          }
        });
    return last[0];
  }

  /** The whole check. {@code release} is where the release's docs/deploy.md is read from. */
  void check(Path release) throws Exception {
    Scrape jmxBefore = scrape(rs.infoUrl() + "/jmx?qry=blockscope:*");
    Scrape metricsBefore = scrape("http://127.0.0.1:" + rs.prometheusPort + "/metrics");
    // blockscope.level back to the default: reloadTakesTheLevel left the server at TIME
    checks.reloadLevel(rs, PerfLevel.COUNT);
    int seriesBefore = export().series;
    System.out.printf(
        "before the tables: %d series; /jmx?qry=blockscope:* %,d bytes in %.3f s; the exporter's"
            + " scrape %,d bytes in %.3f s (medians of 5)%n",
        seriesBefore,
        jmxBefore.bytes,
        jmxBefore.seconds,
        metricsBefore.bytes,
        metricsBefore.seconds);
    create();
    read();
    checks.awaitRefreshes(rs, 3, 60);
    Export held = export();
    System.out.printf(
        "at once: %d series, %d tables and %d regions exported (the 5-minute hold keeps what"
            + " entered during the reads)%n",
        held.series, held.tables.size(), held.regions.size());

    cluster.reconfigure(rs, Map.of("blockscope.export.min.ms", "0"));
    checks.awaitRefreshes(rs, 3, 60);
    Export steady = quietExport();
    assertEquals("tables with series of their own", 200, steady.tables.size());
    assertEquals("regions with series of their own", 100, steady.regions.size());

    // every user table exported shows exactly its reads, and none read less than one left out
    int leastExported = Integer.MAX_VALUE;
    for (Map.Entry<String, long[]> e : steady.tableCosts.entrySet()) {
      if (!e.getKey().startsWith("series_t")) {
        continue;
      }
      int i = Integer.parseInt(e.getKey().substring("series_t".length()));
      long[] c = e.getValue();
      assertEquals(e.getKey() + " misses", 1, c[CostLayout.CACHE_MISS + CostLayout.KIND_DATA]);
      assertEquals(
          e.getKey() + " hits", gets(i) - 1, c[CostLayout.CACHE_HIT + CostLayout.KIND_DATA]);
      assertEquals(e.getKey() + " blocks read", 1, c[CostLayout.FS_BLOCKS + CostLayout.KIND_DATA]);
      leastExported = Math.min(leastExported, gets(i));
    }
    for (int i = 0; i < TABLES; i++) {
      if (gets(i) > leastExported) {
        assertTrue(
            name(i) + " (" + gets(i) + " gets) ranks above an exported table",
            steady.tables.contains(name(i).getNameAsString()));
      }
    }

    // the server's figure is exactly the exported tables' plus (other)'s, for every cost
    long[] sum = steady.other.clone();
    for (long[] c : steady.tableCosts.values()) {
      for (int s = 0; s < sum.length; s++) {
        sum[s] += c[s];
      }
    }
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      assertEquals(CostLayout.name(s), steady.server[s], sum[s]);
    }
    assertTrue(
        "(other) holds the reads of the tables left out",
        steady.other[CostLayout.CACHE_MISS + CostLayout.KIND_DATA] >= TABLES - 200);

    for (Map.Entry<String, Set<String>> en : steady.names.entrySet()) {
      Matcher table = Pattern.compile("/series_t(\\d{4})").matcher(en.getKey());
      if (table.find()) {
        Set<String> expected = new java.util.TreeSet<>(READ_SERIES);
        if (gets(Integer.parseInt(table.group(1))) == 1) {
          expected.remove("blockCache.hit.data"); // read once: a miss, no hit
        }
        if (en.getKey().startsWith("Table/")) {
          expected.add("blockCache.inserted.data"); // the block its miss put into the cache
        }
        assertEquals(en.getKey(), expected, en.getValue());
      }
    }
    Map<Integer, Integer> sizes = new TreeMap<>();
    List<String> odd = new ArrayList<>();
    for (Map.Entry<String, Integer> en : steady.perEntity.entrySet()) {
      if (en.getKey().startsWith("Region/") || en.getKey().startsWith("Table/")) {
        sizes.merge(en.getValue(), 1, Integer::sum);
        if (!en.getKey().contains("series_t")) {
          odd.add(en.getKey() + "=" + en.getValue());
        }
      }
    }
    System.out.printf(
        "series by type %s; tables and regions by their series %s; not the test's: %s%n",
        steady.byType, sizes, odd);
    int documented = documentedSeries(release);
    Scrape jmx = scrape(rs.infoUrl() + "/jmx?qry=blockscope:*");
    Scrape metrics = scrape("http://127.0.0.1:" + rs.prometheusPort + "/metrics");
    System.out.printf(
        "steady: %d series (docs/deploy.md: %,d per server at 1,000 tables);"
            + " /jmx?qry=blockscope:* %,d bytes in %.3f s; the exporter's scrape %,d bytes in"
            + " %.3f s (medians of 5)%n",
        steady.series, documented, jmx.bytes, jmx.seconds, metrics.bytes, metrics.seconds);
    assertTrue(
        steady.series + " series, docs/deploy.md says " + documented, steady.series <= documented);
  }

  /**
   * The series of a table, or region, whose one GZ, FAST_DIFF data block was read by gets once cold
   * and then warm, at COUNT: its hits and miss, the file-system read, the checksum, the GZ
   * decompression and the FAST_DIFF decoding.
   */
  static final Set<String> READ_SERIES =
      new java.util.TreeSet<>(
          List.of(
              "blockCache.hit.data",
              "blockCache.miss.data",
              "checksum.bytes",
              "checksum.chunks",
              "decode.FAST_DIFF.cells",
              "decompress.GZ.blocks",
              "decompress.GZ.bytesIn",
              "decompress.GZ.bytesOut",
              "fs.read.blocks.data",
              "fs.read.bytes.data"));

  /** The series per server docs/deploy.md gives for 1,000 tables under the defaults. */
  static int documentedSeries(Path release) throws Exception {
    String page = Files.readString(release.resolve("docs/deploy.md"), StandardCharsets.UTF_8);
    Matcher m = SIZING_ROW.matcher(page);
    assertTrue("docs/deploy.md's series for 1,000 tables", m.find());
    return Integer.parseInt(m.group(1).replace(",", ""));
  }

  private record Scrape(long bytes, double seconds) {}

  private static Scrape scrape(String url) throws Exception {
    List<Double> seconds = new ArrayList<>();
    long bytes = 0;
    for (int i = 0; i < 5; i++) {
      long start = System.nanoTime();
      bytes = StockChecks.get(url).getBytes(StandardCharsets.UTF_8).length;
      seconds.add((System.nanoTime() - start) / 1e9);
    }
    return new Scrape(bytes, Stats.median(seconds));
  }
}
