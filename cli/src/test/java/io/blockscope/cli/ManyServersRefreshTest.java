package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.BeanReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.Test;

/**
 * {@code top}'s refresh of a cluster's worth of region servers: 100 loopback info servers, each
 * answering as a stock region server with 1,000 regions answered (recorded), one of them stalled
 * (it takes the connection and never answers). The refresh goes through the path {@code top --zk}
 * takes after listing the live servers: {@link ServerReads} on its default number of readers,
 * {@link InfoServerClient} over HTTP, {@link BeanReader} parsing each reply.
 *
 * <p>The deadline is a guarantee, not a speed figure (the benchmarks module's {@code TopRefresh}
 * times the refresh): 8 s, under {@link InfoServerClient}'s 10 s read timeout, so the stalled
 * server is still unanswered when the refresh ends, and the refresh may return 1 s after it. With
 * {@link ServerReads} waiting on each read without the deadline, this test fails with "the refresh
 * returns by its deadline of 8 s (and 1 s to return), took 10077 ms": the refresh waits for the
 * stalled read to time out.
 */
public class ManyServersRefreshTest {
  private static final int SERVERS = 100;
  private static final Duration DEADLINE = Duration.ofSeconds(8);

  @Test(timeout = 120_000)
  public void aRefreshOfAHundredServersEndsByItsDeadlineWhenOneStalls() throws Exception {
    LoopbackInfoServers.Replies recorded = LoopbackInfoServers.Replies.recorded();
    Map<String, Long> alone =
        BeanReader.of(
                pathAndQuery -> new String(recorded.to(pathAndQuery), StandardCharsets.UTF_8),
                "the recording")
            .all();
    assertEquals("the recording's blockscope beans", 1_598, alone.size());
    // the same beans in the whole /jmx, read for top's query (recorded an export apart, so the
    // server's export.refreshes differs by one)
    assertEquals(
        "the whole /jmx read for top's query",
        alone.keySet(),
        BeanReader.of(
                pathAndQuery ->
                    new String(recorded.wholeOnly().to(pathAndQuery), StandardCharsets.UTF_8),
                "the whole recording")
            .all()
            .keySet());
    try (LoopbackInfoServers servers = LoopbackInfoServers.start(recorded, SERVERS, 1);
        LoopbackInfoServers.Refreshes top = servers.refreshes(ServerReads.DEFAULT_READERS)) {
      long t0 = System.nanoTime();
      List<TopView.ServerReading> readings = top.read(DEADLINE);
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertTrue(
          "the refresh returns by its deadline of 8 s (and 1 s to return), took " + ms + " ms",
          ms < DEADLINE.toMillis() + 1_000);
      assertEquals(SERVERS, readings.size());
      assertEquals("loopback-0", readings.get(0).server());
      assertEquals("late: no reply within 8.0 s", readings.get(0).error());
      for (TopView.ServerReading r : readings.subList(1, SERVERS)) {
        assertNull(r.server() + " was read", r.error());
        assertEquals(r.server() + "'s values, as parsed from the recording", alone, r.values());
      }
    }
  }
}
