package io.blockscope.coprocessor;

import io.blockscope.metrics.CostAccumulator;
import io.blockscope.metrics.CostRegistry.RegionCosts;
import io.blockscope.metrics.QueryTracker;

/**
 * The sensitivity drill's wrong attribution ({@link Diagnostics#miscount}): while it runs, the
 * engine settles a frame's costs here instead of to its own region and query, so that the suite can
 * show its tests fail when costs go to the wrong place. Off (the production state), it costs the
 * engine one volatile read per settle.
 */
final class MiscountDrill {
  /** A wrong attribution the drill asked for; NONE when no drill runs. */
  private static volatile Diagnostics.Miscount how = Diagnostics.Miscount.NONE;

  /** The first region (WRONG_REGION) or query record (WRONG_QUERY) the drill saw settle. */
  private static volatile Object sink;

  /** Where the sink region's own costs go while WRONG_REGION runs. */
  private static final CostAccumulator DROPPED = new CostAccumulator();

  private MiscountDrill() {}

  static boolean active() {
    return how != Diagnostics.Miscount.NONE;
  }

  /** Starts (or with NONE ends) a wrong attribution. */
  static void start(Diagnostics.Miscount miscount) {
    sink = null;
    how = miscount;
  }

  /**
   * Settles {@code costs} wrongly: WRONG_REGION gives every region's costs to the first region that
   * settled after the drill began (and drops that region's own); WRONG_QUERY does the same with
   * query records, regions staying right.
   */
  static void settle(RegionCosts region, QueryTracker.RegionCosts q, long[] costs) {
    if (how == Diagnostics.Miscount.WRONG_REGION) {
      if (sink == null) {
        sink = region;
      }
      if (q != null) {
        q.costs.add(costs);
      }
      (sink == region ? DROPPED : ((RegionCosts) sink).costs()).drain(costs);
      return;
    }
    if (q != null) {
      if (sink == null) {
        sink = q;
      }
      if (sink != q) {
        ((QueryTracker.RegionCosts) sink).costs.add(costs);
      }
    }
    region.costs().drain(costs);
  }
}
