package io.blockscope.benchmarks;

import io.blockscope.cli.LoopbackInfoServers;
import io.blockscope.metrics.Stats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How long one refresh of {@code blockscope top} takes over a cluster's worth of region servers:
 * {@code --servers} loopback info servers (cli's test {@link LoopbackInfoServers}), each answering
 * the {@code /jmx} recorded from a stock region server with blockscope and 1,000 regions, read and
 * parsed as {@code top --zk} reads them after listing the live servers ({@code ServerReads}, {@code
 * InfoServerClient} over HTTP, {@code BeanReader}). A refresh is timed whole, from asking the first
 * server to the last reading parsed.
 *
 * <p>The variants are the number of reader threads: {@code --readers} (top's default) and 1,024,
 * more than there are servers (every server on a thread of its own, as an unbounded pool reads
 * them). They run interleaved ({@link InterleavedRounds}), each {@code --refreshes} times a round;
 * the figures are each variant's median refresh over the rounds' medians, the 10th and 90th
 * percentiles of all its refreshes, and its per-round ratio to the default. The servers answer
 * {@code top}'s query ({@code /jmx?qry=blockscope:*}) as the recorded server answered it; with
 * {@code --reply whole} they answer every request with the server's whole {@code /jmx} instead, as
 * a server that ignored the query would.
 *
 * <pre>
 * bin/blockscope top-refresh                      # about a minute here
 * bin/blockscope top-refresh --reply whole --rounds 3
 * </pre>
 */
public final class TopRefresh {
  /** More readers than servers: every server read on a thread of its own. */
  private static final int UNBOUNDED = 1024;

  record Options(int servers, int readers, int rounds, int refreshes, boolean whole) {
    static Options read(BenchOptions o) {
      int servers = o.integer("--servers", 100, 1);
      int readers = o.integer("--readers", 16, 1);
      int rounds = o.integer("--rounds", 7, 2);
      int refreshes = o.integer("--refreshes", 3, 1);
      boolean whole =
          o.option(
              "--reply",
              "query|whole",
              false,
              (name, v) ->
                  switch (v) {
                    case "whole" -> true;
                    case "query" -> false;
                    default ->
                        throw new IllegalArgumentException(name + " must be whole or query: " + v);
                  });
      return new Options(servers, readers, rounds, refreshes, whole);
    }
  }

  private TopRefresh() {}

  public static void main(String[] args) throws Exception {
    BenchOptions.main("top-refresh", args, Options::read, TopRefresh::run);
  }

  private static void run(Options o) throws Exception {
    LoopbackInfoServers.Replies recorded = LoopbackInfoServers.Replies.recorded();
    LoopbackInfoServers.Replies replies = o.whole() ? recorded.wholeOnly() : recorded;
    int replyBytes = o.whole() ? recorded.wholeBytes() : recorded.queryBytes();
    List<Integer> variants = List.of(o.readers(), UNBOUNDED);
    Duration deadline = Duration.ofSeconds(60);
    System.out.printf(
        Locale.ROOT,
        "%d loopback servers, each serving %.1f MB (%s), %d cores; readers %s; %d rounds of %d"
            + " refreshes each%n",
        o.servers(),
        replyBytes / 1e6,
        o.whole() ? "the whole /jmx, whatever the query" : "the answer to top's query",
        Runtime.getRuntime().availableProcessors(),
        variants,
        o.rounds(),
        o.refreshes());
    InterleavedRounds<Integer> rounds =
        new InterleavedRounds<>(variants, o.rounds(), o.refreshes());
    InterleavedRounds.Samples<Integer> ms =
        new InterleavedRounds.Samples<>(variants, o.rounds(), o.refreshes());
    Map<Integer, LoopbackInfoServers.Refreshes> tops = new LinkedHashMap<>();
    try (LoopbackInfoServers servers = LoopbackInfoServers.start(replies, o.servers(), 0)) {
      for (int readers : variants) {
        tops.put(readers, servers.refreshes(readers));
      }
      for (LoopbackInfoServers.Refreshes top : tops.values()) {
        top.refresh(deadline); // warm: classes loaded, JIT, connections
      }
      rounds.run(
          (readers, round, turn) -> {
            long t0 = System.nanoTime();
            LoopbackInfoServers.Result r = tops.get(readers).refresh(deadline);
            double took = (System.nanoTime() - t0) / 1e6;
            if (r.read() != o.servers()) {
              throw new IllegalStateException(
                  "a refresh read " + r.read() + " of " + o.servers() + ": " + r.unreadable());
            }
            ms.put(readers, round, turn, took);
          },
          round -> {
            StringBuilder line = new StringBuilder("round " + (round + 1) + ":");
            for (int readers : variants) {
              line.append(
                  String.format(
                      Locale.ROOT,
                      "  %d readers %.0f ms",
                      readers,
                      Stats.median(ms.of(readers)[round])));
            }
            System.out.println(line);
          });
    } finally {
      tops.values().forEach(LoopbackInfoServers.Refreshes::close);
    }
    System.out.printf(
        Locale.ROOT, "%-8s %12s %8s %8s %22s%n", "readers", "median ms", "p10", "p90", "ratio");
    for (int readers : variants) {
      List<Double> all = new ArrayList<>();
      for (double[] round : ms.of(readers)) {
        for (double v : round) {
          all.add(v);
        }
      }
      RoundRatio ratio = ms.ratio(readers, variants.get(0));
      System.out.printf(
          Locale.ROOT,
          "%-8d %12.0f %8.0f %8.0f %10.3f [%.3f, %.3f]%n",
          readers,
          ms.median(readers),
          Stats.quantile(all, 0.1),
          Stats.quantile(all, 0.9),
          ratio.mean(),
          ratio.low(),
          ratio.high());
    }
  }
}
