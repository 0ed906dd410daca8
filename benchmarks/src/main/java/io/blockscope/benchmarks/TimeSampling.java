package io.blockscope.benchmarks;

import io.blockscope.benchmarks.DecodeProbeBenchmark.SeedBlock;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.coprocessor.probe.ProbeInstaller;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.Stats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.nio.SingleByteBuff;

/**
 * How far TIME's estimate of decode time ({@code decode.<enc>.nanos}: one seeker call in 16 and one
 * cell step in 16 timed, at random, each scaled by 16) is from the time HBase's decoding takes. The
 * probes are woven into HBase's seekers in this JVM and the thread runs at TIME; each operation
 * works one block with HBase's own seeker and is timed from outside, whole (all of it is seeker
 * work, the probes' own included), which is the truth. Over windows of 100, 1,000 and 10,000
 * operations, the estimate's error is the window's {@code decode.<enc>.nanos} over its operations'
 * summed time, less 1; the median, 5th and 95th percentiles of 40 windows are reported. Run it on a
 * quiet machine: time a thread spends descheduled lands in the truth and, in proportion, in the
 * estimate's sampled calls.
 *
 * <p>Operations: a point read (a block start and a seek to a random row) and a 100-row scan (the
 * same, then 200 cell steps), on FAST_DIFF and ROW_INDEX_V1 blocks of 1,000 rows of the seeds'
 * shape. {@code bin/blockscope jmh} is not needed: run the class with the benchmarks' class path,
 * as {@code bin/blockscope time-sampling} does.
 */
public final class TimeSampling {
  private static final int WINDOWS = 40;

  private TimeSampling() {}

  public static void main(String[] args) throws Exception {
    List<String> problems = new ArrayList<>();
    ProbeInstaller.installAll(true, 30_000, problems);
    if (!problems.isEmpty()) {
      throw new IllegalStateException("probes not installed: " + problems);
    }
    ProbeBridge.costs()[CostLayout.LEVEL] = PerfLevel.TIME.ordinal();
    long pair = ProbeBridge.NANO_TIME_COST; // taken off the outside timing as off the probe's
    System.out.printf(
        Locale.ROOT,
        "%-13s %-12s %8s %10s %10s %10s %10s%n",
        "encoding",
        "operation",
        "window",
        "op us",
        "error p50",
        "p5",
        "p95");
    for (DataBlockEncoding enc :
        new DataBlockEncoding[] {DataBlockEncoding.FAST_DIFF, DataBlockEncoding.ROW_INDEX_V1}) {
      for (boolean scan : new boolean[] {false, true}) {
        Run run = new Run(SeedBlock.of(enc), CostLayout.encodingIndex(enc.name()), scan, pair);
        for (int window : new int[] {100, 1_000, 10_000}) {
          List<Double> errors = new ArrayList<>();
          List<Double> truths = new ArrayList<>();
          run.window(Math.max(20_000, window)); // warm
          for (int w = 0; w < WINDOWS; w++) {
            double[] r = run.window(window);
            errors.add(r[0] / r[1] - 1);
            truths.add(r[1] / window);
          }
          System.out.printf(
              Locale.ROOT,
              "%-13s %-12s %8d %10.2f %+9.1f%% %+9.1f%% %+9.1f%%%n",
              enc,
              scan ? "scan 100" : "point read",
              window,
              Stats.median(truths) / 1e3,
              100 * Stats.median(errors),
              100 * Stats.quantile(errors, 0.05),
              100 * Stats.quantile(errors, 0.95));
        }
      }
    }
    System.exit(0);
  }

  /** One kind of operation on one block. */
  private static final class Run {
    private final SeedBlock block;
    private final int nanosSlot;
    private final boolean scan;
    private final long pair;
    private final KeyValue[] keys = new KeyValue[SeedBlock.ROWS];
    private final Random random = new Random(7);

    Run(SeedBlock block, int encoding, boolean scan, long pair) {
      this.block = block;
      this.nanosSlot = CostLayout.decode(encoding, CostLayout.DECODE_NANOS);
      this.scan = scan;
      this.pair = pair;
      for (int pk = 0; pk < keys.length; pk++) {
        keys[pk] = SeedBlock.cell(pk, "v1", 0f);
      }
    }

    /** Runs {@code n} operations: {estimated decode nanos, measured nanos}. */
    double[] window(int n) {
      long[] costs = ProbeBridge.costs();
      long estimated = costs[nanosSlot];
      long measured = 0;
      for (int i = 0; i < n; i++) {
        KeyValue key = keys[random.nextInt(keys.length)];
        long start = System.nanoTime();
        block.seeker.setCurrentBuffer(new SingleByteBuff(block.bytes.duplicate()));
        block.seeker.seekToKeyInBlock(key, false);
        if (scan) {
          for (int step = 0; step < 200 && block.seeker.next(); step++) {
            // walk
          }
        }
        measured += System.nanoTime() - start - pair;
      }
      return new double[] {costs[nanosSlot] - estimated, measured};
    }
  }
}
