package io.blockscope.cli;

import io.blockscope.workloads.Workload;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Picks a configuration for a workload mix ({@code --weights scan=..,get=..,size=..}) and says
 * which measured trade-off it rests on.
 *
 * <p>Each configuration gets, per group, the geometric mean over the group's measured workloads of
 * its median time divided by the best configuration's median time (1.0 = fastest everywhere), and
 * its store file size divided by the smallest. The weighted mean of those ratios ranks the
 * configurations.
 */
final class Recommendation {
  record Weights(double scan, double get, double size) {
    static Weights parse(String text) {
      double scan = 1;
      double get = 1;
      double size = 1;
      for (String part : text.split(",")) {
        String[] kv = part.split("=", 2);
        if (kv.length != 2) {
          throw new IllegalArgumentException(
              "bad --weights '" + text + "': expected scan=W,get=W,size=W with numbers >= 0");
        }
        double v;
        try {
          v = Double.parseDouble(kv[1].trim());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              "bad --weights '" + text + "': '" + kv[1] + "' is not a number");
        }
        if (v < 0 || Double.isNaN(v) || Double.isInfinite(v)) {
          throw new IllegalArgumentException("bad --weights '" + text + "': weights must be >= 0");
        }
        switch (kv[0].trim().toLowerCase(Locale.ROOT)) {
          case "scan" -> scan = v;
          case "get" -> get = v;
          case "size" -> size = v;
          default ->
              throw new IllegalArgumentException(
                  "bad --weights '"
                      + text
                      + "': unknown '"
                      + kv[0]
                      + "' (expected scan, get, size)");
        }
      }
      if (scan + get + size == 0) {
        throw new IllegalArgumentException("bad --weights '" + text + "': all weights are 0");
      }
      return new Weights(scan, get, size);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "scan=%s,get=%s,size=%s", fmt(scan), fmt(get), fmt(size));
    }

    private static String fmt(double d) {
      return d == Math.rint(d)
          ? Long.toString((long) d)
          : String.format(Locale.ROOT, "%.3f", d).replaceAll("\\.?0+$", "");
    }
  }

  /** One configuration's standing. */
  record Score(String config, double scan, double get, double size, double total) {}

  final Weights weights;
  final List<Score> ranking;
  final String text;

  /** A workload's time on a configuration, in ms, as the ranking takes it. */
  interface Time {
    double millis(Evaluation.ConfigResult c, Workload w);
  }

  Recommendation(Evaluation e, Weights w) {
    this(e, w, (c, wl) -> c.measured(wl).medianMillis());
  }

  /** Ranks with {@code time} for each measured workload's time (evaluate: the runs' median). */
  Recommendation(Evaluation e, Weights w, Time time) {
    this(e, w, time, wl -> true);
  }

  /**
   * Ranks with {@code time} for each measured workload that {@code ranked} takes (advise: a cold
   * workload's time goes into its warm counterpart's, at the setting's expected hit ratio).
   */
  Recommendation(Evaluation e, Weights w, Time time, Predicate<Workload> ranked) {
    this.weights = w;
    List<Score> scores = new ArrayList<>();
    long smallest =
        e.configs.stream().mapToLong(c -> c.storeFileBytes).filter(b -> b > 0).min().orElse(1);
    for (Evaluation.ConfigResult c : e.configs) {
      double scan = groupRatio(e, c, Workload.Group.SCAN, time, ranked);
      double get = groupRatio(e, c, Workload.Group.GET, time, ranked);
      double size = c.storeFileBytes / (double) smallest;
      double total = (w.scan * scan + w.get * get + w.size * size) / (w.scan + w.get + w.size);
      scores.add(new Score(c.label, scan, get, size, total));
    }
    scores.sort(Comparator.comparingDouble(Score::total));
    ranking = scores;
    text = describe(e);
  }

  private static boolean measuredGroup(Evaluation e, Workload.Group group) {
    return e.configs.stream()
        .anyMatch(
            c ->
                c.workloads.entrySet().stream()
                    .anyMatch(x -> x.getKey().group() == group && x.getValue().skipped == null));
  }

  private static double groupRatio(
      Evaluation e,
      Evaluation.ConfigResult c,
      Workload.Group group,
      Time time,
      Predicate<Workload> ranked) {
    double logSum = 0;
    int n = 0;
    for (Workload w : Workload.values()) {
      if (w.group() != group || c.measured(w) == null || !ranked.test(w)) {
        continue;
      }
      double best =
          e.configs.stream()
              .filter(x -> x.measured(w) != null)
              .mapToDouble(x -> time.millis(x, w))
              .min()
              .orElse(Double.NaN);
      logSum += Math.log(time.millis(c, w) / best);
      n++;
    }
    return n == 0 ? 1 : Math.exp(logSum / n);
  }

  private String describe(Evaluation e) {
    if (ranking.isEmpty()) {
      return "No configuration was measured.";
    }
    Score best = ranking.get(0);
    String smallest =
        ranking.stream()
            .min(Comparator.comparingDouble(Score::size))
            .map(Score::config)
            .orElse("?");
    boolean scans = measuredGroup(e, Workload.Group.SCAN);
    boolean gets = measuredGroup(e, Workload.Group.GET);
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "For %s: %s.", weights, best.config()));
    if (scans) {
      sb.append(
          String.format(
              Locale.ROOT,
              " Its scans take %.2fx the fastest configuration's"
                  + " time (geometric mean over the scan workloads)%s",
              best.scan(),
              gets ? "," : "."));
    }
    if (gets) {
      sb.append(
          String.format(Locale.ROOT, "%s point reads %.2fx.", scans ? " its" : " Its", best.get()));
    }
    sb.append(
        String.format(
            Locale.ROOT, " Its store files are %.2fx the smallest (%s).", best.size(), smallest));
    if (ranking.size() > 1) {
      Score next = ranking.get(1);
      List<String> parts = new ArrayList<>();
      if (scans) {
        parts.add(String.format(Locale.ROOT, "scans %.2fx", next.scan()));
      }
      if (gets) {
        parts.add(String.format(Locale.ROOT, "point reads %.2fx", next.get()));
      }
      parts.add(String.format(Locale.ROOT, "size %.2fx", next.size()));
      sb.append(
          String.format(
              Locale.ROOT,
              " Runner-up: %s (%s): %s.",
              next.config(),
              String.join(", ", parts),
              tradeOff(best, next)));
    }
    return sb.toString();
  }

  private static String tradeOff(Score a, Score b) {
    List<String> better = new ArrayList<>();
    if (b.scan() < a.scan()) {
      better.add(
          String.format(Locale.ROOT, "%.0f%% faster scans", 100 * (1 - b.scan() / a.scan())));
    }
    if (b.get() < a.get()) {
      better.add(
          String.format(Locale.ROOT, "%.0f%% faster point reads", 100 * (1 - b.get() / a.get())));
    }
    if (b.size() < a.size()) {
      better.add(String.format(Locale.ROOT, "%.0f%% smaller", 100 * (1 - b.size() / a.size())));
    }
    return better.isEmpty()
        ? "worse on every count at these weights"
        : String.join(" and ", better) + ", which these weights do not pay for";
  }

  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("weights", weights.toString());
    m.put("recommended", ranking.isEmpty() ? null : ranking.get(0).config());
    m.put("text", text);
    List<Object> r = new ArrayList<>();
    for (Score s : ranking) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("config", s.config());
      x.put("scanRatio", s.scan());
      x.put("getRatio", s.get());
      x.put("sizeRatio", s.size());
      x.put("score", s.total());
      r.add(x);
    }
    m.put("ranking", r);
    return m;
  }
}
