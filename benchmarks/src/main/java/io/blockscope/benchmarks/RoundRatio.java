package io.blockscope.benchmarks;

import io.blockscope.metrics.Stats;
import java.util.Arrays;
import java.util.Random;

/**
 * The ratio of a case to its baseline over interleaved rounds, as the overhead benchmarks report
 * it: per round, the case's median sample over the baseline's median sample of the same round; the
 * mean of those per-round ratios with a 95% bootstrap interval (10,000 resamples, a fixed seed, so
 * a CSV redraws the same interval).
 */
record RoundRatio(double mean, double low, double high) {
  static final int RESAMPLES = 10_000;

  /** {@code cases[round][sample]} against {@code baseline[round][sample]}. */
  static RoundRatio of(double[][] cases, double[][] baseline) {
    double[] c = medians(cases);
    double[] b = medians(baseline);
    double[] ratios = new double[c.length];
    for (int r = 0; r < c.length; r++) {
      ratios[r] = c[r] / b[r];
    }
    double[] ci = bootstrapMean(ratios, RESAMPLES, new Random(42));
    return new RoundRatio(mean(ratios), ci[0], ci[1]);
  }

  /** Each round's median sample. */
  static double[] medians(double[][] rounds) {
    double[] m = new double[rounds.length];
    for (int r = 0; r < rounds.length; r++) {
      m[r] = Stats.median(rounds[r]);
    }
    return m;
  }

  /** The median over rounds of each round's median sample. */
  static double medianOfMedians(double[][] rounds) {
    return Stats.median(medians(rounds));
  }

  static double mean(double[] values) {
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    return sum / values.length;
  }

  /** The 2.5th and 97.5th percentiles of the mean of {@code values} resampled with replacement. */
  static double[] bootstrapMean(double[] values, int resamples, Random random) {
    double[] means = new double[resamples];
    for (int b = 0; b < resamples; b++) {
      double sum = 0;
      for (int i = 0; i < values.length; i++) {
        sum += values[random.nextInt(values.length)];
      }
      means[b] = sum / values.length;
    }
    Arrays.sort(means);
    return new double[] {
      means[(int) Math.floor(0.025 * (resamples - 1))],
      means[(int) Math.ceil(0.975 * (resamples - 1))]
    };
  }
}
