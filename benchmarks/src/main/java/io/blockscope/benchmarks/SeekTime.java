package io.blockscope.benchmarks;

import java.io.IOException;
import java.util.function.IntSupplier;

/**
 * One of {@link EncoderBenchmark}'s seek calls ({@code seek}, {@code seekBefore} or {@code get})
 * for one dataset and encoding, alone in its JVM, for a fixed time after a warm-up; prints the mean
 * ns per call: what a profiler is attached to ({@link SeekAB} compares two builds):
 *
 * <pre>
 * java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) \
 *     io.blockscope.benchmarks.SeekTime seed BLOCKSCOPE_V1 seekBefore [seconds 4] [warm-up 3]
 * </pre>
 */
public final class SeekTime {
  private static final int BATCH = 10_000;

  private SeekTime() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 3) {
      System.err.println(
          "usage: SeekTime <seed|pe> <encoding> <seek|seekBefore|get> "
              + "[seconds] [warm-up seconds]");
      System.exit(2);
    }
    // -Dseek.copies=32: seeks spread over 32 copies of the blocks (EncoderBenchmark.copies)
    EncoderBenchmark b =
        EncoderBenchmark.setUp(args[0], args[1], Integer.getInteger("seek.copies", 1));
    IntSupplier call =
        switch (args[2]) {
          case "seek" -> b::seek;
          case "seekBefore" -> b::seekBefore;
          case "get" -> b::get;
          default ->
              throw new IllegalArgumentException("call is seek, seekBefore or get, not " + args[2]);
        };
    long seconds = args.length > 3 ? Long.parseLong(args[3]) : 4;
    long warmUp = args.length > 4 ? Long.parseLong(args[4]) : 3;
    long sink = run(call, warmUp)[1];
    long[] measured = run(call, seconds);
    System.out.printf(
        "%s %s %s: %.1f ns per call%s%n",
        args[0],
        args[1],
        args[2],
        measured[0] / (double) measured[2],
        (sink ^ measured[1]) == 42 ? " " : "");
  }

  /** Calls in batches for {@code seconds}: elapsed ns, a sink of the results, calls. */
  private static long[] run(IntSupplier call, long seconds) {
    long start = System.nanoTime();
    long end = start + seconds * 1_000_000_000L;
    long sink = 0;
    long calls = 0;
    while (System.nanoTime() < end) {
      for (int i = 0; i < BATCH; i++) {
        sink += call.getAsInt();
      }
      calls += BATCH;
    }
    return new long[] {System.nanoTime() - start, sink, calls};
  }
}
