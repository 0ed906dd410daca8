package io.blockscope.release;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.MiscountDrill;
import io.blockscope.testsupport.ProfileCalls;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.Test;

/**
 * What loads into an HBase or Phoenix process is Java 8 bytecode: every class in the release's
 * {@code server/} jars (the coprocessor jar with all it shades, the encoder jar) and {@code
 * client/} jar (the hints driver) has a class-file version of 52 or less, so that a region server,
 * a master or a Phoenix client on JDK 8, 11 or 17 loads them. Multi-release entries ({@code
 * META-INF/versions/N/}) load only on JDK N and later and are not counted. The command line's
 * {@code lib/} runs on JDK 17 ({@code bin/blockscope} checks) and is listed for information.
 */
public class ReleaseBytecodeIT {
  private static final int JAVA_8 = 52;

  @Test
  public void whatLoadsIntoHBaseOrPhoenixIsJava8Bytecode() throws IOException {
    Path release = Path.of(System.getProperty("blockscope.release"));
    List<String> tooNew = new ArrayList<>();
    int jars = 0;
    for (String dir : List.of("server", "client")) {
      for (Path jar : jars(release.resolve(dir))) {
        int[] highest = highest(jar);
        System.out.printf(
            "%-60s highest class-file version %d (Java %d), %d classes%n",
            dir + "/" + jar.getFileName(), highest[0], highest[0] - 44, highest[1]);
        if (highest[0] > JAVA_8) {
          tooNew.add(dir + "/" + jar.getFileName() + ": " + highest[0]);
        }
        jars++;
      }
    }
    assertEquals("the release's server/ and client/ jars", 3, jars);
    assertEquals("jars with classes newer than Java 8", List.of(), tooNew);
    int cli = 0;
    for (Path jar : jars(release.resolve("lib"))) {
      if (jar.getFileName().toString().startsWith("blockscope-")) {
        int[] highest = highest(jar);
        System.out.printf(
            "%-60s highest class-file version %d (command line, JDK 17)%n",
            "lib/" + jar.getFileName(), highest[0]);
        cli++;
      }
    }
    assertFalse("lib/ carries the command line's own jars", cli == 0);
  }

  /**
   * No test code ships: no class of the coprocessors' test jar (the sensitivity drill's miscounts,
   * the unit tests) and none of the suites' test-support is in any of the release's jars; the
   * region server's jar keeps only the empty seam the drills plug into.
   */
  @Test
  public void noTestCodeShips() throws IOException {
    Set<String> testClasses = new TreeSet<>(TestJars.classFiles(MiscountDrill.class).keySet());
    assertTrue(
        testClasses.toString(),
        testClasses.contains("io/blockscope/coprocessor/MiscountDrill.class"));
    testClasses.addAll(TestJars.classFiles(ProfileCalls.class).keySet());
    Path release = Path.of(System.getProperty("blockscope.release"));
    List<String> shipped = new ArrayList<>();
    List<String> seams = new ArrayList<>();
    for (String dir : List.of("server", "client", "lib")) {
      for (Path jar : jars(release.resolve(dir))) {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
          Enumeration<? extends ZipEntry> entries = zip.entries();
          while (entries.hasMoreElements()) {
            String name = entries.nextElement().getName();
            if (testClasses.contains(name)
                || SecureRealm.DRILL_CLASSES.stream()
                    .anyMatch(d -> name.equals(d + ".class") || name.startsWith(d + "$"))) {
              shipped.add(dir + "/" + jar.getFileName() + ": " + name);
            }
            if (name.equals("io/blockscope/coprocessor/DrillSeam.class")) {
              seams.add(dir + "/" + jar.getFileName());
            }
          }
        }
      }
    }
    assertEquals("test classes in the release", List.of(), shipped);
    // the release's directory is blockscope-<version>, as is each of its own jars' name's end
    String coprocessors =
        "blockscope-coprocessors-"
            + release.getFileName().toString().substring("blockscope-".length());
    assertEquals(
        "the jars with the seam",
        List.of("server/" + coprocessors + ".jar", "lib/" + coprocessors + ".jar"),
        seams);
  }

  private static List<Path> jars(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
    }
  }

  /** The highest class-file major version in a jar, and how many classes it holds. */
  private static int[] highest(Path jar) throws IOException {
    int max = 0;
    int classes = 0;
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      Enumeration<? extends ZipEntry> entries = zip.entries();
      while (entries.hasMoreElements()) {
        ZipEntry e = entries.nextElement();
        String name = e.getName();
        if (!name.endsWith(".class")
            || name.startsWith("META-INF/versions/")
            || name.endsWith("module-info.class")) {
          continue;
        }
        try (InputStream in = zip.getInputStream(e)) {
          byte[] head = in.readNBytes(8);
          int major = ((head[6] & 0xff) << 8) | (head[7] & 0xff);
          max = Math.max(max, major);
          classes++;
        }
      }
    }
    return new int[] {max, classes};
  }
}
