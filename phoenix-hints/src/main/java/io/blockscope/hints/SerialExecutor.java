package io.blockscope.hints;

import java.lang.reflect.Field;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.iterate.BaseResultIterators;
import org.apache.phoenix.job.JobManager;
import org.apache.phoenix.monitoring.TaskExecutionMetricsHolder;
import org.apache.phoenix.util.SQLCloseable;

/**
 * The query services' executor, with one difference: a region-scan task of a plan marked
 * {@linkplain #defer deferred} does not go to the pool; it runs in the thread that asks for its
 * result, when it asks. {@code BaseResultIterators.getIterators} asks for the scans' results one
 * after the other, in key order, so such a plan's region scans run one at a time, in key order.
 * That serializes a GROUP BY on columns outside the row key without changing its rows: each task
 * reads and sorts its whole region (Phoenix's {@code OrderingResultIteratorFactory}), so its
 * scanner is done before the next one opens, and Phoenix still merges the regions' groups.
 * Everything else goes to Phoenix's pool unchanged.
 *
 * <p>Phoenix's query timeout ({@code phoenix.query.timeoutMs}, {@code Statement.setQueryTimeout})
 * is applied by {@code BaseResultIterators.getIterators}, which asks for each task's result with
 * {@code get(timeLeft, MILLISECONDS)} and turns a {@link TimeoutException} into its {@code
 * SQLTimeoutException} (error 6000, state TIM01). A deferred task asked for that way runs on
 * Phoenix's pool, started when asked for, while the asking thread waits at most the time given; so
 * one task still runs at a time and the query's timeout holds. On a timeout Phoenix cancels every
 * task: the ones not started never run, and the one running (a region scan Phoenix does not
 * interrupt, as it does not interrupt its own) has what it returns closed when it returns. Asked
 * for without a time limit (a hash join's sub-plans, {@code HashJoinPlan.iterator}), a task runs in
 * the asking thread as before.
 */
final class SerialExecutor extends ThreadPoolExecutor {
  private static final Field PLAN = planField();
  private static final Map<QueryPlan, Boolean> DEFERRED =
      Collections.synchronizedMap(new WeakHashMap<>());

  private final ThreadPoolExecutor pool;

  SerialExecutor(ThreadPoolExecutor pool) {
    super(0, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
    this.pool = pool;
  }

  private static Field planField() {
    try {
      Field f = BaseResultIterators.class.getDeclaredField("plan");
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException(
          "blockscope SERIAL: this Phoenix has no "
              + "BaseResultIterators.plan (built against Phoenix 5.2.1)",
          e);
    }
  }

  /** The region scans of {@code plan} run where and when their results are asked for. */
  static void defer(QueryPlan plan) {
    DEFERRED.put(plan, Boolean.TRUE);
  }

  /**
   * A region-scan task names its {@code BaseResultIterators} as job id, whose plan says whether it
   * is deferred; a hash join's sub-plan task names the {@code HashJoinPlan} itself.
   */
  private static boolean deferred(Callable<?> task) {
    if (!(task instanceof JobManager.JobCallable<?>)) {
      return false;
    }
    Object id = ((JobManager.JobCallable<?>) task).getJobId();
    if (id instanceof QueryPlan) {
      return DEFERRED.containsKey(id);
    }
    if (!(id instanceof BaseResultIterators)) {
      return false;
    }
    try {
      return DEFERRED.containsKey((QueryPlan) PLAN.get(id));
    } catch (IllegalAccessException e) {
      return false;
    }
  }

  @Override
  public <T> Future<T> submit(Callable<T> task) {
    return deferred(task)
        ? new RunOnGet<>((JobManager.JobCallable<T>) task, pool)
        : pool.submit(task);
  }

  @Override
  public Future<?> submit(Runnable task) {
    return pool.submit(task);
  }

  @Override
  public <T> Future<T> submit(Runnable task, T result) {
    return pool.submit(task, result);
  }

  @Override
  public void execute(Runnable command) {
    pool.execute(command);
  }

  @Override
  public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks)
      throws InterruptedException {
    return pool.invokeAll(tasks);
  }

  /**
   * A task that runs when its result is first asked for: in the asking thread if asked without a
   * time limit, on {@code pool} if asked with one.
   */
  static final class RunOnGet<T> extends FutureTask<T> {
    private final JobManager.JobCallable<T> job;
    private final ExecutorService pool;
    private final AtomicBoolean started = new AtomicBoolean();

    RunOnGet(JobManager.JobCallable<T> job, ExecutorService pool) {
      super(job);
      this.job = job;
      this.pool = pool;
    }

    @Override
    public void run() {
      started.set(true);
      super.run(); // does nothing if the task ran, runs elsewhere or was cancelled
    }

    private void runOnPool() {
      super.run();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
      run();
      return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException {
      if (started.compareAndSet(false, true)) {
        // A job as Phoenix submits it: its pool's (instrumented) tasks need the job id and metrics.
        Future<Void> unusedJob =
            pool.submit(
                new JobManager.JobCallable<Void>() {
                  @Override
                  public Void call() {
                    runOnPool();
                    return null;
                  }

                  @Override
                  public Object getJobId() {
                    return job.getJobId();
                  }

                  @Override
                  public TaskExecutionMetricsHolder getTaskExecutionMetric() {
                    return job.getTaskExecutionMetric();
                  }
                });
      }
      return super.get(timeout, unit);
    }

    /** A result that comes after the task was cancelled is nobody's: it is closed here. */
    @Override
    protected void set(T result) {
      super.set(result);
      if (isCancelled()) {
        closeQuietly(result);
      }
    }

    private static void closeQuietly(Object result) {
      try {
        if (result instanceof SQLCloseable) {
          ((SQLCloseable) result).close();
        } else if (result instanceof AutoCloseable) {
          ((AutoCloseable) result).close();
        }
      } catch (Exception e) {
        // the query this belonged to has failed already; there is no one to tell
      }
    }
  }
}
