package io.blockscope.metrics;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Test;

/** docs/metrics.md is the operator's reference: every exported cost must be in it. */
public class MetricsDocTest {
  @Test
  public void everyExportedCostIsDocumented() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "metrics.md"));
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      if (!CostLayout.alwaysZero(s)) {
        String name = CostLayout.name(s);
        assertTrue(name + " is missing from docs/metrics.md", doc.contains("`" + name + "`"));
      }
    }
  }

  @Test
  public void everyBlockCacheReuseSeriesIsDocumented() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "metrics.md"));
    for (String counter : CacheReuse.COUNTERS) {
      String name = "blockCache." + counter + ".<kind>";
      assertTrue(name + " is missing from docs/metrics.md", doc.contains("`" + name + "`"));
    }
    assertEquals(
        "blockCache.evictedUnread.bloom",
        CacheReuse.name(CacheReuse.slot(CostLayout.KIND_BLOOM, CacheReuse.EVICTED_UNREAD)));
  }

  /** docs/deploy.md gives the number of cost series a region can have; it follows the layout. */
  @Test
  public void deployGuideCountsTheCostSeries() throws Exception {
    int exported = 0;
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      if (!CostLayout.alwaysZero(s)) {
        exported++;
      }
    }
    String doc = Files.readString(Path.of("..", "docs", "deploy.md"));
    String expected = "not all " + exported + " ";
    assertTrue("docs/deploy.md should say '" + expected + "'", doc.contains(expected));
  }
}
