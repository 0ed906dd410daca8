package io.blockscope.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Reads every region server of a refresh in parallel on a bounded pool of reader threads, and waits
 * for them together until one deadline: a refresh of {@code top} ends when its last server has
 * answered or at the deadline, whichever comes first, never later.
 *
 * <p>With more servers than readers, the reads wait in a queue and start as readers come free. A
 * server that has not answered by the deadline is shown late: if its read had not started, it is
 * dropped from the queue and the server is asked anew at the next refresh; if it had started, it
 * goes on in the background (bounded by {@link InfoServerClient}'s limits on a reply's size and
 * time), and the server is not asked again until that read has ended. So a stalled server holds at
 * most one reader, not one per refresh, and as many stalled servers as there are readers leave the
 * other servers late until their reads end.
 */
final class ServerReads implements AutoCloseable {
  /** Reader threads when {@code top --readers} does not say. */
  static final int DEFAULT_READERS = 16;

  /** The most reader threads {@code top --readers} accepts. */
  static final int MAX_READERS = 1024;

  /** {@code readers}, if it is a number of reader threads {@code top} accepts. */
  static int checkReaders(int readers) {
    if (readers < 1 || readers > MAX_READERS) {
      throw new IllegalArgumentException(
          "--readers must be 1 to " + MAX_READERS + ", got " + readers);
    }
    return readers;
  }

  /** What a refresh reads from one server. */
  record Task(String server, Callable<TopView.ServerReading> read) {}

  /*
   * Each queued read carries its own state, QUEUED until a reader takes it (then RUNNING) or the
   * refresh's deadline passes first (then DROPPED): the two compare-and-set from QUEUED, so a read
   * either runs to its end and keeps its server busy, or never starts and frees its server at
   * once. FutureTask.cancel(false) alone cannot tell the refresh which of the two happened.
   */
  private static final int QUEUED = 0;
  private static final int RUNNING = 1;
  private static final int DROPPED = 2;

  /** A read submitted to the pool, with the state that says whether a reader has taken it. */
  private record Read(Future<TopView.ServerReading> future, AtomicInteger state) {}

  private final ThreadPoolExecutor pool;
  private final int readers;
  private final LongSupplier nanoTime;
  private final Map<String, Read> running = new LinkedHashMap<>();

  ServerReads() {
    this(DEFAULT_READERS);
  }

  ServerReads(int readers) {
    this(readers, System::nanoTime);
  }

  /**
   * @param readers the most threads reading at once, 1 to {@link #MAX_READERS}
   * @param nanoTime the clock deadlines are measured on
   */
  ServerReads(int readers, LongSupplier nanoTime) {
    this.readers = checkReaders(readers);
    this.nanoTime = nanoTime;
    AtomicInteger n = new AtomicInteger();
    this.pool =
        new ThreadPoolExecutor(
            readers,
            readers,
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "top-read-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    // idle readers end between refreshes far apart; the pool starts them again as needed
    pool.allowCoreThreadTimeOut(true);
  }

  /**
   * Each task's reading, in the tasks' order: what it returned, a failed reading with what it
   * threw, or a late one if it had not ended {@code deadline} after this call began (or a read of
   * that server from an earlier refresh is still under way).
   */
  List<TopView.ServerReading> read(List<Task> tasks, Duration deadline)
      throws InterruptedException {
    long end = nanoTime.getAsLong() + deadline.toNanos();
    List<String> asked = tasks.stream().map(Task::server).toList();
    running.entrySet().removeIf(e -> e.getValue().future().isDone() && !asked.contains(e.getKey()));
    List<Read> reads = new ArrayList<>();
    List<Boolean> fresh = new ArrayList<>();
    for (Task t : tasks) {
      Read earlier = running.get(t.server());
      if (earlier != null && !earlier.future().isDone()) {
        reads.add(earlier);
        fresh.add(false);
      } else {
        Read r = submit(t.read());
        running.put(t.server(), r);
        reads.add(r);
        fresh.add(true);
      }
    }
    List<TopView.ServerReading> readings = new ArrayList<>();
    for (int i = 0; i < tasks.size(); i++) {
      String server = tasks.get(i).server();
      Read r = reads.get(i);
      if (!fresh.get(i)) {
        readings.add(
            TopView.ServerReading.failed(
                server, "late: still reading its reply to an earlier refresh"));
        continue;
      }
      try {
        readings.add(r.future().get(Math.max(0, end - nanoTime.getAsLong()), TimeUnit.NANOSECONDS));
        running.remove(server);
      } catch (TimeoutException late) {
        readings.add(TopView.ServerReading.failed(server, late(r, deadline, tasks.size())));
      } catch (ExecutionException e) {
        running.remove(server);
        Throwable why = e.getCause() != null ? e.getCause() : e;
        readings.add(TopView.ServerReading.failed(server, String.valueOf(why.getMessage())));
      }
    }
    return readings;
  }

  /** A read that runs only if a reader takes it before its refresh has dropped it. */
  private Read submit(Callable<TopView.ServerReading> read) {
    AtomicInteger state = new AtomicInteger(QUEUED);
    Future<TopView.ServerReading> f =
        pool.submit(() -> state.compareAndSet(QUEUED, RUNNING) ? read.call() : null);
    return new Read(f, state);
  }

  /**
   * Why a read is late: still under way (it keeps its server until it ends), or never started
   * because every reader was busy (dropped, so the next refresh asks the server anew).
   */
  private String late(Read r, Duration deadline, int servers) {
    String within = deadline.toMillis() / 1000.0 + " s";
    if (r.state().compareAndSet(QUEUED, DROPPED)) {
      r.future().cancel(false);
      return "late: not read within "
          + within
          + ", every one of the "
          + readers
          + " readers busy with the "
          + servers
          + " servers";
    }
    return "late: no reply within " + within;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
