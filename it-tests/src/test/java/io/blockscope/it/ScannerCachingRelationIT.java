package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.junit.Test;

/**
 * Relationship 6 of docs/relationships.md, seed 003: {@code Scan.setCaching} "tells the scanner how
 * many rows to fetch at a time from the server"; caching 1 costs about one RPC per row, 1000 about
 * one per thousand rows. Counted by HBase's own ScanMetrics.
 */
public class ScannerCachingRelationIT extends ClusterTestBase {
  private static final int ROWS = 5000;

  private static ScanMetrics scan(TableName t, Scan scan) throws Exception {
    scan.withStopRow(SeedTables.phoenixKey(ROWS)).setScanMetricsEnabled(true);
    long rows = 0;
    ScanMetrics metrics;
    try (Table table = cluster.connection().getTable(t);
        ResultScanner rs = table.getScanner(scan)) {
      for (Result r = rs.next(); r != null; r = rs.next()) {
        rows++;
      }
      metrics = rs.getScanMetrics();
    }
    assertEquals(ROWS, rows);
    assertEquals(ROWS, metrics.countOfRowsScanned.get());
    return metrics;
  }

  @Test
  public void rpcsPerScanFollowScannerCaching() throws Exception {
    TableName t = TableName.valueOf(SeedTables.get(cluster, "NONE"));
    long one = scan(t, new Scan().setCaching(1)).countOfRPCcalls.get();
    long thousand = scan(t, new Scan().setCaching(1000)).countOfRPCcalls.get();
    long unset = scan(t, new Scan()).countOfRPCcalls.get();
    System.out.println(
        "RPCs for "
            + ROWS
            + " rows: caching 1 "
            + one
            + ", caching 1000 "
            + thousand
            + ", default "
            + unset);
    assertTrue("caching 1: about one RPC per row, " + one, one >= ROWS && one <= ROWS + 3);
    assertTrue(
        "caching 1000: about rows / 1000, " + thousand,
        thousand >= ROWS / 1000 && thousand <= ROWS / 1000 + 3);
    // From HBase 1.1 on, the default is unlimited rows bounded by a 2 MB result size
    // (hbase.client.scanner.max.result.size): the seed's caching-1 default no longer applies.
    assertTrue("default caching: few RPCs, " + unset, unset <= ROWS / 1000 + 3);
  }
}
