package io.blockscope.it;

import static org.junit.Assert.fail;
import static org.junit.Assume.assumeTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Prometheus's own programs ({@code prometheus}, {@code promtool}: Debian's {@code prometheus}
 * package) on the PATH. A test that needs one is skipped without it, except where {@code
 * BLOCKSCOPE_CI} is set ({@code .ci/run}, which installs the package): there it fails.
 */
final class PrometheusBinaries {
  private PrometheusBinaries() {}

  /** The program {@code name} on the PATH; skips or fails the calling test without it. */
  static Path require(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    if (System.getenv("BLOCKSCOPE_CI") != null) {
      fail(name + " is not on the PATH; .ci/run installs Debian's prometheus package for it");
    }
    assumeTrue(name + " not on the PATH (apt-get install prometheus)", false);
    throw new AssertionError("unreachable");
  }
}
