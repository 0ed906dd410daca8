package io.blockscope.cli;

import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.Stats;
import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code advise} tells a table from its replay: the candidates ranked for the live mix's
 * weights ({@link Recommendation}), each against the table's current setting, and either the winner
 * with its {@code ALTER} or "keep what you have".
 *
 * <p>A winner is advised only when it beats the current setting on the figure its mix weighs most
 * by more than the runs' spread: for reads, every run of the winner on each of that group's
 * workloads took less time than every run of the current setting; for size, its store files are at
 * least {@value #SIZE_MARGIN_PERCENT}% smaller. Otherwise the advice is to keep the setting.
 */
final class Advice {
  /** How much smaller a winner on size must be, in percent of the current store files. */
  static final int SIZE_MARGIN_PERCENT = 2;

  /** One candidate against the current setting (ratios: candidate / current, below 1 is better). */
  record Candidate(
      String config,
      double score,
      double size,
      double cacheFootprint,
      double getTime,
      double getP99,
      double scanTime,
      double serverNanosPerRead) {}

  final String current;
  final String winner;
  final boolean keep;
  final String figure;
  final String why;
  final List<Candidate> ranked;

  private Advice(
      String current,
      String winner,
      boolean keep,
      String figure,
      String why,
      List<Candidate> ranked) {
    this.current = current;
    this.winner = winner;
    this.keep = keep;
    this.figure = figure;
    this.why = why;
    this.ranked = ranked;
  }

  /** The advice for a replay whose configurations include {@code current}'s label. */
  static Advice of(Evaluation e, String current, Recommendation.Weights w) {
    Evaluation.ConfigResult base = null;
    for (Evaluation.ConfigResult c : e.configs) {
      if (c.label.equals(current)) {
        base = c;
      }
    }
    if (base == null) {
      throw new IllegalStateException("the current setting " + current + " was not replayed");
    }
    Recommendation rec = new Recommendation(e, w);
    List<Candidate> ranked = new ArrayList<>();
    for (Recommendation.Score s : rec.ranking) {
      Evaluation.ConfigResult c = find(e, s.config());
      ranked.add(
          new Candidate(
              s.config(),
              s.total(),
              ratio((double) c.storeFileBytes, (double) base.storeFileBytes),
              ratio((double) c.rawBytes, (double) base.rawBytes),
              ratio(median(c, Workload.RAW_GET), median(base, Workload.RAW_GET)),
              ratio(p99(c, Workload.RAW_GET), p99(base, Workload.RAW_GET)),
              ratio(median(c, Workload.RAW_SCAN), median(base, Workload.RAW_SCAN)),
              ratio(serverNanosPerRead(c), serverNanosPerRead(base))));
    }
    String figure = figure(w);
    String best = ranked.get(0).config();
    if (best.equals(current)) {
      return new Advice(
          current, current, true, figure, "the current setting ranks first for this mix", ranked);
    }
    Evaluation.ConfigResult top = find(e, best);
    String beats = beats(top, base, figure);
    if (beats == null) {
      return new Advice(
          current,
          best,
          true,
          figure,
          best
              + " ranks first, but its "
              + figureName(figure)
              + " is not better than the current setting's by more than the runs' spread",
          ranked);
    }
    return new Advice(current, best, false, figure, beats, ranked);
  }

  /** The figure a mix weighs most: get, scan or size. */
  static String figure(Recommendation.Weights w) {
    if (w.size() > w.get() && w.size() > w.scan()) {
      return "size";
    }
    return w.get() >= w.scan() ? "get" : "scan";
  }

  private static String figureName(String figure) {
    return switch (figure) {
      case "get" -> "get time";
      case "scan" -> "scan time";
      default -> "store file size";
    };
  }

  /**
   * How {@code top} beats {@code base} on {@code figure} beyond the runs' spread, or null when it
   * does not.
   */
  static String beats(Evaluation.ConfigResult top, Evaluation.ConfigResult base, String figure) {
    if (figure.equals("size")) {
      double r = ratio((double) top.storeFileBytes, (double) base.storeFileBytes);
      return r <= 1 - SIZE_MARGIN_PERCENT / 100.0
          ? String.format(
              Locale.ROOT,
              "store files %.0f%% smaller (%,d against %,d bytes)",
              100 * (1 - r),
              top.storeFileBytes,
              base.storeFileBytes)
          : null;
    }
    Workload.Group group = figure.equals("get") ? Workload.Group.GET : Workload.Group.SCAN;
    List<String> parts = new ArrayList<>();
    for (Workload wl : Workload.values()) {
      Evaluation.Measured a = top.measured(wl);
      Evaluation.Measured b = base.measured(wl);
      if (wl.group() != group || a == null || b == null) {
        continue;
      }
      double gain = 1 - a.medianMillis() / b.medianMillis();
      double spread = Math.max(spread(a), spread(b));
      if (!(gain > spread)) {
        return null;
      }
      parts.add(
          String.format(
              Locale.ROOT,
              "%s %.1f ms against %.1f ms (%.0f%% less, beyond the runs' spread of %.0f%%)",
              wl.key(),
              a.medianMillis(),
              b.medianMillis(),
              100 * gain,
              100 * spread));
    }
    return parts.isEmpty() ? null : String.join("; ", parts);
  }

  /** Half the range of a setting's runs, as a share of their median. */
  static double spread(Evaluation.Measured m) {
    return (Stats.max(m.millis) - Stats.min(m.millis)) / (2 * m.medianMillis());
  }

  private static Evaluation.ConfigResult find(Evaluation e, String label) {
    for (Evaluation.ConfigResult c : e.configs) {
      if (c.label.equals(label)) {
        return c;
      }
    }
    throw new IllegalStateException(label);
  }

  private static double median(Evaluation.ConfigResult c, Workload w) {
    Evaluation.Measured m = c.measured(w);
    return m == null ? Double.NaN : m.medianMillis();
  }

  private static double p99(Evaluation.ConfigResult c, Workload w) {
    Evaluation.Measured m = c.measured(w);
    return m == null || m.latenciesMicros.isEmpty()
        ? Double.NaN
        : Stats.quantile(m.latenciesMicros, 0.99);
  }

  /**
   * The region server's time in checksums, decompression and decoding per get of the warm gets
   * (blockscope's TIME figures of the median run); NaN when they were not measured.
   */
  static double serverNanosPerRead(Evaluation.ConfigResult c) {
    Evaluation.Measured m = c.measured(Workload.RAW_GET);
    if (m == null || m.medianRunCosts == null || m.rows == 0) {
      return Double.NaN;
    }
    CostSnapshot k = m.medianRunCosts;
    long nanos =
        k.get("checksum.nanos") + k.sumOver("decompress", "nanos") + k.sumOver("decode", "nanos");
    return nanos == 0 ? Double.NaN : nanos / (double) m.rows;
  }

  private static double ratio(double a, double b) {
    return b > 0 && !Double.isNaN(a) && !Double.isNaN(b) ? a / b : Double.NaN;
  }

  /**
   * The HBase shell's {@code alter} that gives each family {@code c}'s encoding and compression
   * (the table's name quoted as the shell reads it).
   */
  static String hbaseAlter(String table, List<String> families, TableConfig c) {
    List<String> specs = new ArrayList<>();
    for (String f : families) {
      specs.add(
          String.format(
              Locale.ROOT,
              "{NAME => %s, DATA_BLOCK_ENCODING => '%s', COMPRESSION => '%s'}",
              rubyString(f),
              c.encoding(),
              c.compression()));
    }
    return "alter " + rubyString(table) + ", " + String.join(", ", specs);
  }

  /** Phoenix's {@code ALTER TABLE ... SET}, which sets the properties on every family. */
  static String phoenixAlter(String schema, String table, TableConfig c) {
    String name =
        schema == null || schema.isEmpty() ? quoted(table) : quoted(schema) + "." + quoted(table);
    return String.format(
        Locale.ROOT,
        "ALTER TABLE %s SET DATA_BLOCK_ENCODING='%s', COMPRESSION='%s'",
        name,
        c.encoding(),
        c.compression());
  }

  private static String quoted(String sqlName) {
    return '"' + sqlName.replace("\"", "\"\"") + '"';
  }

  /** A single-quoted Ruby string: backslashes and quotes escaped. */
  static String rubyString(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  /** A figure for results.json: null where it was not measured. */
  static Double num(double d) {
    return Double.isNaN(d) || Double.isInfinite(d) ? null : d;
  }

  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("current", current);
    m.put("winner", winner);
    m.put("keep", keep);
    m.put("figure", figure);
    m.put("why", why);
    List<Object> r = new ArrayList<>();
    for (Candidate c : ranked) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("config", c.config());
      x.put("score", num(c.score()));
      x.put("sizeRatio", num(c.size()));
      x.put("cacheFootprintRatio", num(c.cacheFootprint()));
      x.put("getTimeRatio", num(c.getTime()));
      x.put("getP99Ratio", num(c.getP99()));
      x.put("scanTimeRatio", num(c.scanTime()));
      x.put("serverNanosPerGetRatio", num(c.serverNanosPerRead()));
      r.add(x);
    }
    m.put("ranking", r);
    return m;
  }
}
