package io.blockscope.coprocessor.accounting;

import java.util.HashSet;
import java.util.Set;

/**
 * One table's part of the roll-up: what its regions that are no longer kept here left, and the
 * regions kept here now, whose costs are summed when a reader asks. Used under the registry's lock.
 */
final class TableRollUp {
  final String name;

  /** What regions no longer kept here left. */
  final CostAccumulator retired = new CostAccumulator();

  /** The table's regions here: open, closing with reads in flight, or retained after a close. */
  final Set<CostRegistry.RegionCosts> members = new HashSet<>();

  /** The table's series and whether it is selected for them. */
  final ExportSelection.State export = new ExportSelection.State();

  /**
   * The table's block cache counters ({@code CacheReuse}) when this roll-up was made: its series
   * count from there, what the cache did with its blocks before the table had a region here being
   * in the server's series only.
   */
  final long[] cacheBase;

  TableRollUp(String name, long[] cacheBase) {
    this.name = name;
    this.cacheBase = cacheBase;
  }

  /** One cost summed over the table, leaving out region {@code lost} (null: none). */
  long get(int slot, String lost) {
    long sum = retired.get(slot);
    for (CostRegistry.RegionCosts r : members) {
      if (!r.region().equals(lost)) {
        sum += r.costs().get(slot);
      }
    }
    return sum;
  }
}
