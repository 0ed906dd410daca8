package io.blockscope.workloads;

import java.util.List;
import java.util.Locale;

/**
 * One column-family setting under test: a data block encoding and a compression, written {@code
 * ENCODING+COMPRESSION} ({@code FAST_DIFF+GZ}); a lone name is an encoding without compression
 * ({@code PREFIX}) or, for a compression name, a compression without encoding ({@code SNAPPY}). A
 * block size and a bloom filter type may follow, each after an {@code @} ({@code
 * FAST_DIFF+GZ@16K@ROWCOL}); without them the family keeps its own ({@code blockSize} 0, {@code
 * bloom} empty).
 */
public record TableConfig(
    String encoding, String compression, String checksum, int blockSize, String bloom) {
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

  /** Bloom filter types a setting may name ({@code ROWPREFIX_*} need a length, not taken here). */
  public static final List<String> BLOOMS = List.of("NONE", "ROW", "ROWCOL");

  /** The smallest and largest block size a setting may name. */
  public static final int MIN_BLOCK_SIZE = 1024;

  public static final int MAX_BLOCK_SIZE = 16 << 20;

  public TableConfig(String encoding, String compression) {
    this(encoding, compression, "DEFAULT");
  }

  public TableConfig(String encoding, String compression, String checksum) {
    this(encoding, compression, checksum, 0, "");
  }

  public TableConfig {
    if (blockSize != 0 && (blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE)) {
      throw new IllegalArgumentException(
          "block size " + blockSize + " is out of range (1K to 16M)");
    }
    if (!bloom.isEmpty() && !BLOOMS.contains(bloom)) {
      throw new IllegalArgumentException(
          "unknown bloom filter type '" + bloom + "'; expected one of " + BLOOMS);
    }
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
   * Parses {@code FAST_DIFF+GZ}, {@code PREFIX}, {@code SNAPPY}, {@code NONE/CRC32} or {@code
   * FAST_DIFF@16K@ROWCOL} (case ignored).
   */
  public static TableConfig parse(String text) {
    String t = text.trim().toUpperCase(Locale.ROOT);
    int slash = t.indexOf('/');
    if (slash >= 0) {
      TableConfig base = parse(t.substring(0, slash));
      return new TableConfig(
          base.encoding(),
          base.compression(),
          t.substring(slash + 1).trim(),
          base.blockSize(),
          base.bloom());
    }
    int at = t.indexOf('@');
    if (at >= 0) {
      TableConfig base = parse(t.substring(0, at));
      int blockSize = 0;
      String bloom = "";
      for (String part : t.substring(at + 1).split("@", -1)) {
        String p = part.trim();
        if (BLOOMS.contains(p) && bloom.isEmpty()) {
          bloom = p;
        } else if (p.matches("[0-9]+[KM]?") && blockSize == 0) {
          blockSize = size(p);
        } else {
          throw new IllegalArgumentException(
              "bad setting '"
                  + text.trim()
                  + "': '"
                  + part
                  + "' is neither a block size (16K, 65536, 1M) nor a bloom filter type "
                  + BLOOMS
                  + ", or it is given twice");
        }
      }
      return new TableConfig(base.encoding(), base.compression(), "DEFAULT", blockSize, bloom);
    }
    int plus = t.indexOf('+');
    if (plus >= 0) {
      return new TableConfig(t.substring(0, plus).trim(), t.substring(plus + 1).trim());
    }
    return COMPRESSIONS.contains(t) && !t.equals("NONE")
        ? new TableConfig("NONE", t)
        : new TableConfig(t, "NONE");
  }

  private static int size(String p) {
    long unit = p.endsWith("K") ? 1024 : p.endsWith("M") ? 1 << 20 : 1;
    String digits = unit == 1 ? p : p.substring(0, p.length() - 1);
    long v = digits.length() > 9 ? Long.MAX_VALUE : Long.parseLong(digits) * unit;
    if (v < MIN_BLOCK_SIZE || v > MAX_BLOCK_SIZE) {
      throw new IllegalArgumentException("block size " + p + " is out of range (1K to 16M)");
    }
    return (int) v;
  }

  /** {@code 16K}, {@code 1M} or the bytes where they are not a whole number of either. */
  static String sizeLabel(int bytes) {
    if (bytes % (1 << 20) == 0) {
      return bytes / (1 << 20) + "M";
    }
    return bytes % 1024 == 0 ? bytes / 1024 + "K" : Integer.toString(bytes);
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
        .map(c -> new TableConfig(encoding, compression, c, blockSize, bloom))
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
   * {@code FAST_DIFF+GZ}; the parts that are NONE are left out, all NONE is {@code NONE}; a block
   * size and a bloom filter type follow after {@code @} when set ({@code FAST_DIFF@16K@ROWCOL}), a
   * checksum other than DEFAULT after a slash: {@code NONE/CRC32}.
   */
  public String label() {
    String base =
        compression.equals("NONE")
            ? encoding
            : encoding.equals("NONE") ? compression : encoding + "+" + compression;
    if (blockSize != 0) {
      base += "@" + sizeLabel(blockSize);
    }
    if (!bloom.isEmpty()) {
      base += "@" + bloom;
    }
    return checksum.equals("DEFAULT") ? base : base + "/" + checksum;
  }

  /** A suffix for table names: letters, digits and underscores only. */
  public String tableSuffix() {
    String s = (encoding + "_" + compression).replace("ROW_INDEX_V1", "RIV1");
    if (blockSize != 0) {
      s += "_B" + sizeLabel(blockSize);
    }
    if (!bloom.isEmpty()) {
      s += "_" + bloom;
    }
    return checksum.equals("DEFAULT") ? s : s + "_" + checksum.replace("-", "_");
  }

  @Override
  public String toString() {
    return label();
  }
}
