package io.blockscope.coprocessor.accounting;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.CostLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import org.junit.Test;

public class CostAccumulatorTest {
  private static final int DATA_HIT = CostLayout.CACHE_HIT + CostLayout.KIND_DATA;
  private static final int CELLS = CostLayout.decode(4, CostLayout.DECODE_CELLS);

  @Test
  public void aContendedAccumulatorGrowsArraysAndEveryFigureStaysExact() throws Exception {
    CostAccumulator.Stripes budget = new CostAccumulator.Stripes(CostRegistry.MAX_STRIPES);
    CostAccumulator acc = new CostAccumulator(budget);
    int threads = 4;
    int reads = 300_000;
    // Rounds of four threads adding 1.2 million times to one array, until they have met: on a
    // machine busy with other work (CI builds two modules beside two version legs) one round's
    // threads may each run alone in its time slice and never meet. Every round's figures are exact.
    int rounds = 0;
    boolean twoCores = Runtime.getRuntime().availableProcessors() > 1;
    do {
      rounds++;
      CyclicBarrier start = new CyclicBarrier(threads);
      List<Thread> all = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Thread th =
            new Thread(
                () -> {
                  CostAccumulator.Lane lane = new CostAccumulator.Lane();
                  long[] mine = new long[CostLayout.SIZE];
                  try {
                    start.await();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                  for (int i = 0; i < reads; i++) {
                    acc.inFlight(lane, 1);
                    mine[DATA_HIT] = 1;
                    mine[CELLS] = 3;
                    acc.drain(mine, lane);
                    acc.inFlight(lane, -1);
                  }
                });
        all.add(th);
        th.start();
      }
      for (Thread th : all) {
        th.join();
      }
      long added = (long) rounds * threads * reads;
      assertEquals(added, acc.get(DATA_HIT));
      assertEquals(3L * added, acc.get(CELLS));
      assertEquals("every read that entered left", 0, acc.inFlight());
      assertEquals(acc.get(DATA_HIT), acc.snapshot().get(DATA_HIT));
    } while (twoCores && acc.stripes() == 1 && rounds < 20);
    // on one core this is the only assertion that may not hold
    if (twoCores) {
      assertTrue(
          "grew under contention in " + rounds + " rounds: " + acc.stripes(), acc.stripes() > 1);
    }
    assertEquals("arrays taken from the budget", acc.stripes() - 1, budget.used());
    acc.release();
    assertEquals("given back when let go", 0, budget.used());
    assertEquals(
        "figures readable after release", (long) rounds * threads * reads, acc.get(DATA_HIT));
  }

  @Test
  public void theBudgetBoundsArraysAcrossAccumulatorsAndComesBackOnRelease() {
    CostAccumulator.Stripes budget = new CostAccumulator.Stripes(1);
    CostAccumulator a = new CostAccumulator(budget);
    CostAccumulator b = new CostAccumulator(budget);
    CostAccumulator.Lane lane = new CostAccumulator.Lane();
    a.contended(lane);
    assertEquals(2, a.stripes());
    assertEquals(1, budget.used());
    b.contended(lane);
    assertEquals("no budget left for b", 1, b.stripes());
    a.contended(lane);
    assertEquals("doubling needs 2 more: refused", 2, a.stripes());
    a.release();
    assertEquals(0, budget.used());
    a.contended(lane);
    assertEquals("a released accumulator grows no more", 2, a.stripes());
    b.contended(lane);
    assertEquals(2, b.stripes());
    assertEquals(1, budget.used());
  }

  @Test
  public void anAccumulatorWithoutABudgetNeverGrows() {
    CostAccumulator acc = new CostAccumulator();
    CostAccumulator.Lane lane = new CostAccumulator.Lane();
    for (int i = 0; i < 10; i++) {
      acc.contended(lane);
    }
    assertEquals(1, acc.stripes());
  }

  @Test
  public void growthStopsAtMaxStripesAndKeepsWhatWasAdded() {
    CostAccumulator acc = new CostAccumulator(new CostAccumulator.Stripes(1_000));
    CostAccumulator.Lane lane = new CostAccumulator.Lane();
    long[] mine = new long[CostLayout.SIZE];
    long added = 0;
    for (int i = 0; i < 20; i++) {
      mine[DATA_HIT] = i + 1L;
      added += i + 1;
      acc.drain(mine, lane);
      assertEquals("drained and zeroed", 0, mine[DATA_HIT]);
      acc.contended(lane);
      assertEquals(added, acc.get(DATA_HIT));
    }
    assertEquals(CostAccumulator.MAX_STRIPES, acc.stripes());
  }

  @Test
  public void lanesStartApartAndMoveOnAContention() {
    Set<Integer> low = new HashSet<>();
    for (int i = 0; i < 16; i++) {
      low.add(new CostAccumulator.Lane().hash & 15);
    }
    assertEquals("16 lanes made one after another pick 16 different arrays of 16", 16, low.size());
    CostAccumulator.Lane lane = new CostAccumulator.Lane();
    int before = lane.hash;
    new CostAccumulator(new CostAccumulator.Stripes(10)).contended(lane);
    assertNotEquals(before, lane.hash);
    assertNotEquals(0, lane.hash);
  }
}
