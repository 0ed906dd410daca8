package io.blockscope.benchmarks;

import io.blockscope.metrics.Stats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.function.IntSupplier;
import org.openjdk.jmh.infra.Blackhole;

/**
 * BLOCKSCOPE_V1's seek goals measured interleaved: {@link EncoderBenchmark}'s own {@code seek},
 * {@code seekBefore} and {@code get} (same datasets, blocks and targets), for ROW_INDEX_V1 and
 * BLOCKSCOPE_V1 taking turns in one JVM, batch by batch, so that both see the same machine. On a
 * noisy machine separate JMH runs drifted by 30-70% between runs; ratios of interleaved batches do
 * not drift with it. Prints, per dataset and call, the median ns/op of each and the median of the
 * per-round ratios to the first.
 *
 * <pre>
 * java -cp bench/target/classes:$(cat bench/target/classpath.txt) \
 *     io.blockscope.benchmarks.SeekRatios [rounds, default 21] [ENCODING ...]
 * </pre>
 *
 * <p>{@code -Dratios.calls=scan,decode,encode} times those instead (or as well): one call is a
 * scan, a whole-block decode or an encode of the whole dataset, 20 to a batch; the ratios are of
 * times, so below 1 is faster. {@code -Dratios.copies=32} spreads the seeks over 32 copies of the
 * blocks, past the CPU caches ({@link EncoderBenchmark#copies}).
 *
 * <p>Encodings named after the rounds replace the two above, the first being the reference ({@code
 * 21 FAST_DIFF BLOCKSCOPE_V1}). Every encoding keeps its blocks in memory, so more of them contend
 * more for the CPU caches: ROW_INDEX_V1, whose blocks are the largest, measured slower next to two
 * others than next to one.
 */
public final class SeekRatios {
  /** The encodings compared, the first the reference. */
  private static final String[] ENCODINGS = {"ROW_INDEX_V1", "BLOCKSCOPE_V1"};

  private static final int WARMUP_ROUNDS = 5;
  private static final int CALLS = 100_000;

  /** Calls per batch of a whole-dataset scan or encode. */
  private static final int DATASET_CALLS = 20;

  private SeekRatios() {}

  public static void main(String[] args) throws IOException {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 21;
    String[] encodings = args.length > 1 ? Arrays.copyOfRange(args, 1, args.length) : ENCODINGS;
    int n = encodings.length;
    if (n < 2) {
      throw new IllegalArgumentException(
          "name two encodings or more after the rounds, the first "
              + "the reference; not "
              + Arrays.toString(encodings));
    }
    StringBuilder head = new StringBuilder(String.format("%-5s %-11s", "data", "call"));
    for (String e : encodings) {
      head.append(String.format(" %16s", e + " ns"));
    }
    for (int i = 1; i < n; i++) {
      head.append(String.format(" %10s", "ratio " + i));
    }
    System.out.println(head);
    for (String dataset : new String[] {"seed", "pe"}) {
      EncoderBenchmark[] benchmarks = new EncoderBenchmark[n];
      for (int i = 0; i < n; i++) {
        benchmarks[i] =
            EncoderBenchmark.setUp(dataset, encodings[i], Integer.getInteger("ratios.copies", 1));
      }
      for (String call : System.getProperty("ratios.calls", "seek,seekBefore,get").split(",")) {
        IntSupplier[] calls = new IntSupplier[n];
        for (int i = 0; i < n; i++) {
          calls[i] = call(benchmarks[i], call);
        }
        int perBatch =
            call.equals("scan") || call.equals("encode") || call.equals("decode")
                ? DATASET_CALLS
                : CALLS;
        double[][] nanos = new double[n][rounds];
        double[][] ratios = new double[n][rounds];
        long sink = 0;
        for (int round = -WARMUP_ROUNDS; round < rounds; round++) {
          for (int i = 0; i < n; i++) {
            // rotate which goes first, so none always follows another
            int e = (i + Math.floorMod(round, n)) % n;
            long start = System.nanoTime();
            for (int c = 0; c < perBatch; c++) {
              sink += calls[e].getAsInt();
            }
            long took = System.nanoTime() - start;
            if (round >= 0) {
              nanos[e][round] = took / (double) perBatch;
            }
          }
          if (round >= 0) {
            for (int i = 1; i < n; i++) {
              ratios[i][round] = nanos[i][round] / nanos[0][round];
            }
          }
        }
        StringBuilder line = new StringBuilder(String.format("%-5s %-11s", dataset, call));
        for (int i = 0; i < n; i++) {
          line.append(String.format(" %16.0f", Stats.median(nanos[i])));
        }
        for (int i = 1; i < n; i++) {
          line.append(String.format(" %10.2f", Stats.median(ratios[i])));
        }
        System.out.println(line + (sink == 42 ? " " : ""));
      }
    }
  }

  private static final Blackhole HOLE =
      new Blackhole(
          "Today's password is swordfish. I "
              + "understand instantiating Blackholes directly is dangerous.");

  private static IntSupplier call(EncoderBenchmark b, String call) {
    EncoderBenchmark.Cells counter = new EncoderBenchmark.Cells();
    return switch (call) {
      case "seek" -> b::seek;
      case "seekBefore" -> b::seekBefore;
      case "get" -> b::get;
      case "scan" ->
          () -> {
            b.scan(HOLE, counter);
            return (int) counter.cells;
          };
      case "decode" ->
          () -> {
            try {
              b.decode(HOLE, counter);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
            return (int) counter.cells;
          };
      case "encode" ->
          () -> {
            try {
              return (int) b.encode(counter);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          };
      default ->
          throw new IllegalArgumentException(
              "a call is seek, seekBefore, get, scan, decode or encode, not " + call);
    };
  }
}
