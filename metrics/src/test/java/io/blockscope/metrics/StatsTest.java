package io.blockscope.metrics;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;
import org.junit.Test;

public class StatsTest {
  @Test
  public void theMedianOfAnOddCountIsItsMiddleValue() {
    assertEquals(3.0, Stats.median(List.of(5.0, 1.0, 3.0, 4.0, 2.0)), 0);
    assertEquals(3.0, Stats.median(new double[] {5, 1, 3, 4, 2}), 0);
  }

  /** Nearest rank: one of the measured values, never the mean of two (no invented run). */
  @Test
  public void theMedianOfAnEvenCountIsTheLowerMiddleValue() {
    assertEquals(2.0, Stats.median(List.of(4.0, 1.0, 3.0, 2.0)), 0);
    assertEquals(2.0, Stats.median(new double[] {4, 1, 3, 2}), 0);
  }

  @Test
  public void quantilesByNearestRank() {
    double[] hundred = new double[100];
    for (int i = 0; i < 100; i++) {
      hundred[i] = 100 - i; // 100 down to 1
    }
    assertEquals(99.0, Stats.quantile(hundred, 0.99), 0);
    assertEquals(100.0, Stats.quantile(hundred, 1.0), 0);
    assertEquals(1.0, Stats.quantile(hundred, 0.0), 0);
    assertEquals(50.0, Stats.quantile(hundred, 0.5), 0);
  }

  /** evaluate keeps the costs of the run whose time is the median: the index of that run. */
  @Test
  public void theMedianIndexPointsAtTheMedianRun() {
    assertEquals(4, Stats.medianIndex(List.of(9.0, 7.0, 1.0, 5.0, 6.0)));
    assertEquals(-1, Stats.medianIndex(List.of()));
  }

  @Test
  public void noValuesHaveNoStatistics() {
    assertTrue(Double.isNaN(Stats.median(List.of())));
    assertTrue(Double.isNaN(Stats.quantile(new double[0], 0.9)));
  }

  @Test
  public void theMedianOfCountsIsTheLowerMiddleAndZeroForNone() {
    assertEquals(3, Stats.median(new long[] {59, 3, 1}));
    assertEquals(2, Stats.median(new long[] {4, 2, 1, 3}));
    assertEquals(0, Stats.median(new long[0]));
    long[] v = {9, 1, 5};
    Stats.median(v);
    assertEquals("the caller's array is left as it was", 9, v[0]);
  }
}
