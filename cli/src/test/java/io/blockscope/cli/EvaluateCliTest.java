package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.blockscope.workloads.DataShape;
import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
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

  private static Evaluate parsed(String... args) {
    Evaluate e = new Evaluate();
    new picocli.CommandLine(e).parseArgs(args);
    return e;
  }

  private static List<String> labels(Evaluate e) {
    List<String> labels = new ArrayList<>();
    for (TableConfig c : e.configs()) {
      labels.add(c.label());
    }
    return labels;
  }

  @Test
  public void theDefaultRunIsTheSeedsMatrixOnSixWorkloadsAndEveryMoreIsAskedFor() {
    Evaluate e = parsed();
    List<String> expected = new ArrayList<>();
    for (TableConfig c : TableConfig.seeds()) {
      expected.add(c.label());
    }
    assertEquals(10, expected.size());
    expected.addAll(List.of("BLOCKSCOPE_V1", "BLOCKSCOPE_V1+GZ", "BLOCKSCOPE_V1+ZSTD"));
    assertEquals(expected, labels(e));
    assertEquals(Workload.defaults(DataShape.SEEDS), e.workloads(DataShape.SEEDS, "default"));
    assertEquals(6, Workload.defaults(DataShape.SEEDS).size());
    assertEquals(expected, labels(parsed("--matrix", "default")));

    // --full: every encoding with every compression, blockscope's own among them, every workload
    Evaluate f = parsed("--full");
    assertEquals(30, f.configs().size());
    assertEquals(30, f.configs().stream().distinct().count());
    assertEquals(13, f.workloads(DataShape.SEEDS, "default").size());
    assertEquals(Workload.all(DataShape.SEEDS), f.workloads(DataShape.SEEDS, "default"));
    assertEquals(labels(f), labels(parsed("--matrix", "full")));
    assertEquals(
        Workload.defaults(DataShape.SEEDS),
        parsed("--matrix", "full").workloads(DataShape.SEEDS, "default"));
    assertEquals(
        Workload.all(DataShape.PE),
        parsed("--workloads", "all").workloads(DataShape.PE, "default"));

    // --check alone runs every workload, which its relationships compare; with workloads named,
    // those
    assertEquals(
        Workload.all(DataShape.SEEDS), parsed("--check").workloads(DataShape.SEEDS, "default"));
    assertEquals(expected, labels(parsed("--check")));
    assertEquals(
        List.of(Workload.RAW_GET),
        parsed("--check", "--workloads", "raw.get").workloads(DataShape.SEEDS, "default"));
  }

  @Test
  public void fullWithAMatrixIsRefused() {
    assertOneClearLine(run("evaluate", "--full", "--matrix", "seeds"), "--full");
    assertOneClearLine(run("evaluate", "--full", "--workloads", "raw.get"), "--full");
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
            "--suite",
            "--full")) {
      assertTrue(opt, o.out.contains(opt));
    }
  }
}
