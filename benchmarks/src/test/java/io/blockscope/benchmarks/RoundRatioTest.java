package io.blockscope.benchmarks;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class RoundRatioTest {
  @Test
  public void eachRoundComparesItsMedianSamples() {
    // round 1: median 2 against median 1; round 2: median 3 against median 2
    RoundRatio r =
        RoundRatio.of(
            new double[][] {{9, 2, 1}, {3, 3, 100}}, new double[][] {{1, 1, 5}, {2, 2, 0}});
    assertEquals((2.0 + 1.5) / 2, r.mean(), 1e-12);
    assertTrue(r.low() >= 1.5 && r.high() <= 2.0 && r.low() <= r.mean() && r.mean() <= r.high());
  }

  @Test
  public void equalRatiosHaveANoWidthInterval() {
    double[][] base = {{100}, {200}, {50}, {80}};
    double[][] cases = {{102}, {204}, {51}, {81.6}};
    RoundRatio r = RoundRatio.of(cases, base);
    assertEquals(1.02, r.mean(), 1e-12);
    assertEquals(1.02, r.low(), 1e-12);
    assertEquals(1.02, r.high(), 1e-12);
  }

  @Test
  public void theIntervalIsTheSameEachTime() {
    double[][] base = {{1}, {1}, {1}, {1}, {1}, {1}};
    double[][] cases = {{0.9}, {1.3}, {1.0}, {1.1}, {0.95}, {1.2}};
    RoundRatio a = RoundRatio.of(cases, base);
    RoundRatio b = RoundRatio.of(cases, base);
    assertEquals(a, b);
    assertTrue(a.low() > 0.9 && a.high() < 1.3 && a.low() < a.high());
  }

  @Test
  public void medianOfMediansTakesEachRoundsMedianFirst() {
    assertArrayEquals(
        new double[] {2, 5, 7}, RoundRatio.medians(new double[][] {{1, 2, 3}, {5}, {7, 7, 0}}), 0);
    assertEquals(5, RoundRatio.medianOfMedians(new double[][] {{1, 2, 3}, {5}, {7, 7, 0}}), 0);
  }

  @Test
  public void latencyQuantilesAreNearestRank() {
    ProcessOverhead.LongList l = new ProcessOverhead.LongList();
    for (long v = 1000; v >= 1; v--) {
      l.add(v);
    }
    assertEquals(500, l.quantile(0.5));
    assertEquals(990, l.quantile(0.99));
    assertEquals(1000, l.quantile(1.0));
    assertEquals(1, l.quantile(0.0));
  }
}
