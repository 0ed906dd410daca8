package io.blockscope.cli;

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
 * <p>The ranking takes each warm workload's time as the runs' common client-side time plus the
 * setting's own server time where blockscope timed it ({@link #rankingTime}). The top setting is
 * advised only when it is better than the current setting by more than the runs' spread on at least
 * one figure the mix weighs (a read group's client time, its server time, or, when size weighs, its
 * store files by at least {@value #SIZE_MARGIN_PERCENT}%), and no worse beyond the spread on any
 * figure of the read group the mix weighs most. The figures it is better on are what the advice
 * promises ({@link #promised}). Otherwise the advice is to keep the setting.
 */
final class Advice {
  /**
   * How much smaller a winner on size must be, in percent of the current store files: applying a
   * setting rewrites every store file, and a compression's cost on writes, compactions and misses
   * is not in a warm replay.
   */
  static final int SIZE_MARGIN_PERCENT = 10;

  /**
   * The least change of a server time figure, as a share of the current setting's run time, that
   * counts either way: runs whose server time is the same every time (checksums of a few blocks)
   * have no spread, and a change that small is no change to the read.
   */
  static final double MIN_SERVER_SHARE = 0.01;

  /** One candidate against the current setting (ratios: candidate / current, below 1 is better). */
  record Candidate(
      String config,
      double score,
      double size,
      double cacheFootprint,
      double getTime,
      double getP99,
      double scanTime,
      double serverNanosPerRead,
      double serverNanosPerScan,
      double expectedHitRatio) {}

  final String current;
  final String winner;
  final boolean keep;
  final String figure;
  final String why;
  final List<Candidate> ranked;

  /** The figures an advised setting is better on beyond the runs' spread: what it promises. */
  final List<Figure> promised;

  private Advice(
      String current,
      String winner,
      boolean keep,
      String figure,
      String why,
      List<Candidate> ranked,
      List<Figure> promised) {
    this.promised = promised;
    this.current = current;
    this.winner = winner;
    this.keep = keep;
    this.figure = figure;
    this.why = why;
    this.ranked = ranked;
  }

  /** The advice for a replay whose configurations include {@code current}'s label. */
  static Advice of(Evaluation e, String current, Recommendation.Weights w) {
    return of(e, current, w, Double.NaN);
  }

  /**
   * The advice for a replay whose configurations include {@code current}'s label, for a table whose
   * data blocks hit the cache at {@code hitRatio} in the window (NaN: unknown). Where a setting's
   * warm and cold variants of a workload were both replayed, it is ranked at its expected time for
   * the live cache ({@link #expectedHitRatio}), not at each variant's.
   */
  static Advice of(Evaluation e, String current, Recommendation.Weights w, double hitRatio) {
    Evaluation.ConfigResult base = null;
    for (Evaluation.ConfigResult c : e.configs) {
      if (c.label.equals(current)) {
        base = c;
      }
    }
    if (base == null) {
      throw new IllegalStateException("the current setting " + current + " was not replayed");
    }
    Evaluation.ConfigResult b = base;
    Recommendation.Time measured = rankingTime(e);
    Recommendation.Time blended =
        (c, wl) -> {
          Workload cold = COLD.get(wl);
          if (cold == null || c.measured(cold) == null || Double.isNaN(hitRatio)) {
            return measured.millis(c, wl);
          }
          double h = expectedHitRatio(hitRatio, c, b);
          return h * measured.millis(c, wl) + (1 - h) * measured.millis(c, cold);
        };
    Recommendation rec =
        new Recommendation(e, w, blended, wl -> !COLD.containsValue(wl) || !blends(e, hitRatio));
    List<Candidate> ranked = new ArrayList<>();
    for (Recommendation.Score s : rec.ranking) {
      Evaluation.ConfigResult c = find(e, s.config());
      ranked.add(
          new Candidate(
              s.config(),
              s.total(),
              ratio((double) c.storeFileBytes, (double) base.storeFileBytes),
              cacheFootprint(c, base),
              ratio(median(c, Workload.RAW_GET), median(base, Workload.RAW_GET)),
              ratio(p99(c, Workload.RAW_GET), p99(base, Workload.RAW_GET)),
              ratio(median(c, Workload.RAW_SCAN), median(base, Workload.RAW_SCAN)),
              ratio(serverNanosPerRead(c), serverNanosPerRead(base)),
              ratio(serverNanos(c, Workload.RAW_SCAN), serverNanos(base, Workload.RAW_SCAN)),
              blends(e, hitRatio) ? expectedHitRatio(hitRatio, c, base) : Double.NaN));
    }
    String figure = figure(w);
    String best = ranked.get(0).config();
    if (best.equals(current)) {
      return keep(current, current, figure, "the current setting ranks first for this mix", ranked);
    }
    List<Figure> figures = figures(find(e, best), base, w);
    Workload.Group main = w.get() >= w.scan() ? Workload.Group.GET : Workload.Group.SCAN;
    List<Figure> better = new ArrayList<>();
    List<String> same = new ArrayList<>();
    List<String> costs = new ArrayList<>();
    for (Figure f : figures) {
      if (f.worse() && f.group() == main) {
        return keep(
            current,
            best,
            figure,
            best
                + " ranks first, but its "
                + f.name()
                + " is worse than the current setting's: "
                + f.text(),
            ranked);
      }
      if (f.better()) {
        better.add(f);
      } else if (f.worse()) {
        costs.add(f.text());
      } else {
        same.add(f.name());
      }
    }
    if (better.isEmpty()) {
      return keep(
          current,
          best,
          figure,
          best
              + " ranks first, but none of its figures ("
              + String.join(", ", same)
              + ") is better than the current setting's by more than the runs' spread",
          ranked);
    }
    StringBuilder why = new StringBuilder();
    why.append(String.join("; ", better.stream().map(Figure::text).toList()));
    if (!same.isEmpty()) {
      why.append("; the same within the runs' spread: ").append(String.join(", ", same));
    }
    if (!costs.isEmpty()) {
      why.append("; at the cost of ").append(String.join("; ", costs));
    }
    return new Advice(current, best, false, figure, why.toString(), ranked, better);
  }

  private static Advice keep(
      String current, String first, String figure, String why, List<Candidate> ranked) {
    return new Advice(current, first, true, figure, why, ranked, List.of());
  }

  /** Each warm workload's cold variant: the same reads with the table's blocks not cached. */
  static final Map<Workload, Workload> COLD =
      Map.of(
          Workload.RAW_GET, Workload.RAW_GET_COLD, Workload.RAW_SCAN, Workload.RAW_SCAN_NO_CACHE);

  /**
   * The share of {@code c}'s data block reads expected to hit the cache when the current setting's
   * hit {@code live}: the cache keeps the bytes of the table it holds now, so a setting whose
   * blocks take {@code f} times the cache space of the current setting's ({@code rawBytes}: the
   * bytes a full scan puts through the cache) holds {@code 1/f} times the share of them: {@code
   * min(1, live / f)}. A setting with no footprint measured keeps {@code live}.
   */
  static double expectedHitRatio(
      double live, Evaluation.ConfigResult c, Evaluation.ConfigResult base) {
    double f = cacheFootprint(c, base);
    if (Double.isNaN(live)) {
      return Double.NaN;
    }
    return Double.isNaN(f) || f <= 0 ? live : Math.min(1, live / f);
  }

  /** A figure's amount: one decimal, or three significant digits below 1. */
  static String amount(double v) {
    return Math.abs(v) >= 1 || v == 0
        ? String.format(Locale.ROOT, "%.1f", v)
        : String.format(Locale.ROOT, "%.3g", v);
  }

  /**
   * {@code c}'s cache footprint against {@code base}'s: the bytes a cold full scan put through the
   * cache; NaN where either had no cold full scan (its store files' size is not its size there).
   */
  static double cacheFootprint(Evaluation.ConfigResult c, Evaluation.ConfigResult base) {
    return c.cacheBytesMeasured() && base.cacheBytesMeasured()
        ? ratio((double) c.rawBytes, (double) base.rawBytes)
        : Double.NaN;
  }

  /** Whether the ranking blends warm and cold times: a hit ratio known and a cold variant run. */
  private static boolean blends(Evaluation e, double hitRatio) {
    return !Double.isNaN(hitRatio)
        && e.configs.stream()
            .anyMatch(
                c ->
                    COLD.entrySet().stream()
                        .anyMatch(
                            x ->
                                c.measured(x.getKey()) != null
                                    && c.measured(x.getValue()) != null));
  }

  /** The figure a mix weighs most: get, scan or size. */
  static String figure(Recommendation.Weights w) {
    if (w.size() > w.get() && w.size() > w.scan()) {
      return "size";
    }
    return w.get() >= w.scan() ? "get" : "scan";
  }

  /**
   * One figure of a candidate against the current setting: {@code gain} is the share by which it is
   * better (negative: worse), {@code spread} how much of that the runs' noise can explain.
   */
  record Figure(
      String key,
      String name,
      Workload.Group group,
      double advised,
      double current,
      String unit,
      double gain,
      double spread) {
    boolean better() {
      return gain > spread;
    }

    boolean worse() {
      return -gain > spread;
    }

    String text() {
      String amount =
          unit.equals("bytes")
              ? String.format(Locale.ROOT, "%,d against %,d bytes", (long) advised, (long) current)
              : amount(advised) + " " + unit + " against " + amount(current) + " " + unit;
      double r = 1 - advised / current;
      String change =
          r >= 0
              ? String.format(Locale.ROOT, "%.0f%% less", 100 * r)
              : String.format(Locale.ROOT, "%.0f%% more", -100 * r);
      String noise;
      if (group == null) {
        noise = String.format(Locale.ROOT, "the margin is %.0f%%", 100 * (spread + 1e-9));
      } else if (key.startsWith("server.")) {
        noise =
            String.format(
                Locale.ROOT,
                "%.0f%% of the current setting's %s time, where %s %.0f%%",
                100 * Math.abs(gain),
                key.substring("server.".length()),
                spread > MIN_SERVER_SHARE ? "the runs' spread is" : "the least change counted is",
                100 * spread);
      } else {
        noise = String.format(Locale.ROOT, "the runs' spread is %.0f%%", 100 * spread);
      }
      return String.format(Locale.ROOT, "%s %s (%s, %s)", name, amount, change, noise);
    }
  }

  /**
   * The figures the mix weighs, of {@code top} against {@code base}: each read group's client time
   * per workload, and, where blockscope timed both settings' server work on it, their server time
   * (checksums, decompression, decoding); then the store file size when size weighs.
   */
  static List<Figure> figures(
      Evaluation.ConfigResult top, Evaluation.ConfigResult base, Recommendation.Weights w) {
    List<Figure> list = new ArrayList<>();
    List<Workload.Group> groups =
        w.get() >= w.scan()
            ? List.of(Workload.Group.GET, Workload.Group.SCAN)
            : List.of(Workload.Group.SCAN, Workload.Group.GET);
    for (Workload.Group group : groups) {
      if ((group == Workload.Group.GET ? w.get() : w.scan()) <= 0) {
        continue;
      }
      for (Workload wl : Workload.values()) {
        Evaluation.Measured a = top.measured(wl);
        Evaluation.Measured b = base.measured(wl);
        if (wl.group() != group || a == null || b == null) {
          continue;
        }
        list.add(
            new Figure(
                wl.key(),
                wl.key() + " time",
                group,
                a.medianMillis(),
                b.medianMillis(),
                "ms",
                1 - a.medianMillis() / b.medianMillis(),
                Math.max(spread(a.millis), spread(b.millis))));
        double sa = a.medianServerNanos();
        double sb = b.medianServerNanos();
        if (sa > 0 && sb > 0) {
          // what the server's time changes, and its noise, as shares of a run of the current
          // setting: a large ratio on a small part of the read is not a large change
          double run = b.medianMillis() * 1e6;
          boolean gets = group == Workload.Group.GET;
          double per = gets ? 1e3 * a.rows : 1e6;
          double perBase = gets ? 1e3 * b.rows : 1e6;
          list.add(
              new Figure(
                  "server." + wl.key(),
                  (gets ? "server time per get of " : "server time per scan of ") + wl.key(),
                  group,
                  sa / per,
                  sb / perBase,
                  gets ? "us" : "ms",
                  (sb - sa) / run,
                  Math.max(
                      MIN_SERVER_SHARE,
                      Math.max(halfRange(a.serverNanos), halfRange(b.serverNanos)) / run)));
        }
      }
    }
    if (w.size() > 0) {
      list.add(
          new Figure(
              "size",
              "store files",
              null,
              top.storeFileBytes,
              base.storeFileBytes,
              "bytes",
              1 - ratio((double) top.storeFileBytes, (double) base.storeFileBytes),
              SIZE_MARGIN_PERCENT / 100.0 - 1e-9));
    }
    return list;
  }

  /**
   * The time the ranking takes for a workload on a setting. For a warm workload (every block in the
   * cache) on a setting whose server work blockscope timed, it is the runs' common client-side time
   * (the median, over the runs of every such setting, of a run's time less its server time) plus
   * this setting's median server time: on cached blocks the settings differ on the server, in
   * checksums, decompression and decoding, and the rest (round trips, the client's own work) is
   * mostly the noise of a shared machine. Unless the setting's own client-side time (the median of
   * its runs' times less their server times) is away from the common one by more than its runs'
   * spread: then its client side differs for real (fewer blocks or cells to go through, say, which
   * the server's timed work does not show), and it is ranked at its own client-side time plus its
   * server time. Otherwise (a cold workload, or a setting with no server time, such as an unencoded
   * table's cached blocks, whose in-block seeks blockscope does not time) it is the median of the
   * setting's runs.
   */
  static Recommendation.Time rankingTime(Evaluation e) {
    return (c, w) -> {
      Evaluation.Measured m = c.measured(w);
      if (w.cache() != Workload.Cache.WARM || !(m.medianServerNanos() > 0)) {
        return m.medianMillis();
      }
      List<Double> rest = new ArrayList<>();
      for (Evaluation.ConfigResult x : e.configs) {
        Evaluation.Measured o = x.measured(w);
        if (o != null && o.medianServerNanos() > 0) {
          rest.addAll(clientSide(o));
        }
      }
      List<Double> own = clientSide(m);
      double common = Stats.median(rest);
      double mine = Stats.median(own);
      double client = Math.abs(mine - common) > halfRange(own) ? mine : common;
      return client + m.medianServerNanos() / 1e6;
    };
  }

  /** Each run's time less its server time, in ms: the round trip and the client's own work. */
  private static List<Double> clientSide(Evaluation.Measured m) {
    List<Double> rest = new ArrayList<>();
    for (int i = 0; i < m.millis.size(); i++) {
      rest.add(m.millis.get(i) - m.serverNanos.get(i) / 1e6);
    }
    return rest;
  }

  /** Half the range of a setting's runs, as a share of their median. */
  static double spread(List<Double> runs) {
    return halfRange(runs) / Stats.median(runs);
  }

  private static double halfRange(List<Double> runs) {
    return (Stats.max(runs) - Stats.min(runs)) / 2;
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
   * (blockscope's TIME figures, median run): 0 when there was none (an unencoded table's cached
   * blocks), NaN when they were not read.
   */
  static double serverNanosPerRead(Evaluation.ConfigResult c) {
    Evaluation.Measured m = c.measured(Workload.RAW_GET);
    return m == null || m.rows == 0 ? Double.NaN : serverNanos(c, Workload.RAW_GET) / m.rows;
  }

  private static double serverNanos(Evaluation.ConfigResult c, Workload w) {
    Evaluation.Measured m = c.measured(w);
    return m == null ? Double.NaN : m.medianServerNanos();
  }

  private static double ratio(double a, double b) {
    return b > 0 && !Double.isNaN(a) && !Double.isNaN(b) ? a / b : Double.NaN;
  }

  /**
   * The HBase shell's {@code alter} that gives each family {@code c}'s encoding and compression,
   * and its block size and bloom filter type where it sets them (the table's name quoted as the
   * shell reads it).
   */
  static String hbaseAlter(String table, List<String> families, TableConfig c) {
    List<String> specs = new ArrayList<>();
    for (String f : families) {
      StringBuilder spec =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "{NAME => %s, DATA_BLOCK_ENCODING => '%s', COMPRESSION => '%s'",
                  rubyString(f),
                  c.encoding(),
                  c.compression()));
      if (c.blockSize() != 0) {
        spec.append(", BLOCKSIZE => '").append(c.blockSize()).append('\'');
      }
      if (!c.bloom().isEmpty()) {
        spec.append(", BLOOMFILTER => '").append(c.bloom()).append('\'');
      }
      specs.add(spec.append('}').toString());
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
            c.compression())
        + (c.blockSize() == 0 ? "" : ", BLOCKSIZE=" + c.blockSize())
        + (c.bloom().isEmpty() ? "" : ", BLOOMFILTER='" + c.bloom() + "'");
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
    List<Object> p = new ArrayList<>();
    for (Figure f : promised) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("figure", f.key());
      x.put("unit", f.unit());
      x.put("advised", num(f.advised()));
      x.put("current", num(f.current()));
      x.put("spread", num(f.spread()));
      p.add(x);
    }
    m.put("promised", p);
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
      x.put("serverNanosPerScanRatio", num(c.serverNanosPerScan()));
      x.put("expectedHitRatio", num(c.expectedHitRatio()));
      r.add(x);
    }
    m.put("ranking", r);
    return m;
  }
}
