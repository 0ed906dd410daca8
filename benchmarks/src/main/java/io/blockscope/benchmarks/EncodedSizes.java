package io.blockscope.benchmarks;

import io.blockscope.benchmarks.DataBlocks.Dataset;
import io.blockscope.encoding.BlockscopeEncoding;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.io.WritableUtils;

/**
 * BLOCKSCOPE_V1's size goal: how many bytes each encoding's data blocks take, alone and under GZ
 * and ZSTD, on the datasets of {@code EncoderBenchmark} (same cells, same 64 KB blocks). Exact, not
 * timed: the sizes do not vary between runs.
 *
 * <p>Each dataset is reported twice: in a file with sequence ids (all 0, as the first major
 * compaction of flushed files writes it, and as {@code EncoderBenchmark} runs by default) and in
 * one without (as later major compactions write it); see {@code DataBlocks}.
 *
 * <p>Each block is encoded and then compressed on its own, by the writer's encoding context as
 * {@code HFileBlock.Writer.finishBlock} does it ({@code compressAndEncrypt}); a size is what the
 * block holds after its 33-byte header (the encoding id, the encoded cells, compressed if the
 * column is), summed over all blocks; headers and checksums (4 bytes per 16 KB) are left out: they
 * cost every encoding about the same per block. NONE is the plain KeyValue serialization (with
 * sequence ids if the file has them), as {@code NoOpDataBlockEncoder} writes it. ZSTD is
 * hbase-compression-aircompressor's pure-Java codec, what {@code it-tests} and {@code evaluate}
 * configure (set here explicitly); its level is fixed, so native zstd sizes differ somewhat.
 *
 * <p>Run (after {@code ./mvnw -q -B install -DskipTests}; a few seconds):
 *
 * <pre>
 * java -cp bench/target/classes:$(cat bench/target/classpath.txt) io.blockscope.benchmarks.EncodedSizes [seedRows [peRows]]
 * </pre>
 */
public final class EncodedSizes {
  private static final DataBlockEncoding[] ENCODINGS = {
    DataBlockEncoding.NONE,
    DataBlockEncoding.PREFIX,
    DataBlockEncoding.DIFF,
    DataBlockEncoding.FAST_DIFF,
    DataBlockEncoding.ROW_INDEX_V1,
    null
  }; // null: BLOCKSCOPE_V1, once registered

  private static final Compression.Algorithm[] COMPRESSIONS = {
    Compression.Algorithm.NONE, Compression.Algorithm.GZ, Compression.Algorithm.ZSTD
  };

  private EncodedSizes() {}

  public static void main(String[] args) throws IOException {
    int seedRows = args.length > 0 ? Integer.parseInt(args[0]) : Dataset.SEED.defaultRows;
    int peRows = args.length > 1 ? Integer.parseInt(args[1]) : Dataset.PE.defaultRows;
    DataBlockEncoding[] encodings = ENCODINGS.clone();
    encodings[encodings.length - 1] = BlockscopeEncoding.register();
    Configuration conf = new Configuration(false);
    conf.set(
        Compression.ZSTD_CODEC_CLASS_KEY,
        "org.apache.hadoop.hbase.io.compress.aircompressor.ZstdCodec");
    String zstd = Compression.Algorithm.ZSTD.reload(conf).getClass().getName();
    String gz = Compression.Algorithm.GZ.reload(conf).getClass().getName();
    System.out.println(
        "Data block sizes after the block header, checksums excluded; 64 KB "
            + "blocks; ratio = size / FAST_DIFF's size with the same compression.");
    System.out.println("GZ: " + gz + ", ZSTD: " + zstd);
    for (Dataset d : Dataset.values()) {
      List<KeyValue> cells = d.cells(d == Dataset.SEED ? seedRows : peRows);
      for (boolean mvcc : new boolean[] {true, false}) {
        report(d, cells, mvcc, encodings, conf);
      }
    }
  }

  private static void report(
      Dataset dataset,
      List<KeyValue> cells,
      boolean mvcc,
      DataBlockEncoding[] encodings,
      Configuration conf)
      throws IOException {
    long plain = 0;
    for (KeyValue kv : cells) {
      plain += kv.getLength() + (mvcc ? WritableUtils.getVIntSize(kv.getSequenceId()) : 0);
    }
    System.out.printf(
        Locale.ROOT,
        "%n%s, %s sequence ids: %,d cells, %,d bytes as KeyValues%n",
        dataset.name().toLowerCase(Locale.ROOT),
        mvcc ? "with" : "without",
        cells.size(),
        plain);
    StringBuilder head =
        new StringBuilder(String.format(Locale.ROOT, "%-14s %6s", "encoding", "blocks"));
    for (Compression.Algorithm c : COMPRESSIONS) {
      String name = c == Compression.Algorithm.NONE ? "encoded" : "+" + c.name();
      head.append(String.format(Locale.ROOT, " %12s %6s", name, "ratio"));
    }
    System.out.println(head);

    long[][] sizes = new long[encodings.length][COMPRESSIONS.length];
    int[] blocks = new int[encodings.length];
    for (int e = 0; e < encodings.length; e++) {
      for (int c = 0; c < COMPRESSIONS.length; c++) {
        DataBlocks.Writer w = new DataBlocks.Writer(encodings[e], COMPRESSIONS[c], mvcc, conf);
        long[] total = {0};
        int[] count = {0};
        w.write(
            cells,
            (block, length, first, n) -> {
              total[0] += w.storedSize(block, length);
              count[0]++;
            });
        sizes[e][c] = total[0];
        if (c > 0 && count[0] != blocks[e]) {
          throw new IllegalStateException(
              encodings[e]
                  + " cut "
                  + count[0]
                  + " blocks with "
                  + COMPRESSIONS[c]
                  + " and "
                  + blocks[e]
                  + " without");
        }
        blocks[e] = count[0];
      }
    }
    int fastDiff = indexOf(encodings, DataBlockEncoding.FAST_DIFF);
    for (int e = 0; e < encodings.length; e++) {
      StringBuilder line =
          new StringBuilder(
              String.format(Locale.ROOT, "%-14s %6d", encodings[e].name(), blocks[e]));
      for (int c = 0; c < COMPRESSIONS.length; c++) {
        line.append(
            String.format(
                Locale.ROOT,
                " %,12d %6.3f",
                sizes[e][c],
                (double) sizes[e][c] / sizes[fastDiff][c]));
      }
      System.out.println(line);
    }
  }

  private static int indexOf(DataBlockEncoding[] all, DataBlockEncoding e) {
    for (int i = 0; i < all.length; i++) {
      if (all[i] == e) {
        return i;
      }
    }
    throw new IllegalArgumentException(e + " not among " + Arrays.toString(all));
  }
}
