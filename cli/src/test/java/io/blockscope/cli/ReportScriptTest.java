package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.Test;

/**
 * report.html's script, run by node against a stand-in page (src/test/resources/report/render.js):
 * what evaluate's and advise's reports write into the page from their results.
 */
public class ReportScriptTest {
  private static Evaluation.ConfigResult config(String label, long bytes, double get, double cold) {
    Evaluation.ConfigResult c =
        new Evaluation.ConfigResult(TableConfig.parse(label), "T_" + label, "T_" + label);
    c.storeFileBytes = bytes;
    c.rawBytes = bytes;
    Evaluation.Measured coldScan = new Evaluation.Measured(); // rawBytes: its costs' figure
    coldScan.millis.addAll(List.of(20.0, 20.0, 20.0));
    coldScan.medianRunCosts = CostSnapshot.of(Map.of());
    c.workloads.put(Workload.RAW_SCAN_NO_CACHE, coldScan);
    for (Map.Entry<Workload, Double> e :
        Map.of(Workload.RAW_GET, get, Workload.RAW_GET_COLD, cold, Workload.RAW_SCAN, 10.0)
            .entrySet()) {
      Evaluation.Measured m = new Evaluation.Measured();
      m.millis.addAll(List.of(e.getValue(), e.getValue(), e.getValue()));
      m.rows = 1000;
      c.workloads.put(e.getKey(), m);
    }
    return c;
  }

  private static Evaluation evaluation() {
    Evaluation e = new Evaluation();
    e.runId = "abc123";
    e.cluster.put("hbase", "2.6.1");
    e.cluster.put("mode", "remote");
    e.settings.put("rows", 1000);
    e.settings.put("runs", 3);
    e.settings.put("shape", "sample");
    e.settings.put("sample", "ns:orders");
    e.settings.put("started", "20261130-170000");
    e.configs.add(config("FAST_DIFF", 1000, 10, 100));
    e.configs.add(config("ROW_INDEX_V1+GZ", 500, 10, 90));
    return e;
  }

  /** The page report.html's script leaves, by element id, with its charts. */
  private static JsonObject render(Map<String, Object> results) throws Exception {
    Path dir = Files.createTempDirectory("report");
    Report.write(dir, results);
    Path script = Path.of(ReportScriptTest.class.getResource("/report/render.js").toURI());
    Process p =
        new ProcessBuilder(node(), script.toString(), dir.resolve("report.html").toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals("node's exit", 0, p.waitFor());
    return JsonParser.parseString(out).getAsJsonObject();
  }

  @Test
  public void advisesReportShowsTheMixTheRankingAndTheAdvice() throws Exception {
    Evaluation e = evaluation();
    Recommendation.Weights gets = new Recommendation.Weights(0, 1, 0);
    Advice advice = Advice.of(e, "FAST_DIFF", gets, 0.4);
    LiveMix mix =
        LiveMix.between(
            List.of(),
            List.of(
                new LiveMix.Reading(
                    "rs1",
                    Map.of(
                        "blockCache.hit.data", 40L,
                        "blockCache.miss.data", 60L,
                        "blockCache.inserted.data", 60L,
                        "blockCache.evicted.data", 30L,
                        "blockCache.evictedUnread.data", 20L),
                    100,
                    0,
                    true)),
            60);
    Advise.Facts facts =
        new Advise.Facts(
            TableName.valueOf("ns:orders"),
            List.of("f"),
            TableConfig.parse("FAST_DIFF"),
            65536,
            "ROW",
            "f: DATA_BLOCK_ENCODING FAST_DIFF",
            false,
            Set.of(ServerName.valueOf("rs1,16020,1")));
    Map<String, Object> results = e.toMap();
    results.putAll(
        Advise.adviceJson(facts, mix, gets, List.of("read its scans with NO_CACHE"), advice));
    JsonObject page = render(results);

    assertEquals("blockscope advise: ns:orders", page.get("title").getAsString());
    assertEquals("", page.getAsJsonObject("adviceGrid").get("display").getAsString());
    String ranking = page.getAsJsonObject("ranking").get("html").getAsString();
    assertTrue(ranking, ranking.contains("<th>expected hit ratio</th>"));
    // ranked at the expected hit ratios: the half-footprint setting first (80 %), the current one
    // (marked) second at the window's 40 %
    int first = ranking.indexOf("ROW_INDEX_V1+GZ</td>");
    int current = ranking.indexOf("FAST_DIFF *</td>");
    assertTrue(ranking, first > 0 && current > first);
    assertTrue(ranking, ranking.contains("<td>80.0%</td>") && ranking.contains("<td>40.0%</td>"));
    String text = page.getAsJsonObject("adviceText").get("html").getAsString();
    assertTrue(text, text.contains("<b>Use ROW_INDEX_V1+GZ instead of FAST_DIFF</b>"));
    assertTrue(
        text,
        text.contains(
            "<code>alter 'ns:orders', {NAME =&gt; 'f', DATA_BLOCK_ENCODING =&gt;"
                + " 'ROW_INDEX_V1', COMPRESSION =&gt; 'GZ'}</code>"));
    assertTrue(text, text.contains("Block cache: read its scans with NO_CACHE"));
    assertTrue(
        page.getAsJsonObject("mixSub").get("text").getAsString(),
        page.getAsJsonObject("mixSub").get("text").getAsString().startsWith("60 s on 1 server(s)"));
    JsonObject cache = null;
    for (var c : page.getAsJsonArray("charts")) {
      if (c.getAsJsonObject().get("id").getAsString().equals("mixCache")) {
        cache = c.getAsJsonObject();
      }
    }
    assertEquals(
        "[{\"label\":\"hits\",\"data\":[40,null]},{\"label\":\"misses\",\"data\":[60,null]},"
            + "{\"label\":\"evicted unread\",\"data\":[null,20]},"
            + "{\"label\":\"evicted after a hit\",\"data\":[null,10]},"
            + "{\"label\":\"evicted, hits unknown\",\"data\":[null,0]},"
            + "{\"label\":\"removed with their file\",\"data\":[null,0]},"
            + "{\"label\":\"still cached or no count\",\"data\":[null,30]}]",
        cache.getAsJsonArray("datasets").toString());
  }

  @Test
  public void evaluatesReportHasNoAdvicePart() throws Exception {
    Evaluation e = evaluation();
    Map<String, Object> results = e.toMap();
    Recommendation rec = new Recommendation(e, new Recommendation.Weights(1, 1, 1));
    results.put("recommendation", rec.toMap());
    JsonObject page = render(results);
    assertEquals("", page.get("title").getAsString());
    assertFalse("the advice part stays as the page has it: hidden", page.has("adviceGrid"));
    assertTrue(
        page.getAsJsonObject("rec").get("html").getAsString(),
        page.getAsJsonObject("rec").get("html").getAsString().startsWith("<b>Recommended for"));
  }

  /** node, which runs the script. */
  private static String node() {
    return DebianBinary.find("node", "nodejs");
  }
}
