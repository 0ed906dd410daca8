package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.time.Duration;
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
        List.of(
            new ServerReads.Task("fast", () -> ok("fast")),
            new ServerReads.Task(
                "stuck",
                () -> {
                  asked.incrementAndGet();
                  release.await();
                  return ok("stuck");
                }));
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
      AtomicReference<List<TopView.ServerReading>> next = new AtomicReference<>();
      Waiter.waitFor(
          new Configuration(false),
          10_000,
          50,
          () -> {
            next.set(reads.read(tasks, Duration.ofSeconds(5)));
            return next.get().get(1).error() == null;
          });
      assertEquals(ok("stuck"), next.get().get(1));
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
}
