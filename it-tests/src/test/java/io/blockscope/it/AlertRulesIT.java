package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The alerting rules blockscope ships (docs/prometheus/blockscope-alerts.yml), checked and unit
 * tested by Prometheus's own {@code promtool} (Debian's {@code prometheus} package): the rules
 * parse, and each fires on the series its unit test gives, with its labels and annotations, and
 * stays quiet on the series meant not to fire it (a busy server's frames, a restart's counter
 * reset, a healthy neighbour). That their metrics and labels are what the exporter scrapes is
 * {@code PrometheusExporterIT}'s check.
 *
 * <p>Without {@code promtool} the test is skipped or fails as {@link PrometheusBinaries} says.
 */
public class AlertRulesIT {
  /** The file's alerts; each has a test group of its own in the unit-test file. */
  static final List<String> ALERTS =
      List.of(
          "BlockscopeProbeNotInstalled",
          "BlockscopeProbeFailures",
          "BlockscopeHookFailures",
          "BlockscopeExportStalled",
          "BlockscopeFramesNeverClosed");

  /** The rules in the file, as {@code promtool check rules} counts them. */
  static final int RULES = ALERTS.size();

  private static Path promtool;

  private static Path rules() {
    return Path.of(System.getProperty("blockscope.docs"), "prometheus");
  }

  @BeforeClass
  public static void findPromtool() {
    promtool = PrometheusBinaries.require("promtool");
  }

  @Test
  public void theRulesParse() throws Exception {
    String out = promtool("check", "rules", "blockscope-alerts.yml");
    assertTrue(out, out.contains("SUCCESS: " + RULES + " rules found"));
  }

  @Test
  public void everyRuleFiresAndStaysQuietAsItsUnitTestSays() throws Exception {
    String out = promtool("test", "rules", "blockscope-alerts.test.yml");
    assertTrue(out, out.contains("SUCCESS"));
    // each rule has a test group of its own
    List<String> tests = Files.readAllLines(rules().resolve("blockscope-alerts.test.yml"));
    for (String alert : ALERTS) {
      assertTrue(
          alert + " has no unit test",
          tests.stream().anyMatch(l -> l.trim().equals("alertname: " + alert)));
    }
  }

  /** Runs promtool in the rules' directory; returns its output, failing on a non-zero exit. */
  private static String promtool(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(promtool.toString());
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(rules().toFile()).redirectErrorStream(true).start();
    String out;
    try (var in = p.getInputStream()) {
      out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertTrue("promtool did not end in 60 s", p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(String.join(" ", command) + "\n" + out, 0, p.exitValue());
    return out;
  }
}
