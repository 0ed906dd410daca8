package io.blockscope.cli;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Assume;

/** A program a test runs from a Debian package: found on the PATH, or the test cannot run. */
final class DebianBinary {
  private DebianBinary() {}

  /**
   * {@code binary}'s path on the PATH. Without it the test fails in CI, which installs {@code
   * debianPackage} ({@code .ci/run}), and is skipped elsewhere.
   */
  static String find(String binary, String debianPackage) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, binary))) {
        return Path.of(dir, binary).toString();
      }
    }
    if (System.getenv("BLOCKSCOPE_CI") != null) {
      throw new AssertionError(
          binary + " is not installed: .ci/run installs Debian's " + debianPackage + " package");
    }
    Assume.assumeTrue(binary + " is not installed (apt-get install " + debianPackage + ")", false);
    return null;
  }
}
