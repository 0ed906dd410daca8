package io.blockscope.coprocessor.accounting;

import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.CostSnapshot;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Costs of one scope (a region, a table, a region server), shared by every handler thread.
 *
 * <p>Threads never add to it per event: they fill their own array and {@link #drain} it here once
 * per request, so the contended part is one pass over the few slots a request touched.
 *
 * <p>A region that many handlers read at once would still have them all adding to the same few
 * cache lines. An accumulator made with a {@link Stripes} budget therefore starts with one array,
 * and when a drain finds another thread adding to it at the same moment (a failed compare-and-set)
 * it grows a second, then a fourth, up to {@link #MAX_STRIPES}, each thread adding to the array its
 * {@link Lane} picks; readers sum them. This is {@code LongAdder}'s design, per array rather than
 * per counter: a region nobody contends for keeps one array, and the arrays of all regions of a
 * registry are bounded by its budget. Every figure stays exact: each added value lands in exactly
 * one array.
 */
public final class CostAccumulator implements CostLayout.LongSlotReader {

  /**
   * Slot 0 is a control slot in a thread's array and never a cost: here it counts the reads in
   * flight that may still drain into this accumulator (see {@link CostRegistry.RegionCosts}).
   */
  static final int IN_FLIGHT = CostLayout.LEVEL;

  /** Longs before the slots and after them, so two arrays never share a cache line. */
  private static final int PAD = 16;

  private static final int LENGTH = PAD + CostLayout.SIZE + PAD;

  /**
   * Most arrays one accumulator grows to, whatever the cores: a contended region holds at most 64
   * arrays (62 KB). Growth needs a collision, so a region grows only as far as its handlers meet.
   */
  static final int MAX_STRIPES = 64;

  /** A thread's choice among an accumulator's arrays, moved on when it meets another thread. */
  public static final class Lane {
    /**
     * Each lane starts elsewhere, whichever thread makes it (as ThreadLocalRandom seeds probes).
     */
    private static final AtomicInteger SEEDS = new AtomicInteger();

    int hash;

    public Lane() {
      int h = SEEDS.addAndGet(0x9E3779B9);
      hash = h == 0 ? 1 : h;
    }

    /** Moves to another array after a collision (xorshift, never 0). */
    void advance() {
      int h = hash;
      h ^= h << 13;
      h ^= h >>> 17;
      h ^= h << 5;
      hash = h;
    }
  }

  /**
   * How many arrays beyond their first the accumulators of one registry may hold together, so that
   * memory stays bounded however many regions are contended (each array is about 1 KB).
   */
  public static final class Stripes {
    private final int max;
    private final AtomicInteger used = new AtomicInteger();

    public Stripes(int max) {
      this.max = max;
    }

    boolean take(int n) {
      for (; ; ) {
        int u = used.get();
        if (u + n > max) {
          return false;
        }
        if (used.compareAndSet(u, u + n)) {
          return true;
        }
      }
    }

    void giveBack(int n) {
      used.addAndGet(-n);
    }

    /** Arrays taken from this budget now. */
    public int used() {
      return used.get();
    }
  }

  private final Stripes budget;

  /** The arrays, {@code [0]} always present; grows by doubling, never shrinks. */
  private volatile AtomicLongArray[] stripes = {new AtomicLongArray(LENGTH)};

  /** Set once the accumulator gave its arrays back to the budget; it grows no more. */
  private boolean released;

  /** An accumulator that never grows beyond one array (tables, the server, queries). */
  public CostAccumulator() {
    this(null);
  }

  /** An accumulator that grows more arrays under contention, within {@code budget}. */
  public CostAccumulator(Stripes budget) {
    this.budget = budget;
  }

  /** Adds the costs of a thread's array to this accumulator, leaving them there. */
  public void add(long[] threadCosts) {
    AtomicLongArray a = stripes[0];
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      long v = threadCosts[i];
      if (v != 0) {
        a.getAndAdd(PAD + i, v);
      }
    }
  }

  /**
   * Adds the costs of a thread's array to the array its {@code lane} picks, leaving them there (for
   * the accumulator that drains them next); a collision moves the lane on and may grow an array.
   */
  public void add(long[] threadCosts, Lane lane) {
    take(threadCosts, lane, false);
  }

  /**
   * Moves the costs of a thread's array into this accumulator and zeroes them there. Control slots
   * are left alone.
   */
  public void drain(long[] threadCosts) {
    drain(threadCosts, null);
  }

  /**
   * Moves the costs of a thread's array into the array its {@code lane} picks (the first if null)
   * and zeroes them there; a collision with another thread moves the lane on and may grow an array.
   */
  public void drain(long[] threadCosts, Lane lane) {
    take(threadCosts, lane, true);
  }

  private void take(long[] threadCosts, Lane lane, boolean zero) {
    AtomicLongArray a = pick(lane);
    boolean collided = false;
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      long v = threadCosts[i];
      if (v != 0) {
        if (zero) {
          threadCosts[i] = 0;
        }
        collided |= !addOnce(a, PAD + i, v);
      }
    }
    if (collided) {
      contended(lane);
    }
  }

  /** Adds {@code v} to one slot; false if a compare-and-set failed on the way (contention). */
  private static boolean addOnce(AtomicLongArray a, int i, long v) {
    long old = a.get(i);
    if (a.compareAndSet(i, old, old + v)) {
      return true;
    }
    a.getAndAdd(i, v);
    return false;
  }

  private AtomicLongArray pick(Lane lane) {
    AtomicLongArray[] s = stripes;
    return lane == null ? s[0] : s[lane.hash & (s.length - 1)];
  }

  /** Another thread met this one on an array: the lane moves on, and the accumulator may grow. */
  void contended(Lane lane) {
    if (lane == null || budget == null) {
      return;
    }
    lane.advance();
    AtomicLongArray[] s = stripes;
    if (s.length < MAX_STRIPES) {
      grow(s);
    }
  }

  private synchronized void grow(AtomicLongArray[] seen) {
    AtomicLongArray[] s = stripes;
    if (s != seen || released || !budget.take(s.length)) {
      return; // grown by another thread meanwhile, let go, or no budget left
    }
    AtomicLongArray[] bigger = new AtomicLongArray[s.length * 2];
    System.arraycopy(s, 0, bigger, 0, s.length);
    for (int i = s.length; i < bigger.length; i++) {
      bigger[i] = new AtomicLongArray(LENGTH);
    }
    stripes = bigger;
  }

  /**
   * Gives the arrays beyond the first back to the budget; called once the accumulator is no longer
   * drained into (a region let go). Its figures stay readable.
   */
  public synchronized void release() {
    if (!released) {
      released = true;
      if (budget != null) {
        budget.giveBack(stripes.length - 1);
      }
    }
  }

  /** How many arrays the accumulator holds (1 until contended). */
  int stripes() {
    return stripes.length;
  }

  /**
   * Counts a read in flight more (+1) or less (-1), in the array the lane picks now: a read may end
   * in another array than it began in, since the count is their sum.
   */
  void inFlight(Lane lane, int delta) {
    if (!addOnce(pick(lane), PAD + IN_FLIGHT, delta)) {
      contended(lane);
    }
  }

  /** Reads in flight: the sum over the arrays, each read once. */
  long inFlight() {
    return sum(IN_FLIGHT);
  }

  /** Adds all of another accumulator's costs, e.g. those of a region that closed. */
  public void addAll(CostLayout.LongSlotReader other) {
    AtomicLongArray a = stripes[0];
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      long v = other.get(i);
      if (v != 0) {
        a.getAndAdd(PAD + i, v);
      }
    }
  }

  @Override
  public long get(int slot) {
    return sum(slot);
  }

  private long sum(int slot) {
    long v = 0;
    for (AtomicLongArray a : stripes) {
      v += a.get(PAD + slot);
    }
    return v;
  }

  public CostSnapshot snapshot() {
    long[] copy = new long[CostLayout.SIZE];
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      copy[i] = sum(i);
    }
    return CostSnapshot.ofSlots(copy);
  }
}
