package io.blockscope.encoding;

import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.compress.aircompressor.Lz4Codec;
import org.apache.hadoop.hbase.io.compress.aircompressor.SnappyCodec;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.Compressor;
import org.apache.hadoop.util.ReflectionUtils;
import org.junit.Test;

/**
 * BLOCKSCOPE_V1's size goal, measured exactly: on the seeds' Phoenix rows and on
 * PerformanceEvaluation rows, cut into 64 KB blocks, BLOCKSCOPE_V1's blocks may take no more bytes
 * than FAST_DIFF's, alone and with GZ, either ZSTD, SNAPPY or LZ4 on each block (as HBase
 * compresses each block after encoding it), in files with and without sequence ids. The margins are
 * thin in places (PE rows: 0.1% under the embedded cluster's ZSTD), so a format change that costs
 * bytes fails here.
 */
public class EncodedSizeTest {
  private static final DataBlockEncoding OURS = BlockscopeEncoding.register();

  /**
   * The seeds' table {@code (pk INTEGER PRIMARY KEY, v1 FLOAT, v2 FLOAT)} as Phoenix 5.2 writes it:
   * row = the INTEGER with its sign bit flipped, family "0", the empty column (Phoenix's reserved
   * qualifiers take four bytes: 00 00 00 00, value 'x'), then v1 and v2 under two-byte encoded
   * qualifiers 0x800B and 0x800C with four-byte float values; one timestamp per 97 rows, sequence
   * ids 0 (when the file has them), no tags.
   */
  static List<KeyValue> seedRows(int rows) {
    Random r = new Random(2024);
    List<KeyValue> cells = new ArrayList<>();
    byte[] family = Bytes.toBytes("0");
    byte[][] qualifiers = {{0, 0, 0, 0}, {(byte) 0x80, 11}, {(byte) 0x80, 12}};
    for (int pk = 0; pk < rows; pk++) {
      byte[] row = Bytes.toBytes(pk ^ Integer.MIN_VALUE);
      long ts = 1_763_000_000_000L + pk / 97;
      cells.add(new KeyValue(row, family, qualifiers[0], ts, new byte[] {'x'}));
      cells.add(new KeyValue(row, family, qualifiers[1], ts, Bytes.toBytes(r.nextFloat())));
      cells.add(new KeyValue(row, family, qualifiers[2], ts, Bytes.toBytes(r.nextFloat())));
    }
    return cells;
  }

  /** PerformanceEvaluation's rows: 26-digit keys, family "info", qualifier "0", 1000 bytes. */
  static List<KeyValue> peRows(int rows) {
    Random r = new Random(2025);
    List<KeyValue> cells = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      byte[] value = new byte[1000];
      for (int j = 0; j < value.length; j++) {
        value[j] = (byte) ('a' + r.nextInt(26));
      }
      cells.add(
          new KeyValue(
              Bytes.toBytes(String.format("%026d", i)),
              Bytes.toBytes("info"),
              Bytes.toBytes("0"),
              1_763_000_000_000L,
              value));
    }
    return cells;
  }

  /**
   * What goes on top of the encoding, block by block as HBase compresses each block: nothing, GZ,
   * ZSTD as production clusters run it (hbase-compression-zstd: zstd-jni, native zstd, HBase's
   * default level 3), ZSTD as the embedded cluster runs it (hbase-compression-aircompressor, pure
   * Java), and SNAPPY and LZ4 (aircompressor's, which write the formats of the native libraries).
   */
  private static final String[] ON_TOP = {
    "NONE", "GZ", "ZSTD", "ZSTD-aircompressor", "SNAPPY", "LZ4"
  };

  private static final CompressionCodec[] CODECS = {
    null,
    null,
    ReflectionUtils.newInstance(
        org.apache.hadoop.hbase.io.compress.zstd.ZstdCodec.class, new Configuration()),
    ReflectionUtils.newInstance(
        org.apache.hadoop.hbase.io.compress.aircompressor.ZstdCodec.class, new Configuration()),
    ReflectionUtils.newInstance(SnappyCodec.class, new Configuration()),
    ReflectionUtils.newInstance(Lz4Codec.class, new Configuration())
  };

  private static long size(List<byte[]> blocks, int onTop) throws IOException {
    long total = 0;
    for (byte[] b : blocks) {
      if (onTop == 0) {
        total += b.length;
        continue;
      }
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      if (onTop == 1) {
        Compression.Algorithm gz = Compression.Algorithm.GZ;
        Compressor c = gz.getCompressor();
        try (OutputStream out = gz.createCompressionStream(bytes, c, 0)) {
          out.write(b);
        } finally {
          gz.returnCompressor(c);
        }
      } else {
        CompressionCodec codec = CODECS[onTop];
        try (OutputStream out = codec.createOutputStream(bytes, codec.createCompressor())) {
          out.write(b);
        }
      }
      total += bytes.size();
    }
    return total;
  }

  /** The bytes of {@code cells} in 64 KB blocks of {@code encoder}, with each of ON_TOP on top. */
  private static long[] sizes(
      DataBlockEncoding e, DataBlockEncoder encoder, List<KeyValue> cells, boolean mvcc)
      throws IOException {
    List<byte[]> blocks = Blocks.encodeBlocks(encoder, e, cells, false, mvcc);
    long[] s = new long[ON_TOP.length];
    for (int i = 0; i < ON_TOP.length; i++) {
      s[i] = size(blocks, i);
    }
    return s;
  }

  /** BLOCKSCOPE_V1 takes no more bytes than FAST_DIFF with anything on top. */
  private static void check(String name, List<KeyValue> cells, boolean mvcc) throws IOException {
    Map<String, long[]> sizes = new LinkedHashMap<>();
    for (DataBlockEncoding e :
        new DataBlockEncoding[] {
          DataBlockEncoding.PREFIX,
          DataBlockEncoding.DIFF,
          DataBlockEncoding.FAST_DIFF,
          DataBlockEncoding.ROW_INDEX_V1,
          OURS
        }) {
      sizes.put(e.name(), sizes(e, e.getEncoder(), cells, mvcc));
    }
    // -Dsizes.intervals=32,48,56,64: BLOCKSCOPE_V1 with other group sizes too, printed only
    // (how DEFAULT_INTERVAL was chosen)
    for (String interval : System.getProperty("sizes.intervals", "").split(",")) {
      if (!interval.isBlank()) {
        sizes.put(
            "  groups of " + interval.trim(),
            sizes(OURS, new BlockscopeV1Encoder(Integer.parseInt(interval.trim())), cells, mvcc));
      }
    }
    long unencoded = cells.stream().mapToLong(KeyValue::getLength).sum();
    StringBuilder report =
        new StringBuilder(
            name
                + (mvcc ? ", with" : ", without")
                + " sequence ids, "
                + cells.size()
                + " cells, "
                + unencoded
                + " bytes unencoded ("
                + String.join(", ", ON_TOP)
                + " on top):");
    long[] fastDiff = sizes.get("FAST_DIFF");
    sizes.forEach(
        (e, s) -> {
          report.append(String.format("%n  %-14s", e));
          for (long v : s) {
            report.append(String.format(" %,10d", v));
          }
          report.append("   vs FAST_DIFF");
          for (int i = 0; i < s.length; i++) {
            report.append(String.format(" %.3f", s[i] / (double) fastDiff[i]));
          }
        });
    System.out.println(report);
    long[] ours = sizes.get(OURS.name());
    for (int i = 0; i < ON_TOP.length; i++) {
      assertTrue(
          report + "\n" + ON_TOP[i] + " over FAST_DIFF by more than allowed",
          ours[i] <= fastDiff[i]);
    }
  }

  @Test
  public void seedRowsTakeNoMoreThanFastDiff() throws IOException {
    check("seed rows", seedRows(32_768), true);
    check("seed rows", seedRows(32_768), false);
  }

  @Test
  public void performanceEvaluationRowsTakeNoMoreThanFastDiff() throws IOException {
    check("PerformanceEvaluation rows", peRows(4_000), true);
    check("PerformanceEvaluation rows", peRows(4_000), false);
  }
}
