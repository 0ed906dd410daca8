package io.blockscope.cli;

import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.Stats;
import io.blockscope.workloads.Workload;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The terminal summary of an evaluation: one row per configuration. */
final class Summary {
  private Summary() {}

  static void print(PrintWriter out, Evaluation e, Recommendation rec) {
    List<String> header = new ArrayList<>(List.of("config", "MiB"));
    List<Workload> shown = new ArrayList<>();
    for (Workload w : Workload.values()) {
      if (e.configs.stream().anyMatch(c -> c.workloads.containsKey(w))) {
        shown.add(w);
        if (w == Workload.RAW_GET_10K) {
          header.add(w.key() + " p50/p95/p99/p99.9 us");
          header.add("data block hit %");
        } else {
          header.add(
              w.key()
                  + (w.group() == Workload.Group.GET && w != Workload.INDEX_FILTERED_COUNT
                      ? " p50us"
                      : " ms"));
        }
      }
    }
    header.add("fs blk (nocache)");
    header.add("decoded cells (nocache)");
    boolean cpu =
        e.configs.stream()
            .anyMatch(c -> c.workloads.values().stream().anyMatch(m -> !m.cpuMillis.isEmpty()));
    if (cpu) {
      header.add("checksum % of CPU (nocache scan)");
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(header);
    for (Evaluation.ConfigResult c : e.configs) {
      List<String> r = new ArrayList<>();
      r.add(c.label);
      r.add(String.format(Locale.ROOT, "%.2f", c.storeFileBytes / 1048576.0));
      for (Workload w : shown) {
        Evaluation.Measured m = c.workloads.get(w);
        if (m == null) {
          r.add("");
        } else if (m.skipped != null) {
          r.add("skip");
        } else if (w == Workload.RAW_GET_10K) {
          r.add(
              String.format(
                  Locale.ROOT,
                  "%.0f/%.0f/%.0f/%.0f",
                  Stats.quantile(m.latenciesMicros, 0.5),
                  Stats.quantile(m.latenciesMicros, 0.95),
                  Stats.quantile(m.latenciesMicros, 0.99),
                  Stats.quantile(m.latenciesMicros, 0.999)));
          CostSnapshot g = m.medianRunCosts;
          long lookups =
              g == null ? 0 : g.sumKinds("blockCache.hit") + g.sumKinds("blockCache.miss");
          r.add(
              lookups == 0
                  ? "n/a"
                  : String.format(
                      Locale.ROOT,
                      "%.1f",
                      100.0
                          * g.get("blockCache.hit.data")
                          / (g.get("blockCache.hit.data") + g.get("blockCache.miss.data"))));
        } else if (!m.latenciesMicros.isEmpty()) {
          r.add(String.format(Locale.ROOT, "%.0f", Stats.median(m.latenciesMicros)));
        } else {
          r.add(String.format(Locale.ROOT, "%.0f", m.medianMillis()));
        }
      }
      Evaluation.Measured nc = c.measured(Workload.SCAN_NO_CACHE);
      if (nc == null) {
        nc = c.measured(Workload.RAW_SCAN_NO_CACHE);
      }
      CostSnapshot costs = nc == null ? null : nc.medianRunCosts;
      r.add(
          costs == null
              ? "n/a"
              : String.format(Locale.ROOT, "%,d", costs.sumKinds("fs.read.blocks")));
      r.add(
          costs == null
              ? "n/a"
              : String.format(Locale.ROOT, "%,d", costs.sumOver("decode", "cells")));
      if (cpu) {
        r.add(
            costs == null || nc.cpuMillis.isEmpty()
                ? "n/a"
                : String.format(
                    Locale.ROOT,
                    "%.1f",
                    100 * costs.get("checksum.nanos") / 1e6 / Stats.median(nc.cpuMillis)));
      }
      rows.add(r);
    }
    int[] width = new int[header.size()];
    for (List<String> r : rows) {
      for (int i = 0; i < r.size(); i++) {
        width[i] = Math.max(width[i], r.get(i).length());
      }
    }
    for (List<String> r : rows) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < r.size(); i++) {
        String cell = r.get(i);
        String pad = " ".repeat(width[i] - cell.length());
        sb.append(i == 0 ? cell + pad : "  " + pad + cell);
      }
      out.println(sb.toString().stripTrailing());
    }
    Object sizes = e.cluster == null ? null : e.cluster.get("storeFileSizeResolution");
    if (sizes instanceof String r && r.startsWith("MB")) {
      out.println("Store sizes in whole MB: " + r.substring(r.indexOf(':') + 1).trim());
    }
    if (e.costsUnavailable != null) {
      out.println("Cost columns empty: " + e.costsUnavailable);
    }
    for (String note : e.notes) {
      out.println("Note: " + note);
    }
    out.println();
    out.println(rec.text);
  }
}
