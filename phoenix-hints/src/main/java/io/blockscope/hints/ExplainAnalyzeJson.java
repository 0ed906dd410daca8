package io.blockscope.hints;

import io.blockscope.metrics.Json;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.Stats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * EXPLAIN ANALYZE's JSON form ({@code FORMAT JSON}): the same figures as the text, as one document
 * whose {@code version} says its shape.
 */
final class ExplainAnalyzeJson {
  private ExplainAnalyzeJson() {}

  static String render(ExplainAnalyze.Outcome o) {
    QueryProfile p = o.profile();
    PerfLevel level = o.level();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("version", ExplainAnalyze.JSON_VERSION);
    doc.put("query", o.request().query());
    doc.put("queryId", p.queryId());
    doc.put("level", level.name());
    doc.put("wallNanos", o.wallNanos());
    doc.put("rowsReturned", o.rowsReturned());
    doc.put("plan", o.plan());
    doc.put("extensions", o.extensions());
    Map<String, Object> total = new LinkedHashMap<>();
    total.put("regions", p.regions().size());
    total.put("rows", p.rows());
    total.put("costs", new TreeMap<>(p.totals()));
    doc.put("total", total);
    Map<String, Object> read = new LinkedHashMap<>();
    read.put("regionsAsked", p.read().regionsAsked());
    read.put("calls", p.read().calls());
    read.put("nanos", p.read().nanos());
    doc.put("profileRead", read);
    List<Long> busy = new ArrayList<>();
    List<Object> regions = new ArrayList<>();
    for (QueryProfile.Region r : ExplainAnalyze.busiestFirst(p, level)) {
      long b = ExplainAnalyze.busyness(r.costs(), level);
      busy.add(b);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("table", r.table());
      m.put("region", r.region());
      m.put("rows", r.rows());
      m.put("busyness", b);
      if (r.level() != null) {
        m.put("level", r.level());
        m.put("levelReason", r.levelReason());
      }
      m.put("costs", new TreeMap<>(r.costs()));
      regions.add(m);
    }
    Map<String, Object> skew = new LinkedHashMap<>();
    skew.put("measure", level == PerfLevel.TIME ? "probeNanos" : "blocks");
    long max = busy.isEmpty() ? 0 : busy.get(0);
    long median = Stats.median(busy.stream().mapToLong(Long::longValue).toArray());
    skew.put("max", max);
    skew.put("median", median);
    skew.put("maxOverMedian", median == 0 ? null : (double) max / median);
    doc.put("skew", skew);
    doc.put("regions", regions);
    return QueryExtensions.Head.stripTrailing(Json.write(doc));
  }
}
