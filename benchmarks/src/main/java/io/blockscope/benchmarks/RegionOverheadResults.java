package io.blockscope.benchmarks;

import io.blockscope.benchmarks.InterleavedRounds.Samples;
import io.blockscope.benchmarks.RegionOverhead.Mode;
import io.blockscope.benchmarks.RegionOverhead.Workload;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The per-round ratios of each case, their mean and 95% interval, as text, CSV and a chart. */
final class RegionOverheadResults {
  record Row(
      String encoding,
      Workload workload,
      Mode mode,
      double cpuUs,
      double wallUs,
      double ratio,
      double low,
      double high) {}

  final List<Row> rows = new ArrayList<>();
  final RegionOverhead.Options options;

  private RegionOverheadResults(List<Row> rows) {
    this.rows.addAll(rows);
    this.options = null;
  }

  /** The rows {@link #write} wrote, for redrawing the chart ({@code --chart CSV}). */
  static RegionOverheadResults fromCsv(Path csv) throws IOException {
    List<Row> rows = new ArrayList<>();
    for (String line : Files.readAllLines(csv, StandardCharsets.UTF_8)) {
      String[] f = line.split(",");
      if (f[0].equals("table")) {
        continue;
      }
      rows.add(
          new Row(
              f[0],
              Workload.valueOf(f[1]),
              Mode.valueOf(f[2]),
              Double.parseDouble(f[3]),
              Double.parseDouble(f[4]),
              Double.parseDouble(f[5]),
              Double.parseDouble(f[6]),
              Double.parseDouble(f[7])));
    }
    return new RegionOverheadResults(rows);
  }

  RegionOverheadResults(List<RegionOverhead.Subject> subjects, RegionOverhead.Options options) {
    this.options = options;
    for (RegionOverhead.Subject s : subjects) {
      for (Workload w : Workload.values()) {
        Samples<Mode> cpu = s.cpuNs.get(w);
        Samples<Mode> wall = s.wallNs.get(w);
        for (Mode m : Mode.values()) {
          RoundRatio ratio = cpu.ratio(m, Mode.NOT_INSTALLED);
          rows.add(
              new Row(
                  s.name,
                  w,
                  m,
                  cpu.median(m) / 1e3,
                  wall.median(m) / 1e3,
                  ratio.mean(),
                  ratio.low(),
                  ratio.high()));
        }
      }
    }
  }

  /** The bound a mode is held to (docs/performance.md); 0: none. */
  static double bound(Mode m) {
    return m == Mode.COUNT ? 1.01 : m == Mode.TIME ? 1.05 : 0;
  }

  void print(java.io.PrintStream out) {
    out.printf(
        Locale.ROOT,
        "%n%-13s %-22s %10s %10s  %-24s %-24s %-24s %-24s%n",
        "table",
        "workload",
        "CPU us/op",
        "wall us/op",
        "empty observer / not inst.",
        "OFF / not installed",
        "COUNT / not installed",
        "TIME / not installed");
    for (int i = 0; i < rows.size(); i += Mode.values().length) {
      Row base = rows.get(i);
      StringBuilder line =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "%-13s %-22s %10.2f %10.2f",
                  base.encoding(),
                  base.workload().label,
                  base.cpuUs(),
                  base.wallUs()));
      for (int m = 1; m < Mode.values().length; m++) {
        Row r = rows.get(i + m);
        double bound = bound(r.mode());
        String verdict = bound == 0 ? "" : r.high() <= bound ? " ok" : " OVER";
        line.append(
            String.format(
                Locale.ROOT,
                "  %-24s",
                String.format(
                    Locale.ROOT, "%.3f [%.3f, %.3f]%s", r.ratio(), r.low(), r.high(), verdict)));
      }
      out.println(line);
    }
    out.printf(
        Locale.ROOT,
        "%nCPU and wall: medians for NOT_INSTALLED. Ratios: mean of %d per-round ratios of"
            + " median CPU per operation, [95%% bootstrap interval]; ok: the interval's upper end"
            + " is within COUNT's 1%% / TIME's 5%%.%n",
        options.rounds());
  }

  void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    StringBuilder csv =
        new StringBuilder("table,workload,mode,cpu_us_per_op,wall_us_per_op,ratio,low,high\n");
    for (Row r : rows) {
      csv.append(
          String.format(
              Locale.ROOT,
              "%s,%s,%s,%.3f,%.3f,%.4f,%.4f,%.4f%n",
              r.encoding(),
              r.workload().name(),
              r.mode(),
              r.cpuUs(),
              r.wallUs(),
              r.ratio(),
              r.low(),
              r.high()));
    }
    Files.writeString(dir.resolve("region-overhead.csv"), csv, StandardCharsets.UTF_8);
    Files.writeString(
        dir.resolve("region-overhead.svg"), RatioChart.svg(rows), StandardCharsets.UTF_8);
    System.out.println("written: " + dir.resolve("region-overhead.csv"));
    System.out.println("written: " + dir.resolve("region-overhead.svg"));
  }
}
