package io.blockscope.encoding;

import static io.blockscope.encoding.BlockscopeV1Format.FAMILY;
import static io.blockscope.encoding.BlockscopeV1Format.INLINE_MAX;
import static io.blockscope.encoding.BlockscopeV1Format.QUALIFIER;
import static io.blockscope.encoding.BlockscopeV1Format.ROW;
import static io.blockscope.encoding.BlockscopeV1Format.SEQID;
import static io.blockscope.encoding.BlockscopeV1Format.TAGS;
import static io.blockscope.encoding.BlockscopeV1Format.TIMESTAMP;
import static io.blockscope.encoding.BlockscopeV1Format.TYPE;
import static io.blockscope.encoding.BlockscopeV1Format.VALUE_LEN;
import static io.blockscope.encoding.BlockscopeV1Format.keysLengthBytes;
import static io.blockscope.encoding.BlockscopeV1Format.putLengths;
import static io.blockscope.encoding.BlockscopeV1Format.putVInt;
import static io.blockscope.encoding.BlockscopeV1Format.putVLong;
import static io.blockscope.encoding.BlockscopeV1Format.trailer;
import static io.blockscope.encoding.BlockscopeV1Format.zigZag;
import static io.blockscope.encoding.CellFields.grow;
import static io.blockscope.encoding.CellFields.room;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.ExtendedCell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValueUtil;
import org.apache.hadoop.hbase.io.encoding.AbstractDataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.encoding.EncodingState;
import org.apache.hadoop.hbase.io.encoding.HFileBlockDecodingContext;
import org.apache.hadoop.hbase.io.encoding.HFileBlockDefaultEncodingContext;
import org.apache.hadoop.hbase.io.encoding.HFileBlockEncodingContext;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.nio.SingleByteBuff;

/**
 * BLOCKSCOPE_V1: cells diff-encoded field by field against the cell before, in groups of up to
 * {@code interval} cells whose first entries a seek finds by binary search. Within a group the
 * values (but the shortest) come first and the key entries after them, so a general-purpose
 * compressor on top (GZ, ZSTD) sees the keys' repeating structure in one run instead of broken up
 * by every value. The format, every field and its width, is drawn in {@code BlockscopeV1Format};
 * this class writes it as drawn there.
 */
public final class BlockscopeV1Encoder extends AbstractDataBlockEncoder {
  /*
   * Design notes.
   *
   * The restart interval (DEFAULT_INTERVAL). The seeds' seeks measured 1.27 times ROW_INDEX_V1's
   * time with groups of 64 cells and 0.97 with 32 (0.99 with 16, 0.97 with 8: the binary search
   * and the landing then cost more than the walk; one SeekRatios 21 run each, with the constant
   * edited, in the layout before small values moved into key entries). Each group costs about
   * 10 bytes under ZSTD, where the margins are thinnest: with 32 the seeds' rows measured 0.89 to
   * 0.97 of FAST_DIFF's size under ZSTD, with 16 up to 1.05 (./mvnw -pl encoders test
   * -Dtest=EncodedSizeTest -Dsizes.intervals=16,32,64 prints them).
   *
   * RESTART_BYTES is 8 KB rather than 4: PerformanceEvaluation rows under ZSTD measured larger
   * than FAST_DIFF with 4 KB.
   *
   * Where the block is written.
   *
   * The tail of a block (the last group's key entries and their length, the restart offsets,
   * the trailer) is known only when the block ends. Writing it to the stream in
   * endBlockEncoding would do for HBase's HFileBlock.Writer, which keeps it (finishBlock compresses
   * baosInMemory.getBuffer() up to baosInMemory.size() after endBlockEncoding). HBase's
   * EncodedDataBlock.encodeData (hbase-common), which DataBlockEncodingTool and other tools
   * encode every codec with, does not: it copies the stream's bytes (baos.toByteArray()) before
   * endBlockEncoding, hands that copy to it as uncompressedBytesWithHeader and returns the copy,
   * taking the stream's bytes again for ROW_INDEX_V1 only. Both callers do keep what
   * endBlockEncoding writes in place into uncompressedBytesWithHeader, at
   * HFILEBLOCK_HEADER_SIZE + ID_SIZE from its start: both write HConstants.HFILEBLOCK_DUMMY_HEADER
   * and then the encoding id, and BufferedDataBlockEncoder.endBlockEncoding (PREFIX, DIFF,
   * FAST_DIFF) writes its unencoded size there the same way.
   *
   * So the encoder puts the block together in BlockState.block, and after each cell writes to
   * the stream as many bytes as the finished block would grow by (reserve; the block's size if
   * it ended now only grows, cell by cell); endBlockEncoding writes the finished block over them,
   * in place, and writes nothing to the stream. The bytes on disk are those of before (the
   * golden blocks are unchanged); what it costs is one copy of each block, and a caller that
   * hands endBlockEncoding a copy of the stream and then reads the stream gets the reserved
   * zeros, whose trailer the reader refuses ("block without groups").
   */

  /** Cells per group (restart interval) of the registered encoder. */
  public static final int DEFAULT_INTERVAL = 32;

  /**
   * A group also closes once it holds this many bytes, so that blocks of large cells (a 1 KB value
   * each) still get restarts every few cells: a seek then compares few keys however large the cells
   * are.
   */
  static final int RESTART_BYTES = 8192;

  private final int interval;

  /** The encoder HBase uses once {@link BlockscopeEncoding#register()} ran. */
  public BlockscopeV1Encoder() {
    this(DEFAULT_INTERVAL);
  }

  /** An encoder with another restart interval (tests, benchmarks); the format is the same. */
  public BlockscopeV1Encoder(int interval) {
    if (interval < 1 || interval > 65_536) {
      throw new IllegalArgumentException("restart interval " + interval + " not in [1, 65536]");
    }
    this.interval = interval;
  }

  /** What one block's encoding remembers between cells: the cell before, as copies. */
  static final class BlockState extends EncodingState {
    final boolean tags;
    final boolean mvcc;
    CellFields before = new CellFields();
    CellFields now = new CellFields();
    int[] restarts = new int[64];
    int restartCount;

    /** The block's base cell, what restart entries diff against: entry 0, every field. */
    final CellFields base = new CellFields();

    /** Bytes written to the block's stream: values, and the key entries of closed groups. */
    int written;

    int sinceRestart;

    /**
     * The qualifier of the last entry that started a group or a row: the one a new row's qualifier
     * diffs against.
     */
    final CellFields anchor = new CellFields();

    byte[] head = new byte[64];

    /** The open group's key entries, written after its values when the group closes. */
    byte[] keys = new byte[1024];

    int keysLen;

    /**
     * The block as it is put together: its first {@link #written} bytes (base key, closed groups,
     * the open group's values). Copied over the block's bytes by endBlockEncoding.
     */
    byte[] block;

    /** Bytes written to the block's stream: the size of the block if it ended now. */
    int reserved;

    BlockState(boolean tags, boolean mvcc, byte[] block) {
      this.tags = tags;
      this.mvcc = mvcc;
      this.block = block;
    }

    /** Appends {@code n} bytes of {@code b} from {@code off} to the block. */
    void put(byte[] b, int off, int n) {
      block = grow(block, written + n);
      System.arraycopy(b, off, block, written, n);
      written += n;
    }

    /** Appends a uint16 to the block. */
    void putShort(int v) {
      block = grow(block, written + 2);
      block[written++] = (byte) (v >>> 8);
      block[written++] = (byte) v;
    }

    /** Appends an int32 to the block. */
    void putInt(int v) {
      putShort(v >>> 16);
      putShort(v);
    }

    /**
     * The block's size if it ended after the cells encoded so far: what endBlockEncoding adds to
     * {@link #written} (the open group's key entries and their length, the restart offsets, the
     * trailer). It grows with every cell (each adds a key entry of at least one byte, and no field
     * of the tail ever gets narrower).
     */
    int sizeIfEnded() {
      int groups = written + keysLen + keysLengthBytes(keysLen);
      return groups + restartCount * (groups > 0xffff ? 4 : 2) + 4;
    }
  }

  @Override
  public void startBlockEncoding(HFileBlockEncodingContext ctx, DataOutputStream out)
      throws IOException {
    if (ctx.getClass() != HFileBlockDefaultEncodingContext.class) {
      throw new IOException(
          getClass().getName()
              + " only accepts "
              + HFileBlockDefaultEncodingContext.class.getName()
              + " as the encoding context.");
    }
    HFileBlockDefaultEncodingContext c = (HFileBlockDefaultEncodingContext) ctx;
    c.prepareEncoding(out);
    // the block of the last block's state is reused: a writer encodes one block at a time
    byte[] block =
        c.getEncodingState() instanceof BlockState
            ? ((BlockState) c.getEncodingState()).block
            : new byte[4096];
    c.setEncodingState(
        new BlockState(
            c.getHFileContext().isIncludesTags(), c.getHFileContext().isIncludesMvcc(), block));
  }

  @Override
  public void encode(Cell cell, HFileBlockEncodingContext ctx, DataOutputStream out)
      throws IOException {
    encodeCell(cell, ctx, out);
  }

  /**
   * HBase 3.0's form of {@link #encode(Cell, HFileBlockEncodingContext, DataOutputStream)}: its
   * {@code DataBlockEncoder} takes an {@code ExtendedCell} (the call HBase 3.0.0's {@code
   * HFileDataBlockEncoderImpl} makes). Not called on 2.x.
   */
  public void encode(ExtendedCell cell, HFileBlockEncodingContext ctx, DataOutputStream out)
      throws IOException {
    encodeCell(cell, ctx, out);
  }

  private void encodeCell(Cell cell, HFileBlockEncodingContext ctx, DataOutputStream out)
      throws IOException {
    BlockState s = (BlockState) ctx.getEncodingState();
    CellFields now = s.now;
    now.read(cell, s.tags);
    CellFields before = s.before;
    if (s.sinceRestart == 0
        || s.sinceRestart >= interval
        || s.written - s.restarts[s.restartCount - 1] + s.keysLen >= RESTART_BYTES) {
      if (s.restartCount > 0) {
        closeGroup(s);
      }
      if (s.restartCount == s.restarts.length) {
        s.restarts = Arrays.copyOf(s.restarts, s.restartCount * 2);
      }
      if (s.restartCount == 0) {
        writeBaseKey(s, cell);
        before.reset(now);
        before.clearRest();
        s.base.reset(now);
      } else {
        before.reset(s.base);
      }
      s.restarts[s.restartCount++] = s.written;
      s.sinceRestart = 0;
    }
    // a new row's qualifier diffs against the last row's first (or the group's first), not the
    // cell before's: a seek's walk steps over rows without decoding their other cells
    boolean sameRow = equal(now.row, now.rowLen, before.row, before.rowLen);
    boolean anchor = !sameRow || s.sinceRestart == 0;
    CellFields q = sameRow || s.sinceRestart == 0 ? before : s.anchor;
    boolean tagsSame = s.tags && equal(now.tags, now.tagsLen, before.tags, before.tagsLen);
    boolean seqSame = s.mvcc && now.seqId == before.seqId;
    // the key entry is put together in `head`: flags, the fields that differ, tags, seqid
    byte[] h =
        s.head =
            room(
                s.head,
                now.rowLen + now.familyLen + now.qualifierLen + now.tagsLen + INLINE_MAX + 64);
    int n = 1;
    int flags = (tagsSame ? TAGS : 0) | (seqSame ? SEQID : 0);
    if (sameRow) {
      flags |= ROW;
    } else {
      n =
          putSuffix(
              h,
              n,
              now.row,
              now.rowLen,
              shared(now.row, now.rowLen, before.row, before.rowLen),
              before.rowLen);
    }
    if (equal(now.family, now.familyLen, before.family, before.familyLen)) {
      flags |= FAMILY;
    } else {
      h[n++] = (byte) now.familyLen;
      System.arraycopy(now.family, 0, h, n, now.familyLen);
      n += now.familyLen;
    }
    if (equal(now.qualifier, now.qualifierLen, q.qualifier, q.qualifierLen)) {
      flags |= QUALIFIER;
    } else {
      n =
          putSuffix(
              h,
              n,
              now.qualifier,
              now.qualifierLen,
              shared(now.qualifier, now.qualifierLen, q.qualifier, q.qualifierLen),
              q.qualifierLen);
    }
    if (now.timestamp == before.timestamp) {
      flags |= TIMESTAMP;
    } else {
      long d = now.timestamp - before.timestamp;
      n = putVLong(h, n, zigZag(d));
    }
    if (now.type == before.type) {
      flags |= TYPE;
    } else {
      h[n++] = now.type;
    }
    if (now.valueLen == before.valueLen) {
      flags |= VALUE_LEN;
    } else {
      n = putVInt(h, n, now.valueLen);
    }
    boolean inline = now.valueLen <= INLINE_MAX;
    if (inline) {
      n = CellUtil.copyValueTo(cell, h, n);
    }
    if (s.tags && !tagsSame) {
      n = putVInt(h, n, now.tagsLen);
      System.arraycopy(now.tags, 0, h, n, now.tagsLen);
      n += now.tagsLen;
    }
    if (s.mvcc && !seqSame) {
      n = putVLong(h, n, now.seqId);
    }
    h[0] = (byte) flags;
    // a longer value goes into the block now; the key entry waits for the group to close
    if (!inline) {
      s.block = grow(s.block, s.written + now.valueLen);
      CellUtil.copyValueTo(cell, s.block, s.written);
      s.written += now.valueLen;
    }
    s.keys = grow(s.keys, s.keysLen + n);
    System.arraycopy(h, 0, s.keys, s.keysLen, n);
    s.keysLen += n;
    int encoded = n + (inline ? 0 : now.valueLen);
    s.sinceRestart++;
    if (anchor) {
      s.anchor.takeQualifier(now);
    }
    // the cell just written is the one the next is compared with
    s.now = before;
    s.before = now;
    s.postCellEncode(now.unencodedSize(s.tags, s.mvcc), encoded);
    reserve(s, out);
  }

  /**
   * Writes to the block's stream as many bytes as the block grew by with the cell just encoded
   * (their content does not matter: endBlockEncoding writes the block over them).
   */
  private static void reserve(BlockState s, DataOutputStream out) throws IOException {
    int size = s.sizeIfEnded();
    for (int n = size - s.reserved; n > 0; n -= ROOM.length) {
      out.write(ROOM, 0, Math.min(n, ROOM.length));
    }
    s.reserved = size;
  }

  /** What {@link #reserve} writes. */
  private static final byte[] ROOM = new byte[4096];

  /**
   * Writes the block's base key: entry 0's key in KeyValue's layout, after its length. HBase asks
   * for a block's first key on every seekBefore; this way it is one copy, not a decode.
   */
  private static void writeBaseKey(BlockState s, Cell c) {
    int len = KeyValueUtil.keyLength(c);
    byte[] h = s.head = room(s.head, len + 5);
    int n = KeyValueUtil.appendKeyTo(c, h, putVInt(h, 0, len));
    s.put(h, 0, n);
  }

  /** Writes the open group's key entries and their length K, after the group's values. */
  private static void closeGroup(BlockState s) {
    s.put(s.keys, 0, s.keysLen);
    if (keysLengthBytes(s.keysLen) == 2) {
      s.putShort(s.keysLen);
    } else {
      // low half first: the group's last two bytes say which form it is
      s.putShort(s.keysLen & 0xffff);
      s.putShort(0x8000 | (s.keysLen >>> 16));
    }
    s.keysLen = 0;
  }

  /** The lengths as drawn in the format, then the bytes after the shared prefix. */
  private static int putSuffix(byte[] h, int n, byte[] a, int len, int shared, int lenBefore) {
    n = putLengths(h, n, len, shared, lenBefore);
    System.arraycopy(a, shared, h, n, len - shared);
    return n + len - shared;
  }

  private static boolean equal(byte[] a, int an, byte[] b, int bn) {
    return ByteRuns.equal(a, an, b, bn);
  }

  private static int shared(byte[] a, int an, byte[] b, int bn) {
    int m = ByteRuns.mismatch(a, 0, an, b, 0, bn);
    return m < 0 ? an : m;
  }

  @Override
  public void endBlockEncoding(
      HFileBlockEncodingContext ctx, DataOutputStream out, byte[] uncompressedBytesWithHeader)
      throws IOException {
    BlockState s = (BlockState) ctx.getEncodingState();
    if (s.restartCount == 0) {
      // HFileWriterImpl.finishBlock ends no empty block; the format has none
      throw new IOException("BLOCKSCOPE_V1 cannot end a block without cells");
    }
    int size = s.sizeIfEnded();
    closeGroup(s);
    // offsets as uint16 while the groups fit in 64 KB (nearly always), else int32
    boolean wide = s.written > 0xffff;
    for (int i = 0; i < s.restartCount; i++) {
      if (wide) {
        s.putInt(s.restarts[i]);
      } else {
        s.putShort(s.restarts[i]);
      }
    }
    s.putInt(trailer(s.restartCount, wide));
    // the stream holds `reserved` bytes after the encoding id; the block goes over them, in
    // place, where BufferedDataBlockEncoder.endBlockEncoding writes its size
    out.flush();
    int at = HConstants.HFILEBLOCK_HEADER_SIZE + DataBlockEncoding.ID_SIZE;
    if (s.written != size || size != s.reserved || uncompressedBytesWithHeader.length < at + size) {
      throw new IOException(
          "BLOCKSCOPE_V1 cannot end its block: "
              + s.written
              + " bytes, "
              + s.reserved
              + " reserved, expected "
              + size
              + ", in an array of "
              + uncompressedBytesWithHeader.length
              + " bytes after a header of "
              + at);
    }
    System.arraycopy(s.block, 0, uncompressedBytesWithHeader, at, size);
    postEncoding(ctx);
  }

  @Override
  // the block's buffer is ByteRuns.readAll's wrap of a whole array from 0
  @SuppressWarnings("ByteBufferBackingArray")
  public ByteBuffer decodeKeyValues(DataInputStream source, HFileBlockDecodingContext ctx)
      throws IOException {
    // the encoded block is read into this thread's array (nothing decoded points into it)
    ByteBuffer block = ByteRuns.readAll(source, ENCODED.get());
    if (block.capacity() <= ENCODED_KEPT) {
      ENCODED.set(block.array());
    }
    BlockscopeV1Seeker seeker = new BlockscopeV1Seeker(ctx);
    seeker.setCurrentBuffer(new SingleByteBuff(block));
    // the block does not say its unencoded size: the buffer is sized by what the last block
    // decoded here came to per encoded byte (a file's blocks are alike), and grown if short.
    // Measured (benchmarks/encoder-measurements.md): a scratch buffer copied out at the exact size
    // took a third more time on 1 KB values than this
    int encoded = block.remaining();
    int guess = (int) Math.min(1 << 30, (long) encoded * decodedSixteenths / 16 + 1024);
    ByteBuffer out = ByteBuffer.allocate(guess);
    do {
      out = seeker.appendKeyValue(out);
    } while (seeker.next());
    decodedSixteenths = (int) Math.min(1024, 16L * out.position() / Math.max(1, encoded) + 2);
    out.flip();
    return out.slice();
  }

  /**
   * Each thread's array for the encoded block {@link #decodeKeyValues} reads, grown to the largest
   * block it read, up to {@link #ENCODED_KEPT} bytes (a larger one is let go after its call).
   */
  private static final ThreadLocal<byte[]> ENCODED =
      ThreadLocal.withInitial(() -> new byte[128 * 1024]);

  private static final int ENCODED_KEPT = 4 * 1024 * 1024;

  /**
   * Unencoded bytes per encoded byte of the last block {@link #decodeKeyValues} decoded, in
   * sixteenths, rounded up and two sixteenths over; starts at 3 (the seeds' rows). Only tools call
   * it (HBase's {@code EncodedDataBlock}), a region server's reads never do; threads may race on
   * it, which costs at most a larger buffer or one copy.
   */
  private int decodedSixteenths = 48;

  /**
   * An {@code ExtendedCell}, as HBase 3.0's {@code DataBlockEncoder.getFirstKeyCellInBlock}
   * returns; the compiler's bridge answers 2.x's {@code Cell} form.
   */
  @Override
  public ExtendedCell getFirstKeyCellInBlock(ByteBuff block) {
    return BlockFrame.firstKey(block);
  }

  @Override
  public EncodedSeeker createSeeker(HFileBlockDecodingContext ctx) {
    return new BlockscopeV1Seeker(ctx);
  }

  @Override
  public String toString() {
    return "BLOCKSCOPE_V1(interval=" + interval + ")";
  }
}
