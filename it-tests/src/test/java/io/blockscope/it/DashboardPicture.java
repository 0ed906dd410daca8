package io.blockscope.it;

import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;

/**
 * Draws the shipped Grafana dashboard as one SVG picture from a Prometheus server's answers to the
 * panels' own queries: each panel where its {@code gridPos} puts it on Grafana's 24-column grid, a
 * time series panel as one line per series over the queried range, a table panel as its rows at the
 * range's end, each value in the panel's unit. The variables are at "All", and {@code
 * $__rate_interval} is what Grafana makes of the test's scrape interval ({@link
 * PrometheusServer#SCRAPE_SECONDS}) on a short range: four scrape intervals. A table panel's rows
 * are one instant query at the range's end, whose rates are taken over {@link #TABLE_RATE_INTERVAL}
 * instead: on a loaded machine a scrape can end late, and a window of four intervals at one instant
 * can then hold fewer than the two samples a rate needs.
 */
final class DashboardPicture {
  /** Asks the panels' queries of a Prometheus server. */
  interface Source {
    /** A range query's series over the picture's range, one point a second. */
    JsonArray range(String promql) throws IOException;

    /** An instant query's series at the range's end. */
    JsonArray instant(String promql) throws IOException;
  }

  static final String RATE_INTERVAL = 4 * PrometheusServer.SCRAPE_SECONDS + "s";

  /** The rate window of a table panel's instant query (see the class comment). */
  static final String TABLE_RATE_INTERVAL = "1m";

  private static final int WIDTH = 1200;
  private static final int COLUMN = WIDTH / 24;
  private static final int ROW = 30;
  private static final int GAP = 6;
  private static final int LEGEND_LINE = 14;
  private static final int MAX_LEGEND = 8;
  private static final int MAX_TABLE_ROWS = 6;

  /** Grafana's classic series colours, in its order. */
  private static final String[] COLOURS = {
    "#7EB26D", "#EAB839", "#6ED0E0", "#EF843C", "#E24D42",
    "#1F78C1", "#BA43A9", "#705DA0", "#508642", "#CCA300"
  };

  private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*(\\w+)\\s*\\}\\}");
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  private final StringBuilder svg = new StringBuilder();

  /** Each panel's title with the number of series it drew, in the dashboard's order. */
  private final Map<String, Integer> drawn = new LinkedHashMap<>();

  private final long start;
  private final long end;

  private DashboardPicture(long start, long end) {
    this.start = start;
    this.end = end;
  }

  /** The picture, and the series each panel drew. */
  record Drawing(String svg, Map<String, Integer> seriesByPanel) {}

  static Drawing draw(JsonObject dashboard, Source source, long start, long end, String caption)
      throws IOException {
    DashboardPicture p = new DashboardPicture(start, end);
    int bottom = 0;
    for (JsonElement e : dashboard.getAsJsonArray("panels")) {
      JsonObject grid = e.getAsJsonObject().getAsJsonObject("gridPos");
      bottom = Math.max(bottom, grid.get("y").getAsInt() + grid.get("h").getAsInt());
    }
    int height = bottom * ROW + 56;
    p.svg
        .append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(WIDTH)
        .append("\" height=\"")
        .append(height)
        .append("\" font-family=\"sans-serif\" font-size=\"11\">\n")
        .append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
    p.text(
        GAP,
        20,
        escape(dashboard.get("title").getAsString()),
        "font-size=\"16\" font-weight=\"bold\"");
    p.text(GAP, 38, escape(caption), "fill=\"#555555\"");
    for (JsonElement e : dashboard.getAsJsonArray("panels")) {
      p.panel(e.getAsJsonObject(), source, 46);
    }
    p.svg.append("</svg>\n");
    return new Drawing(p.svg.toString(), p.drawn);
  }

  private void panel(JsonObject panel, Source source, int top) throws IOException {
    JsonObject grid = panel.getAsJsonObject("gridPos");
    int x = grid.get("x").getAsInt() * COLUMN + GAP / 2;
    int y = top + grid.get("y").getAsInt() * ROW + GAP / 2;
    int w = grid.get("w").getAsInt() * COLUMN - GAP;
    int h = grid.get("h").getAsInt() * ROW - GAP;
    String title = panel.get("title").getAsString();
    String unit = unit(panel);
    svg.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" fill=\"#fafafa\""
                + " stroke=\"#d0d0d0\"/>\n",
            x,
            y,
            w,
            h));
    text(x + 8, y + 16, escape(title), "font-size=\"12\" font-weight=\"bold\"");
    List<Series> series = new ArrayList<>();
    boolean table = "table".equals(panel.get("type").getAsString());
    Map<String, String> rightUnits = rightAxis(panel);
    for (JsonElement t : panel.getAsJsonArray("targets")) {
      JsonObject target = t.getAsJsonObject();
      String expr =
          expr(target.get("expr").getAsString(), table ? TABLE_RATE_INTERVAL : RATE_INTERVAL);
      String legend = target.has("legendFormat") ? target.get("legendFormat").getAsString() : "";
      String ref = target.has("refId") ? target.get("refId").getAsString() : "";
      JsonArray result = table ? source.instant(expr) : source.range(expr);
      for (JsonElement r : result) {
        Series one = Series.of(r.getAsJsonObject(), legend, table);
        one.right = rightUnits.containsKey(ref);
        series.add(one);
      }
    }
    drawn.put(title, series.size());
    if (table) {
      table(series, unit, x, y + 24, w);
    } else {
      if (stacked(panel)) {
        stack(series);
      }
      String rightUnit = rightUnits.isEmpty() ? null : rightUnits.values().iterator().next();
      lines(series, unit, rightUnit, x, y + 24, w, h - 24);
    }
  }

  /** The unit of each target (by its refId) that the panel's overrides put on a right axis. */
  private static Map<String, String> rightAxis(JsonObject panel) {
    Map<String, String> right = new LinkedHashMap<>();
    JsonObject config = panel.getAsJsonObject("fieldConfig");
    if (config == null || !config.has("overrides")) {
      return right;
    }
    for (JsonElement o : config.getAsJsonArray("overrides")) {
      JsonObject matcher = o.getAsJsonObject().getAsJsonObject("matcher");
      if (!"byFrameRefID".equals(matcher.get("id").getAsString())) {
        continue;
      }
      String unit = "";
      boolean onRight = false;
      for (JsonElement property : o.getAsJsonObject().getAsJsonArray("properties")) {
        JsonObject p = property.getAsJsonObject();
        String id = p.get("id").getAsString();
        if (id.equals("unit")) {
          unit = p.get("value").getAsString();
        } else if (id.equals("custom.axisPlacement")) {
          onRight = "right".equals(p.get("value").getAsString());
        }
      }
      if (onRight) {
        right.put(matcher.get("options").getAsString(), unit);
      }
    }
    return right;
  }

  private static boolean stacked(JsonObject panel) {
    JsonObject config = panel.getAsJsonObject("fieldConfig");
    JsonObject custom =
        config == null || !config.has("defaults")
            ? null
            : config.getAsJsonObject("defaults").getAsJsonObject("custom");
    return custom != null
        && custom.has("stacking")
        && "normal".equals(custom.getAsJsonObject("stacking").get("mode").getAsString());
  }

  /** Grafana's normal stacking: each series drawn on top of the ones before it. */
  private static void stack(List<Series> series) {
    Map<Long, Double> below = new HashMap<>();
    for (Series s : series) {
      for (int k = 0; k < s.times.size(); k++) {
        double v = s.values.get(k);
        if (Double.isNaN(v)) {
          continue;
        }
        double sum = below.getOrDefault(s.times.get(k), 0.0) + v;
        below.put(s.times.get(k), sum);
        s.values.set(k, sum);
      }
    }
  }

  /** A panel query as Prometheus takes it: the variables at "All", the rate interval given. */
  static String expr(String grafana, String rateInterval) {
    return grafana
        .replace("$__rate_interval", rateInterval)
        .replace("$instance", ".*")
        .replace("$table", ".*");
  }

  private void table(List<Series> series, String unit, int x, int y, int w) {
    series.sort((a, b) -> Double.compare(b.last(), a.last()));
    text(x + 8, y + 4, "series", "fill=\"#555555\"");
    text(x + w - 8, y + 4, "value", "fill=\"#555555\" text-anchor=\"end\"");
    int row = 0;
    for (Series s : series) {
      if (row == MAX_TABLE_ROWS) {
        text(x + 8, y + 22 + row * 18, "+" + (series.size() - row) + " more", "fill=\"#555555\"");
        break;
      }
      int ry = y + 22 + row * 18;
      text(x + 8, ry, escape(s.name), "");
      text(x + w - 8, ry, escape(format(s.last(), unit)), "text-anchor=\"end\"");
      row++;
    }
  }

  private void lines(
      List<Series> series, String unit, String rightUnit, int x, int y, int w, int h) {
    int legendRows =
        Math.min(series.size(), MAX_LEGEND) / 2 + Math.min(series.size(), MAX_LEGEND) % 2;
    int left = x + 64;
    int right = x + w - (rightUnit == null ? 10 : 64);
    int plotTop = y + 4;
    int plotBottom = y + h - 18 - legendRows * LEGEND_LINE;
    double leftMax = max(series, false);
    double rightMax = max(series, true);
    for (int i = 0; i <= 2; i++) {
      double py = plotBottom - (plotBottom - plotTop) * i / 2.0;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
              left,
              py,
              right,
              py));
      String grey = "fill=\"#555555\"";
      text(
          left - 4,
          (int) py + 4,
          escape(format(leftMax * i / 2, unit)),
          grey + " text-anchor=\"end\"");
      if (rightUnit != null) {
        text(right + 4, (int) py + 4, escape(format(rightMax * i / 2, rightUnit)), grey);
      }
    }
    for (int i = 0; i <= 2; i++) {
      long t = start + (end - start) * i / 2;
      int px = left + (right - left) * i / 2;
      String anchor = i == 0 ? "start" : i == 2 ? "end" : "middle";
      text(
          px,
          plotBottom + 13,
          CLOCK.format(Instant.ofEpochSecond(t)),
          "fill=\"#555555\" text-anchor=\"" + anchor + "\"");
    }
    for (int i = 0; i < series.size(); i++) {
      String colour = COLOURS[i % COLOURS.length];
      Series s = series.get(i);
      StringBuilder points = new StringBuilder();
      for (int k = 0; k < s.times.size(); k++) {
        double v = s.values.get(k);
        if (Double.isNaN(v) || Double.isInfinite(v)) {
          flush(points, colour);
          continue;
        }
        double px =
            left + (right - left) * (double) (s.times.get(k) - start) / Math.max(1, end - start);
        double py = plotBottom - (plotBottom - plotTop) * v / (s.right ? rightMax : leftMax);
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
      }
      flush(points, colour);
      if (i < MAX_LEGEND) {
        int lx = x + 8 + (i % 2) * (w / 2);
        int ly = plotBottom + 30 + (i / 2) * LEGEND_LINE;
        svg.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"3\" fill=\"%s\"/>\n",
                lx,
                ly - 4,
                colour));
        text(lx + 14, ly, escape(s.name + (s.right ? " (right axis)" : "")), "");
      }
    }
    if (series.size() > MAX_LEGEND) {
      text(
          x + w - 8,
          y + h - 4,
          "+" + (series.size() - MAX_LEGEND) + " more in the legend",
          "fill=\"#555555\" text-anchor=\"end\"");
    }
  }

  /** The largest value of the series on one axis, or 1 when none is above 0. */
  private static double max(List<Series> series, boolean right) {
    double max = 0;
    for (Series s : series) {
      if (s.right == right) {
        max = Math.max(max, s.max());
      }
    }
    return max > 0 ? max : 1;
  }

  private void flush(StringBuilder points, String colour) {
    if (points.length() > 0) {
      svg.append("<polyline fill=\"none\" stroke=\"")
          .append(colour)
          .append("\" stroke-width=\"1.5\" points=\"")
          .append(points.toString().trim())
          .append("\"/>\n");
      points.setLength(0);
    }
  }

  private void text(int x, int y, String escaped, String attributes) {
    svg.append("<text x=\"")
        .append(x)
        .append("\" y=\"")
        .append(y)
        .append('"')
        .append(attributes.isEmpty() ? "" : " " + attributes)
        .append('>')
        .append(escaped)
        .append("</text>\n");
  }

  private static String unit(JsonObject panel) {
    JsonObject config = panel.getAsJsonObject("fieldConfig");
    if (config == null || !config.has("defaults")) {
      return "";
    }
    JsonObject defaults = config.getAsJsonObject("defaults");
    return defaults.has("unit") ? defaults.get("unit").getAsString() : "";
  }

  /** A value as Grafana shows it in the panel's unit. */
  static String format(double v, String unit) {
    switch (unit) {
      case "percentunit":
        double percent = v * 100;
        return String.format(
            Locale.ROOT,
            percent == 0 || percent >= 10 ? "%.0f%%" : percent >= 1 ? "%.1f%%" : "%.2f%%",
            percent);
      case "Bps":
        return bytes(v) + "/s";
      case "ops":
        return compact(v) + " ops/s";
      default:
        return compact(v);
    }
  }

  private static String bytes(double v) {
    String[] units = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return (v >= 10 || u == 0
            ? String.format(Locale.ROOT, "%.0f", v)
            : String.format(Locale.ROOT, "%.1f", v))
        + " "
        + units[u];
  }

  private static String compact(double v) {
    if (v >= 1e6) {
      return String.format(Locale.ROOT, "%.1fM", v / 1e6);
    }
    if (v >= 1e3) {
      return String.format(Locale.ROOT, "%.1fk", v / 1e3);
    }
    return v >= 10 || v == 0
        ? String.format(Locale.ROOT, "%.0f", v)
        : String.format(Locale.ROOT, "%.2f", v);
  }

  static String escape(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  /** One series of a panel: its legend name and its points. */
  private static final class Series {
    final String name;
    final List<Long> times = new ArrayList<>();
    final List<Double> values = new ArrayList<>();

    /** Drawn against the panel's right axis. */
    boolean right;

    private Series(String name) {
      this.name = name;
    }

    static Series of(JsonObject result, String legend, boolean instant) {
      JsonObject metric = result.getAsJsonObject("metric");
      Matcher m = LEGEND_LABEL.matcher(legend);
      StringBuilder name = new StringBuilder();
      while (m.find()) {
        JsonElement label = metric.get(m.group(1));
        m.appendReplacement(
            name, Matcher.quoteReplacement(label == null ? "" : label.getAsString()));
      }
      m.appendTail(name);
      Series s = new Series(name.length() == 0 ? metric.toString() : name.toString());
      if (instant) {
        s.add(result.getAsJsonArray("value"));
      } else {
        for (JsonElement point : result.getAsJsonArray("values")) {
          s.add(point.getAsJsonArray());
        }
      }
      return s;
    }

    private void add(JsonArray point) {
      times.add((long) point.get(0).getAsDouble());
      values.add(Double.parseDouble(point.get(1).getAsString()));
    }

    double max() {
      double m = 0;
      for (double v : values) {
        if (!Double.isNaN(v) && !Double.isInfinite(v)) {
          m = Math.max(m, v);
        }
      }
      return m;
    }

    double last() {
      return values.isEmpty() ? Double.NaN : values.get(values.size() - 1);
    }
  }
}
