package io.blockscope.benchmarks;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparatorImpl;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.ByteArrayOutputStream;
import org.apache.hadoop.hbase.io.ByteBufferWriterDataOutputStream;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.encoding.EncodingState;
import org.apache.hadoop.hbase.io.encoding.HFileBlockEncodingContext;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.io.hfile.HFileDataBlockEncoder;
import org.apache.hadoop.hbase.io.hfile.HFileDataBlockEncoderImpl;
import org.apache.hadoop.hbase.io.hfile.NoOpDataBlockEncoder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.query.QueryConstants;
import org.apache.phoenix.schema.PTable.QualifierEncodingScheme;
import org.apache.phoenix.schema.types.PFloat;
import org.apache.phoenix.schema.types.PInteger;

/**
 * The cells of {@link EncoderBenchmark}'s and {@code EncodedSizes}' two datasets, and their data
 * blocks cut and encoded the way an HFile writer does it. The cells are what a major compaction
 * writes: sequence ids 0 (older than every reader), no tags. Whether the file includes them ({@code
 * includesMvcc}) depends on its inputs: the first major compaction of flushed files writes them (as
 * zeros: its inputs had sequence ids, {@code Compactor.getFileDetails}); a major compaction of
 * files that all had none, such as the next one, does not.
 *
 * <p>A block as {@link Writer} hands it out, which is also how the block cache holds it (checksums
 * are not part of the cached buffer):
 *
 * <pre>
 *  0                          33            35                                  length
 *  +--------------------------+-------------+-----------------------------------+
 *  | block header (dummy)     | encoding id | encoded cells                     |
 *  | HFILEBLOCK_HEADER_SIZE   | 2 bytes     | (what a seeker is given)          |
 *  +--------------------------+-------------+-----------------------------------+
 *  NONE writes no encoding id: its cells start at 33, as KeyValues each followed by the
 *  sequence id as a vlong (if the file includes sequence ids).
 * </pre>
 */
public final class DataBlocks {
  /** HBase's default block size (HConstants.DEFAULT_BLOCKSIZE): where the writer ends a block. */
  public static final int BLOCK_SIZE = HConstants.DEFAULT_BLOCKSIZE;

  /** Where a seeker's bytes start in an encoded block: after the header and the encoding id. */
  public static final int ENCODED_START =
      HConstants.HFILEBLOCK_HEADER_SIZE + DataBlockEncoding.ID_SIZE;

  /** 2023-11-14T22:13:20Z, the first write of both datasets. */
  private static final long T0 = 1_700_000_000_000L;

  private DataBlocks() {}

  /** The two datasets; the random seeds are {@code bin/blockscope evaluate}'s. */
  public enum Dataset {
    /**
     * The seeds' Phoenix table {@code (pk INTEGER PRIMARY KEY, v1 FLOAT, v2 FLOAT)}, as Phoenix
     * 5.2.1 stores it by default (one cell per column, two-byte column qualifiers), encoded by
     * Phoenix's own code: row key {@code PInteger} (4 bytes, sign bit flipped); family "0"; per row
     * the empty column (qualifier {@code ENCODED_EMPTY_COLUMN_BYTES}, four zero bytes: reserved
     * qualifiers always take four; value "x"), then v1 and v2 (qualifiers 11 and 12 in {@code
     * TWO_BYTE_QUALIFIERS}: 0x800B and 0x800C; values {@code PFloat}, 4 bytes). Values come from
     * {@code new Random(20160217)} in the order {@code SeedTable.fill} draws them. All cells of a
     * row share one timestamp, and so do 100 consecutive rows (Phoenix sends upserts in batches of
     * {@code phoenix.mutate.batchSize} = 100 rows with the latest timestamp, and the region server
     * stamps a batch with one time).
     */
    SEED(32_768, 100),
    /**
     * HBase PerformanceEvaluation's shape: row key the row number as 26 zero-padded decimal digits
     * ({@code PerformanceEvaluation.format}), family "info", qualifier "0", one 1,000-byte value
     * per row from {@code new Random(20100401)} ({@code nextBytes}, as {@code RawTable.loadPe};
     * PE's own values are letters and compress better). One timestamp per 2,000 rows (a
     * BufferedMutator's 2 MB write buffer).
     */
    PE(4_000, 2_000);

    /** Rows the benchmark uses: 3.1 MB (seed) or 4.2 MB (pe) of cells, 48 or 64 blocks. */
    public final int defaultRows;

    private final int rowsPerTimestamp;

    Dataset(int defaultRows, int rowsPerTimestamp) {
      this.defaultRows = defaultRows;
      this.rowsPerTimestamp = rowsPerTimestamp;
    }

    /** {@code seed} or {@code pe}, as the benchmark's parameter names them. */
    public static Dataset parse(String name) {
      return valueOf(name.toUpperCase(Locale.ROOT));
    }

    /** The cells of rows {@code 0..rows-1}, sorted; the same cells on every call. */
    public List<KeyValue> cells(int rows) {
      List<KeyValue> cells = this == SEED ? seedCells(rows) : peCells(rows);
      for (int i = 1; i < cells.size(); i++) {
        if (CellComparatorImpl.COMPARATOR.compare(cells.get(i - 1), cells.get(i)) >= 0) {
          throw new IllegalStateException(this + ": cell " + i + " is not after cell " + (i - 1));
        }
      }
      return cells;
    }

    private long timestamp(int row) {
      return T0 + row / rowsPerTimestamp;
    }

    private List<KeyValue> seedCells(int rows) {
      Random r = new Random(20160217L);
      byte[] family = QueryConstants.DEFAULT_COLUMN_FAMILY_BYTES;
      byte[] empty = QueryConstants.ENCODED_EMPTY_COLUMN_BYTES;
      byte[] emptyValue = QueryConstants.ENCODED_EMPTY_COLUMN_VALUE_BYTES;
      int first = QueryConstants.ENCODED_CQ_COUNTER_INITIAL_VALUE;
      byte[] v1 = QualifierEncodingScheme.TWO_BYTE_QUALIFIERS.encode(first);
      byte[] v2 = QualifierEncodingScheme.TWO_BYTE_QUALIFIERS.encode(first + 1);
      List<KeyValue> cells = new ArrayList<>(3 * rows);
      for (int pk = 0; pk < rows; pk++) {
        byte[] row = PInteger.INSTANCE.toBytes(pk);
        long ts = timestamp(pk);
        cells.add(new KeyValue(row, family, empty, ts, KeyValue.Type.Put, emptyValue));
        cells.add(
            new KeyValue(
                row, family, v1, ts, KeyValue.Type.Put, PFloat.INSTANCE.toBytes(r.nextFloat())));
        cells.add(
            new KeyValue(
                row, family, v2, ts, KeyValue.Type.Put, PFloat.INSTANCE.toBytes(r.nextFloat())));
      }
      return cells;
    }

    private List<KeyValue> peCells(int rows) {
      Random r = new Random(20100401L);
      byte[] family = Bytes.toBytes("info");
      byte[] qualifier = Bytes.toBytes("0");
      List<KeyValue> cells = new ArrayList<>(rows);
      for (int i = 0; i < rows; i++) {
        byte[] value = new byte[1000];
        r.nextBytes(value);
        byte[] row = String.format("%026d", i).getBytes(StandardCharsets.US_ASCII);
        cells.add(new KeyValue(row, family, qualifier, timestamp(i), KeyValue.Type.Put, value));
      }
      return cells;
    }
  }

  /** The file context of the datasets' store files: no tags, HBase's block size. */
  public static HFileContext fileContext(
      DataBlockEncoding encoding, Compression.Algorithm compression, boolean mvcc) {
    return new HFileContextBuilder()
        .withIncludesMvcc(mvcc)
        .withIncludesTags(false)
        .withHBaseCheckSum(true)
        .withBlockSize(BLOCK_SIZE)
        .withCompression(compression)
        .withDataBlockEncoding(encoding)
        .withCellComparator(CellComparatorImpl.COMPARATOR)
        .build();
  }

  /** Receives each block {@link Writer#write} finishes. */
  public interface Sink {
    /**
     * @param block the block as the cache holds it (see the class comment), valid until the next
     *     block is written
     * @param length its length, header included
     * @param firstCell index of its first cell in the written list
     * @param cellCount how many cells it holds
     */
    void block(byte[] block, int length, int firstCell, int cellCount) throws IOException;
  }

  /**
   * Writes cells into data blocks as {@code HFileWriterImpl} and {@code HFileBlock.Writer} do: one
   * encoding context for all blocks; per block the dummy header, {@code startBlockEncoding}, {@code
   * encode} per cell, {@code endBlockEncoding}; and a new block once the block's unencoded or
   * encoded size reaches {@link #BLOCK_SIZE} ({@code checkBlockBoundary}, which the writer runs
   * before each cell with a new key). The encoder is the writer's: {@code
   * HFileDataBlockEncoderImpl} of the encoding, or {@code NoOpDataBlockEncoder} for NONE.
   */
  public static final class Writer {
    private final HFileDataBlockEncoder encoder;
    private final HFileBlockEncodingContext context;
    private final ByteArrayOutputStream block = new ByteArrayOutputStream(2 * BLOCK_SIZE);

    /**
     * @param mvcc whether the file includes sequence ids
     * @param conf configures the compressor, as the store's configuration does
     */
    public Writer(
        DataBlockEncoding encoding,
        Compression.Algorithm compression,
        boolean mvcc,
        Configuration conf) {
      encoder =
          encoding == DataBlockEncoding.NONE
              ? NoOpDataBlockEncoder.INSTANCE
              : new HFileDataBlockEncoderImpl(encoding);
      context =
          encoder.newDataBlockEncodingContext(
              conf, HConstants.HFILEBLOCK_DUMMY_HEADER, fileContext(encoding, compression, mvcc));
    }

    /**
     * Writes {@code cells} (sorted) into blocks, handing each to {@code sink} (which may be null);
     * returns the bytes of all blocks, headers included.
     */
    public long write(List<? extends Cell> cells, Sink sink) throws IOException {
      long bytes = 0;
      int n = cells.size();
      int first = 0;
      while (first < n) {
        block.reset();
        block.write(HConstants.HFILEBLOCK_DUMMY_HEADER);
        DataOutputStream out = new ByteBufferWriterDataOutputStream(block);
        encoder.startBlockEncoding(context, out);
        EncodingState state = context.getEncodingState();
        int i = first;
        do {
          encoder.encode(cells.get(i++), context, out);
        } while (i < n
            && state.getUnencodedDataSizeWritten() < BLOCK_SIZE
            && state.getEncodedDataSizeWritten() < BLOCK_SIZE);
        encoder.endBlockEncoding(context, out, block.getBuffer(), BlockType.DATA);
        out.flush();
        bytes += block.size();
        if (sink != null) {
          sink.block(block.getBuffer(), block.size(), first, i - first);
        }
        first = i;
      }
      return bytes;
    }

    /**
     * What the block holds after its header in the file: its bytes compressed as {@code
     * HFileBlock.Writer.finishBlock} compresses them (the writer's context, {@code
     * compressAndEncrypt}), or as they are without compression. Checksums not included.
     */
    public int storedSize(byte[] blockWithHeader, int length) throws IOException {
      Bytes compressed = context.compressAndEncrypt(blockWithHeader, 0, length);
      int withHeader = compressed == null ? length : compressed.getLength();
      return withHeader - HConstants.HFILEBLOCK_HEADER_SIZE;
    }
  }
}
