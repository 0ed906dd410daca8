package io.blockscope.benchmarks;

import io.blockscope.encoding.BlockscopeEncoding;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellComparatorImpl;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder.EncodedSeeker;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.encoding.HFileBlockDecodingContext;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.nio.SingleByteBuff;
import org.apache.hadoop.hbase.util.ByteBufferUtils;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * BLOCKSCOPE_V1's timing goals against every data block encoding with a seeker (PREFIX, DIFF,
 * FAST_DIFF, ROW_INDEX_V1, BLOCKSCOPE_V1), on the seeds' Phoenix table and on
 * PerformanceEvaluation's rows ({@link DataBlocks.Dataset}): 32,768 seed rows (98,304 cells, 3.1
 * MB, 48 blocks; 50 with ROW_INDEX_V1, whose encoded size reaches 64 KB first) or 4,000 PE rows
 * (4.2 MB, 64 blocks), cut into 64 KB blocks as the HFile writer cuts them, with sequence ids (all
 * 0) and without tags, as the first major compaction of a flushed store writes them ({@code -p
 * mvcc=false}: without sequence ids, as later major compactions write them).
 *
 * <ul>
 *   <li>{@code encode}: writing every block of the dataset (ops/s; one op is the whole dataset;
 *       {@code encode:cells} is cells/s). Goal: within 20% of FAST_DIFF.
 *   <li>{@code scan}: a forward scan of every block (ops/s; {@code scan:cells} is cells/s). Goal:
 *       cells/s at least FAST_DIFF's, aiming for NONE's.
 *   <li>{@code seek}: a seek to an existing key in a block already current (ns/op).
 *   <li>{@code seekBefore}: a reverse scan's step to the row before (ns/op).
 *   <li>{@code decode}: every block decoded whole, the way HBase's tools read a block ({@code
 *       EncodedDataBlock.getIterator}, whose speed {@code DataBlockEncodingTool} prints as
 *       "Decoding performance"): {@code decodeKeyValues}, then a KeyValue made of each cell it
 *       returns (ops/s; {@code decode:cells} is cells/s). Goal: at least FAST_DIFF's.
 *   <li>{@code get}: a point get's read of one block (ns/op): a new seeker (every get opens new
 *       store file scanners, and {@code HFileReaderImpl.EncodedScanner}'s constructor creates its
 *       seeker), moved to the block, seeking to an existing key. Not one of the goals; what {@code
 *       seek} leaves out.
 * </ul>
 *
 * <p>Sizes, the fifth goal, are exact and printed by {@code io.blockscope.benchmarks.EncodedSizes}.
 * NONE is not here: it has no seeker (its blocks are read by {@code HFileScannerImpl} itself), so
 * its scan and seeks are not comparable calls.
 *
 * <p>Run (about 50 minutes: 50 parameter sets x 3 forks x 8 two-second iterations; compare medians
 * across forks, as ratios to FAST_DIFF):
 *
 * <pre>
 * bin/blockscope jmh EncoderBenchmark
 * bin/blockscope jmh 'EncoderBenchmark.scan' -p dataset=seed -p encoding=FAST_DIFF,BLOCKSCOPE_V1
 * bin/blockscope jmh EncoderBenchmark -p memory=heap,direct     # blocks off-heap too
 * bin/blockscope jmh EncoderBenchmark -p mvcc=true,false         # files without sequence ids too
 * bin/blockscope jmh 'EncoderBenchmark.seek' -p copies=1,32       # seeks past the CPU caches too
 * </pre>
 */
/*
 * Why these calls are the read path's, in HBase 2.6.1 (HFileReaderImpl.EncodedScanner):
 *
 * - A scanner has one seeker for its life (EncodedScanner's constructor: createSeeker once).
 *   Moving to a block, updateCurrentBlock calls seeker.setCurrentBuffer(getEncodedBuffer(block)),
 *   where getEncodedBuffer duplicates the block's buffer, positions it after the header and the
 *   encoding id, limits it to the block's data and slices it. scan does exactly that per block
 *   (encodedBuffer), then getCell() and next() until next() is false: EncodedScanner.getCell and
 *   next; StoreScanner consumes each cell (here a Blackhole).
 * - HFileScannerImpl.seekTo ends in loadBlockAndSeekToKey: when the block is the current one, it
 *   calls seeker.rewind() then seeker.seekToKeyInBlock(key, false). seek does that, with one
 *   seeker per block set up once (each block is "current" in its own seeker), so the time is the
 *   rewind and the seek, not setCurrentBuffer (scan pays that, once per block). A point get on a
 *   new scanner pays setCurrentBuffer plus this.
 * - StoreFileScanner.seekToPreviousRow (reverse scans) calls HFileScannerImpl.seekBefore with
 *   PrivateCellUtil.createFirstOnRow(row), which reads the block's first key
 *   (EncodedScanner.getFirstKeyCellInBlock -> DataBlockEncoder.getFirstKeyCellInBlock on
 *   getEncodedBuffer), compares it with the key, and when the key is after it calls
 *   loadBlockAndSeekToKey(..., seekBefore = true): rewind() and seekToKeyInBlock(key, true).
 *   seekBefore does all of that, for rows whose first cell is in the block but not first in it
 *   (otherwise HBase goes to the previous block).
 * - encode is HFileBlock.Writer's sequence (DataBlocks.Writer), including the writer's
 *   block-boundary check after every cell.
 *
 * The encoders see on-heap KeyValues; a flush hands them memstore cells (KeyValue or, with
 * MSLAB, ByteBufferKeyValue-like cells) and a compaction the cells of its input seekers, so
 * encode times are for the array-backed case. Blocks are on the heap (the LRU block cache);
 * -p memory=direct puts them in direct buffers, as an off-heap BucketCache hands them out.
 *
 * Setup checks every encoding against the cells before anything is timed: every cell of every
 * block from the scan, every chosen seek, and the first key of every block. An encoding that
 * decodes wrongly fails its parameter set instead of reporting a time.
 */
@State(Scope.Thread)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// forks inherit bin/blockscope jmh's JVM flags (JMH's default), the parent pom's list among them
@Fork(
    value = 3,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class EncoderBenchmark {
  @Param({"seed", "pe"})
  public String dataset;

  @Param({"PREFIX", "DIFF", "FAST_DIFF", "ROW_INDEX_V1", "BLOCKSCOPE_V1"})
  public String encoding;

  /** Where the blocks are: {@code heap} (LRU block cache) or {@code direct} (off-heap). */
  @Param({"heap"})
  public String memory;

  /** Whether the file includes sequence ids (all 0); see {@link DataBlocks}. */
  @Param({"true"})
  public boolean mvcc;

  /**
   * Copies of the dataset's blocks in memory, each in buffers of its own, which the seeks spread
   * over (a power of two): 1, the dataset alone (3.1 MB of ROW_INDEX_V1 blocks on the seeds' rows,
   * 0.7 MB of BLOCKSCOPE_V1's), fits in this machine's CPU caches; 32 (100 MB and 23 MB) does not,
   * as a region server's block cache does not. Scans and encodes read the first copy.
   */
  @Param({"1"})
  public int copies;

  /** Seek targets per copy, cycled; a power of two. */
  private static final int TARGETS_PER_COPY = 4096;

  private static final CellComparator COMPARATOR = CellComparatorImpl.COMPARATOR;

  private List<KeyValue> cells;
  private DataBlocks.Writer writer;
  private DataBlockEncoder encoder;

  /**
   * Each block as the cache holds it (header, encoding id, encoded cells), in a buffer its size.
   */
  private ByteBuff[] blocks;

  /** The encoded cells of each block of one copy (what a seeker is given), for {@code decode}. */
  private byte[][] encodedBytes;

  /** Blocks in one copy of the dataset: blocks {@code c * distinct + b} are copies of block b. */
  private int distinct;

  /** The scan's one seeker, and one seeker per block for the seeks. */
  private EncodedSeeker scanner;

  /** What every seeker decodes with: {@code get} creates one per call. */
  private HFileBlockDecodingContext decoding;

  private EncodedSeeker[] seekers;

  private int[] seekBlock;
  private Cell[] seekKey;
  private int[] beforeBlock;
  private Cell[] beforeKey;
  private int next;

  /** Cells encoded or decoded; JMH reports them per second next to the score. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Cells {
    public long cells;

    @Setup(Level.Iteration)
    public void clear() {
      cells = 0;
    }
  }

  /**
   * A benchmark set up outside JMH, as JMH's defaults set it up (heap blocks, files with sequence
   * ids): what {@link SeekRatios} and {@link SeekTime} time.
   */
  static EncoderBenchmark setUp(String dataset, String encoding, int copies) throws IOException {
    EncoderBenchmark b = new EncoderBenchmark();
    b.dataset = dataset;
    b.encoding = encoding;
    b.memory = "heap";
    b.mvcc = true;
    b.copies = copies;
    b.setUp();
    return b;
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    BlockscopeEncoding.register();
    DataBlockEncoding enc = DataBlockEncoding.valueOf(encoding);
    if (enc == DataBlockEncoding.NONE) {
      throw new IllegalArgumentException("NONE has no seeker; see EncodedSizes for its size");
    }
    encoder = enc.getEncoder();
    Configuration conf = new Configuration(false);
    DataBlocks.Dataset data = DataBlocks.Dataset.parse(dataset);
    cells = data.cells(data.defaultRows);
    writer = new DataBlocks.Writer(enc, Compression.Algorithm.NONE, mvcc, conf);

    List<byte[]> blockList = new ArrayList<>();
    List<int[]> spans = new ArrayList<>(); // {first cell, cell count}
    boolean direct =
        switch (memory) {
          case "heap" -> false;
          case "direct" -> true;
          default -> throw new IllegalArgumentException("memory is heap or direct, not " + memory);
        };
    writer.write(
        cells,
        (block, length, first, count) -> {
          blockList.add(Arrays.copyOf(block, length));
          spans.add(new int[] {first, count});
        });
    if (copies < 1 || Integer.bitCount(copies) != 1) {
      throw new IllegalArgumentException("copies is a power of two, not " + copies);
    }
    int n = blockList.size();
    distinct = n;
    blocks = new ByteBuff[n * copies];
    int[] firstCell = new int[n];
    int[] cellCount = new int[n];
    encodedBytes = new byte[n][];
    for (int b = 0; b < n; b++) {
      firstCell[b] = spans.get(b)[0];
      cellCount[b] = spans.get(b)[1];
      byte[] bytes = blockList.get(b);
      encodedBytes[b] = Arrays.copyOfRange(bytes, DataBlocks.ENCODED_START, bytes.length);
      for (int c = 0; c < copies; c++) {
        ByteBuffer copy =
            direct ? ByteBuffer.allocateDirect(bytes.length) : ByteBuffer.allocate(bytes.length);
        copy.put(bytes).flip();
        blocks[c * n + b] = new SingleByteBuff(copy);
      }
    }

    decoding =
        encoder.newDataBlockDecodingContext(
            conf, DataBlocks.fileContext(enc, Compression.Algorithm.NONE, mvcc));
    scanner = encoder.createSeeker(decoding);
    seekers = new EncodedSeeker[blocks.length];
    for (int b = 0; b < blocks.length; b++) {
      seekers[b] = encoder.createSeeker(decoding);
      seekers[b].setCurrentBuffer(encodedBuffer(b));
    }
    chooseTargets(firstCell, cellCount);
    check(firstCell, cellCount);
  }

  /**
   * Seek targets from a fixed seed: existing cells, uniformly; and for seekBefore, rows that start
   * inside a block, after its first cell.
   */
  private void chooseTargets(int[] firstCell, int[] cellCount) {
    int[] blockOf = new int[cells.size()];
    List<Integer> rowStarts = new ArrayList<>();
    for (int b = 0; b < distinct; b++) {
      for (int i = firstCell[b]; i < firstCell[b] + cellCount[b]; i++) {
        blockOf[i] = b;
        if (i > firstCell[b] && !CellUtil.matchingRows(cells.get(i - 1), cells.get(i))) {
          rowStarts.add(i);
        }
      }
    }
    Random r = new Random(5);
    int targets = TARGETS_PER_COPY * copies;
    seekBlock = new int[targets];
    seekKey = new Cell[targets];
    beforeBlock = new int[targets];
    beforeKey = new Cell[targets];
    for (int t = 0; t < targets; t++) {
      int i = r.nextInt(cells.size());
      // in one of the copies: the same block, elsewhere in memory
      seekBlock[t] = blockOf[i] + distinct * r.nextInt(copies);
      seekKey[t] = cells.get(i);
      int row = rowStarts.get(r.nextInt(rowStarts.size()));
      beforeBlock[t] = blockOf[row] + distinct * r.nextInt(copies);
      beforeKey[t] = PrivateCellUtil.createFirstOnRow(CellUtil.cloneRow(cells.get(row)));
    }
  }

  /** Every cell, every target and every first key, as the timed calls will see them. */
  private void check(int[] firstCell, int[] cellCount) {
    for (int b = 0; b < distinct; b++) {
      scanner.setCurrentBuffer(encodedBuffer(b));
      int i = firstCell[b];
      do {
        Cell c = scanner.getCell();
        KeyValue want = cells.get(i);
        if (COMPARATOR.compare(c, want) != 0 || !CellUtil.matchingValue(c, want)) {
          throw wrong("scan of block " + b + " returns " + c + " as cell " + i + ", not " + want);
        }
        i++;
      } while (scanner.next());
      if (i != firstCell[b] + cellCount[b]) {
        throw wrong(
            "scan of block "
                + b
                + " ends after "
                + (i - firstCell[b])
                + " of "
                + cellCount[b]
                + " cells");
      }
      List<KeyValue> decoded = decodeWhole(b);
      for (int c = 0; c < decoded.size(); c++) {
        KeyValue want = cells.get(firstCell[b] + c);
        if (COMPARATOR.compare(decoded.get(c), want) != 0
            || !CellUtil.matchingValue(decoded.get(c), want)) {
          throw wrong("decodeKeyValues of block " + b + " returns " + decoded.get(c));
        }
      }
      if (decoded.size() != cellCount[b]) {
        throw wrong("decodeKeyValues of block " + b + " returns " + decoded.size() + " cells");
      }
      Cell first = encoder.getFirstKeyCellInBlock(encodedBuffer(b));
      if (PrivateCellUtil.compareKeyIgnoresMvcc(COMPARATOR, first, cells.get(firstCell[b])) != 0) {
        throw wrong("first key of block " + b + " is " + first);
      }
    }
    for (int t = 0; t < seekBlock.length; t++) {
      EncodedSeeker s = seekers[seekBlock[t]];
      s.rewind();
      int result = s.seekToKeyInBlock(seekKey[t], false);
      if (result != 0
          || PrivateCellUtil.compareKeyIgnoresMvcc(COMPARATOR, s.getCell(), seekKey[t]) != 0) {
        throw wrong("seek to " + seekKey[t] + " returns " + result + " at " + s.getCell());
      }
      s = seekers[beforeBlock[t]];
      s.rewind();
      result = s.seekToKeyInBlock(beforeKey[t], true);
      Cell at = s.getCell();
      if (result != 1 || COMPARATOR.compareRows(at, beforeKey[t]) >= 0) {
        throw wrong("seekBefore " + beforeKey[t] + " returns " + result + " at " + at);
      }
      s.next();
      if (!CellUtil.matchingRows(s.getCell(), beforeKey[t])) {
        throw wrong(
            "seekBefore "
                + beforeKey[t]
                + " lands at "
                + at
                + ", not the cell before "
                + "the row");
      }
    }
  }

  private IllegalStateException wrong(String what) {
    return new IllegalStateException(encoding + " on " + dataset + ": " + what);
  }

  /** The seeker's view of block {@code b}: EncodedScanner.getEncodedBuffer. */
  private ByteBuff encodedBuffer(int b) {
    // the buffer is the block's size: its limit is where the block's data ends
    ByteBuff block = blocks[b].duplicate();
    block.position(DataBlocks.ENCODED_START);
    return block.slice();
  }

  /** Encodes the whole dataset into blocks; returns their total size. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public long encode(Cells counter) throws IOException {
    counter.cells += cells.size();
    return writer.write(cells, null);
  }

  /** Scans every block with one seeker, as one scanner reads a store file. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public void scan(Blackhole bh, Cells counter) {
    EncodedSeeker s = scanner;
    int n = 0;
    for (int b = 0; b < distinct; b++) {
      s.setCurrentBuffer(encodedBuffer(b));
      do {
        bh.consume(s.getCell());
        n++;
      } while (s.next());
    }
    counter.cells += n;
  }

  /**
   * Decodes every block whole, as {@code EncodedDataBlock}'s iterator does: {@code decodeKeyValues}
   * on a stream of the block, then each cell of the result read as a KeyValue (the dataset has no
   * tags; sequence ids skipped where the file has them).
   */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public void decode(Blackhole bh, Cells counter) throws IOException {
    int n = 0;
    for (int b = 0; b < distinct; b++) {
      ByteBuffer kvs = decodeKeyValues(b);
      while (kvs.hasRemaining()) {
        bh.consume(nextKeyValue(kvs));
        n++;
      }
    }
    counter.cells += n;
  }

  private ByteBuffer decodeKeyValues(int b) throws IOException {
    ByteBuffer kvs =
        encoder.decodeKeyValues(
            new DataInputStream(new ByteArrayInputStream(encodedBytes[b])), decoding);
    // HBase's own decoders leave the position at the end, as EncodedDataBlock expects
    kvs.rewind();
    return kvs;
  }

  /** The KeyValue at {@code kvs}' position, which moves past it (and its sequence id). */
  private KeyValue nextKeyValue(ByteBuffer kvs) {
    int at = kvs.position();
    int length = (int) KeyValue.getKeyValueDataStructureSize(kvs.getInt(at), kvs.getInt(at + 4), 0);
    kvs.position(at + length);
    KeyValue kv = new KeyValue(kvs.array(), kvs.arrayOffset() + at, length);
    if (mvcc) {
      ByteBufferUtils.readVLong(kvs);
    }
    return kv;
  }

  private List<KeyValue> decodeWhole(int b) {
    try {
      ByteBuffer kvs = decodeKeyValues(b);
      List<KeyValue> all = new ArrayList<>();
      while (kvs.hasRemaining()) {
        all.add(nextKeyValue(kvs));
      }
      return all;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Seeks to an existing key in its (current) block. */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public int seek() {
    int t = next++ & (seekBlock.length - 1);
    EncodedSeeker s = seekers[seekBlock[t]];
    s.rewind();
    return s.seekToKeyInBlock(seekKey[t], false);
  }

  /** A point get's part in one block: new seeker, setCurrentBuffer, seek to an existing key. */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public int get() {
    int t = next++ & (seekBlock.length - 1);
    EncodedSeeker s = encoder.createSeeker(decoding);
    s.setCurrentBuffer(encodedBuffer(seekBlock[t]));
    return s.seekToKeyInBlock(seekKey[t], false);
  }

  /** Seeks to the cell before a row, as a reverse scan does (HFileScannerImpl.seekBefore). */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public int seekBefore() {
    int t = next++ & (seekBlock.length - 1);
    int b = beforeBlock[t];
    Cell key = beforeKey[t];
    Cell first = encoder.getFirstKeyCellInBlock(encodedBuffer(b));
    if (PrivateCellUtil.compareKeyIgnoresMvcc(COMPARATOR, first, key) >= 0) {
      throw new IllegalStateException("row starts its block: " + key); // chosen not to
    }
    EncodedSeeker s = seekers[b];
    s.rewind();
    return s.seekToKeyInBlock(key, true);
  }
}
