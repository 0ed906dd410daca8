package io.blockscope.cli;

import io.blockscope.metrics.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Writes {@code results.json} (every raw figure) and {@code report.html} (one self-contained page:
 * Chart.js 4, from its WebJar, is inlined so the report opens offline).
 */
final class Report {
  private static final String CHART_JS =
      "META-INF/resources/webjars/chart.js/4.4.1/dist/chart.umd.js";

  private Report() {}

  static void write(Path dir, Map<String, Object> results) throws IOException {
    Files.createDirectories(dir);
    String json = Json.writeForScript(results);
    Files.writeString(dir.resolve("results.json"), json, StandardCharsets.UTF_8);
    String page = template().replace("/*CHART_JS*/", chartJs()).replace("/*RESULTS*/", json);
    Files.writeString(dir.resolve("report.html"), page, StandardCharsets.UTF_8);
  }

  private static String chartJs() throws IOException {
    try (InputStream in = Report.class.getClassLoader().getResourceAsStream(CHART_JS)) {
      if (in == null) {
        throw new IOException("Chart.js not on the classpath: " + CHART_JS);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String template() throws IOException {
    try (InputStream in = Report.class.getResourceAsStream("report.html")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
