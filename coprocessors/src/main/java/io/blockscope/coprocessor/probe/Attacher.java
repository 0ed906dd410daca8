package io.blockscope.coprocessor.probe;

import java.lang.instrument.Instrumentation;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Gets {@code java.lang.instrument} access once, within a bounded time, and remembers the outcome:
 * a region server that could not attach does not try again on every region open.
 *
 * <p>Design note. Without {@code -javaagent}, Byte Buddy attaches the JVM to itself; on JDK 9+ with
 * {@code jdk.attach.allowAttachSelf=false} (the default) that means starting a helper JVM and
 * waiting for it, with no timeout of its own. It runs here on a daemon thread; the caller (a region
 * being opened) waits at most {@code timeoutMillis}, and a late or failed attach leaves the probes
 * unavailable for the life of the JVM, with the reason.
 */
final class Attacher {
  private final Callable<Instrumentation> attach;
  private final long timeoutMillis;
  private boolean tried;
  private Instrumentation instrumentation;
  private String failure;

  /**
   * What to do where the JVM has no attach API: a Java 8 runtime (a JRE, or a JDK without its
   * tools.jar) cannot attach to itself at all, so there the agent is the way.
   */
  static String noAttachApi() {
    return System.getProperty("java.specification.version", "").startsWith("1.")
        ? "; a Java 8 runtime attaches only with the JDK's tools.jar: start the region server with"
            + " -javaagent:<the blockscope coprocessor jar> (docs/deploy.md)"
        : "";
  }

  Attacher(Callable<Instrumentation> attach, long timeoutMillis) {
    this.attach = attach;
    this.timeoutMillis = timeoutMillis;
  }

  /**
   * The instrumentation, attaching on the first call only.
   *
   * @throws IllegalStateException with the reason, now and on every later call, if the first attach
   *     failed or did not finish in time
   */
  synchronized Instrumentation get() {
    if (!tried) {
      tried = true;
      FutureTask<Instrumentation> task = new FutureTask<>(attach);
      Thread t = new Thread(task, "blockscope-attach");
      t.setDaemon(true);
      t.start();
      try {
        instrumentation = task.get(timeoutMillis, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        task.cancel(true);
        failure =
            "attaching to the JVM did not finish within "
                + timeoutMillis
                + " ms"
                + " (start the region server with -javaagent:<blockscope jar> to skip attaching)";
      } catch (ExecutionException e) {
        failure = "attaching to the JVM failed: " + e.getCause() + noAttachApi();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        task.cancel(true);
        failure = "interrupted while attaching to the JVM";
      }
    }
    if (instrumentation == null) {
      throw new IllegalStateException(failure);
    }
    return instrumentation;
  }
}
