package io.blockscope.release;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.stock.RegionServer;
import io.blockscope.harness.stock.StockCluster;
import io.blockscope.harness.stock.StockCluster.Deployment;
import io.blockscope.metrics.MetricKeys;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/**
 * Records a stock region server's {@code /jmx} with blockscope deployed and 1,000 regions open, for
 * the tests and benchmarks of {@code blockscope top} that serve it from loopback servers. A tool,
 * not a test: its name is outside the suite's {@code *IT} pattern, so it runs only when named, and
 * then needs {@code blockscope.record.jmx}, the directory to write to:
 *
 * <pre>
 * ./mvnw -B -o -q install -DskipTests
 * ./mvnw -B -o -pl release-it surefire:test -Dtest=JmxRecorder \
 *     -Dblockscope.record.jmx=$PWD/cli/src/test/resources/jmx
 * </pre>
 *
 * <p>One region server of the stock HBase install with docs/deploy.md's cluster-wide deployment
 * (exports every second, so the recording needs no long wait) hosts one table pre-split into 1,000
 * regions; every tenth region gets five rows, flushed, and each row is read back, so those 100
 * regions carry cost series (MSLAB is off: the stock suites' region server heap of 640 MB cannot
 * give 100 regions a memstore chunk of 2 MB each). Once the server has exported three times since,
 * two replies are written gzip'ed, as the server sent them: {@code jmx-1000-regions.json.gz}, its
 * whole {@code /jmx}, and {@code jmx-1000-regions-blockscope.json.gz}, its answer to the query
 * {@code top} sends ({@code /jmx?qry=blockscope:*}).
 */
public class JmxRecorder {
  static final int REGIONS = 1_000;
  private static final byte[] F = StockChecks.F;

  @Test
  public void recordJmxOfOneServerWithAThousandRegions() throws Exception {
    String to = System.getProperty("blockscope.record.jmx");
    assertTrue("set -Dblockscope.record.jmx=<directory> to record", to != null && !to.isEmpty());
    Path out = Path.of(to);
    Files.createDirectories(out);
    Path release = Path.of(System.getProperty("blockscope.release"));
    DeployPage page = new DeployPage(release.resolve("docs"));
    Deployment server =
        new Deployment(
            List.of(page.libJarInstalled(release)),
            Map.of(
                page.siteName,
                page.siteValue,
                "blockscope.export.interval.ms",
                "1000",
                // the server's 640 MB heap cannot give each written region a 2 MB memstore chunk
                "hbase.hregion.memstore.mslab.enabled",
                "false"),
            List.of("-javaagent:${lib}/" + page.agentJar));
    try (StockCluster cluster =
        StockCluster.start(
            Path.of(System.getProperty("blockscope.work") + "-record-jmx"),
            StockInstalls.hbase(),
            new Deployment(List.of(), Map.of(), List.of()),
            List.of(server))) {
      TableName t = TableName.valueOf("record_jmx");
      StockChecks checks = new StockChecks(cluster);
      byte[][] splits = new byte[REGIONS - 1][];
      for (int i = 1; i < REGIONS; i++) {
        splits[i - 1] = Bytes.toBytes(String.format("r%04d", i));
      }
      try (Admin admin = cluster.admin()) {
        admin.createTable(checks.table(t).build(), splits);
        assertEquals(REGIONS, admin.getRegions(t).size());
        List<byte[]> rows = new ArrayList<>();
        for (int i = 0; i < REGIONS; i += 10) {
          for (int k = 0; k < 5; k++) {
            rows.add(Bytes.toBytes(String.format("r%04d-%d", i, k)));
          }
        }
        try (Table table = cluster.connection().getTable(t)) {
          List<Put> puts = new ArrayList<>();
          for (byte[] row : rows) {
            puts.add(new Put(row).addColumn(F, Bytes.toBytes("a"), Bytes.toBytes("v")));
          }
          table.put(puts);
          admin.flush(t);
          for (byte[] row : rows) {
            assertTrue(table.exists(new Get(row)));
          }
        }
      }
      RegionServer rs = cluster.regionServers().get(0);
      long start = rs.beans().exportRefreshes();
      cluster.await(
          "three export refreshes",
          60,
          () -> {
            try {
              return rs.beans().exportRefreshes() >= start + 3;
            } catch (IOException e) {
              return false;
            }
          });
      write(out.resolve("jmx-1000-regions.json.gz"), StockCluster.httpGet(rs.infoUrl() + "/jmx"));
      String query = URLEncoder.encode(MetricKeys.allBeans().toString(), StandardCharsets.UTF_8);
      write(
          out.resolve("jmx-1000-regions-blockscope.json.gz"),
          StockCluster.httpGet(rs.infoUrl() + "/jmx?qry=" + query));
    }
  }

  private static void write(Path file, String body) throws IOException {
    try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(file))) {
      o.write(body.getBytes(StandardCharsets.UTF_8));
    }
  }
}
