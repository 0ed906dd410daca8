package io.blockscope.metrics;

import java.util.Arrays;
import java.util.List;

/**
 * Order statistics of repeated measurements, the one definition every report and benchmark uses:
 * the p-quantile is the nearest-rank value (the smallest value with at least p of the values at or
 * below it), so the median of an even count is the lower of the middle two, always one of the
 * measured values.
 */
public final class Stats {
  private Stats() {}

  /** The p-quantile (0..1) by the nearest-rank method; NaN for no values. */
  public static double quantile(List<Double> values, double p) {
    return quantile(values.stream().mapToDouble(Double::doubleValue).toArray(), p);
  }

  /** The p-quantile (0..1) by the nearest-rank method; NaN for no values. */
  public static double quantile(double[] values, double p) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] a = values.clone();
    Arrays.sort(a);
    return a[rank(a.length, p)];
  }

  public static double median(List<Double> values) {
    return quantile(values, 0.5);
  }

  public static double median(double[] values) {
    return quantile(values, 0.5);
  }

  /**
   * The nearest-rank median of counts (the lower middle value of an even count); 0 for none, where
   * a count of nothing is nothing.
   */
  public static long median(long[] values) {
    if (values.length == 0) {
      return 0;
    }
    long[] a = values.clone();
    Arrays.sort(a);
    return a[rank(a.length, 0.5)];
  }

  /** Where the median of {@code values} is in the list (its first occurrence); -1 for none. */
  public static int medianIndex(List<Double> values) {
    return values.isEmpty() ? -1 : values.indexOf(median(values));
  }

  public static double min(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
  }

  public static double max(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
  }

  /** The 0-based index of the nearest-rank p-quantile among {@code n} sorted values. */
  private static int rank(int n, double p) {
    int rank = (int) Math.ceil(p * n);
    return Math.max(0, Math.min(n - 1, rank - 1));
  }
}
