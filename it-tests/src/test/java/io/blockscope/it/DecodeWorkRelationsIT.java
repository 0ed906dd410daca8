package io.blockscope.it;

import static org.junit.Assert.assertEquals;

import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.RawTable;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.junit.Test;

/**
 * Relationship 2 of docs/relationships.md, seed 000: "the cost of decompression is proportional to
 * the number of blocks that have to be decompressed, whereas the cost of decoding is proportional
 * to the number of Cells visited."
 */
public class DecodeWorkRelationsIT extends ClusterTestBase {

  private static CostSnapshot query(String table, String sql, long expected) throws Exception {
    TableName t = TableName.valueOf(table);
    CostSnapshot before = tableCosts(t);
    assertEquals(sql, expected, SeedTables.queryLong(cluster, sql));
    return tableCosts(t).minus(before);
  }

  /**
   * A compressed, unencoded family: every block read from the file system is decompressed once,
   * half the rows decompress half the blocks, no cell is decoded, and blocks cached decompressed
   * are never decompressed again.
   */
  @Test
  public void decompressionFollowsBlocksReadAndDecodingIsZeroWithoutEncoding() throws Exception {
    String table = SeedTables.get(cluster, "NONE+GZ");
    List<HRegion> regions = cluster.regions(TableName.valueOf(table));
    long dataBlocks = SeedTables.dataBlocksAndCells(regions)[0];

    StoreFiles.evict(cluster.blockCache(), regions);
    CostSnapshot half =
        query(
            table,
            "SELECT /*+ SERIAL */ COUNT(*) FROM " + table + " WHERE pk < " + SeedTables.ROWS / 2,
            SeedTables.ROWS / 2);
    long throughHalf =
        SeedTables.dataBlocksThrough(regions, SeedTables.phoenixKey(SeedTables.ROWS / 2 - 1));
    System.out.println(
        "half the rows: "
            + half.get("fs.read.blocks.data")
            + " data blocks read, the index gives "
            + throughHalf
            + " of "
            + dataBlocks);
    assertEquals(
        "half the rows read the data blocks up to the first cell past them: " + half,
        throughHalf,
        half.get("fs.read.blocks.data"));
    // the file system's figure is checked against the index first, then decompression against it
    assertEquals(
        "every block read from the file system was decompressed once",
        half.sumKinds("fs.read.blocks"),
        half.get("decompress.GZ.blocks"));

    StoreFiles.evict(cluster.blockCache(), regions);
    CostSnapshot cold =
        query(table, "SELECT /*+ SERIAL */ COUNT(*) FROM " + table, SeedTables.ROWS);
    assertEquals(dataBlocks, cold.get("fs.read.blocks.data"));
    assertEquals(
        "every block read from the file system was decompressed once",
        cold.sumKinds("fs.read.blocks"),
        cold.get("decompress.GZ.blocks"));
    assertEquals(0, cold.sumOver("decode", "cells"));

    CostSnapshot warm =
        query(table, "SELECT /*+ SERIAL */ COUNT(*) FROM " + table, SeedTables.ROWS);
    assertEquals(dataBlocks, warm.get("blockCache.hit.data"));
    assertEquals(0, warm.sumOver("decompress", "blocks"));
    assertEquals(0, warm.sumOver("decode", "cells"));
  }

  /**
   * FAST_DIFF blocks are cached encoded: with every block a cache hit, each scan decodes every cell
   * again, and half the rows decode half the cells.
   */
  @Test
  public void decodingFollowsCellsVisitedEvenWhenEveryBlockIsACacheHit() throws Exception {
    String table = SeedTables.get(cluster, "FAST_DIFF");
    TableName t = TableName.valueOf(table);
    long dataBlocks = SeedTables.dataBlocksAndCells(cluster.regions(t))[0];
    RawTable.scanCells(cluster.connection(), t, new Scan()); // warm the cache

    for (int scan = 1; scan <= 2; scan++) {
      CostSnapshot before = tableCosts(t);
      assertEquals(SeedTables.CELLS, RawTable.scanCells(cluster.connection(), t, new Scan()));
      CostSnapshot d = tableCosts(t).minus(before);
      assertEquals(dataBlocks, d.get("blockCache.hit.data"));
      assertEquals(0, misses(d));
      assertEquals(
          "scan " + scan + " decoded every cell again",
          SeedTables.CELLS,
          d.get("decode.FAST_DIFF.cells"));
    }

    CostSnapshot before = tableCosts(t);
    Scan half = new Scan().withStopRow(SeedTables.phoenixKey(SeedTables.ROWS / 2));
    assertEquals(SeedTables.CELLS / 2, RawTable.scanCells(cluster.connection(), t, half));
    CostSnapshot h = tableCosts(t).minus(before);
    long decoded = h.get("decode.FAST_DIFF.cells");
    System.out.println(
        "half the rows (stop row): "
            + decoded
            + " cells decoded, "
            + h.get("blockCache.hit.data")
            + " data blocks hit, the index gives "
            + SeedTables.dataBlocksThrough(
                cluster.regions(t), SeedTables.phoenixKey(SeedTables.ROWS / 2 - 1)));
    assertEquals(
        "half the rows decode half the cells, and the first cell of the stop row, which ends the"
            + " scan",
        SeedTables.CELLS / 2 + 1,
        decoded);
    assertEquals(
        SeedTables.dataBlocksThrough(
            cluster.regions(t), SeedTables.phoenixKey(SeedTables.ROWS / 2 - 1)),
        h.get("blockCache.hit.data"));
    assertEquals(0, h.sumOver("decompress", "blocks"));
  }
}
