package io.blockscope.hints;

import io.blockscope.metrics.HBaseScanMetrics;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.profile.ProfileWire;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A profiled query's server-side costs, per region and in total, as the blockscope coprocessor on
 * each region server recorded them for the query's id. Cost names are blockscope's metric names
 * (docs/metrics.md): {@code blockCache.hit.data}, {@code fs.read.bytes.data}, {@code
 * checksum.nanos}, {@code decompress.GZ.nanos}, {@code decode.FAST_DIFF.cells}, ...
 */
public final class QueryProfile {

  /** One region's part. */
  public static final class Region {
    private final String table;
    private final String region;
    private final long rows;
    private final Map<String, Long> costs;
    private final int level;
    private final int levelReason;

    public Region(String table, String region, long rows, Map<String, Long> costs) {
      this(table, region, rows, costs, -1, -1);
    }

    /**
     * With the level the region measured the query at ({@code PerfLevel} ordinal) and why ({@code
     * ProfileWire.LEVEL_REASONS} index); -1 where the region server did not say.
     */
    public Region(
        String table, String region, long rows, Map<String, Long> costs, int level, int reason) {
      this.table = table;
      this.region = region;
      this.rows = rows;
      this.costs = costs;
      this.level = level;
      this.levelReason = reason;
    }

    /** The level the region measured the query at (OFF, COUNT or TIME), or null if not said. */
    public String level() {
      return level >= 0 && level < PerfLevel.values().length
          ? PerfLevel.values()[level].name()
          : null;
    }

    /** Why the region measured the query at {@link #level()}, or null if not said. */
    public String levelReason() {
      return levelReason >= 0 && levelReason < ProfileWire.LEVEL_REASONS.length
          ? ProfileWire.LEVEL_REASONS[levelReason]
          : null;
    }

    public String table() {
      return table;
    }

    public String region() {
      return region;
    }

    public long rows() {
      return rows;
    }

    public Map<String, Long> costs() {
      return costs;
    }

    public long get(String metric) {
      return costs.getOrDefault(metric, 0L);
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof Region)) {
        return false;
      }
      Region r = (Region) o;
      return Objects.equals(table, r.table)
          && Objects.equals(region, r.region)
          && rows == r.rows
          && Objects.equals(costs, r.costs)
          && level == r.level
          && levelReason == r.levelReason;
    }

    @Override
    public int hashCode() {
      return Objects.hash(table, region, rows, costs, level, levelReason);
    }

    @Override
    public String toString() {
      return "Region[table="
          + table
          + ", region="
          + region
          + ", rows="
          + rows
          + ", costs="
          + costs
          + ", level="
          + level()
          + "]";
    }
  }

  /** What reading the profile back cost: the regions asked, in how many calls, and the time. */
  public static final class Read {
    /** A profile made without asking (tests). */
    static final Read NONE = new Read(0, 0, 0);

    private final int regionsAsked;
    private final int calls;
    private final long nanos;

    Read(int regionsAsked, int calls, long nanos) {
      this.regionsAsked = regionsAsked;
      this.calls = calls;
      this.nanos = nanos;
    }

    /**
     * Regions the profile endpoint was called on: those holding the rows the query's scans read.
     */
    public int regionsAsked() {
      return regionsAsked;
    }

    /** Endpoint calls made, one per run of adjacent regions and table. */
    public int calls() {
      return calls;
    }

    /** The time asking took, in nanoseconds. */
    public long nanos() {
      return nanos;
    }
  }

  private final String queryId;
  private final List<Region> regions;
  private final Read read;

  QueryProfile(String queryId, List<Region> regions) {
    this(queryId, regions, Read.NONE);
  }

  QueryProfile(String queryId, List<Region> regions, Read read) {
    this.queryId = queryId;
    this.regions = Collections.unmodifiableList(new ArrayList<>(regions));
    this.read = read;
  }

  public String queryId() {
    return queryId;
  }

  /** What reading this profile cost. */
  public Read read() {
    return read;
  }

  /** The regions that recorded something for the query, in the order they answered. */
  public List<Region> regions() {
    return regions;
  }

  /** The costs summed over the regions. */
  public Map<String, Long> totals() {
    Map<String, Long> t = new LinkedHashMap<>();
    for (Region r : regions) {
      r.costs().forEach((k, v) -> t.merge(k, v, Long::sum));
    }
    return Collections.unmodifiableMap(t);
  }

  public long total(String metric) {
    return totals().getOrDefault(metric, 0L);
  }

  /** Rows the regions' scanners returned (after HBase-side filters). */
  public long rows() {
    long n = 0;
    for (Region r : regions) {
      n += r.rows();
    }
    return n;
  }

  /** The sum of the costs whose names start with {@code prefix} and end with {@code suffix}. */
  static long sumPrefix(Map<String, Long> costs, String prefix, String suffix) {
    long n = 0;
    for (Map.Entry<String, Long> e : costs.entrySet()) {
      if (e.getKey().startsWith(prefix) && e.getKey().endsWith(suffix)) {
        n += e.getValue();
      }
    }
    return n;
  }

  /** HBase's own scan metrics a profile shows, where the region servers' HBase reported them. */
  private static final List<String> HBASE_COLUMNS =
      Collections.unmodifiableList(
          Arrays.asList(
              "BLOCK_READ_OPS_COUNT",
              "BYTES_READ_FROM_FS",
              "BYTES_READ_FROM_BLOCK_CACHE",
              "BYTES_READ_FROM_MEMSTORE"));

  /** Whether any region reported HBase's own scan metrics (HBase 2.6.4 on). */
  public boolean hasHBaseScanMetrics() {
    for (Region r : regions) {
      for (String k : r.costs().keySet()) {
        if (k.startsWith(HBaseScanMetrics.PREFIX)) {
          return true;
        }
      }
    }
    return false;
  }

  private static List<String> row(String name, long rows, Map<String, Long> c, boolean hbase) {
    List<String> r = new ArrayList<>();
    r.add(name);
    r.add(String.format(Locale.ROOT, "%,d", rows));
    r.add(String.format(Locale.ROOT, "%,d", sumPrefix(c, "blockCache.hit.", "")));
    r.add(String.format(Locale.ROOT, "%,d", sumPrefix(c, "blockCache.miss.", "")));
    r.add(String.format(Locale.ROOT, "%,d", sumPrefix(c, "fs.read.blocks.", "")));
    r.add(String.format(Locale.ROOT, "%,d", sumPrefix(c, "fs.read.bytes.", "")));
    r.add(String.format(Locale.ROOT, "%.1f", c.getOrDefault("checksum.nanos", 0L) / 1e6));
    r.add(String.format(Locale.ROOT, "%.1f", sumPrefix(c, "decompress.", ".nanos") / 1e6));
    r.add(String.format(Locale.ROOT, "%.1f", sumPrefix(c, "decode.", ".nanos") / 1e6));
    r.add(String.format(Locale.ROOT, "%,d", sumPrefix(c, "decode.", ".cells")));
    r.add(String.format(Locale.ROOT, "%,d", c.getOrDefault("memstore.cells", 0L)));
    if (hbase) {
      for (String m : HBASE_COLUMNS) {
        Long v = c.get(HBaseScanMetrics.PREFIX + m);
        r.add(v == null ? "-" : String.format(Locale.ROOT, "%,d", v));
      }
    }
    return r;
  }

  /**
   * The profile as a text block, one line per region and a total, like EXPLAIN ANALYZE. Times are
   * zero unless the query ran at level TIME ({@code PROFILE(TIME)} or the table's level). Where the
   * region servers' HBase reports its own scan metrics (2.6.4 on), four more columns show them
   * beside blockscope's: its file-system blocks and bytes, block-cache bytes and memstore bytes.
   */
  public String toText() {
    boolean hbase = hasHBaseScanMetrics();
    List<List<String>> rows = new ArrayList<>();
    List<String> header =
        new ArrayList<>(
            Arrays.asList(
                "region",
                "rows",
                "cache hits",
                "cache misses",
                "fs blocks",
                "fs bytes",
                "checksum ms",
                "decompress ms",
                "decode ms",
                "cells decoded",
                "memstore cells"));
    if (hbase) {
      header.addAll(
          Arrays.asList(
              "HBase fs blocks", "HBase fs bytes", "HBase cache bytes", "HBase memstore bytes"));
    }
    rows.add(header);
    for (Region r : regions) {
      rows.add(row(r.table() + "/" + r.region(), r.rows(), r.costs(), hbase));
    }
    rows.add(row("total", rows(), totals(), hbase));
    int[] width = new int[rows.get(0).size()];
    for (List<String> r : rows) {
      for (int i = 0; i < r.size(); i++) {
        width[i] = Math.max(width[i], r.get(i).length());
      }
    }
    StringBuilder b =
        new StringBuilder("PROFILE " + queryId + " (" + regions.size() + " regions)\n");
    for (List<String> r : rows) {
      for (int i = 0; i < r.size(); i++) {
        String cell = r.get(i);
        String pad = String.join("", Collections.nCopies(width[i] - cell.length(), " "));
        b.append(i == 0 ? cell + pad : "  " + pad + cell);
      }
      b.append('\n');
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return toText();
  }
}
