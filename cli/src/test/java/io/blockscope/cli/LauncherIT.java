package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.probe.ProbeBridge;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.Test;

/**
 * The command line as {@code bin/blockscope} starts it: a JVM of its own, with the module's
 * run-time class path (target/classpath.txt) and the pom's JVM flags (target/jvm.options), not the
 * test class path. Written after the layout change in which the command line lost JUnit, which
 * Hadoop's mini DFS calls as it starts, and no test in a test JVM could notice.
 */
public class LauncherIT {
  @Test
  public void theDemoRunsOnTheCommandLinesOwnClassPath() throws Exception {
    Path target = Path.of("target");
    String classPath =
        target.resolve("classes")
            + File.pathSeparator
            + Files.readString(target.resolve("classpath.txt")).trim();
    Path data = Files.createTempDirectory("blockscope-launcher");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx1g");
    cmd.addAll(Arrays.asList(Files.readString(target.resolve("jvm.options")).trim().split("\\s+")));
    cmd.addAll(
        List.of(
            "-Dlog4j.configuration=log4j-cli.properties",
            "-Dtest.build.data.basedirectory=" + data + "/",
            "-cp",
            classPath,
            "io.blockscope.cli.BlockscopeCli",
            "demo",
            "--rows",
            "1000",
            "--gets",
            "10"));
    Path log = data.resolve("out.txt");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean ended = p.waitFor(300, TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly().waitFor();
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    // what the demo printed is in the assertions' messages: its scratch directory can go
    try (var files = Files.walk(data)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
    assertTrue("the demo did not end in 300 s:\n" + out, ended);
    assertEquals("exit code; printed:\n" + out, 0, p.exitValue());
    assertEquals(
        out,
        1,
        out.lines()
            .filter(
                l ->
                    l.equals(
                        "Probes: "
                            + Arrays.stream(ProbeBridge.PROBE_NAMES)
                                .map(n -> n + " installed")
                                .collect(Collectors.joining(", "))))
            .count());
    // a full scan of 1,000 FAST_DIFF rows decodes each of their 2,000 cells once
    assertTrue(
        out,
        out.lines()
            .anyMatch(l -> l.startsWith("demo_fast_diff cold scan") && l.contains(" 2,000 ")));
    assertTrue(out, out.contains("Done in "));
    // nor does the embedded cluster's shutdown print ERROR lines into the user's terminal (a
    // DataNode's "Command processor encountered interrupt and exit" did before ShutdownLogging)
    assertEquals(out, List.of(), out.lines().filter(l -> l.contains(" ERROR ")).toList());
  }
}
