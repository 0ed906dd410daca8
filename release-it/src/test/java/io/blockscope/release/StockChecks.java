package io.blockscope.release;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.BeanReader;
import io.blockscope.harness.stock.ClusterFiles;
import io.blockscope.harness.stock.RegionServer;
import io.blockscope.harness.stock.StockCluster;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.ServerMetric;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * What the stock suites check on a {@link StockCluster}, as an operator checks it: tables written
 * and flushed to one store file, the region server's engine-start line, and a region's counters on
 * its server's {@code /jmx} against the store files' trailers.
 */
final class StockChecks {
  static final byte[] F = Bytes.toBytes("f");

  /** The engine-start line: level, export, probes, and at its end the build and its jar. */
  private static final Pattern ENGINE_STARTED =
      Pattern.compile(
          "blockscope: engine started at level (\\w+) exporting regions (\\S+); probes ([^;]+);"
              + "(?:.*; blockscope (\\S+) from (\\S+))?");

  private final StockCluster cluster;

  StockChecks(StockCluster cluster) {
    this.cluster = cluster;
  }

  /** The region's blockscope counters on its server's /jmx, by name (the non-zero ones). */
  Map<String, Long> regionCounts(RegionServer rs, TableName t, String region) throws Exception {
    return new java.util.TreeMap<>(rs.beans().region(t.getNameAsString(), region).nonZero());
  }

  /**
   * The region's counters once the server has run three export refreshes since the call (its {@code
   * export.refreshes} counter): every series its reads so far made non-zero is registered by the
   * second (a single reading can fall inside a refresh, which registers a region's new series one
   * by one), and reads its figure from the third (a new series reads 0 until the refresh after the
   * one that registered it).
   */
  Map<String, Long> exportedRegionCounts(RegionServer rs, TableName t, String region)
      throws Exception {
    awaitRefreshes(rs, 3, 45);
    return regionCounts(rs, t, region);
  }

  /** Waits up to {@code seconds} for {@code n} export refreshes of the server since the call. */
  void awaitRefreshes(RegionServer rs, int n, int seconds) throws Exception {
    long start = rs.beans().exportRefreshes();
    cluster.await(
        n + " export refreshes on " + rs.infoUrl(),
        seconds,
        () -> {
          try {
            return rs.beans().exportRefreshes() >= start + n;
          } catch (Exception e) {
            return false;
          }
        });
  }

  /**
   * Sets {@code blockscope.level} in the server's hbase-site.xml, reloads it with {@code
   * update_config} and waits for its {@code settings.level} gauge to read it.
   */
  void reloadLevel(RegionServer rs, PerfLevel level) throws Exception {
    cluster.reconfigure(rs, Map.of("blockscope.level", level.name()));
    cluster.await(
        "settings.level " + level.ordinal() + " on " + rs.infoUrl(),
        30,
        () -> {
          try {
            return rs.beans().serverValue(ServerMetric.SETTINGS_LEVEL).orElse(-1)
                == level.ordinal();
          } catch (Exception e) {
            return false;
          }
        });
  }

  TableDescriptorBuilder table(TableName t) {
    return TableDescriptorBuilder.newBuilder(t)
        .setColumnFamily(
            ColumnFamilyDescriptorBuilder.newBuilder(F)
                .setBlocksize(4096)
                .setDataBlockEncoding(DataBlockEncoding.FAST_DIFF)
                .setCompressionType(Compression.Algorithm.GZ)
                .build());
  }

  /** Creates a one-region table, writes {@code rows} rows and flushes them to one store file. */
  void load(TableDescriptor td, int rows) throws Exception {
    try (Admin admin = cluster.admin()) {
      admin.createTable(td);
      try (Table table = cluster.connection().getTable(td.getTableName())) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
          puts.add(
              new Put(row(i))
                  .addColumn(
                      F, Bytes.toBytes("a"), Bytes.toBytes("value-" + i + "-" + "x".repeat(40)))
                  .addColumn(F, Bytes.toBytes("b"), Bytes.toBytes(i)));
        }
        table.put(puts);
      }
      admin.flush(td.getTableName());
    }
  }

  byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%08d", i));
  }

  RegionInfo regionOf(TableName t) throws IOException {
    return cluster.regionOf(t);
  }

  RegionServer hosting(TableName t) throws IOException {
    return cluster.hosting(t);
  }

  /**
   * Asserts that the region server's engine-start line names {@code version} and a jar of that
   * server's {@code lib/} named {@code jarName} (the start line of its current process: the log is
   * rewritten at each start).
   */
  void assertEngineBuild(RegionServer rs, String version, String jarName) throws Exception {
    MatchResult m = engineStart(rs);
    assertTrue("the engine-start line names the build in " + rs.log(), m.group(4) != null);
    assertEquals(rs.log() + ": the version", version, m.group(4));
    assertTrue(rs.log() + ": loaded from " + m.group(5), m.group(5).endsWith("/lib/" + jarName));
  }

  /** The probes part of the region server's (current process's) engine-start line. */
  String engineLine(RegionServer rs) throws Exception {
    return engineStart(rs).group(3).trim();
  }

  /** The region server's (current process's) engine-start line, once it is written. */
  private MatchResult engineStart(RegionServer rs) throws Exception {
    AtomicReference<MatchResult> line = new AtomicReference<>();
    cluster.await(
        "blockscope's engine-start line in " + rs.log(),
        60,
        () -> {
          try {
            Matcher m = ENGINE_STARTED.matcher(Files.readString(rs.log()));
            if (m.find()) {
              line.set(m.toMatchResult());
              return true;
            }
            return false;
          } catch (IOException e) {
            return false;
          }
        });
    return line.get();
  }

  /**
   * A cold full scan of a freshly flushed one-region table: the region's {@code /jmx} beans must
   * count each data block of its store file once as a miss and once as a file-system read, with the
   * bytes HBase's block reader finds in the file's data section, all of them checksummed by HBase,
   * and every cell as decoded. Returns the misses.
   */
  long assertColdScanCounted(RegionServer rs, TableName t, int rows) throws Exception {
    long cells = count(t);
    assertEquals(2L * rows, cells);
    ClusterFiles.DataSection file = dataSection(t);
    String region = regionOf(t).getEncodedName();
    assertRegionCount(rs, t, region, "blockCache.miss.data", file.blocks());
    assertRegionCount(rs, t, region, "fs.read.blocks.data", file.blocks());
    assertRegionCount(rs, t, region, "fs.read.bytes.data", file.bytes());
    assertRegionCount(rs, t, region, "checksum.bytes", file.bytes());
    assertRegionCount(rs, t, region, "decompress.GZ.blocks", file.blocks());
    assertRegionCount(rs, t, region, "decode.FAST_DIFF.cells", cells);
    return file.blocks();
  }

  /**
   * Asserts that the master and every region server run HBase {@code version}: the master's as the
   * cluster reports it ({@code ClusterMetrics.getHBaseVersion}), each region server's as its own
   * process logged it at start ({@code VersionInfo: HBase ...}, from the HBase classes it loaded;
   * HBase 2's {@code ClusterMetrics} gives clients every live server's version as {@code 0.0.0}).
   * The {@code -hadoop3} builds these suites run carry that suffix.
   */
  void assertVersions(String version) throws Exception {
    String expected = version + "-hadoop3";
    try (Admin admin = cluster.admin()) {
      ClusterMetrics m =
          admin.getClusterMetrics(
              EnumSet.of(ClusterMetrics.Option.HBASE_VERSION, ClusterMetrics.Option.LIVE_SERVERS));
      assertEquals("the master's version", expected, m.getHBaseVersion());
      assertEquals(
          "live region servers", cluster.regionServers().size(), m.getLiveServerMetrics().size());
    }
    for (RegionServer rs : cluster.regionServers()) {
      Matcher v = HBASE_VERSION.matcher(Files.readString(rs.log()));
      assertTrue("HBase's version line in " + rs.log(), v.find());
      assertEquals(rs.log() + ": the version", expected, v.group(1));
    }
  }

  /** The version line HBase's VersionInfo logs as a server starts. */
  private static final Pattern HBASE_VERSION = Pattern.compile("VersionInfo: HBase (\\S+)");

  long count(TableName t) throws IOException {
    long cells = 0;
    try (Table table = cluster.connection().getTable(t);
        ResultScanner s = table.getScanner(new Scan().setCaching(500))) {
      for (Result r : s) {
        cells += r.size();
      }
    }
    return cells;
  }

  /** The data blocks of a one-region table's store file, as HBase's block reader walks it. */
  long[] dataBlocks(TableName t, String familyName) throws IOException {
    return new long[] {cluster.dataBlocks(t, familyName)};
  }

  /** The data section of a one-region table's store file in family {@code f}. */
  ClusterFiles.DataSection dataSection(TableName t) throws IOException {
    return cluster.files().dataSection(t, "f");
  }

  /**
   * A region's count from the server's {@code /jmx}, once it equals {@code expected}: a region's
   * series appear at the engine's export after they become non-zero (every
   * blockscope.export.interval.ms: 10 s by default, 1 s in way 1 here), and a series not exported
   * reads 0. Waits up to 30 s, then fails with what it read and the server's blockscope beans.
   */
  void assertRegionCount(RegionServer rs, TableName t, String region, String name, long expected)
      throws Exception {
    awaitRegionCount(rs, t, region, name, expected);
    // a figure passing through the expected value on its way elsewhere (a doubled count exported
    // half-way) reads otherwise after the next refresh
    awaitRefreshes(rs, 1, 30);
    assertEquals(
        t.getNameAsString() + "/" + region + " " + name + " after an export refresh",
        expected,
        rs.beans().region(t.getNameAsString(), region).get(name));
  }

  private void awaitRegionCount(
      RegionServer rs, TableName t, String region, String name, long expected) throws Exception {
    if (expected == 0) {
      // a series that is not there reads 0 too: before its export has run, 0 proves nothing, so
      // a 0 is read only once the exports that would show a non-zero figure have run
      long figure = exportedRegionCounts(rs, t, region).getOrDefault(name, 0L);
      assertEquals(name + " of " + region + " on " + rs.infoUrl(), 0L, figure);
      return;
    }
    CostSnapshot.ZERO.get(name); // a name that is no cost fails here, not after 30 s
    String what = t.getNameAsString() + "/" + region + " " + name;
    AtomicLong last = new AtomicLong(-1);
    try {
      cluster.await(
          what + " = " + expected + " on " + rs.infoUrl(),
          30,
          () -> {
            try {
              last.set(rs.beans().region(t.getNameAsString(), region).get(name));
              return last.get() == expected;
            } catch (Exception e) {
              return false;
            }
          });
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage()
              + "; last read "
              + last.get()
              + "; the table's region series: "
              + beanNames(rs, t),
          e);
    }
  }

  /** The names of the table's region series on the server. */
  List<String> beanNames(RegionServer rs, TableName t) throws Exception {
    List<String> names = new ArrayList<>();
    for (BeanReader.Reading r : rs.beans().read(MetricKeys.regionBeans())) {
      if (t.getNameAsString().equals(MetricKeys.property(r.name(), "table"))) {
        names.add(r.name().toString());
      }
    }
    return names;
  }

  static String get(String url) throws Exception {
    return StockCluster.httpGet(url);
  }
}
