package io.blockscope.coprocessor;

import io.blockscope.coprocessor.accounting.CostRegistry.RegionCosts;
import io.blockscope.coprocessor.accounting.QueryTracker;
import io.blockscope.coprocessor.accounting.RollUpDrill;
import io.blockscope.coprocessor.probe.ProbeDrill;
import io.blockscope.metrics.CostLayout;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The sensitivity drill: makes blockscope miscount on purpose ({@link Miscount}), so that the suite
 * can show its tests fail when costs are counted wrong, go to the wrong place or carry the wrong
 * name. It plugs into the engine's {@link DrillSeam}: a probe's count, a frame's settle, a table's
 * roll-up, or a check left out. Test code only: none of it ships in the region server's jar.
 */
public final class MiscountDrill implements DrillSeam.Drill {
  private final Miscount how;

  /**
   * The first region of a user table (WRONG_REGION) or query record (WRONG_QUERY) that settled
   * after the drill began: a read of {@code hbase:meta} by a chore never becomes it.
   */
  private final AtomicReference<Object> sink = new AtomicReference<>();

  private MiscountDrill(Miscount how) {
    this.how = how;
  }

  /**
   * Makes the engine of {@code d} miscount: {@code DOUBLE} and {@code DROP_EVERY_OTHER} act on
   * probe {@code probe} (a {@code ProbeBridge} id), the others on every read. {@code NONE} ends
   * every miscount and fault.
   */
  public static void miscount(Diagnostics d, Miscount how, int probe) {
    Engine engine = d.engine();
    switch (how) {
      case DOUBLE:
        engine.drill(new ProbeDrill(probe, ProbeDrill.Mode.DOUBLE));
        break;
      case DROP_EVERY_OTHER:
        engine.drill(new ProbeDrill(probe, ProbeDrill.Mode.DROP_EVERY_OTHER));
        break;
      case LOST_FROM_TABLE:
        RollUpDrill.loseFirstRegion(engine.registry(), true);
        break;
      case NONE:
        engine.drill(null);
        RollUpDrill.loseFirstRegion(engine.registry(), false);
        start(how);
        break;
      default:
        start(how);
        break;
    }
  }

  /**
   * Makes probe {@code probe} fail on every call inside its advice ({@code -1} stops it): a drill
   * for the never-throw guarantee.
   */
  public static void injectFault(Diagnostics d, int probe) {
    d.engine().drill(probe < 0 ? null : new ProbeDrill(probe, ProbeDrill.Mode.FAULT));
  }

  /** Starts (or with NONE ends) a drill of the engine's settle or checks. */
  static void start(Miscount miscount) {
    DrillSeam.current = miscount == Miscount.NONE ? null : new MiscountDrill(miscount);
  }

  /** Whether the drill {@code miscount} runs now. */
  static boolean runs(Miscount miscount) {
    DrillSeam.Drill d = DrillSeam.current;
    return d instanceof MiscountDrill && ((MiscountDrill) d).how == miscount;
  }

  /**
   * Starts the drill the JVM property {@link DrillSeam#PROPERTY} names ({@code named}), if it is
   * one of the two a property may start; what the server's log must say about it. The engine calls
   * this by reflection at its start ({@link DrillSeam#fromProperty}).
   */
  public static String fromProperty(String named) {
    for (Miscount m : new Miscount[] {Miscount.LEVEL_CAP_IGNORED, Miscount.PROFILE_OWNER_IGNORED}) {
      if (m.name().equals(named)) {
        start(m);
        return "-D"
            + DrillSeam.PROPERTY
            + "="
            + named
            + ": the test drill runs, blockscope does not hold its guarantee on purpose;"
            + " never set it on a production server";
      }
    }
    return "-D"
        + DrillSeam.PROPERTY
        + "="
        + named
        + " names no drill a property may start (LEVEL_CAP_IGNORED, PROFILE_OWNER_IGNORED);"
        + " none runs";
  }

  @Override
  public boolean levelCapsIgnored() {
    return how == Miscount.LEVEL_CAP_IGNORED;
  }

  @Override
  public boolean profileOwnerIgnored() {
    return how == Miscount.PROFILE_OWNER_IGNORED;
  }

  /**
   * Settles {@code costs} wrongly: WRONG_REGION moves every region's costs to the first region that
   * settled after the drill began, which keeps its own too, so nothing is lost; WRONG_QUERY does
   * the same with query records, regions staying right. The others mislabel or rescale them first.
   */
  @Override
  public void settle(RegionCosts region, QueryTracker.RegionCosts q, long[] costs) {
    if (how != Miscount.WRONG_REGION && how != Miscount.WRONG_QUERY) {
      mislabel(how, costs);
      if (q != null) {
        q.costs.add(costs);
      }
      region.costs().drain(costs);
      return;
    }
    if (how == Miscount.WRONG_REGION) {
      if (!region.table().startsWith("hbase:")) {
        sink.compareAndSet(null, region);
      }
      if (q != null) {
        q.costs.add(costs);
      }
      Object to = sink.get();
      (to == null ? region : (RegionCosts) to).costs().drain(costs);
      return;
    }
    if (q != null) {
      sink.compareAndSet(null, q);
      ((QueryTracker.RegionCosts) sink.get()).costs.add(costs);
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
