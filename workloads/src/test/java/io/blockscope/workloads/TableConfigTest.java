package io.blockscope.workloads;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.CostLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

public class TableConfigTest {
  @Test
  public void parsesTheThreeForms() {
    assertEquals(new TableConfig("FAST_DIFF", "GZ"), TableConfig.parse("fast_diff+gz"));
    assertEquals(new TableConfig("PREFIX", "NONE"), TableConfig.parse("PREFIX"));
    assertEquals(new TableConfig("NONE", "SNAPPY"), TableConfig.parse("snappy"));
    assertEquals("ROW_INDEX_V1+ZSTD", TableConfig.parse("ROW_INDEX_V1+ZSTD").label());
    assertEquals("NONE", TableConfig.parse("NONE").label());
    assertEquals("RIV1_ZSTD", TableConfig.parse("ROW_INDEX_V1+ZSTD").tableSuffix());
  }

  @Test
  public void rejectsUnknownNamesListingTheKnownOnes() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> TableConfig.parse("FAST_DIFF+BROTLI"));
    assertTrue(
        e.getMessage(), e.getMessage().contains("BROTLI") && e.getMessage().contains("ZSTD"));
    assertThrows(IllegalArgumentException.class, () -> TableConfig.parse("COPY_KEY"));
  }

  @Test
  public void blockscopesEncodingWhenNamedButInNoMatrix() {
    assertEquals(new TableConfig("BLOCKSCOPE_V1", "ZSTD"), TableConfig.parse("blockscope_v1+zstd"));
    assertTrue(TableConfig.full().stream().noneMatch(c -> c.encoding().equals("BLOCKSCOPE_V1")));
    assertTrue(TableConfig.seeds().stream().noneMatch(c -> c.encoding().equals("BLOCKSCOPE_V1")));
  }

  @Test
  public void matrices() {
    List<TableConfig> seeds = TableConfig.seeds();
    assertEquals(10, seeds.size());
    assertEquals(seeds.size(), seeds.stream().distinct().count());
    assertEquals(25, TableConfig.full().size());
    assertTrue(TableConfig.full().containsAll(seeds));
  }

  @Test
  public void defaultWorkloadsFitTheShape() {
    assertEquals(13, Workload.all(DataShape.SEEDS).size());
    assertTrue(Workload.all(DataShape.PE).stream().noneMatch(Workload::phoenixOnly));
    assertEquals(
        List.of(
            Workload.SCAN_CACHING_1,
            Workload.SCAN_CACHING_1000,
            Workload.RAW_SCAN,
            Workload.RAW_SCAN_NO_CACHE,
            Workload.RAW_GET,
            Workload.RAW_GET_COLD),
        Workload.all(DataShape.SAMPLE));
    // the defaults are some of all, and read through HBase alone where the table is not Phoenix's
    for (DataShape shape : DataShape.values()) {
      assertTrue(shape.name(), Workload.all(shape).containsAll(Workload.defaults(shape)));
      assertTrue(
          shape.name(),
          shape.phoenix() || Workload.defaults(shape).stream().noneMatch(Workload::phoenixOnly));
    }
    // both groups the recommendation weighs are in every default run
    for (DataShape shape : DataShape.values()) {
      for (Workload.Group g : List.of(Workload.Group.SCAN, Workload.Group.GET)) {
        assertTrue(
            shape + " " + g, Workload.defaults(shape).stream().anyMatch(w -> w.group() == g));
      }
    }
    assertEquals(
        "NONE/CRC32C-NOVERIFY", TableConfig.parse("NONE").checksumVariants().get(3).label());
    assertTrue(!TableConfig.parse("NONE/CRC32C-NOVERIFY").hbaseVerifies());
    assertEquals("CRC32C", TableConfig.parse("NONE/CRC32C-NOVERIFY").checksumAlgorithm());
  }

  @Test
  public void aBlockSizeAndABloomFollowAnAt() {
    TableConfig c = TableConfig.parse("fast_diff+gz@16k@rowcol");
    assertEquals(16384, c.blockSize());
    assertEquals("ROWCOL", c.bloom());
    assertEquals("FAST_DIFF+GZ@16K@ROWCOL", c.label());
    assertEquals(c, TableConfig.parse(c.label()));
    assertEquals("FAST_DIFF_GZ_B16K_ROWCOL", c.tableSuffix());
    assertEquals(c, TableConfig.parse("FAST_DIFF+GZ@ROWCOL@16384"));
    assertEquals("ROW_INDEX_V1@1M", TableConfig.parse("ROW_INDEX_V1@1048576").label());
    assertEquals("NONE@ROW/CRC32", TableConfig.parse("NONE@ROW/CRC32").label());
    assertEquals(0, TableConfig.parse("FAST_DIFF").blockSize());
    assertEquals("", TableConfig.parse("FAST_DIFF").bloom());
    for (String bad :
        List.of(
            "FAST_DIFF@",
            "FAST_DIFF@512",
            "FAST_DIFF@17M",
            "FAST_DIFF@ROWPREFIX_FIXED_LENGTH",
            "FAST_DIFF@16K@32K",
            "FAST_DIFF@ROW@ROW",
            "FAST_DIFF@99999999999K")) {
      assertThrows(bad, IllegalArgumentException.class, () -> TableConfig.parse(bad));
    }
  }

  /**
   * Every encoding and compression evaluate offers has its own series in the metrics (a name of
   * {@code CostLayout}'s, not OTHER), so a report's cost columns are never lumped together.
   */
  @Test
  public void everyOfferedSettingHasItsOwnMetricSeries() {
    for (String e : concat(TableConfig.ENCODINGS, TableConfig.EXTRA_ENCODINGS)) {
      assertTrue(e, CostLayout.ENCODINGS.contains(e) && !e.equals("OTHER"));
    }
    for (String c : TableConfig.COMPRESSIONS) {
      assertTrue(c, CostLayout.ALGORITHMS.contains(c) && !c.equals("OTHER"));
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
