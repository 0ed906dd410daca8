package io.blockscope.hints;

import java.lang.reflect.Field;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.iterate.BaseResultIterators;
import org.apache.phoenix.job.JobManager;

/**
 * The query services' executor, with one difference: a region-scan task of a plan marked
 * {@linkplain #defer deferred} does not go to the pool; it runs in the thread that asks for its
 * result, when it asks. {@code BaseResultIterators.getIterators} asks for the scans' results one
 * after the other, in key order, so such a plan's region scans run one at a time, in key order.
 * That serializes a GROUP BY on columns outside the row key without changing its rows: each task
 * reads and sorts its whole region (Phoenix's {@code OrderingResultIteratorFactory}), so its
 * scanner is done before the next one opens, and Phoenix still merges the regions' groups.
 * Everything else goes to Phoenix's pool unchanged.
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
      throw new IllegalStateException("blockscope SERIAL: this Phoenix has no "
          + "BaseResultIterators.plan (built against Phoenix 5.2.1)", e);
    }
  }

  /** The region scans of {@code plan} run where and when their results are asked for. */
  static void defer(QueryPlan plan) {
    DEFERRED.put(plan, Boolean.TRUE);
  }

  /**
   * A region-scan task names its {@code BaseResultIterators} as job id, whose plan says whether
   * it is deferred; a hash join's sub-plan task names the {@code HashJoinPlan} itself.
   */
  private static boolean deferred(Callable<?> task) {
    if (!(task instanceof JobManager.JobCallable<?> job)) {
      return false;
    }
    Object id = job.getJobId();
    if (id instanceof QueryPlan plan) {
      return DEFERRED.containsKey(plan);
    }
    if (!(id instanceof BaseResultIterators iterators)) {
      return false;
    }
    try {
      return DEFERRED.containsKey((QueryPlan) PLAN.get(iterators));
    } catch (IllegalAccessException e) {
      return false;
    }
  }

  @Override
  public <T> Future<T> submit(Callable<T> task) {
    return deferred(task) ? new RunOnGet<>(task) : pool.submit(task);
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
  public <T> List<Future<T>> invokeAll(java.util.Collection<? extends Callable<T>> tasks)
      throws InterruptedException {
    return pool.invokeAll(tasks);
  }

  /** A task that runs in the first thread asking for its result. */
  private static final class RunOnGet<T> extends FutureTask<T> {
    RunOnGet(Callable<T> task) {
      super(task);
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
      run();
      return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException {
      run();
      return super.get(timeout, unit);
    }
  }
}
