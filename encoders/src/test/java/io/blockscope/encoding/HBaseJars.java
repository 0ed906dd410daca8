package io.blockscope.encoding;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.spi.ToolProvider;

/**
 * The jars of other HBase versions the encoders pom copies into {@code target/hbase-versions/
 * <version>}, and {@code javap} over them: what the version tests read HBase's own bytecode with.
 */
final class HBaseJars {
  private static final Path JARS = Path.of("target", "hbase-versions");

  private HBaseJars() {}

  /**
   * HBase {@code version}'s jars whose names start with {@code prefix}: {@code expected} of them.
   */
  static File[] of(String version, String prefix, int expected) {
    File[] jars =
        JARS.resolve(version)
            .toFile()
            .listFiles((d, n) -> n.startsWith(prefix) && n.endsWith(".jar"));
    assertTrue(
        "the build copies HBase " + version + "'s " + prefix + " jars into " + JARS,
        jars != null && jars.length == expected);
    return jars;
  }

  /** What {@code javap args} prints; fails with its error output unless it ends well. */
  static String javap(String... args) {
    ToolProvider javap =
        ToolProvider.findFirst("javap").orElseThrow(() -> new AssertionError("no javap"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = javap.run(new PrintWriter(out), new PrintWriter(err), args);
    assertEquals("javap: " + err, 0, status);
    return out.toString();
  }
}
