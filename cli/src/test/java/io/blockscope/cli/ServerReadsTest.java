package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Waiter;
import org.junit.Test;

public class ServerReadsTest {
  private static TopView.ServerReading ok(String server) {
    return new TopView.ServerReading(server, null, Map.of("blockscope:n=1", 1L));
  }

  /** A server whose read counts itself in {@code asked} and answers once {@code release} opens. */
  private static ServerReads.Task stuck(
      String server, CountDownLatch release, AtomicInteger asked) {
    return new ServerReads.Task(
        server,
        () -> {
          asked.incrementAndGet();
          release.await();
          return ok(server);
        });
  }

  /** Task {@code i}'s reading in the first refresh, within 10 s, that reads it without error. */
  private static TopView.ServerReading untilRead(
      ServerReads reads, List<ServerReads.Task> tasks, int i) throws Exception {
    AtomicReference<TopView.ServerReading> next = new AtomicReference<>();
    Waiter.waitFor(
        new Configuration(false),
        10_000,
        50,
        () -> {
          next.set(reads.read(tasks, Duration.ofSeconds(5)).get(i));
          return next.get().error() == null;
        });
    return next.get();
  }

  /** A server whose read answers once both reads of {@code both} have begun. */
  private static ServerReads.Task afterBoth(String server, CyclicBarrier both) {
    return new ServerReads.Task(
        server,
        () -> {
          both.await(20, TimeUnit.SECONDS);
          return ok(server);
        });
  }

  /**
   * Two servers whose reads each wait for the other to have begun: read one after another, the
   * first would wait out its barrier and fail; read at once, both answer.
   */
  @Test(timeout = 60_000)
  public void serversAreReadAtOnce() throws Exception {
    CyclicBarrier both = new CyclicBarrier(2);
    try (ServerReads reads = new ServerReads()) {
      List<TopView.ServerReading> r =
          reads.read(List.of(afterBoth("a", both), afterBoth("b", both)), Duration.ofSeconds(30));
      assertEquals(List.of(ok("a"), ok("b")), r);
    }
  }

  /**
   * A server that does not answer by the deadline is shown late while the others are shown; it is
   * not asked again while its read is under way, and its next refresh after the read ended asks it
   * anew.
   */
  @Test(timeout = 60_000)
  public void aSlowServerIsLateAndAskedOnceAtATime() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger asked = new AtomicInteger();
    List<ServerReads.Task> tasks =
        List.of(new ServerReads.Task("fast", () -> ok("fast")), stuck("stuck", release, asked));
    try (ServerReads reads = new ServerReads()) {
      List<TopView.ServerReading> first = reads.read(tasks, Duration.ofMillis(300));
      assertEquals(ok("fast"), first.get(0));
      assertEquals("stuck", first.get(1).server());
      assertEquals("late: no reply within 0.3 s", first.get(1).error());
      List<TopView.ServerReading> second = reads.read(tasks, Duration.ofMillis(300));
      assertEquals(ok("fast"), second.get(0));
      assertEquals("late: still reading its reply to an earlier refresh", second.get(1).error());
      assertEquals("one read of the stuck server at a time", 1, asked.get());
      release.countDown();
      // once its read has ended, the next refresh asks it anew and shows its answer
      assertEquals(ok("stuck"), untilRead(reads, tasks, 1));
      assertEquals("asked anew once its read had ended", 2, asked.get());
    }
  }

  @Test(timeout = 60_000)
  public void aReadThatThrowsIsShownWithWhatItSaid() throws Exception {
    try (ServerReads reads = new ServerReads()) {
      List<TopView.ServerReading> r =
          reads.read(
              List.of(
                  new ServerReads.Task(
                      "broken",
                      () -> {
                        throw new IOException("http://broken:16030/jmx: connection refused");
                      })),
              Duration.ofSeconds(5));
      assertEquals("http://broken:16030/jmx: connection refused", r.get(0).error());
      assertTrue(r.get(0).values().isEmpty());
      assertNull(new ServerReads.Task("x", () -> null).read().call());
    }
  }

  /**
   * Twenty servers on four readers: no more than four reads run at once, and every server is read
   * within the one refresh. With the pool unbounded (1,024 threads whatever the readers), this test
   * fails with "at most 4 reads at once, saw 20".
   */
  @Test(timeout = 60_000)
  public void neverMoreReadsAtOnceThanReaders() throws Exception {
    AtomicInteger now = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    List<ServerReads.Task> tasks = new ArrayList<>();
    List<TopView.ServerReading> expected = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      String server = "s" + i;
      expected.add(ok(server));
      tasks.add(
          new ServerReads.Task(
              server,
              () -> {
                most.accumulateAndGet(now.incrementAndGet(), Math::max);
                try {
                  Thread.sleep(20);
                } finally {
                  now.decrementAndGet();
                }
                return ok(server);
              }));
    }
    try (ServerReads reads = new ServerReads(4)) {
      assertEquals(expected, reads.read(tasks, Duration.ofSeconds(30)));
    }
    assertTrue("at most 4 reads at once, saw " + most.get(), most.get() <= 4);
  }

  /**
   * One reader, held by a stalled server: the server queued behind it is shown late without ever
   * being read, is asked anew (not shown as still reading) at the next refresh, and is read once
   * the stalled read has ended. Each refresh ends by its deadline.
   */
  @Test(timeout = 60_000)
  public void aQueuedReadThatMissesTheDeadlineIsDroppedAndAskedAnew() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger queuedRan = new AtomicInteger();
    List<ServerReads.Task> tasks =
        List.of(
            stuck("stalled", release, new AtomicInteger()),
            new ServerReads.Task(
                "queued",
                () -> {
                  queuedRan.incrementAndGet();
                  return ok("queued");
                }));
    try (ServerReads reads = new ServerReads(1)) {
      for (int refresh = 0; refresh < 2; refresh++) {
        long t0 = System.nanoTime();
        List<TopView.ServerReading> r = reads.read(tasks, Duration.ofMillis(300));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue("refresh " + refresh + " took " + ms + " ms", ms < 5_000);
        assertEquals(
            refresh == 0
                ? "late: no reply within 0.3 s"
                : "late: still reading its reply to an earlier refresh",
            r.get(0).error());
        assertEquals(
            "late: not read within 0.3 s, every one of the 1 readers busy with the 2 servers",
            r.get(1).error());
      }
      assertEquals("a dropped read never runs", 0, queuedRan.get());
      release.countDown();
      assertEquals(ok("queued"), untilRead(reads, tasks, 1));
      assertEquals(1, queuedRan.get());
    }
  }

  @Test
  public void aReaderCountOutOfRangeIsRefused() {
    for (int bad : new int[] {0, -1, ServerReads.MAX_READERS + 1}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> new ServerReads(bad).close());
      assertEquals("--readers must be 1 to 1024, got " + bad, e.getMessage());
    }
  }
}
