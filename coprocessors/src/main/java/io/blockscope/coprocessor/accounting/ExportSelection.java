package io.blockscope.coprocessor.accounting;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Which regions, or tables, have their own series: the {@link ExportLimit} busiest, plus those held
 * because they entered the selection less than the minimum time ago.
 *
 * <p>The hold bounds churn: a region or table that enters keeps its series at least {@code
 * holdNanos}, even if it drops out of the top N meanwhile, so a scraper never sees a series come
 * and go within one refresh. The selection can therefore exceed N by the ones held: each refresh
 * admits at most N new ones, so at most {@code N * ceil(hold / refresh interval)} are held beyond
 * the top N, and never more than there are. {@code none} holds nothing: nothing is exported.
 *
 * <p>Leaving and coming back changes no figure: a series reads the same cumulative accumulator
 * whenever it is exported, so it comes back at the value it would have had all along.
 */
final class ExportSelection {
  private ExportSelection() {}

  /** One region's or table's part in the export; used under the registry's lock. */
  static final class State {
    /** The keys of its series now exported. */
    final Set<String> keys = new HashSet<>();

    /**
     * Whether every cost that was non-zero at the last refresh had its series then (or it is new):
     * a series it gets now is of a cost that was 0 a refresh ago, and starts at 0.
     */
    boolean tracked = true;

    /** Whether it was selected at the last refresh, and since when ({@code nanoTime}). */
    boolean selected;

    long selectedAt;

    /** Forgets the selection (a region that closed starts over if it reopens). */
    void deselect() {
      selected = false;
    }
  }

  /**
   * Chooses from {@code all}: the {@code limit} busiest (ties go to those selected already, then by
   * name), and those selected less than {@code holdNanos} before {@code now}; records who is
   * selected from when.
   */
  static <T> Set<T> select(
      Collection<T> all,
      Function<T, State> state,
      ToLongFunction<T> busy,
      Function<T, String> name,
      ExportLimit limit,
      long now,
      long holdNanos) {
    Set<T> chosen = new HashSet<>();
    if (limit.limit() >= all.size()) {
      chosen.addAll(all);
    } else if (limit.limit() > 0) {
      List<T> ranked = new ArrayList<>(all);
      // among ones equally busy (all quiet, say), those with series keep them: no churn of
      // series on a server whose regions are idle
      ranked.sort(
          Comparator.comparingLong(busy)
              .reversed()
              .thenComparing((T t) -> !state.apply(t).selected)
              .thenComparing(name));
      chosen.addAll(ranked.subList(0, limit.limit()));
      for (T t : all) {
        State s = state.apply(t);
        if (s.selected && now - s.selectedAt < holdNanos) {
          chosen.add(t);
        }
      }
    }
    for (T t : all) {
      State s = state.apply(t);
      boolean in = chosen.contains(t);
      if (in && !s.selected) {
        s.selectedAt = now;
      }
      s.selected = in;
    }
    return chosen;
  }
}
