package io.blockscope.coprocessor;

import io.blockscope.coprocessor.accounting.CostRegistry.RegionCosts;
import io.blockscope.coprocessor.accounting.QueryTracker;
import io.blockscope.metrics.CostLayout;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The sensitivity drill's miscounts that are not a probe's ({@link Diagnostics#miscount}): while
 * one runs, the engine settles a frame's costs here, which gives them to the wrong region or query,
 * or mislabels or rescales them first, so that the suite can show its tests fail when costs go to
 * the wrong place or under the wrong name. Off (the production state), it costs the engine one
 * volatile read per settle.
 */
final class MiscountDrill {
  /** A wrong attribution the drill asked for; NONE when no drill runs. */
  private static volatile Miscount how = Miscount.NONE;

  /**
   * The first region of a user table (WRONG_REGION) or query record (WRONG_QUERY) the drill saw
   * settle: a read of {@code hbase:meta} by a chore never becomes it.
   */
  private static final AtomicReference<Object> SINK = new AtomicReference<>();

  private MiscountDrill() {}

  static boolean active() {
    return how != Miscount.NONE;
  }

  /** Whether the drill {@code miscount} runs now. */
  static boolean runs(Miscount miscount) {
    return how == miscount;
  }

  /**
   * The JVM system property that starts a security drill ({@link Miscount#LEVEL_CAP_IGNORED} or
   * {@link Miscount#PROFILE_OWNER_IGNORED}) when the engine starts: for the release suites, whose
   * region servers are processes of their own that no test can reach in-process. Never set on a
   * production server.
   */
  static final String PROPERTY = "blockscope.drill.miscount";

  /**
   * Starts the drill {@link #PROPERTY} names, if it names one of the two it may; what the server's
   * log must say about it, or null when it is unset.
   */
  static String fromProperty() {
    String named = System.getProperty(PROPERTY, "").trim();
    if (named.isEmpty()) {
      return null;
    }
    for (Miscount m : new Miscount[] {Miscount.LEVEL_CAP_IGNORED, Miscount.PROFILE_OWNER_IGNORED}) {
      if (m.name().equals(named)) {
        start(m);
        return "-D"
            + PROPERTY
            + "="
            + named
            + ": the test drill runs, blockscope does not hold its guarantee on purpose;"
            + " never set it on a production server";
      }
    }
    return "-D"
        + PROPERTY
        + "="
        + named
        + " names no drill a property may start (LEVEL_CAP_IGNORED, PROFILE_OWNER_IGNORED);"
        + " none runs";
  }

  /** Starts (or with NONE ends) a wrong attribution. */
  static void start(Miscount miscount) {
    SINK.set(null);
    how = miscount;
  }

  /**
   * Settles {@code costs} wrongly: WRONG_REGION moves every region's costs to the first region that
   * settled after the drill began, which keeps its own too, so nothing is lost; WRONG_QUERY does
   * the same with query records, regions staying right.
   */
  static void settle(RegionCosts region, QueryTracker.RegionCosts q, long[] costs) {
    Miscount miscount = how;
    if (miscount != Miscount.WRONG_REGION && miscount != Miscount.WRONG_QUERY) {
      mislabel(miscount, costs);
      if (q != null) {
        q.costs.add(costs);
      }
      region.costs().drain(costs);
      return;
    }
    if (miscount == Miscount.WRONG_REGION) {
      if (!region.table().startsWith("hbase:")) {
        SINK.compareAndSet(null, region);
      }
      if (q != null) {
        q.costs.add(costs);
      }
      Object sink = SINK.get();
      (sink == null ? region : (RegionCosts) sink).costs().drain(costs);
      return;
    }
    if (q != null) {
      SINK.compareAndSet(null, q);
      ((QueryTracker.RegionCosts) SINK.get()).costs.add(costs);
    }
    region.costs().drain(costs);
  }

  /**
   * Miscounts {@code costs} (one frame's, in {@link CostLayout}'s slots) in place the way {@code
   * miscount} says: a swapped block kind, a rotated encoding or algorithm, doubled file-system
   * bytes, times 16 times over. Other miscounts leave them alone.
   */
  static void mislabel(Miscount miscount, long[] costs) {
    switch (miscount) {
      case WRONG_KIND:
        for (int group :
            new int[] {
              CostLayout.CACHE_HIT, CostLayout.CACHE_MISS, CostLayout.FS_BLOCKS, CostLayout.FS_BYTES
            }) {
          swap(costs, group + CostLayout.KIND_DATA, group + CostLayout.KIND_LEAF_INDEX);
        }
        break;
      case WRONG_ENCODING:
        rotate(costs, CostLayout.DECODE, CostLayout.DECODE_WIDTH, CostLayout.N_ENCODINGS);
        break;
      case WRONG_COMPRESSION:
        rotate(costs, CostLayout.DECOMPRESS, CostLayout.DECOMPRESS_WIDTH, CostLayout.N_ALGORITHMS);
        break;
      case FS_BYTES_DOUBLED:
        for (int k = 0; k < CostLayout.N_KINDS; k++) {
          costs[CostLayout.FS_BYTES + k] *= 2;
        }
        break;
      case TIME_16X:
        costs[CostLayout.CHECKSUM_NANOS] *= 16;
        for (int a = 0; a < CostLayout.N_ALGORITHMS; a++) {
          costs[
                  CostLayout.DECOMPRESS
                      + a * CostLayout.DECOMPRESS_WIDTH
                      + CostLayout.DECOMPRESS_NANOS] *=
              16;
        }
        for (int e = 0; e < CostLayout.N_ENCODINGS; e++) {
          costs[CostLayout.DECODE + e * CostLayout.DECODE_WIDTH + CostLayout.DECODE_NANOS] *= 16;
        }
        break;
      default:
        break;
    }
  }

  private static void swap(long[] costs, int a, int b) {
    long t = costs[a];
    costs[a] = costs[b];
    costs[b] = t;
  }

  /** Moves each of {@code n} groups of {@code width} slots from {@code base} to the next group. */
  private static void rotate(long[] costs, int base, int width, int n) {
    long[] moved = new long[n * width];
    for (int g = 0; g < n; g++) {
      System.arraycopy(costs, base + g * width, moved, ((g + 1) % n) * width, width);
    }
    System.arraycopy(moved, 0, costs, base, moved.length);
  }
}
