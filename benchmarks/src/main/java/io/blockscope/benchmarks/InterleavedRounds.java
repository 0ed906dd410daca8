package io.blockscope.benchmarks;

import io.blockscope.metrics.Stats;
import java.util.ArrayList;
import java.util.List;

/**
 * The variants a benchmark compares, run interleaved (README.md, "Measuring on a noisy machine"):
 * each round is a number of turns, and each turn runs every variant once, in the order of the turn
 * before rotated by one, so that no variant always runs first or after the same one, and a slow
 * minute of the machine falls on every variant alike. What the turns measure goes into {@link
 * Samples}, which gives each variant's median and its per-round ratio to a baseline.
 */
final class InterleavedRounds<V> {
  /** Round {@code round} is starting. */
  interface RoundStart {
    void started(int round) throws Exception;
  }

  /** One variant's run in turn {@code turn} (0 to the turns of a round, less 1) of a round. */
  interface Turn<V> {
    void run(V variant, int round, int turn) throws Exception;
  }

  /** Round {@code round} has ended: every variant ran in each of its turns. */
  interface RoundEnd {
    void ended(int round) throws Exception;
  }

  private final List<V> variants;
  private final int rounds;
  private final int turnsPerRound;

  InterleavedRounds(List<V> variants, int rounds, int turnsPerRound) {
    if (variants.isEmpty() || rounds < 1 || turnsPerRound < 1) {
      throw new IllegalArgumentException(
          "variants, rounds and turns: at least one each, not "
              + variants.size()
              + ", "
              + rounds
              + ", "
              + turnsPerRound);
    }
    this.variants = List.copyOf(variants);
    this.rounds = rounds;
    this.turnsPerRound = turnsPerRound;
  }

  /** The variants in the order of the run's turn {@code turn}, counted over every round. */
  List<V> order(int turn) {
    int n = variants.size();
    List<V> order = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      order.add(variants.get((i + turn) % n));
    }
    return order;
  }

  void run(Turn<V> turn, RoundEnd end) throws Exception {
    run(round -> {}, turn, end);
  }

  void run(RoundStart start, Turn<V> turn, RoundEnd end) throws Exception {
    int t = 0;
    for (int round = 0; round < rounds; round++) {
      start.started(round);
      for (int k = 0; k < turnsPerRound; k++) {
        for (V v : order(t++)) {
          turn.run(v, round, k);
        }
      }
      end.ended(round);
    }
  }

  /** One figure of each variant, round and sample: {@code [variant][round][sample]}. */
  static final class Samples<V> {
    private final List<V> variants;
    private final double[][][] values;

    Samples(List<V> variants, int rounds, int samples) {
      this.variants = List.copyOf(variants);
      this.values = new double[variants.size()][rounds][samples];
    }

    void put(V variant, int round, int sample, double value) {
      values[index(variant)][round][sample] = value;
    }

    /** The variant's samples, {@code [round][sample]}. */
    double[][] of(V variant) {
      return values[index(variant)];
    }

    /** The median over the rounds of each round's median sample. */
    double median(V variant) {
      return RoundRatio.medianOfMedians(of(variant));
    }

    /** The variant's per-round ratios to {@code baseline}: their mean and 95% interval. */
    RoundRatio ratio(V variant, V baseline) {
      return RoundRatio.of(of(variant), of(baseline));
    }

    /** One round's ratio: the variant's median sample over the baseline's. */
    double ratio(V variant, V baseline, int round) {
      return Stats.median(of(variant)[round]) / Stats.median(of(baseline)[round]);
    }

    private int index(V variant) {
      int i = variants.indexOf(variant);
      if (i < 0) {
        throw new IllegalArgumentException(variant + " is not one of " + variants);
      }
      return i;
    }
  }
}
