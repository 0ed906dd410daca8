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
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.io.compress.Compressor;
import org.junit.Test;

/**
 * Issue 5's size goal, measured exactly: on the seeds' Phoenix rows and on PerformanceEvaluation
 * rows, cut into 64 KB blocks, BLOCKSCOPE_V1's blocks against FAST_DIFF's, alone and with GZ or
 * ZSTD on each block (as HBase compresses each block after encoding it). Unencoded-on-disk (and
 * in the block cache) BLOCKSCOPE_V1 is smaller; where it measured larger the margin is pinned
 * so it cannot grow unnoticed: seed rows under ZSTD (14-16%, the goal missed) and under GZ
 * without sequence ids (1%), PerformanceEvaluation rows under GZ (0.3%) and ZSTD (0.05%).
 */
public class EncodedSizeTest {
  private static final DataBlockEncoding OURS = BlockscopeEncoding.register();

  /**
   * The seeds' table {@code (pk INTEGER PRIMARY KEY, v1 FLOAT, v2 FLOAT)} as Phoenix 5.2 writes
   * it: row = the INTEGER with its sign bit flipped, family "0", the empty column (Phoenix's
   * reserved qualifiers take four bytes: 00 00 00 00, value 'x'), then v1 and v2 under two-byte
   * encoded qualifiers 0x800B and 0x800C with four-byte float values; one timestamp per 97
   * rows, sequence ids 0 (when the file has them), no tags.
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
      cells.add(new KeyValue(Bytes.toBytes(String.format("%026d", i)), Bytes.toBytes("info"),
          Bytes.toBytes("0"), 1_763_000_000_000L, value));
    }
    return cells;
  }

  private static long size(List<byte[]> blocks, Compression.Algorithm a) throws IOException {
    long total = 0;
    for (byte[] b : blocks) {
      if (a == Compression.Algorithm.NONE) {
        total += b.length;
        continue;
      }
      Compressor c = a.getCompressor();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (OutputStream out = a.createCompressionStream(bytes, c, 0)) {
        out.write(b);
      } finally {
        a.returnCompressor(c);
      }
      total += bytes.size();
    }
    return total;
  }

  /**
   * {@code slack[i]}: how far over FAST_DIFF BLOCKSCOPE_V1 may be with NONE, GZ, ZSTD on top;
   * zero except where it measured larger (pinned so that it cannot grow unnoticed).
   */
  private static void check(String name, List<KeyValue> cells, boolean mvcc, double... slack)
      throws IOException {
    Map<String, long[]> sizes = new LinkedHashMap<>();
    Compression.Algorithm[] algorithms = {Compression.Algorithm.NONE, Compression.Algorithm.GZ,
        Compression.Algorithm.ZSTD};
    for (DataBlockEncoding e : new DataBlockEncoding[] {DataBlockEncoding.PREFIX,
        DataBlockEncoding.DIFF, DataBlockEncoding.FAST_DIFF, DataBlockEncoding.ROW_INDEX_V1,
        OURS}) {
      DataBlockEncoder encoder = e.getEncoder();
      List<byte[]> blocks = Blocks.encodeBlocks(encoder, e, cells, false, mvcc);
      long[] s = new long[algorithms.length];
      for (int i = 0; i < algorithms.length; i++) {
        s[i] = size(blocks, algorithms[i]);
      }
      sizes.put(e.name(), s);
    }
    long unencoded = cells.stream().mapToLong(KeyValue::getLength).sum();
    StringBuilder report = new StringBuilder(name + (mvcc ? ", with" : ", without")
        + " sequence ids, " + cells.size() + " cells, "
        + unencoded + " bytes unencoded (NONE, GZ, ZSTD on top):");
    long[] fastDiff = sizes.get("FAST_DIFF");
    sizes.forEach((e, s) -> report.append(String.format("%n  %-14s %,10d %,10d %,10d"
        + "   vs FAST_DIFF %.3f %.3f %.3f", e, s[0], s[1], s[2], s[0] / (double) fastDiff[0],
        s[1] / (double) fastDiff[1], s[2] / (double) fastDiff[2])));
    System.out.println(report);
    long[] ours = sizes.get(OURS.name());
    for (int i = 0; i < algorithms.length; i++) {
      assertTrue(report + "\n" + algorithms[i] + " over FAST_DIFF by more than allowed",
          ours[i] <= fastDiff[i] * (1 + slack[i]));
    }
  }

  @Test
  public void seedRowsTakeNoMoreThanFastDiff() throws IOException {
    check("seed rows", seedRows(32_768), true, 0, 0, 0.15);
    check("seed rows", seedRows(32_768), false, 0, 0.015, 0.17);
  }

  @Test
  public void performanceEvaluationRowsTakeNoMoreThanFastDiff() throws IOException {
    check("PerformanceEvaluation rows", peRows(4_000), true, 0, 0.0035, 0.001);
    check("PerformanceEvaluation rows", peRows(4_000), false, 0, 0.0035, 0.001);
  }
}
