package io.blockscope.hints;

import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.HBaseScanMetrics;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.Stats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** EXPLAIN ANALYZE's text form: the plan, then a line per region, busiest first, and the skew. */
final class ExplainAnalyzeText {
  private ExplainAnalyzeText() {}

  private static String n(long v) {
    return String.format(Locale.ROOT, "%,d", v);
  }

  private static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
  }

  static List<String> render(ExplainAnalyze.Outcome o) {
    List<String> lines = new ArrayList<>(o.plan());
    lines.addAll(o.extensions());
    QueryProfile p = o.profile();
    PerfLevel level = o.level();
    int tables = (int) p.regions().stream().map(QueryProfile.Region::table).distinct().count();
    lines.add(
        "BLOCKSCOPE ANALYZE ("
            + level
            + "): "
            + n(o.rowsReturned())
            + (o.rowsReturned() == 1 ? " row" : " rows")
            + " returned in "
            + ms(o.wallNanos())
            + "; "
            + p.regions().size()
            + (p.regions().size() == 1 ? " region" : " regions")
            + " of "
            + tables
            + (tables == 1 ? " table" : " tables")
            + " read "
            + n(p.rows())
            + (p.rows() == 1 ? " row" : " rows")
            + "; query "
            + p.queryId());
    lines.add("  total: " + costs(p.rows(), p.totals(), level));
    if (!p.regions().isEmpty()) {
      lines.add("  skew: " + skew(p, level));
    }
    for (QueryProfile.Region r : ExplainAnalyze.busiestFirst(p, level)) {
      lines.add(
          "  region "
              + r.table()
              + "/"
              + r.region()
              + ": "
              + costs(r.rows(), r.costs(), level)
              + appliedLevel(r));
    }
    QueryProfile.Read read = p.read();
    lines.add(
        "  profile read: "
            + read.regionsAsked()
            + (read.regionsAsked() == 1 ? " region" : " regions")
            + " asked in "
            + read.calls()
            + (read.calls() == 1 ? " call, " : " calls, ")
            + ms(read.nanos()));
    return lines;
  }

  /**
   * "; measured at COUNT (capped by the region server's blockscope.query.max.level)": the level the
   * region measured the query at and why; empty where its server did not say (an earlier
   * blockscope).
   */
  static String appliedLevel(QueryProfile.Region r) {
    return r.level() == null
        ? ""
        : "; measured at "
            + r.level()
            + (r.levelReason() == null ? "" : " (" + r.levelReason() + ")");
  }

  private static String skew(QueryProfile p, PerfLevel level) {
    List<Long> busy = new ArrayList<>();
    for (QueryProfile.Region r : p.regions()) {
      busy.add(ExplainAnalyze.busyness(r.costs(), level));
    }
    long max = busy.stream().mapToLong(Long::longValue).max().orElse(0);
    long median = Stats.median(busy.stream().mapToLong(Long::longValue).toArray());
    StringBuilder b = new StringBuilder("by " + ExplainAnalyze.measure(level) + ", max/median ");
    b.append(median == 0 ? "-" : String.format(Locale.ROOT, "%.2f", (double) max / median));
    b.append(" (max ")
        .append(level == PerfLevel.TIME ? ms(max) : n(max))
        .append(", median ")
        .append(level == PerfLevel.TIME ? ms(median) : n(median))
        .append("); busiest: ");
    List<String> top = new ArrayList<>();
    for (QueryProfile.Region r :
        ExplainAnalyze.busiestFirst(p, level)
            .subList(0, Math.min(ExplainAnalyze.SLOWEST, busy.size()))) {
      long v = ExplainAnalyze.busyness(r.costs(), level);
      top.add(r.table() + "/" + r.region() + " (" + (level == PerfLevel.TIME ? ms(v) : n(v)) + ")");
    }
    return b.append(String.join(", ", top)).toString();
  }

  /**
   * One region's (or the total's) costs in words: rows, then each kind of cost that is not zero
   * (block cache hits and misses always, by block kind where not zero; the cells and bytes read
   * from the memstore), times at TIME only.
   */
  static String costs(long rows, Map<String, Long> c, PerfLevel level) {
    boolean time = level == PerfLevel.TIME;
    List<String> parts = new ArrayList<>();
    parts.add("rows=" + n(rows));
    parts.add(
        "cache hits="
            + n(ExplainAnalyze.sum(c, "blockCache.hit.", ""))
            + byKind(c, "blockCache.hit.")
            + " misses="
            + n(ExplainAnalyze.sum(c, "blockCache.miss.", ""))
            + byKind(c, "blockCache.miss."));
    parts.add(
        "fs blocks="
            + n(ExplainAnalyze.sum(c, "fs.read.blocks.", ""))
            + byKind(c, "fs.read.blocks.")
            + " bytes="
            + n(ExplainAnalyze.sum(c, "fs.read.bytes.", "")));
    long checksumBytes = c.getOrDefault("checksum.bytes", 0L);
    if (checksumBytes > 0) {
      parts.add(
          "checksum bytes="
              + n(checksumBytes)
              + " chunks="
              + n(c.getOrDefault("checksum.chunks", 0L))
              + (c.getOrDefault("checksum.failures", 0L) > 0
                  ? " failures=" + n(c.get("checksum.failures"))
                  : "")
              + (time ? " time=" + ms(c.getOrDefault("checksum.nanos", 0L)) : ""));
    }
    for (String a : CostLayout.ALGORITHMS) {
      String k = "decompress." + a + ".";
      long blocks = c.getOrDefault(k + "blocks", 0L);
      if (blocks > 0) {
        parts.add(
            "decompress "
                + a
                + " blocks="
                + n(blocks)
                + " in="
                + n(c.getOrDefault(k + "bytesIn", 0L))
                + " out="
                + n(c.getOrDefault(k + "bytesOut", 0L))
                + (time ? " time=" + ms(c.getOrDefault(k + "nanos", 0L)) : ""));
      }
    }
    for (String e : CostLayout.ENCODINGS) {
      String k = "decode." + e + ".";
      long cells = c.getOrDefault(k + "cells", 0L);
      long seeks = c.getOrDefault(k + "seeks", 0L);
      if (cells > 0 || seeks > 0) {
        parts.add(
            "decode "
                + e
                + " cells="
                + n(cells)
                + " seeks="
                + n(seeks)
                + (time ? " time=" + ms(c.getOrDefault(k + "nanos", 0L)) : ""));
      }
    }
    long memstoreCells = c.getOrDefault("memstore.cells", 0L);
    if (memstoreCells > 0) {
      parts.add(
          "memstore cells="
              + n(memstoreCells)
              + " bytes="
              + n(c.getOrDefault("memstore.bytes", 0L)));
    }
    List<String> hbase = new ArrayList<>();
    for (String m : HBaseScanMetrics.NAMES) {
      Long v = c.get(HBaseScanMetrics.PREFIX + m);
      if (v != null) {
        hbase.add(m + "=" + n(v));
      }
    }
    if (!hbase.isEmpty()) {
      parts.add("HBase " + String.join(" ", hbase));
    }
    return String.join("; ", parts);
  }

  /** " (data=58 leafIndex=1)": the kinds that are not zero, or nothing if only data is. */
  private static String byKind(Map<String, Long> c, String prefix) {
    List<String> kinds = new ArrayList<>();
    for (String k : CostLayout.KINDS) {
      long v = c.getOrDefault(prefix + k, 0L);
      if (v > 0) {
        kinds.add(k + "=" + n(v));
      }
    }
    boolean onlyData = kinds.size() == 1 && kinds.get(0).startsWith("data=");
    return kinds.isEmpty() || onlyData ? "" : " (" + String.join(" ", kinds) + ")";
  }
}
