package io.blockscope.workloads;

import java.util.Arrays;
import java.util.List;

/** Order statistics of repeated measurements. */
public final class Stats {
  private Stats() {}

  /** The p-quantile (0..1) by the nearest-rank method; NaN for no values. */
  public static double quantile(List<Double> values, double p) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    double[] a = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(a);
    int rank = (int) Math.ceil(p * a.length);
    return a[Math.max(0, Math.min(a.length - 1, rank - 1))];
  }

  public static double median(List<Double> values) {
    return quantile(values, 0.5);
  }

  public static double min(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
  }

  public static double max(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
  }
}
