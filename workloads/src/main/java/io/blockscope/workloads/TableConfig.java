package io.blockscope.workloads;

import java.util.List;
import java.util.Locale;

/**
 * One column-family setting under test: a data block encoding and a compression, written
 * {@code ENCODING+COMPRESSION} ({@code FAST_DIFF+GZ}); a lone name is an encoding without
 * compression ({@code PREFIX}) or, for a compression name, a compression without encoding
 * ({@code SNAPPY}).
 */
public record TableConfig(String encoding, String compression) {
  public static final List<String> ENCODINGS =
      List.of("NONE", "PREFIX", "DIFF", "FAST_DIFF", "ROW_INDEX_V1");
  public static final List<String> COMPRESSIONS = List.of("NONE", "GZ", "SNAPPY", "LZ4", "ZSTD");

  public TableConfig {
    if (!ENCODINGS.contains(encoding)) {
      throw new IllegalArgumentException("unknown encoding '" + encoding + "'; expected one of "
          + ENCODINGS);
    }
    if (!COMPRESSIONS.contains(compression)) {
      throw new IllegalArgumentException("unknown compression '" + compression
          + "'; expected one of " + COMPRESSIONS);
    }
  }

  /** Parses {@code FAST_DIFF+GZ}, {@code PREFIX} or {@code SNAPPY} (case ignored). */
  public static TableConfig parse(String text) {
    String t = text.trim().toUpperCase(Locale.ROOT);
    int plus = t.indexOf('+');
    if (plus >= 0) {
      return new TableConfig(t.substring(0, plus).trim(), t.substring(plus + 1).trim());
    }
    return COMPRESSIONS.contains(t) && !t.equals("NONE")
        ? new TableConfig("NONE", t) : new TableConfig(t, "NONE");
  }

  /** The seeds' combinations: seed 000's five schemes and seed 002's ZSTD and ROW_INDEX_V1. */
  public static List<TableConfig> seeds() {
    return List.of(parse("NONE"), parse("PREFIX"), parse("FAST_DIFF"), parse("SNAPPY"),
        parse("GZ"), parse("ZSTD"), parse("ROW_INDEX_V1"), parse("ROW_INDEX_V1+GZ"),
        parse("ROW_INDEX_V1+ZSTD"), parse("FAST_DIFF+ZSTD"));
  }

  /** Every encoding crossed with every compression. */
  public static List<TableConfig> full() {
    return ENCODINGS.stream()
        .flatMap(e -> COMPRESSIONS.stream().map(c -> new TableConfig(e, c)))
        .toList();
  }

  /** {@code FAST_DIFF+GZ}; the parts that are NONE are left out, all NONE is {@code NONE}. */
  public String label() {
    if (compression.equals("NONE")) {
      return encoding;
    }
    return encoding.equals("NONE") ? compression : encoding + "+" + compression;
  }

  /** A suffix for table names: letters, digits and underscores only. */
  public String tableSuffix() {
    return (encoding + "_" + compression).replace("ROW_INDEX_V1", "RIV1");
  }

  @Override
  public String toString() {
    return label();
  }
}
