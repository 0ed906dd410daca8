package io.blockscope.release;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * docs/deploy.md's way 1 installs the coprocessor jar under a name without the version, and the
 * {@code -javaagent} names that file; docs/upgrading.md replaces it under the same name, by a copy
 * beside it and a rename over it. Here the upgrade page's own lines run in a shell against a {@code
 * lib/} whose jar is held open, as a running region server holds it: after them the open jar still
 * reads every entry, and the name gives the new version. A {@code cp} straight over the open jar,
 * which the page warns against, breaks the open jar's reads: the reason for the two lines.
 */
public class UpgradeInPlaceIT {
  private static final String NEW = "9.9.9";
  private static Path release;
  private static DeployPage page;
  private static List<String> upgradeLines;

  @BeforeClass
  public static void pages() throws IOException {
    release = Path.of(System.getProperty("blockscope.release"));
    page = new DeployPage(release.resolve("docs"));
    String upgrading = Files.readString(release.resolve("docs/upgrading.md"));
    String way1 = upgrading.substring(upgrading.indexOf("## Cluster-wide (way 1)"));
    Matcher block = Pattern.compile("```[ \\t]*\\n\\s*(cp [^`]*?)```").matcher(way1);
    assertTrue("docs/upgrading.md's way 1 gives the lines that replace the jar", block.find());
    upgradeLines =
        Stream.of(block.group(1).split("\\n")).map(String::trim).filter(l -> !l.isEmpty()).toList();
  }

  @Test
  public void theJarIsInstalledUnderANameWithoutTheVersionThatTheAgentNames() {
    assertFalse(
        "docs/deploy.md installs lib/" + page.libName + ", a name with the version",
        page.libName.contains(page.version()));
    assertEquals("the -javaagent path names the installed file", page.libName, page.agentJar);
    assertEquals("docs/upgrading.md's way 1: a copy, then a rename", 2, upgradeLines.size());
    assertTrue(upgradeLines.get(1), upgradeLines.get(1).startsWith("mv -f "));
    assertTrue(
        upgradeLines.get(1) + " renames over lib/" + page.libName,
        upgradeLines.get(1).endsWith("$HBASE_HOME/lib/" + page.libName));
  }

  @Test
  public void theUpgradeLinesLeaveTheOpenJarReadableAndInstallTheNewVersion() throws Exception {
    Path home = Files.createTempDirectory("upgrade-in-place");
    Path jar = installed(home);
    try (JarFile running = new JarFile(jar.toFile())) {
      List<String> entries = names(running);
      run(home, upgradeLines);
      assertEquals("every entry of the open jar reads", entries.size(), readAll(running));
    }
    try (JarFile installed = new JarFile(jar.toFile())) {
      assertEquals(
          "lib/" + page.libName + " is the new version",
          NEW,
          installed
              .getManifest()
              .getMainAttributes()
              .getValue(Attributes.Name.IMPLEMENTATION_VERSION));
    }
    try (Stream<Path> files = Files.list(jar.getParent())) {
      assertEquals(
          "lib/ holds the one jar and nothing left of the copy",
          List.of(page.libName),
          files.map(p -> p.getFileName().toString()).toList());
    }
  }

  @Test
  public void aCopyStraightOverTheOpenJarBreaksItsReads() throws Exception {
    Path home = Files.createTempDirectory("upgrade-over");
    try (JarFile running = new JarFile(installed(home).toFile())) {
      run(
          home,
          List.of(
              "cp blockscope-"
                  + NEW
                  + "/server/blockscope-coprocessors-"
                  + NEW
                  + ".jar $HBASE_HOME/lib/"
                  + page.libName));
      IOException broken = null;
      try {
        readAll(running);
      } catch (IOException e) {
        broken = e;
      }
      assertNotNull("reading the open jar after a cp over it fails", broken);
      System.out.println("cp over the open jar: " + broken);
    }
  }

  /**
   * The release's coprocessor jar installed as way 1 installs it, in {@code home}/hbase/lib, and
   * beside it a release {@value #NEW} whose coprocessor jar differs (another version, other
   * entries).
   */
  private static Path installed(Path home) throws IOException {
    Path lib = home.resolve("hbase/lib");
    Files.createDirectories(lib);
    Path installed = Files.copy(release.resolve(page.libJar), lib.resolve(page.libName));
    Path server = home.resolve("blockscope-" + NEW + "/server");
    Files.createDirectories(server);
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_VERSION, NEW);
    try (OutputStream out =
            Files.newOutputStream(server.resolve("blockscope-coprocessors-" + NEW + ".jar"));
        JarOutputStream jar = new JarOutputStream(out, manifest)) {
      for (int i = 0; i < 50; i++) {
        jar.putNextEntry(new ZipEntry("io/blockscope/next/Entry" + i + ".txt"));
        jar.write(
            String.join("", Collections.nCopies(100 + i, "new ")).getBytes(StandardCharsets.UTF_8));
        jar.closeEntry();
      }
    }
    return installed;
  }

  /** Runs the lines in bash in {@code home}, with {@code HBASE_HOME} its {@code hbase/}. */
  private static void run(Path home, List<String> lines) throws Exception {
    List<String> script = new ArrayList<>();
    script.add("set -e");
    for (String line : lines) {
      script.add(line.replace("<new>", NEW));
    }
    ProcessBuilder pb =
        new ProcessBuilder("bash", "-c", String.join("\n", script))
            .directory(home.toFile())
            .redirectErrorStream(true);
    pb.environment().put("HBASE_HOME", home.resolve("hbase").toString());
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(script + "\n" + output, 0, p.waitFor());
  }

  private static List<String> names(JarFile jar) {
    List<String> names = new ArrayList<>();
    jar.stream().forEach(e -> names.add(e.getName()));
    assertTrue(jar.getName() + " has entries", names.size() > 100);
    return names;
  }

  /** Reads every entry of the open jar to its end; the entries read. */
  private static int readAll(JarFile jar) throws IOException {
    int read = 0;
    for (JarEntry e : Collections.list(jar.entries())) {
      try (InputStream in = jar.getInputStream(e)) {
        in.readAllBytes();
      }
      read++;
    }
    return read;
  }
}
