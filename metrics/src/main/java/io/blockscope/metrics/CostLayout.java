package io.blockscope.metrics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The one place that knows every read cost blockscope keeps and what it is called.
 *
 * <p>Costs live in flat {@code long[]} slots: a thread accumulates into its own array while it
 * serves a request, and the array is folded into the region's {@link CostAccumulator} when the
 * request ends. The slot numbers are compile-time constants so that the read-path probes, which are
 * injected into the region server's application class loader and may not see this class at run
 * time, carry them inlined.
 *
 * <pre>
 * slot  width            what
 * 0     1                control: profiling level of the thread's current frame (PerfLevel ordinal)
 * 1     1                control: attribution frames open on the thread (0 between calls)
 * 2     1                control: a block cache miss whose block type is not known yet
 * 3     1                control: the decode probe's cell sampling at TIME (counter and flag)
 * 4     KINDS            blockCache.hit.&lt;kind&gt;        lookups that found the block
 * 10    KINDS            blockCache.miss.&lt;kind&gt;       lookups that did not
 * 16    KINDS            fs.read.blocks.&lt;kind&gt;        blocks read from the file system
 * 22    KINDS            fs.read.bytes.&lt;kind&gt;         their on-disk size, header and checksums included
 * 28    4                checksum.{bytes,chunks,nanos,failures}
 * 32    ALGORITHMS x 4   decompress.&lt;alg&gt;.{blocks,bytesIn,bytesOut,nanos}
 * 68    ENCODINGS x 3    decode.&lt;enc&gt;.{seeks,cells,nanos}
 * 89    2                memstore.{cells,bytes}
 * 91                     SIZE
 * </pre>
 */
public final class CostLayout {
  private CostLayout() {}

  /** Block kinds, in slot order. */
  public static final List<String> KINDS =
      Collections.unmodifiableList(
          Arrays.asList("data", "leafIndex", "intermediateIndex", "rootIndex", "bloom", "other"));

  public static final int KIND_DATA = 0;
  public static final int KIND_LEAF_INDEX = 1;
  public static final int KIND_INTERMEDIATE_INDEX = 2;
  public static final int KIND_ROOT_INDEX = 3;
  public static final int KIND_BLOOM = 4;
  public static final int KIND_OTHER = 5;
  public static final int N_KINDS = 6;

  /**
   * Compression algorithms, by HBase's {@code Compression.Algorithm} names; OTHER catches new ones.
   */
  public static final List<String> ALGORITHMS =
      Collections.unmodifiableList(
          Arrays.asList("NONE", "GZ", "LZO", "SNAPPY", "LZ4", "BZIP2", "ZSTD", "LZMA", "OTHER"));

  public static final int N_ALGORITHMS = 9;

  /**
   * Data block encodings: HBase's {@code DataBlockEncoding} names, blockscope's own BLOCKSCOPE_V1
   * (the encoders jar), and OTHER for any seeker the probe does not know.
   */
  public static final List<String> ENCODINGS =
      Collections.unmodifiableList(
          Arrays.asList(
              "NONE", "PREFIX", "DIFF", "FAST_DIFF", "ROW_INDEX_V1", "BLOCKSCOPE_V1", "OTHER"));

  public static final int N_ENCODINGS = 7;

  public static final int LEVEL = 0;
  public static final int DEPTH = 1;
  public static final int PENDING_MISS = 2;
  public static final int CELL_SAMPLING = 3;
  public static final int FIRST_COST = 4;

  public static final int CACHE_HIT = 4;
  public static final int CACHE_MISS = CACHE_HIT + N_KINDS;
  public static final int FS_BLOCKS = CACHE_MISS + N_KINDS;
  public static final int FS_BYTES = FS_BLOCKS + N_KINDS;
  public static final int CHECKSUM_BYTES = FS_BYTES + N_KINDS;
  public static final int CHECKSUM_CHUNKS = CHECKSUM_BYTES + 1;
  public static final int CHECKSUM_NANOS = CHECKSUM_BYTES + 2;
  public static final int CHECKSUM_FAILURES = CHECKSUM_BYTES + 3;
  public static final int DECOMPRESS = CHECKSUM_BYTES + 4;
  public static final int DECOMPRESS_WIDTH = 4;
  public static final int DECOMPRESS_BLOCKS = 0;
  public static final int DECOMPRESS_IN = 1;
  public static final int DECOMPRESS_OUT = 2;
  public static final int DECOMPRESS_NANOS = 3;
  public static final int DECODE = DECOMPRESS + N_ALGORITHMS * DECOMPRESS_WIDTH;
  public static final int DECODE_WIDTH = 3;
  public static final int DECODE_SEEKS = 0;
  public static final int DECODE_CELLS = 1;
  public static final int DECODE_NANOS = 2;

  /**
   * Cells a read took from the memstore (a memstore segment's scanner handed them to the store's
   * scanner), and their serialized size: the reads no block, checksum, decompression or decoding
   * figure sees.
   */
  public static final int MEMSTORE_CELLS = DECODE + N_ENCODINGS * DECODE_WIDTH;

  public static final int MEMSTORE_BYTES = MEMSTORE_CELLS + 1;
  public static final int SIZE = MEMSTORE_BYTES + 1;

  /** What a slot measures, for the metrics reference. */
  public enum Unit {
    COUNT,
    BYTES,
    NANOSECONDS
  }

  private static final List<String> NAMES;

  static {
    String[] names = new String[SIZE];
    for (int k = 0; k < N_KINDS; k++) {
      names[CACHE_HIT + k] = "blockCache.hit." + KINDS.get(k);
      names[CACHE_MISS + k] = "blockCache.miss." + KINDS.get(k);
      names[FS_BLOCKS + k] = "fs.read.blocks." + KINDS.get(k);
      names[FS_BYTES + k] = "fs.read.bytes." + KINDS.get(k);
    }
    names[CHECKSUM_BYTES] = "checksum.bytes";
    names[CHECKSUM_CHUNKS] = "checksum.chunks";
    names[CHECKSUM_NANOS] = "checksum.nanos";
    names[CHECKSUM_FAILURES] = "checksum.failures";
    String[] decompress = {"blocks", "bytesIn", "bytesOut", "nanos"};
    for (int a = 0; a < N_ALGORITHMS; a++) {
      for (int f = 0; f < DECOMPRESS_WIDTH; f++) {
        names[decompress(a, f)] = "decompress." + ALGORITHMS.get(a) + "." + decompress[f];
      }
    }
    String[] decode = {"seeks", "cells", "nanos"};
    for (int e = 0; e < N_ENCODINGS; e++) {
      for (int f = 0; f < DECODE_WIDTH; f++) {
        names[decode(e, f)] = "decode." + ENCODINGS.get(e) + "." + decode[f];
      }
    }
    names[MEMSTORE_CELLS] = "memstore.cells";
    names[MEMSTORE_BYTES] = "memstore.bytes";
    List<String> list = new ArrayList<>(SIZE);
    Collections.addAll(list, names);
    NAMES = Collections.unmodifiableList(list);
  }

  /** The slot of one decompression figure of one algorithm. */
  public static int decompress(int algorithm, int field) {
    return DECOMPRESS + algorithm * DECOMPRESS_WIDTH + field;
  }

  /** The slot of one decoding figure of one encoding. */
  public static int decode(int encoding, int field) {
    return DECODE + encoding * DECODE_WIDTH + field;
  }

  /** True for slots that hold a cost (as opposed to per-thread control state). */
  public static boolean isCost(int slot) {
    return slot >= FIRST_COST && slot < SIZE;
  }

  /**
   * True for cost slots that HBase never fills: decompression by NONE (no decompression runs) and
   * decoding by NONE (unencoded blocks have no seeker). They keep their slots so the layout stays
   * regular, but are not exported.
   */
  public static boolean alwaysZero(int slot) {
    return (slot >= DECOMPRESS && slot < DECOMPRESS + DECOMPRESS_WIDTH)
        || (slot >= DECODE && slot < DECODE + DECODE_WIDTH);
  }

  /** The metric name of a cost slot, e.g. {@code blockCache.miss.data}. */
  public static String name(int slot) {
    if (!isCost(slot)) {
      throw new IllegalArgumentException("slot " + slot + " is not a cost");
    }
    return NAMES.get(slot);
  }

  /** The slot of a metric name, or -1. */
  public static int slotOf(String name) {
    int i = NAMES.indexOf(name);
    return i >= FIRST_COST ? i : -1;
  }

  /** The unit of a cost slot. */
  public static Unit unit(int slot) {
    String n = name(slot);
    if (n.endsWith(".nanos")) {
      return Unit.NANOSECONDS;
    }
    if (n.contains(".bytes") || n.endsWith("bytesIn") || n.endsWith("bytesOut")) {
      return Unit.BYTES;
    }
    return Unit.COUNT;
  }

  /** The lowest profiling level at which a slot is filled. */
  public static PerfLevel level(int slot) {
    return unit(slot) == Unit.NANOSECONDS ? PerfLevel.TIME : PerfLevel.COUNT;
  }

  /** Index of an HBase compression algorithm name in {@link #ALGORITHMS}, OTHER if unknown. */
  public static int algorithmIndex(String hbaseName) {
    int i = ALGORITHMS.indexOf(hbaseName);
    return i < 0 ? N_ALGORITHMS - 1 : i;
  }

  /** Index of an HBase data block encoding name in {@link #ENCODINGS}, OTHER if unknown. */
  public static int encodingIndex(String hbaseName) {
    int i = ENCODINGS.indexOf(hbaseName);
    return i < 0 ? N_ENCODINGS - 1 : i;
  }

  /**
   * A single figure that ranks regions for the top-N export: the block accesses (cache hits and
   * misses of every kind) a region served. It is a count that every level above OFF fills, so the
   * ranking does not change when a region is switched between COUNT and TIME.
   */
  public static long activity(LongSlotReader costs) {
    long sum = 0;
    for (int k = 0; k < N_KINDS; k++) {
      sum += costs.get(CACHE_HIT + k) + costs.get(CACHE_MISS + k);
    }
    return sum;
  }

  /** Reads one slot of some cost holder. */
  @FunctionalInterface
  public interface LongSlotReader {
    long get(int slot);
  }
}
