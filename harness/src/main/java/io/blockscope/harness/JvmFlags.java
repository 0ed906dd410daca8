package io.blockscope.harness;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM flags the build gives its own JVMs on JDK 17 (the parent pom's {@code
 * blockscope.jvm.opens}, filtered into this module's {@code jvm.options} at build time), for the
 * processes a test or a benchmark starts: one list, owned by the pom, instead of copies.
 */
public final class JvmFlags {
  private static final String RESOURCE = "jvm.options";

  private JvmFlags() {}

  /** Every flag of {@code blockscope.jvm.opens}, in order. */
  public static List<String> build() {
    String text;
    try (InputStream in = JvmFlags.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("no " + RESOURCE + " beside " + JvmFlags.class.getName());
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + RESOURCE, e);
    }
    if (text.isEmpty() || text.contains("${")) {
      throw new IllegalStateException(
          RESOURCE
              + " was not filtered from the parent pom's blockscope.jvm.opens: '"
              + text
              + "'");
    }
    return List.of(text.split("\\s+"));
  }

  /**
   * The module openings and exports alone, without blockscope's self-attach flags: what a stock
   * HBase process, sqlline or a reader process takes.
   */
  public static List<String> opens() {
    List<String> flags = new ArrayList<>();
    for (String f : build()) {
      if (!f.startsWith("-Djdk.attach") && !f.equals("-XX:+EnableDynamicAgentLoading")) {
        flags.add(f);
      }
    }
    return List.copyOf(flags);
  }
}
