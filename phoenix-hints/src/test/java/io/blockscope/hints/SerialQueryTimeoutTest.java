package io.blockscope.hints;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.lang.reflect.Proxy;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.job.JobManager;
import org.apache.phoenix.monitoring.TaskExecutionMetricsHolder;
import org.apache.phoenix.util.SQLCloseable;
import org.junit.After;
import org.junit.Test;

/**
 * Phoenix's query timeout holds for a SERIAL query: {@code SerialExecutor} runs a deferred region
 * task in the asking thread only when it asks without a time limit. Phoenix asks each task with
 * {@code get(timeLeft, MILLISECONDS)} ({@code BaseResultIterators.getIterators}) and turns the
 * {@link TimeoutException} into its SQLTimeoutException; running the task there and returning only
 * when it was done meant that timeout never fired for a SERIAL GROUP BY. The slow step here is a
 * task held on a latch; the pool is Phoenix's own ({@code JobManager.createThreadPoolExec}, not
 * instrumented: that one needs log4j's metrics classes, which this module's tests do not have).
 */
public class SerialQueryTimeoutTest {
  private static final long TIMEOUT_MS = 200;

  private final ThreadPoolExecutor phoenixPool =
      JobManager.createThreadPoolExec(60_000, 4, 100, false);
  private final SerialExecutor executor = new SerialExecutor(phoenixPool);
  private final QueryPlan plan = plan();
  private final CountDownLatch release = new CountDownLatch(1);

  @After
  public void stop() throws InterruptedException {
    release.countDown();
    phoenixPool.shutdown();
    assertTrue(phoenixPool.awaitTermination(10, TimeUnit.SECONDS));
  }

  /** A region task held until the test releases it, returning an iterator that can be closed. */
  private JobManager.JobCallable<SQLCloseable> slowTask(
      CountDownLatch started, CountDownLatch closed, AtomicReference<Thread> ranIn) {
    return job(
        () -> {
          ranIn.set(Thread.currentThread());
          started.countDown();
          assertTrue("the test releases the task", release.await(30, TimeUnit.SECONDS));
          return closed::countDown;
        });
  }

  @Test(timeout = 20_000)
  public void aTimedGetTimesOutWhileTheRegionTaskRuns() throws Exception {
    SerialExecutor.defer(plan);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    AtomicReference<Thread> ranIn = new AtomicReference<>();
    Future<SQLCloseable> f = executor.submit(slowTask(started, closed, ranIn));

    assertThrows(TimeoutException.class, () -> f.get(TIMEOUT_MS, TimeUnit.MILLISECONDS));
    assertTrue("the task runs when asked for", started.await(10, TimeUnit.SECONDS));
    assertNotSame(Thread.currentThread(), ranIn.get());

    // BaseResultIterators.close after the timeout: cancel(false), no interrupt.
    assertTrue(f.cancel(false));
    release.countDown();
    assertTrue("what the cancelled task returns is closed", closed.await(10, TimeUnit.SECONDS));
  }

  @Test(timeout = 20_000)
  public void tasksNotStartedAtTheTimeoutNeverRun() throws Exception {
    SerialExecutor.defer(plan);
    CountDownLatch started = new CountDownLatch(1);
    AtomicReference<Thread> ranIn = new AtomicReference<>();
    Future<SQLCloseable> first = executor.submit(slowTask(started, new CountDownLatch(1), ranIn));
    AtomicInteger laterRuns = new AtomicInteger();
    Future<SQLCloseable> second =
        executor.submit(
            job(
                () -> {
                  laterRuns.incrementAndGet();
                  return () -> {};
                }));

    assertThrows(TimeoutException.class, () -> first.get(TIMEOUT_MS, TimeUnit.MILLISECONDS));
    first.cancel(false);
    second.cancel(false);
    release.countDown();
    assertThrows(CancellationException.class, () -> second.get(TIMEOUT_MS, TimeUnit.MILLISECONDS));
    assertThrows(CancellationException.class, second::get);
    phoenixPool.shutdown();
    assertTrue(phoenixPool.awaitTermination(10, TimeUnit.SECONDS));
    assertEquals(0, laterRuns.get());
  }

  @Test(timeout = 20_000)
  public void inTimeTheResultComesBackAndStaysOpen() throws Exception {
    SerialExecutor.defer(plan);
    CountDownLatch closed = new CountDownLatch(1);
    Future<SQLCloseable> f = executor.submit(job(() -> closed::countDown));
    SQLCloseable result = f.get(10, TimeUnit.SECONDS);
    assertFalse(f.isCancelled());
    assertFalse(f.cancel(false));
    assertEquals("not closed by the executor", 1, closed.getCount());
    result.close();
  }

  @Test(timeout = 20_000)
  public void anUntimedGetRunsInTheAskingThread() throws Exception {
    SerialExecutor.defer(plan);
    AtomicReference<Thread> ranIn = new AtomicReference<>();
    Future<SQLCloseable> f =
        executor.submit(
            job(
                () -> {
                  ranIn.set(Thread.currentThread());
                  return () -> {};
                }));
    f.get();
    assertSame(Thread.currentThread(), ranIn.get());
  }

  private interface Step {
    SQLCloseable call() throws Exception;
  }

  /** A region task as Phoenix's ParallelIterators submits it, naming the plan as its job. */
  private JobManager.JobCallable<SQLCloseable> job(Step step) {
    return new JobManager.JobCallable<>() {
      @Override
      public SQLCloseable call() throws Exception {
        return step.call();
      }

      @Override
      public Object getJobId() {
        return plan;
      }

      @Override
      public TaskExecutionMetricsHolder getTaskExecutionMetric() {
        return null;
      }
    };
  }

  private static QueryPlan plan() {
    return (QueryPlan)
        Proxy.newProxyInstance(
            SerialQueryTimeoutTest.class.getClassLoader(),
            new Class<?>[] {QueryPlan.class},
            (proxy, m, args) ->
                switch (m.getName()) {
                  case "hashCode" -> System.identityHashCode(proxy);
                  case "equals" -> proxy == args[0];
                  case "toString" -> "a deferred plan";
                  default -> throw new UnsupportedOperationException(m.getName());
                });
  }
}
