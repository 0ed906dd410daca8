package io.blockscope.it;

import static org.junit.Assert.assertEquals;

import io.blockscope.harness.stock.StockCluster;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.Waiter;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/**
 * A Prometheus server process on a loopback port, scraping every {@value #SCRAPE_SECONDS} seconds
 * and evaluating its rules every second, asked through its HTTP API ({@code /api/v1/query}, {@code
 * /api/v1/label/.../values}, {@code /api/v1/rules}, {@code /api/v1/targets}).
 */
final class PrometheusServer {
  /**
   * The scrape interval, and the scrape timeout (Prometheus allows no timeout longer than the
   * interval). The exporter reads the minicluster's beans over remote JMX, one RMI call per bean;
   * with one second, a CI run beside the release suite's stock processes saw no new series reach
   * Prometheus, a slow scrape being the likely cause (not reproduced: a local scrape of this test
   * took 0.3 s with both cores busy). A failed wait names each scrape's duration ({@link
   * #targets}).
   */
  static final int SCRAPE_SECONDS = 5;

  private final Process process;
  private final Path log;
  private final String base;

  private PrometheusServer(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.base = "http://127.0.0.1:" + port;
  }

  /**
   * Starts {@code binary} in {@code work/prometheus} with {@code scrapeConfigs} (a {@code
   * scrape_configs:} block) and the shipped alert rules, and waits until it is ready.
   */
  static PrometheusServer start(Path binary, Path work, String scrapeConfigs) throws Exception {
    Path dir = Files.createDirectories(work.resolve("prometheus"));
    Path rules =
        Path.of(System.getProperty("blockscope.docs"), "prometheus", "blockscope-alerts.yml");
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(
        config,
        "global:\n"
            + "  scrape_interval: "
            + SCRAPE_SECONDS
            + "s\n"
            + "  scrape_timeout: "
            + SCRAPE_SECONDS
            + "s\n"
            + "  evaluation_interval: 1s\n"
            + "rule_files:\n"
            + "  - "
            + rules.toAbsolutePath()
            + "\n"
            + scrapeConfigs);
    int port = StockCluster.freePort();
    Path log = dir.resolve("prometheus.log");
    Process p =
        new ProcessBuilder(
                binary.toString(),
                "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    PrometheusServer s = new PrometheusServer(p, log, port);
    s.await("ready", () -> s.status("/-/ready") == 200);
    return s;
  }

  /** Waits until every scrape target is up. */
  void awaitTargetUp() throws Exception {
    await(
        "the exporter scraped",
        () -> {
          JsonArray targets =
              api("/api/v1/targets").getAsJsonObject().getAsJsonArray("activeTargets");
          if (targets.size() == 0) {
            return false;
          }
          for (JsonElement t : targets) {
            if (!t.getAsJsonObject().get("health").getAsString().equals("up")) {
              return false;
            }
          }
          return true;
        });
  }

  /** An instant query's result vector ({@code metric} and {@code value} of each series). */
  JsonArray query(String promql) throws IOException {
    JsonObject data =
        api("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8))
            .getAsJsonObject();
    assertEquals(promql, "vector", data.get("resultType").getAsString());
    return data.getAsJsonArray("result");
  }

  /**
   * A range query's result matrix ({@code metric} and {@code values}, pairs of a time in seconds
   * and a value, of each series), as a Grafana panel asks it.
   */
  JsonArray queryRange(String promql, long startSeconds, long endSeconds, int stepSeconds)
      throws IOException {
    JsonObject data =
        api("/api/v1/query_range?query="
                + URLEncoder.encode(promql, StandardCharsets.UTF_8)
                + "&start="
                + startSeconds
                + "&end="
                + endSeconds
                + "&step="
                + stepSeconds)
            .getAsJsonObject();
    assertEquals(promql, "matrix", data.get("resultType").getAsString());
    return data.getAsJsonArray("result");
  }

  /** Waits until {@code promql} answers one series whose value {@code ok} accepts. */
  void awaitValue(String promql, java.util.function.DoublePredicate ok) throws Exception {
    await(
        promql + " answered",
        () -> {
          JsonArray r = query(promql);
          return r.size() == 1
              && ok.test(r.get(0).getAsJsonObject().getAsJsonArray("value").get(1).getAsDouble());
        });
  }

  /** What Grafana's {@code label_values(metric, label)} lists. */
  Set<String> labelValues(String label, String metric) throws IOException {
    Set<String> values = new TreeSet<>();
    for (JsonElement v :
        api("/api/v1/label/"
                + label
                + "/values?match[]="
                + URLEncoder.encode(metric, StandardCharsets.UTF_8))
            .getAsJsonArray()) {
      values.add(v.getAsString());
    }
    return values;
  }

  /** Every alerting rule by name, once each has been evaluated at least twice. */
  Map<String, JsonObject> awaitRulesEvaluated() throws Exception {
    Map<String, JsonObject> rules = new TreeMap<>();
    long started = System.currentTimeMillis();
    await(
        "every rule evaluated",
        () -> {
          rules.clear();
          for (JsonElement g :
              api("/api/v1/rules?type=alert").getAsJsonObject().getAsJsonArray("groups")) {
            for (JsonElement r : g.getAsJsonObject().getAsJsonArray("rules")) {
              JsonObject rule = r.getAsJsonObject();
              rules.put(rule.get("name").getAsString(), rule);
            }
          }
          return !rules.isEmpty()
              && rules.values().stream()
                  .allMatch(
                      r ->
                          java.time.Instant.parse(r.get("lastEvaluation").getAsString())
                                  .toEpochMilli()
                              > started + 1_000);
        });
    return rules;
  }

  void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }

  /** The {@code data} of an API answer whose {@code status} is success. */
  private JsonElement api(String path) throws IOException {
    HttpURLConnection c = (HttpURLConnection) URI.create(base + path).toURL().openConnection();
    c.setConnectTimeout(5_000);
    c.setReadTimeout(30_000);
    int code = c.getResponseCode();
    String body;
    try (var in = code < 400 ? c.getInputStream() : c.getErrorStream()) {
      body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    JsonObject answer = JsonParser.parseString(body).getAsJsonObject();
    assertEquals(path + ": " + body, "success", answer.get("status").getAsString());
    return answer.get("data");
  }

  private int status(String path) {
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create(base + path).toURL().openConnection();
      c.setConnectTimeout(2_000);
      return c.getResponseCode();
    } catch (IOException notYet) {
      return -1;
    }
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  /**
   * Each target's health, last error and last scrape's duration in seconds, as {@code
   * /api/v1/targets} gives them.
   */
  String targets() {
    try {
      List<String> out = new ArrayList<>();
      for (JsonElement t :
          api("/api/v1/targets").getAsJsonObject().getAsJsonArray("activeTargets")) {
        JsonObject o = t.getAsJsonObject();
        out.add(
            o.get("scrapeUrl").getAsString()
                + " "
                + o.get("health").getAsString()
                + " lastScrapeDuration="
                + o.get("lastScrapeDuration").getAsString()
                + " lastError='"
                + o.get("lastError").getAsString()
                + "'");
      }
      return out.toString();
    } catch (IOException | RuntimeException | AssertionError e) {
      return "(not answered: " + e + ")";
    }
  }

  /** Waits up to 60 s for {@code check}; fails with Prometheus's log if it never holds. */
  private void await(String what, Check check) throws Exception {
    Waiter.waitFor(
        HBaseConfiguration.create(),
        60_000,
        250,
        true,
        new Waiter.ExplainingPredicate<Exception>() {
          @Override
          public boolean evaluate() throws Exception {
            if (!process.isAlive()) {
              throw new AssertionError("Prometheus exited: " + explainFailure());
            }
            return check.holds();
          }

          @Override
          public String explainFailure() throws Exception {
            return "Prometheus: not "
                + what
                + "; its targets: "
                + targets()
                + "; its log:\n"
                + String.join("\n", tail());
          }
        });
  }

  private List<String> tail() throws IOException {
    List<String> lines = Files.readAllLines(log);
    return lines.subList(Math.max(0, lines.size() - 40), lines.size());
  }
}
