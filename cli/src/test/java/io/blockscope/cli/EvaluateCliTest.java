package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.Test;

/** Bad input gets one clear line and a non-zero exit, never a stack trace. */
public class EvaluateCliTest {
  private record Outcome(int code, List<String> errLines, String out) {}

  private static Outcome run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = BlockscopeCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    List<String> lines =
        Arrays.stream(err.toString().split("\\R"))
            .filter(l -> !l.isBlank())
            .collect(Collectors.toList());
    return new Outcome(code, lines, out.toString());
  }

  private static void assertOneClearLine(Outcome o, String mentions) {
    assertEquals(o.errLines.toString(), BlockscopeCli.BAD_INPUT, o.code);
    assertEquals(o.errLines.toString(), 1, o.errLines.size());
    String line = o.errLines.get(0);
    assertTrue(line, line.startsWith("blockscope: "));
    assertTrue(line, line.contains(mentions));
    assertFalse(line, line.contains("Exception") || line.contains("\tat "));
  }

  @Test
  public void unknownOption() {
    assertOneClearLine(run("evaluate", "--frobnicate"), "--frobnicate");
  }

  @Test
  public void badRows() {
    assertOneClearLine(run("evaluate", "--rows", "lots"), "--rows");
    assertOneClearLine(run("evaluate", "--rows", "2^40"), "2^K");
    assertOneClearLine(run("evaluate", "--rows", "12"), "between 1024");
  }

  @Test
  public void badMatrixConfigsWorkloadsWeightsAndRuns() {
    assertOneClearLine(run("evaluate", "--matrix", "huge"), "--matrix");
    assertOneClearLine(run("evaluate", "--configs", "FAST_DIFF+BROTLI"), "BROTLI");
    assertOneClearLine(run("evaluate", "--workloads", "scan.sideways"), "scan.sideways");
    assertOneClearLine(run("evaluate", "--weights", "scan=fast"), "--weights");
    assertOneClearLine(run("evaluate", "--runs", "0"), "--runs");
    assertOneClearLine(run("evaluate", "--runs", "three"), "--runs");
    assertOneClearLine(run("evaluate", "--suite", "everything"), "--suite");
    assertOneClearLine(run("evaluate", "--shape", "wide"), "--shape");
    assertOneClearLine(
        run("evaluate", "--suite", "blockcache", "--zk", "127.0.0.1:1"), "embedded cluster");
    assertOneClearLine(run("evaluate", "--sample", "t", "--shape", "pe"), "not both");
  }

  @Test
  public void theDefaultMatrixIsTheSeedsCombinationsAndBlockscopeV1WithItsCompressions() {
    Evaluate e = new Evaluate();
    new picocli.CommandLine(e).parseArgs();
    List<String> labels = new ArrayList<>();
    for (io.blockscope.workloads.TableConfig c : e.configs()) {
      labels.add(c.label());
    }
    List<String> expected = new ArrayList<>();
    for (io.blockscope.workloads.TableConfig c : io.blockscope.workloads.TableConfig.seeds()) {
      expected.add(c.label());
    }
    assertEquals(10, expected.size());
    expected.addAll(List.of("BLOCKSCOPE_V1", "BLOCKSCOPE_V1+GZ", "BLOCKSCOPE_V1+ZSTD"));
    assertEquals(expected, labels);
  }

  @Test
  public void unreachableZooKeeperFailsFastWithOneLine() {
    long start = System.nanoTime();
    Outcome o = run("evaluate", "--zk", "127.0.0.1:1");
    assertOneClearLine(o, "cannot reach ZooKeeper at 127.0.0.1:1");
    assertTrue("fails fast", (System.nanoTime() - start) / 1e9 < 20);
    assertOneClearLine(run("evaluate", "--zk", "nohostport"), "host:port");
  }

  @Test
  public void helpListsEveryOption() {
    Outcome o = run("evaluate", "--help");
    assertEquals(0, o.code);
    for (String opt :
        List.of(
            "--rows",
            "--matrix",
            "--configs",
            "--workloads",
            "--runs",
            "--weights",
            "--out",
            "--zk",
            "--hbase-site",
            "--shape",
            "--sample",
            "--suite")) {
      assertTrue(opt, o.out.contains(opt));
    }
  }
}
