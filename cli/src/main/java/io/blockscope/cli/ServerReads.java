package io.blockscope.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reads every region server at once, each on a thread of its own, and waits for them together until
 * one deadline: a refresh of {@code top} takes as long as its slowest server or the deadline,
 * whichever is shorter, never the sum of its servers. A server that misses the deadline is shown
 * late; its read goes on in the background (bounded by {@link InfoServerClient}'s limits on a
 * reply's size and time), and the server is not asked again until that read has ended, so a stuck
 * server holds one thread, not one per refresh.
 */
final class ServerReads implements AutoCloseable {
  /** What a refresh reads from one server. */
  record Task(String server, Callable<TopView.ServerReading> read) {}

  private final ExecutorService pool;
  private final Map<String, Future<TopView.ServerReading>> running = new LinkedHashMap<>();

  ServerReads() {
    AtomicInteger n = new AtomicInteger();
    this.pool =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "top-read-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Each task's reading, in the tasks' order: what it returned, a failed reading with what it
   * threw, or a late one if it had not ended {@code deadline} after this call began (or a read of
   * that server from an earlier refresh is still under way).
   */
  List<TopView.ServerReading> read(List<Task> tasks, Duration deadline)
      throws InterruptedException {
    long end = System.nanoTime() + deadline.toNanos();
    List<String> asked = tasks.stream().map(Task::server).toList();
    running.entrySet().removeIf(e -> e.getValue().isDone() && !asked.contains(e.getKey()));
    List<Future<TopView.ServerReading>> futures = new ArrayList<>();
    List<Boolean> fresh = new ArrayList<>();
    for (Task t : tasks) {
      Future<TopView.ServerReading> earlier = running.get(t.server());
      if (earlier != null && !earlier.isDone()) {
        futures.add(earlier);
        fresh.add(false);
      } else {
        Future<TopView.ServerReading> f = pool.submit(t.read());
        running.put(t.server(), f);
        futures.add(f);
        fresh.add(true);
      }
    }
    List<TopView.ServerReading> readings = new ArrayList<>();
    for (int i = 0; i < tasks.size(); i++) {
      String server = tasks.get(i).server();
      Future<TopView.ServerReading> f = futures.get(i);
      if (!fresh.get(i)) {
        readings.add(
            TopView.ServerReading.failed(
                server, "late: still reading its reply to an earlier refresh"));
        continue;
      }
      try {
        readings.add(f.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS));
        running.remove(server);
      } catch (TimeoutException late) {
        readings.add(
            TopView.ServerReading.failed(
                server, "late: no reply within " + deadline.toMillis() / 1000.0 + " s"));
      } catch (ExecutionException e) {
        running.remove(server);
        Throwable why = e.getCause() != null ? e.getCause() : e;
        readings.add(TopView.ServerReading.failed(server, String.valueOf(why.getMessage())));
      }
    }
    return readings;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
