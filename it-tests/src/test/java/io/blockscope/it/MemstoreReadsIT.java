package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.RawTable;
import io.blockscope.workloads.SeedTable;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.VersionInfo;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.Test;

/**
 * Reads served from the memstore ({@code memstore.cells}, {@code memstore.bytes}), counted by the
 * memstore probe in {@code SegmentScanner.next()}, against what the test wrote: every cell a read
 * takes from a memstore segment counts once with its serialized size (key, value, no tags here),
 * and nothing a read takes from a store file does. Where HBase has its own memstore scan metric
 * (2.6.4 on: {@code BYTES_READ_FROM_MEMSTORE}), a scan's bytes agree with it too, but for the cell
 * a scanner lands on when it opens, which HBase leaves out.
 */
public class MemstoreReadsIT extends ClusterTestBase {
  private static final int ROWS = 3_000;
  private static final int LATER = 500;

  /**
   * Cells and their serialized bytes a read returned to the client, the size of the first, the
   * sizes of each row's first cell added up, and HBase's scan metrics.
   */
  private record Read(
      long cells, long bytes, long first, long rowFirsts, Map<String, Long> hbase) {}

  /** A cell's serialized size as a KeyValue: lengths, key, value (no tags are written here). */
  private static long size(Cell c) {
    assertEquals("no tags", 0, c.getTagsLength());
    return KeyValue.getKeyValueDataStructureSize(
        c.getRowLength(), c.getFamilyLength(), c.getQualifierLength(), c.getValueLength());
  }

  private static Read scan(TableName t, Scan scan) throws Exception {
    long cells = 0;
    long bytes = 0;
    long first = 0;
    long rowFirsts = 0;
    scan.setScanMetricsEnabled(true);
    try (Table table = cluster.connection().getTable(t);
        ResultScanner rs = table.getScanner(scan)) {
      for (Result r : rs) {
        rowFirsts += size(r.rawCells()[0]);
        for (Cell c : r.rawCells()) {
          first = cells++ == 0 ? size(c) : first;
          bytes += size(c);
        }
      }
      return new Read(cells, bytes, first, rowFirsts, rs.getScanMetrics().getMetricsMap());
    }
  }

  /** Rows {@code from..to-1}, two cells each, into the memstore (no flush). */
  private static void write(TableName t, int from, int to) throws Exception {
    try (Table table = cluster.connection().getTable(t)) {
      List<Put> puts = new ArrayList<>();
      for (int pk = from; pk < to; pk++) {
        puts.add(
            new Put(RawTable.seedRow(pk))
                .addColumn(RawTable.SEED_FAMILY, RawTable.SEED_V1, Bytes.toBytes((float) pk))
                .addColumn(RawTable.SEED_FAMILY, RawTable.SEED_V2, Bytes.toBytes("value " + pk)));
      }
      table.put(puts);
    }
  }

  private static void assertNothingFromFiles(String what, CostSnapshot d) {
    assertEquals(what + ": no block looked up", 0, hits(d) + misses(d));
    assertEquals(what + ": no block read", 0, d.sumKinds("fs.read.blocks"));
    assertEquals(what + ": no cell decoded", 0, d.sumOver("decode", "cells"));
  }

  /**
   * Whether this HBase reports a scan's memstore bytes to the client: 2.6.4 on, and 2.5.13 on the
   * 2.5 line (which has that metric but not the file-system ones, so no HBase figures in profiles).
   */
  private static boolean hasMemstoreScanMetric() {
    String[] v = VersionInfo.getVersion().split("[.-]");
    boolean late25 =
        Integer.parseInt(v[0]) == 2 && Integer.parseInt(v[1]) == 5 && Integer.parseInt(v[2]) >= 13;
    return ScanMetricsAgreementIT.hasReadMetrics() || late25;
  }

  /**
   * HBase's own figure, where its version has it, and its absence where it does not. HBase 2.6.4's
   * {@code SegmentScanner} constructor reads its scan-metrics switch after its first move, so HBase
   * leaves out the cell a segment's scanner lands on when it opens ({@code opening} bytes), which
   * blockscope counts.
   */
  private static void assertAsHBaseCounts(Read read, CostSnapshot d, long opening) {
    String key = "BYTES_READ_FROM_MEMSTORE";
    assertEquals(
        "HBase " + VersionInfo.getVersion() + " has " + key,
        hasMemstoreScanMetric(),
        read.hbase().containsKey(key));
    if (read.hbase().containsKey(key)) {
      assertEquals(
          "HBase's memstore bytes",
          (long) read.hbase().get(key),
          d.get("memstore.bytes") - opening);
    }
  }

  /**
   * Forward, a scan over one memstore segment lands on each cell once, and on the segment's first
   * twice: when its scanner opens and when the scan seeks to its start row.
   */
  private static void assertForward(String what, Read read, CostSnapshot d) {
    assertEquals(what + ": cells", read.cells() + 1, d.get("memstore.cells"));
    assertEquals(what + ": bytes", read.bytes() + read.first(), d.get("memstore.bytes"));
  }

  @Test
  public void everyCellAReadLandsOnInTheMemstoreCountsWithItsBytes() throws Exception {
    TableName t = newTable("memstore");
    RawTable.create(cluster.admin(), new RawTable.Spec(t));
    write(t, 0, ROWS);
    HRegion r = onlyRegion(t);

    CostSnapshot before = regionCosts(r);
    Read forward = scan(t, new Scan());
    CostSnapshot d = regionCosts(r).minus(before);
    System.out.println("a forward scan of the memstore: " + forward + "; blockscope " + d);
    assertEquals(2L * ROWS, forward.cells());
    assertForward("a forward scan", forward, d);
    assertNothingFromFiles("a forward scan", d);
    assertAsHBaseCounts(forward, d, forward.first());

    // the second column only: the scan seeks past each row's first cell, landing on it all the same
    before = regionCosts(r);
    Read some = scan(t, new Scan().addColumn(RawTable.SEED_FAMILY, RawTable.SEED_V2));
    d = regionCosts(r).minus(before);
    System.out.println("the second column: " + some + "; blockscope " + d);
    assertEquals(ROWS, some.cells());
    assertEquals("cells landed on", forward.cells() + 1, d.get("memstore.cells"));
    assertEquals("their bytes", forward.bytes() + forward.first(), d.get("memstore.bytes"));
    assertAsHBaseCounts(some, d, forward.first());

    // backwards, each row is sought from its first cell and stepped through to the first cell of
    // the row after it (where the scan sees the row end): every row's first cell counts twice but
    // the last row's
    before = regionCosts(r);
    Read reverse = scan(t, new Scan().setReversed(true));
    d = regionCosts(r).minus(before);
    System.out.println("a reverse scan of the memstore: " + reverse + "; blockscope " + d);
    assertEquals(forward.cells(), reverse.cells());
    assertEquals("cells, reversed", reverse.cells() + ROWS, d.get("memstore.cells"));
    assertEquals("bytes, reversed", reverse.bytes() + reverse.rowFirsts(), d.get("memstore.bytes"));
    assertNothingFromFiles("a reverse scan", d);
    assertAsHBaseCounts(reverse, d, forward.first());
  }

  @Test
  public void afterAFlushOnlyTheCellsWrittenSinceComeFromTheMemstore() throws Exception {
    TableName t = newTable("memstore_flushed");
    RawTable.create(cluster.admin(), new RawTable.Spec(t));
    write(t, 0, ROWS);
    cluster.admin().flush(t);
    write(t, ROWS, ROWS + LATER);
    HRegion r = onlyRegion(t);
    assertEquals("one store file", 1, r.getStores().get(0).getStorefilesCount());

    CostSnapshot before = regionCosts(r);
    Read all = scan(t, new Scan());
    CostSnapshot d = regionCosts(r).minus(before);
    Read later = scan(t, new Scan().withStartRow(RawTable.seedRow(ROWS)));
    System.out.println("a scan of a flushed file and a memstore: " + d);
    assertEquals(2L * (ROWS + LATER), all.cells());
    assertEquals(2L * LATER, later.cells());
    assertForward("the rows written after the flush", later, d);
    // the flushed rows came from blocks: each data block of the file, as its trailer says, looked
    // up once (a miss the first time, a hit if the flush left it cached)
    assertEquals(
        "the flushed rows' data blocks",
        SeedTables.dataBlocksAndCells(List.of(r))[0],
        d.get("blockCache.hit.data") + d.get("blockCache.miss.data"));
    assertAsHBaseCounts(all, d, later.first());

    try (Table table = cluster.connection().getTable(t)) {
      // a get lands on the segment's first cell when its scanner opens, on the row's cells, and
      // on the next row's first cell, where it sees the row end; every row's first cell has the
      // same size (a 4-byte row, the same column, a 4-byte value)
      before = regionCosts(r);
      Cell[] row = table.get(new Get(RawTable.seedRow(ROWS + 7))).rawCells();
      d = regionCosts(r).minus(before);
      System.out.println("a get of a row in the memstore: blockscope " + d);
      assertEquals(2, row.length);
      assertEquals("a get of a row in the memstore", 4, d.get("memstore.cells"));
      assertEquals(3 * size(row[0]) + size(row[1]), d.get("memstore.bytes"));

      // a flushed row's get lands only where its scanner opens and where it seeks to the row
      before = regionCosts(r);
      assertEquals(2, table.get(new Get(RawTable.seedRow(7))).rawCells().length);
      d = regionCosts(r).minus(before);
      System.out.println("a get of a flushed row: blockscope " + d);
      assertEquals("a get of a flushed row", 2, d.get("memstore.cells"));
      assertEquals(2 * size(row[0]), d.get("memstore.bytes"));
    }
  }

  /**
   * A Phoenix query's profile has each region's memstore reads: EXPLAIN ANALYZE of a full scan of a
   * table written and not flushed shows, per region, the cells and bytes a raw scan of that region
   * finds (the empty column cell Phoenix adds to every row included), in JSON and in text.
   */
  @Test
  public void explainAnalyzeShowsEachRegionsMemstoreReads() throws Exception {
    String table = newTable("MEMSTORE_PROFILE").getNameAsString(); // a new one for each run
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE "
              + table
              + " (pk INTEGER PRIMARY KEY, v1 FLOAT, v2 FLOAT) SPLIT ON ("
              + ROWS / 2
              + ")");
      SeedTable.fill(c, table, ROWS, 5);
    }
    List<HRegion> regions = cluster.regions(TableName.valueOf(table));
    assertEquals(2, regions.size());
    Map<String, Read> truth = new HashMap<>();
    long cells = 0;
    for (HRegion r : regions) {
      Read read =
          scan(
              TableName.valueOf(table),
              new Scan()
                  .withStartRow(r.getRegionInfo().getStartKey())
                  .withStopRow(r.getRegionInfo().getEndKey()));
      truth.put(r.getRegionInfo().getEncodedName(), read);
      cells += read.cells();
    }
    assertEquals("three cells a row: v1, v2 and Phoenix's empty column", 3L * ROWS, cells);

    String query = "SELECT * FROM " + table;
    JsonObject doc;
    List<String> text = new ArrayList<>();
    try (Connection c = SeedTables.blockscope(cluster);
        Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("EXPLAIN ANALYZE (FORMAT JSON) " + query)) {
        assertTrue(rs.next());
        doc = JsonParser.parseString(rs.getString("PLAN")).getAsJsonObject();
      }
      try (ResultSet rs = s.executeQuery("EXPLAIN ANALYZE " + query)) {
        while (rs.next()) {
          text.add(rs.getString(1));
        }
      }
    }
    System.out.println("EXPLAIN ANALYZE " + query + "\n" + String.join("\n", text));
    Set<String> profiled = new TreeSet<>();
    for (JsonElement e : doc.getAsJsonArray("regions")) {
      profiled.add(e.getAsJsonObject().get("region").getAsString());
    }
    assertEquals(
        "profiled regions that are the table's",
        truth.size(),
        profiled.stream().filter(truth::containsKey).count());
    assertEquals("profiled regions", truth.size(), profiled.size());
    for (JsonElement e : doc.getAsJsonArray("regions")) {
      JsonObject region = e.getAsJsonObject();
      Read expected = truth.get(region.get("region").getAsString());
      JsonObject costs = region.getAsJsonObject("costs");
      // each region's scan lands on its memstore's first cell twice (see assertForward)
      long landed = expected.cells() + 1;
      long bytes = expected.bytes() + expected.first();
      assertEquals(landed, cost(costs, "memstore.cells"));
      assertEquals(bytes, cost(costs, "memstore.bytes"));
      JsonElement hbase = costs.get("hbase.BYTES_READ_FROM_MEMSTORE");
      assertEquals(
          "the profile has HBase's memstore bytes",
          ScanMetricsAgreementIT.hasReadMetrics(),
          hbase != null);
      if (hbase != null) {
        assertEquals("HBase's memstore bytes", bytes - expected.first(), hbase.getAsLong());
      }
      String line =
          text.stream()
              .filter(
                  l -> l.startsWith("  region " + table + "/" + region.get("region").getAsString()))
              .findFirst()
              .orElseThrow();
      // the text's figures read back as numbers (none shown: 0), so a wrong one says how wrong
      java.util.regex.Matcher shown =
          java.util.regex.Pattern.compile("memstore cells=([0-9,]+) bytes=([0-9,]+)").matcher(line);
      boolean found = shown.find();
      assertEquals(line, landed, found ? Long.parseLong(shown.group(1).replace(",", "")) : 0);
      assertEquals(line, bytes, found ? Long.parseLong(shown.group(2).replace(",", "")) : 0);
    }
    assertEquals(
        3L * ROWS + regions.size(),
        cost(doc.getAsJsonObject("total").getAsJsonObject("costs"), "memstore.cells"));
  }

  /** A cost of a profile's JSON costs; a cost the profile leaves out (a zero) reads 0. */
  private static long cost(JsonObject costs, String name) {
    JsonElement v = costs.get(name);
    return v == null ? 0 : v.getAsLong();
  }
}
