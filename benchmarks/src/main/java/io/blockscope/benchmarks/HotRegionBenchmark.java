package io.blockscope.benchmarks;

import io.blockscope.coprocessor.accounting.CostAccumulator;
import io.blockscope.coprocessor.accounting.CostRegistry;
import io.blockscope.coprocessor.accounting.CostRegistry.RegionCosts;
import io.blockscope.coprocessor.accounting.ExportLimit;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.PerfLevel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one read pays to hand its costs to a region that every handler thread is reading: admit the
 * read ({@link RegionCosts#acquire}), move the thread's costs into the region ({@link
 * CostAccumulator#drain}) and end the read ({@link RegionCosts#release}), as the engine does when a
 * request's frame closes. Run with {@code -t 1}, {@code -t 2} ... {@code -t 16}: the score is the
 * reads per microsecond of all threads together, so the CPU a read costs is the cores the threads
 * kept busy ({@code min(threads, cores)}) over the score, and it should not grow with the threads.
 * The costs a read leaves are those of a warm get at COUNT (a data and a leaf index block hit, a
 * seek and the cells it decoded); the trial fails if the region's totals are not exactly the reads'
 * sum.
 *
 * <p>{@code bin/blockscope jmh HotRegionBenchmark -t 4}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
public class HotRegionBenchmark {

  private static final int CELLS_PER_READ = 3;

  /** The region every thread reads, and the reads that ended in it. */
  @State(Scope.Benchmark)
  public static class HotRegion {
    CostRegistry registry;
    RegionCosts region;

    /**
     * The threads' states, to sum their reads at the end: JMH tears this state down before theirs.
     */
    final Queue<Handler> handlers = new ConcurrentLinkedQueue<>();

    @Setup(Level.Trial)
    public void open() {
      registry = new CostRegistry(ExportLimit.NONE);
      region = registry.open("hot", "r1", PerfLevel.COUNT);
    }

    @TearDown(Level.Trial)
    public void check() {
      long reads = 0;
      for (Handler h : handlers) {
        reads += h.hotReads;
      }
      check(region, reads);
      registry.close();
    }

    /** Fails the trial unless the region holds exactly what {@code reads} reads left. */
    static void check(RegionCosts region, long reads) {
      int enc = CostLayout.encodingIndex("FAST_DIFF");
      long cells = region.costs().get(CostLayout.decode(enc, CostLayout.DECODE_CELLS));
      long hits = region.costs().get(CostLayout.CACHE_HIT + CostLayout.KIND_DATA);
      if (hits != reads || cells != reads * CELLS_PER_READ) {
        throw new IllegalStateException(
            "region totals are not the reads' sum: "
                + reads
                + " reads, "
                + hits
                + " data block hits, "
                + cells
                + " cells");
      }
    }
  }

  /** One handler thread: the array its probes count into, its lane, and the reads it ended. */
  @State(Scope.Thread)
  public static class Handler {
    final long[] costs = new long[CostLayout.SIZE];
    final CostAccumulator.Lane lane = new CostAccumulator.Lane();
    long hotReads;
    long ownReads;
    int seeks;
    int cells;
    RegionCosts own;

    @Setup(Level.Trial)
    public void slots(HotRegion hot) {
      hot.handlers.add(this);
      own = new CostRegistry(ExportLimit.NONE).open("own", "r1", PerfLevel.COUNT);
      int enc = CostLayout.encodingIndex("FAST_DIFF");
      seeks = CostLayout.decode(enc, CostLayout.DECODE_SEEKS);
      cells = CostLayout.decode(enc, CostLayout.DECODE_CELLS);
    }

    @TearDown(Level.Trial)
    public void report() {
      HotRegion.check(own, ownReads);
    }
  }

  /** A read of the region every thread reads. */
  @Benchmark
  public boolean read(HotRegion hot, Handler h) {
    if (!read(hot.region, h)) {
      return false;
    }
    h.hotReads++;
    return true;
  }

  /**
   * The same read of a region only this thread reads: what a read costs with as many threads and no
   * contention, the yardstick for {@link #read} (on a machine whose cores share caches or a core, a
   * thread's reads slow down with more threads even when they share nothing).
   */
  @Benchmark
  public boolean ownRegion(Handler h) {
    if (!read(h.own, h)) {
      return false;
    }
    h.ownReads++;
    return true;
  }

  private static boolean read(RegionCosts r, Handler h) {
    if (!r.acquire(h.lane)) {
      return false;
    }
    long[] c = h.costs;
    c[CostLayout.CACHE_HIT + CostLayout.KIND_DATA]++;
    c[CostLayout.CACHE_HIT + CostLayout.KIND_LEAF_INDEX]++;
    c[h.seeks]++;
    c[h.cells] += CELLS_PER_READ;
    r.costs().drain(c, h.lane);
    r.release(h.lane);
    return true;
  }
}
