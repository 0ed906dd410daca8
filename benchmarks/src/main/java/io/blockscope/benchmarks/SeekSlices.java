package io.blockscope.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.IntSupplier;

/**
 * One build's side of {@link SeekAB}: loaded once per build, each in a class loader of its own, it
 * sets up {@link EncoderBenchmark} over that build's encoder and runs one seek call for a slice of
 * this thread's CPU time. Public for {@link SeekAB}, which reaches it by reflection.
 */
public final class SeekSlices {
  private static final int BATCH = 10_000;
  private static IntSupplier seek;
  private static IntSupplier seekBefore;
  private static IntSupplier get;
  private static long sink;

  private SeekSlices() {}

  /** Sets up the blocks and seek targets of {@code dataset} in {@code encoding}. */
  public static void init(String dataset, String encoding) throws IOException {
    EncoderBenchmark b = EncoderBenchmark.setUp(dataset, encoding, 1);
    seek = b::seek;
    seekBefore = b::seekBefore;
    get = b::get;
  }

  /**
   * Runs {@code call} ({@code seek}, {@code seekBefore} or {@code get}) in batches until this
   * thread has spent {@code cpuNanos} of CPU time; returns the CPU nanoseconds spent and the calls.
   */
  public static long[] run(String call, long cpuNanos) {
    IntSupplier c =
        switch (call) {
          case "seek" -> seek;
          case "seekBefore" -> seekBefore;
          case "get" -> get;
          default ->
              throw new IllegalArgumentException("call is seek, seekBefore or get, not " + call);
        };
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long start = threads.getCurrentThreadCpuTime();
    long end = start + cpuNanos;
    long calls = 0;
    long s = 0;
    long now;
    while ((now = threads.getCurrentThreadCpuTime()) < end) {
      for (int i = 0; i < BATCH; i++) {
        s += c.getAsInt();
      }
      calls += BATCH;
    }
    sink += s;
    return new long[] {now - start, calls};
  }

  /** Keeps the calls' results alive. */
  public static long sink() {
    return sink;
  }
}
