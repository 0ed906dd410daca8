package io.blockscope.cli;

import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.Stats;
import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything one {@code evaluate} run measured. */
final class Evaluation {
  /** One workload on one configuration. */
  static final class Measured {
    final List<Double> millis = new ArrayList<>();
    final List<Double> latenciesMicros = new ArrayList<>();
    final List<Double> cpuMillis = new ArrayList<>();

    /**
     * Each run's server time in checksums, decompression and decoding of the table's blocks
     * (blockscope's TIME figures); empty where they could not be read.
     */
    final List<Double> serverNanos = new ArrayList<>();

    long rows;
    CostSnapshot medianRunCosts;
    String skipped;

    double medianMillis() {
      return Stats.median(millis);
    }

    /** The median run's server time (see {@link #serverNanos}), or NaN where it was not read. */
    double medianServerNanos() {
      return serverNanos.size() == millis.size() && !millis.isEmpty()
          ? Stats.median(serverNanos)
          : Double.NaN;
    }

    Map<String, Object> toMap(long rawBytes) {
      Map<String, Object> m = new LinkedHashMap<>();
      if (skipped != null) {
        m.put("skipped", skipped);
        return m;
      }
      m.put("runsMillis", millis);
      m.put("medianMillis", medianMillis());
      m.put("minMillis", Stats.min(millis));
      m.put("maxMillis", Stats.max(millis));
      m.put("rows", rows);
      double seconds = medianMillis() / 1000;
      m.put("rowsPerSecond", rows / seconds);
      m.put("rawMBPerSecond", rawBytes / 1048576.0 / seconds);
      if (!latenciesMicros.isEmpty()) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("p50", Stats.quantile(latenciesMicros, 0.50));
        p.put("p95", Stats.quantile(latenciesMicros, 0.95));
        p.put("p99", Stats.quantile(latenciesMicros, 0.99));
        p.put("p999", Stats.quantile(latenciesMicros, 0.999));
        m.put("latencyMicros", p);
      }
      if (!cpuMillis.isEmpty()) {
        double cpu = Stats.median(cpuMillis);
        m.put("processCpuMillis", cpu);
        if (medianRunCosts != null) {
          m.put("checksumShareOfCpu", medianRunCosts.get("checksum.nanos") / 1e6 / cpu);
        }
      }
      if (!serverNanos.isEmpty()) {
        m.put("serverNanosPerRun", serverNanos);
      }
      m.put("costs", medianRunCosts == null ? null : medianRunCosts.nonZero());
      return m;
    }
  }

  /** One configuration and its workloads. */
  static final class ConfigResult {
    final TableConfig config;
    final String table;

    /** What reports call this configuration: the table setting, plus the cache setup if any. */
    String label;

    long storeFileBytes;
    long rawBytes;

    final Map<Workload, Measured> workloads = new LinkedHashMap<>();
    Workload.KeySource keys;

    /** The HBase name of {@link #table} (they differ for Phoenix tables in a schema). */
    final String hbaseTable;

    ConfigResult(TableConfig config, String table, String hbaseTable) {
      this.config = config;
      this.table = table;
      this.hbaseTable = hbaseTable;
      this.label = config.label();
    }

    Measured measured(Workload w) {
      Measured m = workloads.get(w);
      return m == null || m.skipped != null ? null : m;
    }

    /** The cold full scan (Phoenix's or HBase's) whose costs give {@link #rawBytes}, or null. */
    Measured coldScan() {
      Measured m = measured(Workload.SCAN_NO_CACHE);
      return m != null ? m : measured(Workload.RAW_SCAN_NO_CACHE);
    }

    /**
     * Whether {@link #rawBytes} is what a cold full scan put through the cache (its decompressed or
     * read bytes), not the store files' size it falls back to without one.
     */
    boolean cacheBytesMeasured() {
      Measured m = coldScan();
      return m != null && m.medianRunCosts != null;
    }
  }

  final List<ConfigResult> configs = new ArrayList<>();
  Map<String, Object> cluster = new LinkedHashMap<>();
  Map<String, Object> settings = new LinkedHashMap<>();
  String costsUnavailable;

  /** The run's id: the end of its scratch tables' names and their blockscope.evaluate.run. */
  String runId;

  /** What the sampled shape copied from the user's table, or null for the other shapes. */
  io.blockscope.workloads.RawTable.Sample sample;

  /** What a reader of the summary and the report must know about the results (shown with them). */
  final List<String> notes = new ArrayList<>();

  /** Settings asked for but left out of an interleaved replay by its time budget. */
  final List<String> notReplayed = new ArrayList<>();

  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("tool", "blockscope evaluate 0.1.0");
    m.put("runId", runId);
    m.put("cluster", cluster);
    m.put("settings", settings);
    m.put("costsUnavailable", costsUnavailable);
    m.put("notes", notes);
    m.put("notReplayed", notReplayed);
    if (sample != null) {
      Map<String, Object> sm = new LinkedHashMap<>();
      sm.put("rows", sample.rows());
      sm.put("cellBytes", sample.bytes());
      sm.put("regionsRead", sample.regionsRead());
      sm.put("regions", sample.regions());
      sm.put("keysForGets", sample.keys().size());
      m.put("sample", sm);
    }
    Map<String, Object> workloads = new LinkedHashMap<>();
    for (Workload w : Workload.values()) {
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("group", w.group().key());
      d.put("cache", w.cache().name());
      d.put("what", w.description());
      workloads.put(w.key(), d);
    }
    m.put("workloads", workloads);
    List<Object> cs = new ArrayList<>();
    for (ConfigResult c : configs) {
      Map<String, Object> cm = new LinkedHashMap<>();
      cm.put("config", c.label);
      cm.put("encoding", c.config.encoding());
      cm.put("compression", c.config.compression());
      cm.put("table", c.table);
      cm.put("hbaseTable", c.hbaseTable);
      cm.put("storeFileBytes", c.storeFileBytes);
      // what a full scan puts through the cache: its cold scan's decompressed (or read) bytes
      cm.put("cacheBytes", c.cacheBytesMeasured() ? c.rawBytes : null);
      Map<String, Object> ws = new LinkedHashMap<>();
      c.workloads.forEach((w, r) -> ws.put(w.key(), r.toMap(c.rawBytes)));
      cm.put("results", ws);
      cs.add(cm);
    }
    m.put("configs", cs);
    return m;
  }
}
