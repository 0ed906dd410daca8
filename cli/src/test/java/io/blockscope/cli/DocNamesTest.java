package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.BlockscopeConfig;
import io.blockscope.coprocessor.Diagnostics;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CacheReuse;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.ServerMetric;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.Test;
import picocli.CommandLine;

/**
 * The operator pages (docs/*.md, README.md, CHANGELOG.md, benchmarks/README.md and the release's
 * README) name only what the code has: every {@code blockscope.*} setting or attribute is one the
 * code reads (or a build property of the poms), every command after {@code bin/blockscope} is one
 * the script runs and every {@code --flag} on such a line is one of that command's options, every
 * Prometheus metric is one docs/dashboards.md's table lists (which {@code PrometheusExporterIT}
 * holds to the exporter's scrape), every cost named in an MBean name ({@code
 * name=fs.read.bytes.data}) is a cost blockscope counts, and every server bean a page names is one
 * the engine or the registry registers. No page names a commit or an issue number, which a reader
 * of the release cannot look up (benchmarks/encoder-measurements.md, a developer's record, may).
 */
public class DocNamesTest {
  private static final Path ROOT = Path.of("..");

  /** Each page's text, by its path from the source tree's root. */
  private static Map<String, String> pages() throws IOException {
    List<Path> paths = new ArrayList<>();
    for (String p :
        List.of(
            "README.md", "CHANGELOG.md", "benchmarks/README.md", "dist/src/release/README.md")) {
      paths.add(ROOT.resolve(p));
    }
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(paths::add);
    }
    Map<String, String> pages = new LinkedHashMap<>();
    for (Path p : paths) {
      pages.put(ROOT.relativize(p).toString(), Files.readString(p));
    }
    assertTrue(pages.size() > 15);
    return pages;
  }

  /**
   * A commit (seven hex digits with a letter, in backquotes), or an issue or defect number of the
   * project's own tracker: what a reader of the release cannot look up.
   */
  private static final Pattern PROVENANCE =
      Pattern.compile(
          "`(?=[0-9a-f]{0,6}[a-f])[0-9a-f]{7,40}`|\\b[Ii]ssue [0-9]+\\b|\\b[Dd]efect [0-9]+\\b");

  @Test
  public void noPageNamesACommitOrAnIssueOfTheProjectsTracker() throws IOException {
    List<String> found = new ArrayList<>();
    for (Found f : find(pages(), PROVENANCE)) {
      found.add(f.page() + ": " + f.match().group());
    }
    assertEquals("commits and issue numbers in operator pages", List.of(), found);
  }

  /** One match of a pattern in a page, by the page's path. */
  private record Found(String page, MatchResult match) {}

  /** Every match of {@code pattern} in every page, page by page. */
  private static List<Found> find(Map<String, String> pages, Pattern pattern) {
    List<Found> found = new ArrayList<>();
    for (Map.Entry<String, String> page : pages.entrySet()) {
      Matcher m = pattern.matcher(page.getValue());
      while (m.find()) {
        found.add(new Found(page.getKey(), m.toMatchResult()));
      }
    }
    return found;
  }

  /** A setting or attribute name, not part of a Java package ({@code io.blockscope.x}). */
  private static final Pattern SETTING =
      Pattern.compile("(?<![\\w.\\-/])blockscope\\.[a-z][a-z0-9.]*[a-z0-9](\\.\\*)?");

  /** The {@code public static final String} values of {@code type} that start with the prefix. */
  private static Set<String> constants(Class<?> type, String prefix) throws IllegalAccessException {
    Set<String> values = new TreeSet<>();
    for (Field f : type.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        String v = (String) f.get(null);
        if (v.startsWith(prefix)) {
          values.add(v);
        }
      }
    }
    return values;
  }

  @Test
  public void everySettingAPageNamesIsOneTheCodeReads() throws Exception {
    Set<String> known = new TreeSet<>();
    known.addAll(constants(BlockscopeConfig.class, "blockscope."));
    known.addAll(constants(Attributes.class, "blockscope."));
    known.add(EvaluationRunner.RUN_ATTRIBUTE); // the table attribute evaluate marks its tables with
    known.add(Diagnostics.DRILL_PROPERTY); // the JVM property of the release suites' drills
    assertTrue(known.toString(), known.contains("blockscope.export.regions"));
    // the build's own properties (the parent pom's blockscope.jvm.opens, ...), which the pages
    // name where they tell a developer how the build runs
    Set<String> build = new TreeSet<>();
    try (Stream<Path> poms = Files.walk(ROOT, 2)) {
      for (Path pom : poms.filter(p -> p.endsWith("pom.xml")).toList()) {
        Matcher m = SETTING.matcher(Files.readString(pom));
        while (m.find()) {
          build.add(m.group());
        }
      }
    }
    List<String> unknown = new ArrayList<>();
    List<Found> named = find(pages(), SETTING);
    for (Found f : named) {
      String name = f.match().group();
      boolean ok =
          name.endsWith(".*")
              ? known.stream().anyMatch(k -> k.startsWith(name.substring(0, name.length() - 1)))
              : known.contains(name) || build.contains(name);
      if (!ok) {
        unknown.add(f.page() + ": " + name);
      }
    }
    assertTrue("pages name settings", named.size() > 50);
    assertEquals("settings the code does not have", List.of(), unknown);
  }

  private static final List<String> NUMBERS =
      List.of("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine");

  /**
   * Every count of probes a page gives ("Six probes", "6/6 probes", "the five measuring probes") is
   * the bridge's: all of them, or, where the page says the measuring ones, all but {@code rpcCall},
   * the one that measures no cost.
   */
  @Test
  public void everyCountOfProbesIsTheBridges() throws IOException {
    int all = ProbeBridge.N_PROBES;
    assertEquals(all, ProbeBridge.PROBE_NAMES.length);
    int measuring = all - 1; // every probe but RPC_CALL counts a cost
    assertEquals("rpcCall", ProbeBridge.PROBE_NAMES[ProbeBridge.RPC_CALL]);
    Pattern count =
        Pattern.compile(
            "(?i)\\b(?:(\\d+)/)?(\\d+|" + String.join("|", NUMBERS) + ")( measuring)? probes\\b");
    List<String> wrong = new ArrayList<>();
    List<Found> counts = find(pages(), count);
    for (Found f : counts) {
      MatchResult m = f.match();
      String n = m.group(2).toLowerCase(java.util.Locale.ROOT);
      int value = NUMBERS.contains(n) ? NUMBERS.indexOf(n) : Integer.parseInt(n);
      int expected = m.group(3) != null ? measuring : all;
      if (value != expected) {
        wrong.add(f.page() + ": " + m.group());
      }
    }
    assertTrue("pages count probes", counts.size() >= 3);
    assertEquals("probe counts that are not the bridge's", List.of(), wrong);
  }

  /** {@code bin/blockscope <command> ...} up to the end of a line or of an inline code span. */
  private static final Pattern INVOCATION =
      Pattern.compile("bin/blockscope ([a-z][a-z-]*)([^`\\n|]*)");

  private static final Pattern FLAG = Pattern.compile("(?<![\\w-])--[a-z][a-z0-9-]*");

  /** The script's commands that run a benchmark class: command to the class's source file. */
  private static Map<String, Path> benchmarkCommands() throws IOException {
    Map<String, Path> commands = new LinkedHashMap<>();
    Matcher m =
        Pattern.compile(
                "\"\\$\\{1:-\\}\" == \"([a-z-]+)\" \\]\\]; then\\s+shift; module=benchmarks;"
                    + " main=io\\.blockscope\\.benchmarks\\.(\\w+)")
            .matcher(Files.readString(ROOT.resolve("bin/blockscope")));
    while (m.find()) {
      commands.put(
          m.group(1),
          ROOT.resolve(
              "benchmarks/src/main/java/io/blockscope/benchmarks/" + m.group(2) + ".java"));
    }
    assertTrue(commands.toString(), commands.containsKey("region-scale"));
    return commands;
  }

  @Test
  public void everyCommandAndFlagAPageRunsIsOneTheCommandLineHas() throws Exception {
    Map<String, CommandLine> picocli = new CommandLine(new BlockscopeCli()).getSubcommands();
    assertTrue(picocli.keySet().toString(), picocli.containsKey("evaluate"));
    Map<String, Path> benchmarks = benchmarkCommands();
    List<String> wrong = new ArrayList<>();
    int flags = 0;
    for (Map.Entry<String, String> page : pages().entrySet()) {
      Matcher m = INVOCATION.matcher(page.getValue());
      while (m.find()) {
        String command = m.group(1);
        String where = page.getKey() + ": bin/blockscope " + command + m.group(2);
        if (command.equals("jmh")) {
          continue; // JMH's own options
        }
        CommandLine c = picocli.get(command);
        Path source = benchmarks.get(command);
        if (c == null && source == null) {
          wrong.add(where + " (no such command)");
          continue;
        }
        String text = source == null ? null : Files.readString(source);
        Matcher f = FLAG.matcher(m.group(2));
        while (f.find()) {
          flags++;
          String flag = f.group();
          boolean ok =
              c != null
                  ? c.getCommandSpec().findOption(flag) != null
                  : text.contains("\"" + flag + "\"");
          // a page that shows the command refusing a flag names it on purpose
          if (!ok && !page.getValue().contains("Unknown option: '" + flag + "'")) {
            wrong.add(where + " (" + flag + ")");
          }
        }
      }
    }
    assertTrue("pages run commands with flags", flags > 30);
    assertEquals("commands or flags the command line does not have", List.of(), wrong);
  }

  /**
   * Backquoted flags on the page of a command ({@code docs/evaluate.md}, {@code docs/top.md}) are
   * that command's options.
   */
  @Test
  public void everyFlagACommandsPageExplainsIsOneOfItsOptions() throws Exception {
    Map<String, CommandLine> picocli = new CommandLine(new BlockscopeCli()).getSubcommands();
    Map<String, String> pages = pages();
    List<String> wrong = new ArrayList<>();
    for (String command : List.of("evaluate", "top", "statements", "advise")) {
      String page = pages.get("docs/" + command + ".md");
      Matcher f = Pattern.compile("`(--[a-z][a-z0-9-]*)").matcher(page);
      int n = 0;
      while (f.find()) {
        n++;
        if (picocli.get(command).getCommandSpec().findOption(f.group(1)) == null
            && !page.contains("Unknown option: '" + f.group(1) + "'")) {
          wrong.add("docs/" + command + ".md: " + f.group(1));
        }
      }
      assertTrue(command + ".md explains flags", n > 3);
    }
    assertEquals("flags that are not the command's options", List.of(), wrong);
  }

  @Test
  public void everyMetricAndCostAPageNamesExists() throws Exception {
    Map<String, String> pages = pages();
    Set<String> metrics = new TreeSet<>();
    Matcher row =
        Pattern.compile("(?m)^\\| `(blockscope_[a-z_<>]+)` \\|")
            .matcher(pages.get("docs/dashboards.md"));
    while (row.find()) {
      String name = row.group(1);
      for (String scope : List.of("server", "table", "region", "user")) {
        metrics.add(name.replace("<scope>", scope));
      }
    }
    assertTrue(metrics.toString(), metrics.size() > 30);
    Pattern metric = Pattern.compile("(?<![\\w.<])blockscope_[a-z_]*[a-z](?![\\w<])");
    Pattern cost =
        Pattern.compile(
            "blockscope:type=(?:Table|Region|User)[^`\\s]*?,name=([a-z][a-zA-Z0-9_.]*[a-zA-Z0-9])");
    List<String> wrong = new ArrayList<>();
    int costs = 0;
    for (Map.Entry<String, String> page : pages.entrySet()) {
      Matcher m = metric.matcher(page.getValue());
      while (m.find()) {
        if (!metrics.contains(m.group())) {
          wrong.add(page.getKey() + ": " + m.group());
        }
      }
      Matcher c = cost.matcher(page.getValue());
      while (c.find()) {
        costs++;
        if (CostLayout.slotOf(c.group(1)) < 0 && CacheReuse.slotOf(c.group(1)) < 0) {
          wrong.add(page.getKey() + ": cost " + c.group(1));
        }
      }
    }
    // the server's own beans: a cost's server total, or one of the server's own metrics
    Set<String> serverNames = new TreeSet<>();
    for (ServerMetric m : ServerMetric.values()) {
      serverNames.add(m.metric());
    }
    Pattern server =
        Pattern.compile("blockscope:type=Server,name=([a-z][a-zA-Z0-9_.]*[a-zA-Z0-9])(\\.\\*)?");
    for (Map.Entry<String, String> page : pages.entrySet()) {
      Matcher c = server.matcher(page.getValue());
      while (c.find()) {
        costs++;
        String name = c.group(1);
        boolean ok =
            c.group(2) != null
                ? serverNames.stream().anyMatch(n -> n.startsWith(name + "."))
                : serverNames.contains(name)
                    || CostLayout.slotOf(name) >= 0
                    || CacheReuse.slotOf(name) >= 0;
        if (!ok) {
          wrong.add(page.getKey() + ": server bean " + c.group());
        }
      }
    }
    assertTrue("pages name costs in MBean names", costs > 3);
    assertEquals("metrics or costs blockscope does not have", List.of(), wrong);
  }

  /**
   * docs/metrics.md's table of the server's other metrics has a row for each of the server's own
   * metrics ({@link ServerMetric}), and no other.
   */
  @Test
  public void theMetricsPageListsEveryServerMetric() throws IOException {
    String page = Files.readString(ROOT.resolve("docs/metrics.md"));
    Set<String> rows = new TreeSet<>();
    Matcher row =
        Pattern.compile("(?m)^\\| `blockscope:type=Server,name=([^`]+)` \\|").matcher(page);
    while (row.find()) {
      rows.add(row.group(1));
    }
    Set<String> metrics = new TreeSet<>();
    for (ServerMetric m : ServerMetric.values()) {
      metrics.add(m.metric());
    }
    assertEquals(metrics, rows);
  }
}
