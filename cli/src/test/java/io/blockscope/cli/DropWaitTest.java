package io.blockscope.cli;

import static org.junit.Assert.assertTrue;

import io.blockscope.workloads.DataShape;
import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.Test;

/**
 * A run's clean-up gives up on a cluster that no longer answers: it says which scratch tables may
 * be left instead of holding the process (and a Ctrl-C's shutdown) for as long as HBase's client
 * retries. The cluster here is one whose every call hangs, as a client's calls to a cluster that is
 * gone do while they retry.
 */
public class DropWaitTest {
  @Test(timeout = 20_000)
  public void aClusterThatDoesNotAnswerIsGivenUpOnWithTheTablesNamed() throws Exception {
    // every call blocks until the test ends, then fails
    CountDownLatch testOver = new CountDownLatch(1);
    EvalCluster gone =
        (EvalCluster)
            Proxy.newProxyInstance(
                EvalCluster.class.getClassLoader(),
                new Class<?>[] {EvalCluster.class},
                (proxy, method, args) -> {
                  testOver.await();
                  throw new IllegalStateException(method.getName());
                });
    EvaluationRunner runner =
        new EvaluationRunner(
                gone,
                DataShape.SAMPLE,
                "t",
                List.of(TableConfig.parse("NONE")),
                List.of(Workload.RAW_GET),
                1000,
                2,
                Progress.forConsole(new PrintWriter(new StringWriter())))
            .dropWait(500);
    runner.scratchTable("BLOCKSCOPE_EVAL:T_NONE_NONE_X1");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream saved = System.err;
    long start = System.nanoTime();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      runner.cleanUp();
    } finally {
      System.setErr(saved);
      testOver.countDown();
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    String said = err.toString(StandardCharsets.UTF_8);
    assertTrue("clean-up returned after " + ms + " ms", ms >= 500 && ms < 10_000);
    assertTrue(said, said.contains("did not answer the drops of run"));
    assertTrue(said, said.contains("[BLOCKSCOPE_EVAL:T_NONE_NONE_X1]"));
  }
}
