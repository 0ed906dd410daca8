package io.blockscope.cli;

import io.blockscope.metrics.CostSnapshot;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Prints read costs as an aligned table, one row per scope (region, table, step). */
final class CostTable {
  private static final String[] HEADER = {
    "",
    "cache hit",
    "cache miss",
    "fs blocks",
    "fs MiB",
    "checksum MiB",
    "decomp blocks",
    "decomp MiB out",
    "cells decoded",
    "seeks",
    "checksum ms",
    "decomp ms",
    "decode ms"
  };

  private final List<String[]> rows = new ArrayList<>();

  void add(String label, CostSnapshot s) {
    rows.add(
        new String[] {
          label,
          num(s.sumKinds("blockCache.hit")),
          num(s.sumKinds("blockCache.miss")),
          num(s.sumKinds("fs.read.blocks")),
          mib(s.sumKinds("fs.read.bytes")),
          mib(s.get("checksum.bytes")),
          num(s.sumOver("decompress", "blocks")),
          mib(s.sumOver("decompress", "bytesOut")),
          num(s.sumOver("decode", "cells")),
          num(s.sumOver("decode", "seeks")),
          ms(s.get("checksum.nanos")),
          ms(s.sumOver("decompress", "nanos")),
          ms(s.sumOver("decode", "nanos")),
        });
  }

  void print(PrintStream out) {
    int[] width = new int[HEADER.length];
    List<String[]> all = new ArrayList<>();
    all.add(HEADER);
    all.addAll(rows);
    for (String[] r : all) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    for (String[] r : all) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        String cell = r[i];
        sb.append(i == 0 ? pad(cell, width[i], false) : "  " + pad(cell, width[i], true));
      }
      out.println(sb.toString().stripTrailing());
    }
  }

  private static String pad(String s, int w, boolean right) {
    String fill = " ".repeat(Math.max(0, w - s.length()));
    return right ? fill + s : s + fill;
  }

  private static String num(long v) {
    return String.format(Locale.ROOT, "%,d", v);
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.2f", bytes / 1048576.0);
  }

  private static String ms(long nanos) {
    return nanos == 0 ? "-" : String.format(Locale.ROOT, "%.1f", nanos / 1e6);
  }
}
