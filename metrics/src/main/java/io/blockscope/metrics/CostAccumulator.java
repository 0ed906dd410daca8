package io.blockscope.metrics;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Costs of one scope (a region, a table, a region server), shared by every handler thread.
 *
 * <p>Threads never add to it per event: they fill their own array and {@link #drain} it here once
 * per request, so the contended part is one pass over the few slots a request touched.
 */
public final class CostAccumulator implements CostLayout.LongSlotReader {
  private final AtomicLongArray slots = new AtomicLongArray(CostLayout.SIZE);

  /** Adds the costs of a thread's array to this accumulator, leaving them there. */
  public void add(long[] threadCosts) {
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      long v = threadCosts[i];
      if (v != 0) {
        slots.addAndGet(i, v);
      }
    }
  }

  /**
   * Moves the costs of a thread's array into this accumulator and zeroes them there. Control slots
   * are left alone.
   */
  public void drain(long[] threadCosts) {
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      long v = threadCosts[i];
      if (v != 0) {
        threadCosts[i] = 0;
        slots.addAndGet(i, v);
      }
    }
  }

  /** Adds all of another accumulator's costs, e.g. those of a region that closed. */
  public void addAll(CostLayout.LongSlotReader other) {
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      long v = other.get(i);
      if (v != 0) {
        slots.addAndGet(i, v);
      }
    }
  }

  @Override
  public long get(int slot) {
    return slots.get(slot);
  }

  public CostSnapshot snapshot() {
    long[] copy = new long[CostLayout.SIZE];
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      copy[i] = slots.get(i);
    }
    return new CostSnapshot(copy);
  }
}
