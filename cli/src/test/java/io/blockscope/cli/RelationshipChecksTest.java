package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.Test;

public class RelationshipChecksTest {
  private static Evaluation.ConfigResult config(String label, long bytes, Object... medians) {
    Evaluation.ConfigResult c = new Evaluation.ConfigResult(TableConfig.parse(label), "T", "T");
    c.storeFileBytes = bytes;
    for (int i = 0; i < medians.length; i += 2) {
      Evaluation.Measured m = new Evaluation.Measured();
      m.millis.add((Double) medians[i + 1]);
      c.workloads.put((Workload) medians[i], m);
    }
    return c;
  }

  private static Map<String, RelationshipChecks.Check> byRelationship(Evaluation e) {
    return RelationshipChecks.run(e).stream()
        .collect(Collectors.toMap(RelationshipChecks.Check::relationship, Function.identity()));
  }

  @Test
  public void theSeedsRelationshipsPassOnFiguresThatFollowThem() {
    Evaluation e = new Evaluation();
    e.configs.add(
        config(
            "NONE",
            3_000_000,
            Workload.SCAN_SERIAL,
            100.0,
            Workload.SCAN_CACHING_1,
            400.0,
            Workload.SCAN_CACHING_1000,
            20.0,
            Workload.RAW_GET,
            300.0,
            Workload.RAW_GET_COLD,
            900.0));
    e.configs.add(config("NONE+GZ", 600_000));
    e.configs.add(
        config(
            "FAST_DIFF",
            1_200_000,
            Workload.SCAN_SERIAL,
            150.0,
            Workload.POINT_SELECT,
            500.0,
            Workload.SCAN_REVERSE,
            600.0,
            Workload.DELETED_SCAN,
            100.0));
    e.configs.add(
        config(
            "ROW_INDEX_V1",
            3_100_000,
            Workload.POINT_SELECT,
            400.0,
            Workload.SCAN_REVERSE,
            100.0,
            Workload.DELETED_SCAN,
            150.0));
    Map<String, RelationshipChecks.Check> checks = byRelationship(e);
    assertEquals(RelationshipChecks.Status.PASS, checks.get("1 sizes").status());
    assertEquals(RelationshipChecks.Status.PASS, checks.get("4 point selects").status());
    assertEquals(RelationshipChecks.Status.PASS, checks.get("4 reverse scans").status());
    assertEquals(RelationshipChecks.Status.PASS, checks.get("2 decoding costs per cell").status());
    assertEquals(RelationshipChecks.Status.PASS, checks.get("6 scanner caching").status());
    assertEquals(RelationshipChecks.Status.PASS, checks.get("9 block cache").status());
    assertEquals(
        "slower, but only reported",
        RelationshipChecks.Status.INFO,
        checks.get("4 scans over deleted rows").status());
    assertEquals(
        "not measured: skipped, not passed",
        RelationshipChecks.Status.SKIP,
        checks.get("5 uncovered local index").status());
    StringWriter out = new StringWriter();
    assertTrue(RelationshipChecks.print(new PrintWriter(out, true), RelationshipChecks.run(e)));
    assertTrue(out.toString(), out.toString().contains("ROW_INDEX_V1 100.0 ms, FAST_DIFF 600.0"));
  }

  @Test
  public void aBrokenRelationshipFailsTheCheck() {
    Evaluation e = new Evaluation();
    e.configs.add(config("FAST_DIFF", 1_000_000, Workload.SCAN_REVERSE, 100.0));
    e.configs.add(config("FAST_DIFF+ZSTD", 1_000_001)); // compression made it larger
    e.configs.add(config("ROW_INDEX_V1", 3_000_000, Workload.SCAN_REVERSE, 90.0));
    Map<String, RelationshipChecks.Check> checks = byRelationship(e);
    assertEquals(RelationshipChecks.Status.FAIL, checks.get("1 sizes").status());
    assertTrue(checks.get("1 sizes").measured().contains("FAST_DIFF+ZSTD 1000001"));
    assertEquals(
        "0.9x is not the 1.5x the margin asks for",
        RelationshipChecks.Status.FAIL,
        checks.get("4 reverse scans").status());
    assertEquals(
        "a claim that does not hold on HBase 2.6 is reported, not judged",
        RelationshipChecks.Status.SKIP,
        checks.get("4 scans over deleted rows").status());
    assertFalse(
        RelationshipChecks.print(new PrintWriter(new StringWriter()), RelationshipChecks.run(e)));
  }

  @Test
  public void nothingMeasuredSkipsEveryCheck() {
    List<RelationshipChecks.Check> checks = RelationshipChecks.run(new Evaluation());
    assertFalse(checks.isEmpty());
    for (RelationshipChecks.Check c : checks) {
      assertEquals(c.relationship(), RelationshipChecks.Status.SKIP, c.status());
    }
  }
}
