package io.blockscope.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.TableName;
import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/**
 * A table's live reads over a window, summed over the region servers that serve it: HBase's own
 * per-table request counts (gets, and scan RPCs: each {@code next} a scanner makes) and
 * blockscope's table series (cache hits and misses by block kind, blocks read, cells decoded, cache
 * reuse). Pure figures; {@link Advise} reads the servers.
 */
final class LiveMix {
  /** One server's reading: blockscope's table series by name, and HBase's request counts. */
  record Reading(
      String server, Map<String, Long> series, long gets, long scans, boolean requests) {}

  /** The least blocks a piece of cache advice rests on; fewer say nothing either way. */
  static final long MIN_BLOCKS = 100;

  /**
   * The share of inserted data blocks evicted unread from which scans are told to skip the cache.
   */
  static final double UNREAD_SHARE = 0.5;

  /** The index or bloom miss ratio from which their caching on write or prefetch is advised. */
  static final double META_MISS_RATIO = 0.1;

  final Map<String, Long> series = new TreeMap<>();
  long gets;
  long scans;
  boolean requestsKnown;
  int servers;
  double seconds;

  /**
   * What each server read between two readings: the difference of every counter, a counter that
   * went down (the server restarted, the region moved back) counting from zero, as {@code top}
   * does.
   */
  static LiveMix between(List<Reading> before, List<Reading> after, double seconds) {
    LiveMix m = new LiveMix();
    m.seconds = seconds;
    Map<String, Reading> earlier = new LinkedHashMap<>();
    for (Reading r : before) {
      earlier.put(r.server(), r);
    }
    for (Reading a : after) {
      Reading b = earlier.get(a.server());
      m.servers++;
      a.series()
          .forEach(
              (name, v) ->
                  m.series.merge(
                      name, TopView.delta(b == null ? null : b.series().get(name), v), Long::sum));
      m.gets += TopView.delta(b == null ? null : b.gets(), a.gets());
      m.scans += TopView.delta(b == null ? null : b.scans(), a.scans());
      m.requestsKnown |= a.requests();
    }
    return m;
  }

  long series(String name) {
    return series.getOrDefault(name, 0L);
  }

  long hits(String kind) {
    return series("blockCache.hit." + kind);
  }

  long misses(String kind) {
    return series("blockCache.miss." + kind);
  }

  /** Data block lookups: blockscope's count of reads' work when HBase's request counts are off. */
  long dataLookups() {
    return hits("data") + misses("data");
  }

  /** No read reached the table in the window. */
  boolean empty() {
    return gets + scans == 0 && dataLookups() == 0 && cellsDecoded() == 0;
  }

  /** Cells decoded, over every encoding. */
  long cellsDecoded() {
    long n = 0;
    for (Map.Entry<String, Long> e : series.entrySet()) {
      if (e.getKey().startsWith("decode.") && e.getKey().endsWith(".cells")) {
        n += e.getValue();
      }
    }
    return n;
  }

  /** The share of gets among the table's reads (0.5 when HBase's request counts are off). */
  double getShare() {
    return gets + scans == 0 ? 0.5 : gets / (double) (gets + scans);
  }

  /** The data blocks' hit ratio, or NaN without a lookup. */
  double dataHitRatio() {
    long n = dataLookups();
    return n == 0 ? Double.NaN : hits("data") / (double) n;
  }

  /** The replay's weights: gets and scans as the window's mix, size as given. */
  Recommendation.Weights weights(double size) {
    double g = getShare();
    return new Recommendation.Weights(1 - g, g, size);
  }

  /**
   * HBase's request counts for {@code table} from one {@code /jmx} answer: 2.6's per-table bean
   * ({@code sub=TableRequests_Namespace_<ns>_table_<t>}, {@code GetTime_num_ops}, {@code
   * ScanTime_num_ops}) or 2.5's bean of all tables ({@code sub=TableLatencies}, {@code
   * Namespace_<ns>_table_<t>_metric_getTime_num_ops}); null when neither names the table (no region
   * of it here yet, or {@code hbase.regionserver.enable.table.latencies=false}).
   */
  static long[] requests(String json, TableName table) {
    String prefix = metricsName(table);
    JsonElement root = JsonParser.parseString(json);
    if (!root.isJsonObject() || !root.getAsJsonObject().has("beans")) {
      return null;
    }
    for (JsonElement e : root.getAsJsonObject().getAsJsonArray("beans")) {
      JsonObject bean = e.getAsJsonObject();
      String name = bean.has("name") ? bean.get("name").getAsString() : "";
      if (name.endsWith("sub=TableRequests_" + prefix)) {
        return new long[] {count(bean, "getTime_num_ops"), count(bean, "scanTime_num_ops")};
      }
      if (name.endsWith("sub=TableLatencies")
          && bean.keySet().stream()
              .anyMatch(k -> k.equalsIgnoreCase(prefix + "_metric_getTime_num_ops"))) {
        return new long[] {
          count(bean, prefix + "_metric_getTime_num_ops"),
          count(bean, prefix + "_metric_scanTime_num_ops")
        };
      }
    }
    return null;
  }

  /**
   * A counter of the bean, its name matched in any case: HBase 2.6's adapter capitalizes the
   * histograms' names ({@code GetTime_num_ops}) that its code spells {@code getTime}.
   */
  private static long count(JsonObject bean, String attribute) {
    for (Map.Entry<String, JsonElement> e : bean.entrySet()) {
      if (e.getKey().equalsIgnoreCase(attribute) && e.getValue().isJsonPrimitive()) {
        return e.getValue().getAsLong();
      }
    }
    return 0;
  }

  /** How HBase's per-table metrics name a table: {@code Namespace_<ns>_table_<qualifier>}. */
  private static String metricsName(TableName table) {
    return "Namespace_" + table.getNamespaceAsString() + "_table_" + table.getQualifierAsString();
  }

  /** The {@code /jmx} queries {@link #requests} reads, 2.6's then 2.5's. */
  static List<String> requestQueries(TableName table) {
    String prefix = metricsName(table);
    return List.of(
        "Hadoop:service=HBase,name=RegionServer,sub=TableRequests_" + prefix,
        "Hadoop:service=HBase,name=RegionServer,sub=TableLatencies");
  }

  /**
   * The block cache advice the window's figures support, each with the figures behind it; empty
   * when they support none (or too few blocks were seen to say).
   */
  List<String> cacheAdvice(String hbaseTable, List<String> families, boolean phoenix) {
    List<String> advice = new ArrayList<>();
    long inserted = series("blockCache.inserted.data");
    long unread = series("blockCache.evictedUnread.data");
    if (inserted >= MIN_BLOCKS && unread >= UNREAD_SHARE * inserted) {
      String hint = phoenix ? "SELECT /*+ NO_CACHE */" : "Scan.setCacheBlocks(false)";
      String off =
          "alter "
              + Advice.rubyString(hbaseTable)
              + ", "
              + String.join(
                  ", ",
                  families.stream()
                      .map(f -> "{NAME => " + Advice.rubyString(f) + ", BLOCKCACHE => false}")
                      .toList());
      advice.add(
          String.format(
              Locale.ROOT,
              "%.0f%% of the data blocks its reads put in the block cache were evicted without a"
                  + " single hit (%,d of %,d in the window; data hit ratio %s). Read its scans"
                  + " with %s, so they stop evicting other tables' blocks; if its gets do not"
                  + " need the cache either, take it out of the cache: %s",
              100.0 * unread / inserted,
              unread,
              inserted,
              percent(dataHitRatio()),
              hint,
              off));
    }
    long indexHits = hits("leafIndex") + hits("intermediateIndex") + hits("rootIndex");
    long indexMisses = misses("leafIndex") + misses("intermediateIndex") + misses("rootIndex");
    adviseOnWrite(
        advice,
        "index",
        indexHits,
        indexMisses,
        hbaseTable,
        families,
        "CACHE_INDEX_ON_WRITE => true");
    adviseOnWrite(
        advice,
        "bloom",
        hits("bloom"),
        misses("bloom"),
        hbaseTable,
        families,
        "CACHE_BLOOMS_ON_WRITE => true");
    return advice;
  }

  private static void adviseOnWrite(
      List<String> advice,
      String kind,
      long hits,
      long misses,
      String table,
      List<String> families,
      String setting) {
    long lookups = hits + misses;
    if (lookups < MIN_BLOCKS || misses < META_MISS_RATIO * lookups) {
      return;
    }
    String alter =
        "alter "
            + Advice.rubyString(table)
            + ", "
            + String.join(
                ", ",
                families.stream()
                    .map(f -> "{NAME => " + Advice.rubyString(f) + ", " + setting + "}")
                    .toList());
    advice.add(
        String.format(
            Locale.ROOT,
            "%.0f%% of its %s block lookups missed the cache (%,d of %,d): each miss reads the"
                + " block from the file system before the data block. Cache them when a flush or"
                + " compaction writes them: %s (files written before stay as they are until"
                + " compacted; PREFETCH_BLOCKS_ON_OPEN => true also loads every block of a file,"
                + " data too, when it opens: for a table whose data fits the cache)",
            100.0 * misses / lookups,
            kind,
            misses,
            lookups,
            alter));
  }

  static String percent(double ratio) {
    return Double.isNaN(ratio) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100 * ratio);
  }

  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seconds", seconds);
    m.put("servers", servers);
    m.put("gets", requestsKnown ? gets : null);
    m.put("scanRpcs", requestsKnown ? scans : null);
    m.put("getShare", getShare());
    m.put("dataHitRatio", Advice.num(dataHitRatio()));
    Map<String, Long> nonZero = new TreeMap<>();
    series.forEach(
        (k, v) -> {
          if (v != 0) {
            nonZero.put(k, v);
          }
        });
    m.put("series", nonZero);
    return m;
  }
}
