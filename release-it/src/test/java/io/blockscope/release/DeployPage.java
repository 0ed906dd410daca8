package io.blockscope.release;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What docs/deploy.md and docs/dashboards.md (as the release ships them) tell an operator to do,
 * read off the pages, so that {@link StockDeployIT} installs exactly that: a step that is wrong on
 * the page (a file the release does not have, a class or property that does not work) fails the
 * suite instead of passing on the suite's own idea of the step.
 */
final class DeployPage {
  /** The release directory's name as the pages write it, e.g. {@code blockscope-0.1.0-SNAPSHOT}. */
  final String releaseDir;

  /** Way 1: the release file copied into {@code $HBASE_HOME/lib/}. */
  final String libJar;

  /** Way 1: the name it is copied as into {@code $HBASE_HOME/lib/}. */
  final String libName;

  /** Way 1: the {@code hbase-site.xml} property and its value. */
  final String siteName;

  final String siteValue;

  /** Way 1: the jar named by {@code -javaagent:$HBASE_HOME/lib/...}. */
  final String agentJar;

  /** Way 1: the probes part of the engine-start line the page shows. */
  final String probes;

  /** Way 2: the release file put on the file system, the observer class and the priority. */
  final String fsJar;

  final String fsClass;
  final int fsPriority;

  /** Way 2: the page's HBase shell lines that add the coprocessor to a table and remove it. */
  final String alterAdd;

  final String alterRemove;

  /** docs/upgrading.md's per-table lines: the old copy's removal, and the new one's addition. */
  final String upgradeRemove;

  final String upgradeAdd;

  /** Profiling levels: the shell lines that set a table's level and unset it. */
  final String levelSet;

  final String levelUnset;

  /** encoder.md: the encoder jar in the release, the region servers' registrar, the guard. */
  final String encoderJar;

  final String registrar;
  final String guard;

  /** dashboards.md: the exporter agent's jar name and configuration file name. */
  final String exporterAgentJar;

  final String exporterConfig;

  /** The version the pages install, from {@link #releaseDir}. */
  String version() {
    return releaseDir.substring("blockscope-".length());
  }

  /**
   * The release's coprocessor jar as way 1 installs it, under {@link #libName}: the release's file
   * itself, or a copy of it in {@code lib-as-installed} beside the release when the page installs
   * it under another name.
   */
  Path libJarInstalled(Path release) throws IOException {
    Path jar = release.resolve(libJar);
    if (jar.getFileName().toString().equals(libName)) {
      return jar;
    }
    Path dir = release.resolveSibling("lib-as-installed");
    Files.createDirectories(dir);
    return Files.copy(jar, dir.resolve(libName), StandardCopyOption.REPLACE_EXISTING);
  }

  DeployPage(Path docs) throws IOException {
    String deploy = Files.readString(docs.resolve("deploy.md"));
    String way1 = section(deploy, "## Way 1");
    Matcher cp =
        find(way1, "cp (blockscope-[^/\\s]+)/(server/\\S+\\.jar) \\$HBASE_HOME/lib/(\\S*)");
    releaseDir = cp.group(1);
    libJar = cp.group(2);
    libName = cp.group(3).isEmpty() ? Path.of(libJar).getFileName().toString() : cp.group(3);
    Matcher site = find(way1, "<name>([^<]+)</name>\\s*<value>([^<]+)</value>");
    siteName = site.group(1);
    siteValue = site.group(2);
    agentJar = find(way1, "-javaagent:\\$HBASE_HOME/lib/([^\"\\s]+\\.jar)").group(1);
    if (!agentJar.equals(libName)) {
      throw new IllegalStateException(
          "docs/deploy.md: -javaagent names lib/" + agentJar + ", step 1 installs lib/" + libName);
    }
    probes =
        find(way1, "engine started at level COUNT exporting regions top:100; probes ([^;]+);")
            .group(1);
    String way2 = section(deploy, "## Way 2");
    Matcher put =
        find(way2, "hdfs dfs -put " + Pattern.quote(releaseDir) + "/(server/\\S+\\.jar) ");
    fsJar = put.group(1);
    Matcher att = find(way2, "'hdfs:///[^|']+\\|([^|]+)\\|(\\d+)\\|'");
    fsClass = att.group(1);
    fsPriority = Integer.parseInt(att.group(2));
    alterAdd =
        find(way2, "alter '[^']+', METHOD => 'table_att', 'coprocessor' =>\\s*'[^']+'").group();
    alterRemove = find(way2, "alter '[^']+', METHOD => '[a-z_]+', [A-Z]+ => '[^']+'").group();
    String perTableUpgrade =
        section(Files.readString(docs.resolve("upgrading.md")), "## Per table (way 2)");
    upgradeRemove =
        find(perTableUpgrade, "alter '[^']+', METHOD => '[a-z_]+', [A-Z]+ => '[^']+'").group();
    upgradeAdd =
        find(perTableUpgrade, "alter '[^']+', METHOD => 'table_att', 'coprocessor' =>\\s*'[^']+'")
            .group();
    String levels = section(deploy, "## Profiling levels");
    levelSet =
        find(levels, "alter '[^']+', METADATA => \\{'blockscope.level' => '\\w+'\\}").group();
    levelUnset =
        find(levels, "alter '[^']+', METHOD => 'table_att_unset', NAME => 'blockscope.level'")
            .group();
    String encoder = section(Files.readString(docs.resolve("encoder.md")), "## Registering it");
    encoderJar =
        find(encoder, "cp " + Pattern.quote(releaseDir) + "/(server/\\S+\\.jar) \\$HBASE_HOME/lib/")
            .group(1);
    registrar =
        find(encoder, "<name>hbase.coprocessor.region.classes</name>\\s*<value>([^<]+)</value>")
            .group(1);
    guard =
        find(encoder, "<name>hbase.coprocessor.master.classes</name>\\s*<value>([^<]+)</value>")
            .group(1);
    String dashboards = Files.readString(docs.resolve("dashboards.md"));
    Matcher agent =
        find(
            dashboards,
            "-javaagent:\\S*/(jmx_prometheus_javaagent-[^=/]+\\.jar)=\\d+:\\S*/([^/\"\\s]+\\.yaml)");
    exporterAgentJar = agent.group(1);
    exporterConfig = agent.group(2);
  }

  /** The text from a heading to the next heading of the same level. */
  private static String section(String page, String heading) {
    int at = page.indexOf(heading);
    if (at < 0) {
      throw new AssertionError("the operator page has no section '" + heading + "'");
    }
    int end = page.indexOf("\n## ", at + heading.length());
    return page.substring(at, end < 0 ? page.length() : end);
  }

  private static Matcher find(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    if (!m.find()) {
      throw new AssertionError("the operator page no longer has a step matching " + regex);
    }
    return m;
  }
}
