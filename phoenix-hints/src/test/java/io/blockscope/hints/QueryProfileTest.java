package io.blockscope.hints;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.Test;

public class QueryProfileTest {
  private static final Map<String, Long> OURS =
      Map.of(
          "blockCache.miss.data", 47L, "fs.read.blocks.data", 47L, "fs.read.bytes.data", 68_810L);

  @Test
  public void hbasesOwnScanMetricsGetColumnsOfTheirOwnAndAreNotAddedToBlockscopes() {
    Map<String, Long> both = new java.util.HashMap<>(OURS);
    both.put("hbase.BLOCK_READ_OPS_COUNT", 47L);
    both.put("hbase.BYTES_READ_FROM_FS", 68_843L);
    both.put("hbase.BYTES_READ_FROM_BLOCK_CACHE", 0L);
    both.put("hbase.BYTES_READ_FROM_MEMSTORE", 0L);
    both.put("hbase.FS_READ_TIME", 3L);
    QueryProfile p =
        new QueryProfile("q", List.of(new QueryProfile.Region("T", "r1", 2_000, both)));
    assertTrue(p.hasHBaseScanMetrics());
    String[] lines = p.toText().split("\n");
    assertTrue(
        lines[1],
        lines[1].endsWith(
            "HBase fs blocks  HBase fs bytes  HBase cache bytes  HBase memstore bytes"));
    // blockscope's fs blocks and bytes stay its own: 47 and 68,810, then HBase's 47 and 68,843
    assertTrue(lines[2], lines[2].matches(".*\\s47\\s+68,810\\s.*\\s47\\s+68,843\\s+0\\s+0$"));
    assertEquals(68_810L, p.total("fs.read.bytes.data"));
  }

  @Test
  public void withoutThemTheTableIsBlockscopesAlone() {
    QueryProfile p =
        new QueryProfile("q", List.of(new QueryProfile.Region("T", "r1", 2_000, OURS)));
    assertFalse(p.hasHBaseScanMetrics());
    assertFalse(p.toText(), p.toText().contains("HBase"));
    assertTrue(p.toText(), p.toText().split("\n")[1].endsWith("cells decoded  memstore cells"));
  }
}
