package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
import java.util.List;
import java.util.Map;
import org.junit.Test;

public class RecommendationTest {
  private static Evaluation.ConfigResult config(
      String label, long bytes, double scanMs, double getMs) {
    Evaluation.ConfigResult c =
        new Evaluation.ConfigResult(TableConfig.parse(label), "T_" + label, "T_" + label);
    c.storeFileBytes = bytes;
    Evaluation.Measured scan = new Evaluation.Measured();
    scan.millis.addAll(List.of(scanMs, scanMs * 2, scanMs / 2));
    c.workloads.put(Workload.SCAN_SERIAL, scan);
    Evaluation.Measured get = new Evaluation.Measured();
    get.millis.add(getMs);
    c.workloads.put(Workload.RAW_GET, get);
    Evaluation.Measured skipped = new Evaluation.Measured();
    skipped.skipped = "cannot";
    c.workloads.put(Workload.RAW_GET_COLD, skipped);
    return c;
  }

  private static Evaluation evaluation() {
    Evaluation e = new Evaluation();
    e.configs.add(config("FAST_DIFF+ZSTD", 1_000_000, 100, 30)); // small, slow point reads
    e.configs.add(config("ROW_INDEX_V1+ZSTD", 1_100_000, 100, 10)); // a bit larger, fast gets
    e.configs.add(config("NONE", 10_000_000, 80, 10)); // fast, huge
    return e;
  }

  @Test
  public void theWeightsDecide() {
    assertEquals(
        "ROW_INDEX_V1+ZSTD",
        new Recommendation(evaluation(), Recommendation.Weights.parse("scan=1,get=1,size=1"))
            .ranking
            .get(0)
            .config());
    assertEquals(
        "FAST_DIFF+ZSTD",
        new Recommendation(evaluation(), Recommendation.Weights.parse("scan=0,get=0,size=1"))
            .ranking
            .get(0)
            .config());
    assertEquals(
        "NONE",
        new Recommendation(evaluation(), Recommendation.Weights.parse("scan=1,get=1,size=0"))
            .ranking
            .get(0)
            .config());
  }

  @Test
  public void theTextStatesTheTradeOff() {
    Recommendation r =
        new Recommendation(evaluation(), Recommendation.Weights.parse("scan=1,get=1,size=1"));
    assertTrue(r.text, r.text.startsWith("For scan=1,get=1,size=1: ROW_INDEX_V1+ZSTD."));
    assertTrue(r.text, r.text.contains("its point reads 1.00x."));
    assertTrue(r.text, r.text.contains("Its store files are 1.10x the smallest (FAST_DIFF+ZSTD)"));
    assertTrue(r.text, r.text.contains("Runner-up: FAST_DIFF+ZSTD"));
    assertTrue(r.text, r.text.contains("9% smaller"));
    Map<String, Object> m = r.toMap();
    assertEquals("ROW_INDEX_V1+ZSTD", m.get("recommended"));
  }

  @Test
  public void badWeightsAreOneClearMessage() {
    for (String bad : new String[] {"scan", "scan=x", "scan=-1", "disk=1", "scan=0,get=0,size=0"}) {
      IllegalArgumentException e =
          assertThrows(
              bad, IllegalArgumentException.class, () -> Recommendation.Weights.parse(bad));
      assertTrue(e.getMessage(), e.getMessage().startsWith("bad --weights"));
    }
  }
}
