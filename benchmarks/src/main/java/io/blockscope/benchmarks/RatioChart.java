package io.blockscope.benchmarks;

import io.blockscope.benchmarks.RegionOverhead.Mode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code region-overhead}'s chart: each case's ratio to not installed as a dot with its 95%
 * interval, on an axis around 1.0, with COUNT's 1% and TIME's 5% bounds drawn in red. Plain SVG, so
 * the file opens in any browser.
 */
final class RatioChart {
  private RatioChart() {}

  /**
   * A bar per case and mode: the mean ratio to not installed as a dot with its interval, on an axis
   * around 1.0, with the 1% and 5% bounds drawn.
   */
  static String svg(List<RegionOverheadResults.Row> rows) {
    List<RegionOverheadResults.Row> shown = new ArrayList<>();
    for (RegionOverheadResults.Row r : rows) {
      if (r.mode() != Mode.NOT_INSTALLED) {
        shown.add(r);
      }
    }
    double lo = 0.97;
    double hi = 1.08;
    for (RegionOverheadResults.Row r : shown) {
      lo = Math.min(lo, r.low() - 0.005);
      hi = Math.max(hi, r.high() + 0.005);
    }
    int rowHeight = 14;
    int left = 230;
    int width = 520;
    int top = 40;
    int height = top + shown.size() * rowHeight + 50;
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"11\">%n",
            left + width + 40,
            height));
    sb.append(
        "<text x=\"10\" y=\"18\" font-size=\"13\">Region read CPU per operation with"
            + " blockscope, relative to not installed (mean, 95% interval)</text>\n");
    double scale = width / (hi - lo);
    int bottom = top + shown.size() * rowHeight;
    for (int hundredths = (int) Math.ceil(lo * 100); hundredths <= hi * 100; hundredths++) {
      double tick = hundredths / 100.0;
      double x = left + (tick - lo) * scale;
      boolean bound = hundredths == 101 || hundredths == 105;
      boolean one = hundredths == 100;
      sb.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>%n",
              x,
              top - 5,
              x,
              bottom,
              one ? "#000" : bound ? "#c00" : "#ddd"));
      if (hundredths % 5 == 0) {
        sb.append(
            String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.2f</text>%n",
                x,
                bottom + 14,
                tick));
      }
    }
    String[] colours = {"", "#bbb", "#666", "#1f77b4", "#ff7f0e"};
    for (int i = 0; i < shown.size(); i++) {
      RegionOverheadResults.Row r = shown.get(i);
      int y = top + i * rowHeight + rowHeight / 2;
      if (r.mode() == Mode.EMPTY_OBSERVER) {
        sb.append(
            String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\">%s, %s</text>%n",
                5,
                y + 4 + rowHeight,
                r.encoding(),
                r.workload().label));
      }
      String c = colours[r.mode().ordinal()];
      sb.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\""
                  + " stroke-width=\"2\"/>%n",
              left + (r.low() - lo) * scale,
              y,
              left + (r.high() - lo) * scale,
              y,
              c));
      sb.append(
          String.format(
              Locale.ROOT,
              "<circle cx=\"%.1f\" cy=\"%d\" r=\"3\" fill=\"%s\"/>%n",
              left + (r.ratio() - lo) * scale,
              y,
              c));
    }
    int ly = bottom + 34;
    for (Mode m : List.of(Mode.EMPTY_OBSERVER, Mode.OFF, Mode.COUNT, Mode.TIME)) {
      int lx = 10 + (m.ordinal() - 1) * 130;
      sb.append(
          String.format(
              Locale.ROOT,
              "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>%n",
              lx,
              ly - 4,
              colours[m.ordinal()],
              lx + 8,
              ly,
              m));
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" fill=\"#c00\">red: COUNT's 1%% and TIME's 5%%</text>%n",
            10 + 4 * 130,
            ly));
    return sb.append("</svg>\n").toString();
  }
}
