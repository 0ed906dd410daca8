package io.blockscope.bench.jmh;

import java.io.IOException;
import java.util.Arrays;
import java.util.function.IntSupplier;

/**
 * The seek goals of issue 5 measured interleaved: {@link EncoderBenchmark}'s own {@code seek} and
 * {@code seekBefore} (same datasets, blocks and targets), for ROW_INDEX_V1 and BLOCKSCOPE_V1
 * taking turns in one JVM, batch by batch, so that both see the same machine. On a noisy
 * machine separate JMH runs of A and B drifted by 30-70% between runs; ratios of interleaved
 * batches do not drift with it. Prints, per dataset and call, the median ns/op of each and the
 * median of the per-round ratios.
 *
 * <pre>
 * java -cp bench/target/classes:$(cat bench/target/classpath.txt) \
 *     io.blockscope.bench.jmh.SeekRatios [rounds, default 21]
 * </pre>
 */
public final class SeekRatios {
  private static final String[] ENCODINGS = {"ROW_INDEX_V1", "BLOCKSCOPE_V1"};
  private static final int WARMUP_ROUNDS = 5;
  private static final int CALLS = 100_000;

  private SeekRatios() {}

  public static void main(String[] args) throws IOException {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 21;
    System.out.printf("%-5s %-11s %14s %14s %10s%n", "data", "call", ENCODINGS[0] + " ns",
        ENCODINGS[1] + " ns", "ratio");
    for (String dataset : new String[] {"seed", "pe"}) {
      EncoderBenchmark[] benchmarks = new EncoderBenchmark[ENCODINGS.length];
      for (int i = 0; i < ENCODINGS.length; i++) {
        EncoderBenchmark b = new EncoderBenchmark();
        b.dataset = dataset;
        b.encoding = ENCODINGS[i];
        b.memory = "heap";
        b.mvcc = true;
        b.setUp();
        benchmarks[i] = b;
      }
      for (String call : new String[] {"seek", "seekBefore"}) {
        IntSupplier[] calls = new IntSupplier[ENCODINGS.length];
        for (int i = 0; i < ENCODINGS.length; i++) {
          EncoderBenchmark b = benchmarks[i];
          calls[i] = call.equals("seek") ? b::seek : b::seekBefore;
        }
        double[][] nanos = new double[ENCODINGS.length][rounds];
        double[] ratios = new double[rounds];
        long sink = 0;
        for (int round = -WARMUP_ROUNDS; round < rounds; round++) {
          for (int i = 0; i < ENCODINGS.length; i++) {
            // alternate which goes first, so neither always follows the other
            int e = (round & 1) == 0 ? i : ENCODINGS.length - 1 - i;
            long start = System.nanoTime();
            for (int c = 0; c < CALLS; c++) {
              sink += calls[e].getAsInt();
            }
            long took = System.nanoTime() - start;
            if (round >= 0) {
              nanos[e][round] = took / (double) CALLS;
            }
          }
          if (round >= 0) {
            ratios[round] = nanos[1][round] / nanos[0][round];
          }
        }
        System.out.printf("%-5s %-11s %14.0f %14.0f %10.2f%s%n", dataset, call, median(nanos[0]),
            median(nanos[1]), median(ratios), sink == 42 ? " " : "");
      }
    }
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
