package io.blockscope.workloads;

import java.util.List;
import java.util.Locale;

/**
 * One column-family setting under test: a data block encoding and a compression, written {@code
 * ENCODING+COMPRESSION} ({@code FAST_DIFF+GZ}); a lone name is an encoding without compression
 * ({@code PREFIX}) or, for a compression name, a compression without encoding ({@code SNAPPY}).
 */
public record TableConfig(String encoding, String compression, String checksum) {
  public static final List<String> ENCODINGS =
      List.of("NONE", "PREFIX", "DIFF", "FAST_DIFF", "ROW_INDEX_V1");

  /**
   * Encodings accepted when named ({@code --configs BLOCKSCOPE_V1}) but in no matrix: they exist
   * only on clusters that registered them (docs/encoder.md; the embedded cluster does), and the
   * master's guard refuses them elsewhere.
   */
  public static final List<String> EXTRA_ENCODINGS = List.of("BLOCKSCOPE_V1");

  public static final List<String> COMPRESSIONS = List.of("NONE", "GZ", "SNAPPY", "LZ4", "ZSTD");

  /**
   * Checksum settings of {@code --suite checksum} (seed 001): the column family's {@code
   * hbase.hstore.checksum.algorithm}, or CRC32C with HBase's own verification switched off ({@code
   * hbase.regionserver.checksum.verify=false}, HDFS verifies instead). DEFAULT leaves the cluster's
   * setting alone.
   */
  public static final List<String> CHECKSUMS =
      List.of("DEFAULT", "CRC32C", "CRC32", "NULL", "CRC32C-NOVERIFY");

  public TableConfig(String encoding, String compression) {
    this(encoding, compression, "DEFAULT");
  }

  public TableConfig {
    if (!CHECKSUMS.contains(checksum)) {
      throw new IllegalArgumentException(
          "unknown checksum '" + checksum + "'; expected one of " + CHECKSUMS);
    }
    if (!ENCODINGS.contains(encoding) && !EXTRA_ENCODINGS.contains(encoding)) {
      throw new IllegalArgumentException(
          "unknown encoding '"
              + encoding
              + "'; expected one of "
              + ENCODINGS
              + " or "
              + EXTRA_ENCODINGS);
    }
    if (!COMPRESSIONS.contains(compression)) {
      throw new IllegalArgumentException(
          "unknown compression '" + compression + "'; expected one of " + COMPRESSIONS);
    }
  }

  /**
   * Parses {@code FAST_DIFF+GZ}, {@code PREFIX}, {@code SNAPPY} or {@code NONE/CRC32} (case
   * ignored).
   */
  public static TableConfig parse(String text) {
    String t = text.trim().toUpperCase(Locale.ROOT);
    int slash = t.indexOf('/');
    if (slash >= 0) {
      TableConfig base = parse(t.substring(0, slash));
      return new TableConfig(base.encoding(), base.compression(), t.substring(slash + 1).trim());
    }
    int plus = t.indexOf('+');
    if (plus >= 0) {
      return new TableConfig(t.substring(0, plus).trim(), t.substring(plus + 1).trim());
    }
    return COMPRESSIONS.contains(t) && !t.equals("NONE")
        ? new TableConfig("NONE", t)
        : new TableConfig(t, "NONE");
  }

  /** The seeds' combinations: seed 000's five schemes and seed 002's ZSTD and ROW_INDEX_V1. */
  public static List<TableConfig> seeds() {
    return List.of(
        parse("NONE"),
        parse("PREFIX"),
        parse("FAST_DIFF"),
        parse("SNAPPY"),
        parse("GZ"),
        parse("ZSTD"),
        parse("ROW_INDEX_V1"),
        parse("ROW_INDEX_V1+GZ"),
        parse("ROW_INDEX_V1+ZSTD"),
        parse("FAST_DIFF+ZSTD"));
  }

  /** Every encoding crossed with every compression. */
  public static List<TableConfig> full() {
    return ENCODINGS.stream()
        .flatMap(e -> COMPRESSIONS.stream().map(c -> new TableConfig(e, c)))
        .toList();
  }

  /** The checksum variants of seed 001 on this encoding and compression. */
  public List<TableConfig> checksumVariants() {
    return CHECKSUMS.stream()
        .filter(c -> !c.equals("DEFAULT"))
        .map(c -> new TableConfig(encoding, compression, c))
        .toList();
  }

  /** HBase verifies this table's checksums itself (not for the NOVERIFY variant). */
  public boolean hbaseVerifies() {
    return !checksum.endsWith("-NOVERIFY");
  }

  /** The value for {@code hbase.hstore.checksum.algorithm}, or null to keep the cluster's. */
  public String checksumAlgorithm() {
    return checksum.equals("DEFAULT") ? null : checksum.replace("-NOVERIFY", "");
  }

  /**
   * {@code FAST_DIFF+GZ}; the parts that are NONE are left out, all NONE is {@code NONE}; a
   * checksum other than DEFAULT follows a slash: {@code NONE/CRC32}.
   */
  public String label() {
    String base =
        compression.equals("NONE")
            ? encoding
            : encoding.equals("NONE") ? compression : encoding + "+" + compression;
    return checksum.equals("DEFAULT") ? base : base + "/" + checksum;
  }

  /** A suffix for table names: letters, digits and underscores only. */
  public String tableSuffix() {
    String s = (encoding + "_" + compression).replace("ROW_INDEX_V1", "RIV1");
    return checksum.equals("DEFAULT") ? s : s + "_" + checksum.replace("-", "_");
  }

  @Override
  public String toString() {
    return label();
  }
}
