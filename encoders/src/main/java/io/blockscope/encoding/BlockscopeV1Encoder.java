package io.blockscope.encoding;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.KeyValueUtil;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.io.encoding.AbstractDataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.encoding.EncodingState;
import org.apache.hadoop.hbase.io.encoding.HFileBlockDecodingContext;
import org.apache.hadoop.hbase.io.encoding.HFileBlockDefaultEncodingContext;
import org.apache.hadoop.hbase.io.encoding.HFileBlockEncodingContext;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.nio.SingleByteBuff;
import org.apache.hadoop.io.WritableUtils;

/**
 * BLOCKSCOPE_V1: cells diff-encoded field by field against the cell before, in groups of up to
 * {@code interval} cells whose first entries a seek finds by binary search. Within a group the
 * values (but the shortest) come first and the key entries after them, so a general-purpose
 * compressor on top (GZ, ZSTD) sees the keys' repeating structure in one run instead of broken up
 * by every value.
 *
 * <p>The block, after the two-byte encoding id HBase writes in front of every encoded block:
 *
 * <pre>
 *  0              B                           E            E+2r (or E+4r)  +4
 *  +--------------+---------------------------+------------+---------------+
 *  | base key     | group 0 | ... | group r-1 | restart[r] | trailer       |
 *  +--------------+---------------------------+------------+---------------+
 *    base key:   vint L, then L bytes: entry 0's key in KeyValue's layout (uint16 row length,
 *                row, uint8 family length, family, qualifier, int64 timestamp, uint8 type);
 *                L &gt;= 12 and the row and family fit in it. A block's first key is a copy of it.
 *    trailer:    int32 big-endian: bits 0-27 the group count r &gt;= 1; bits 28, 29 and 30
 *                always set (small values in key entries, the base key, the grouped layout;
 *                blocks written before any of them are refused as corrupt); bit 31 set: the
 *                restart offsets are int32, clear: uint16 (E &lt;= 65535, nearly every block).
 *    restart[k]: big-endian offset of group k from 0; restart[0] = B (the base key's end),
 *                strictly increasing, all &lt; E. Group k ends where group k+1 starts (the last
 *                one at E).
 *
 *  group (at least 3 bytes):
 *  +---------------------------------+------------------------------+------------------+
 *  | the values of its cells longer  | its key entries, in order    | K: bytes of key  |
 *  | than 2 bytes, in order, back to | (the first is the restart    | entries (below)  |
 *  | back                            | entry)                       |                  |
 *  +---------------------------------+------------------------------+------------------+
 *    K: uint16 big-endian when K &lt; 0x8000 (bit 15 clear); else four bytes, the low 16 bits
 *       then 0x8000 | the high 15 bits, so the group's last two bytes tell the form. K &gt;= 1.
 *
 *  key entry:
 *  +-------+------------------------------------+--------------+------+-------+
 *  | flags | fields that differ, in this order  | value, if of | tags | seqid |
 *  |       | (row ... value length)             | 0-2 bytes    |      |       |
 *  +-------+------------------------------------+--------------+------+-------+
 *
 *  flags (1 byte); a set bit means "same as the cell before, not written":
 *    bit 0  ROW        else: lengths (below), then the row's bytes after the shared prefix
 *    bit 1  FAMILY     else: uint8 length, family bytes
 *    bit 2  QUALIFIER  else: lengths (below), then the qualifier's bytes after the prefix
 *    bit 3  TIMESTAMP  else: vlong, zig-zag of (timestamp - timestamp before)
 *    bit 4  TYPE       else: uint8 key type
 *    bit 5  VALUE_LEN  else: vint value length
 *    bit 6  TAGS       (files with tags only) else: vint tags length, tag bytes
 *    bit 7  SEQID      (files with MVCC only) else: vlong sequence id
 *  A value of at most 2 bytes ({@link #INLINE_MAX}) is in its key entry, right after the value
 *  length (written or not). A longer one is the next unread one of its group's values; the
 *  values of a group end exactly where its key entries start.
 *
 *  lengths of a row or qualifier: s = bytes of the prefix shared with the one before, x = the
 *  bytes after it (written next):
 *    0xxxxxxx   same length as the one before, x &lt;= 127 (s is the rest)
 *    10sssxxx   s &lt;= 7 and x &lt;= 7
 *    11000000   then vint s, vint x (any other 11xxxxxx is invalid)
 * </pre>
 *
 * <p>vint / vlong: unsigned LEB128, 7 bits per byte, low bits first, at most 5 / 10 bytes.
 *
 * <p>"The cell before" entry 0 is the base key with value length 0, no tags and sequence id 0;
 * entry 0 must take its whole key from it (flags ROW, FAMILY, QUALIFIER, TIMESTAMP and TYPE set),
 * else the block is corrupt. "The cell before" the first entry of every other group (its restart
 * entry) is the block's base cell: entry 0, every field of it. So a restart entry decodes with
 * nothing but entry 0, which the reader decodes once per block. For every other entry "the cell
 * before" is the entry before it, with one exception: the qualifier of an entry that starts a new
 * row diffs against the qualifier of the group's last anchor (its first entry, or the last entry
 * that started a row). A seek's walk can then step over the rows before the key's without decoding
 * their other qualifiers, and decode from the first cell of the row it lands in. A group closes
 * after {@code interval} cells or once it holds {@link #RESTART_BYTES} bytes. A seek compares the
 * rows of O(log r) restart entries where they lie in the block, then walks at most one group.
 */
public final class BlockscopeV1Encoder extends AbstractDataBlockEncoder {
  /**
   * Cells per group (restart interval) of the registered encoder. The seeds' seeks measured 1.27
   * times ROW_INDEX_V1's time with groups of 64 cells and 0.97 with 32 (0.99 with 16, 0.97 with 8:
   * the binary search and the landing then cost more than the walk; one {@code SeekRatios 21} run
   * each, with this constant edited at commit c942068, before small values moved into key entries).
   * Each group costs about 10 bytes under ZSTD, where the margins are thinnest: with 32 the seeds'
   * rows measured 0.89 to 0.97 of FAST_DIFF's size under ZSTD, with 16 up to 1.05 ({@code ./mvnw
   * -pl encoders test -Dtest=EncodedSizeTest -Dsizes.intervals=16,32,64} prints them).
   */
  public static final int DEFAULT_INTERVAL = 32;

  /**
   * A group also closes once it holds this many bytes, so that blocks of large cells (a 1 KB value
   * each) still get restarts every few cells: a seek then compares few keys however large the cells
   * are. 8 KB rather than 4: PerformanceEvaluation rows under ZSTD measured larger than FAST_DIFF
   * with 4 KB.
   */
  static final int RESTART_BYTES = 8192;

  static final int ROW = 1;
  static final int FAMILY = 1 << 1;
  static final int QUALIFIER = 1 << 2;
  static final int TIMESTAMP = 1 << 3;
  static final int TYPE = 1 << 4;
  static final int VALUE_LEN = 1 << 5;
  static final int TAGS = 1 << 6;
  static final int SEQID = 1 << 7;

  /**
   * Trailer bits next to the restart count: offsets are int32; the block has groups; it starts with
   * its base key.
   */
  static final int WIDE = 0x80000000;

  static final int GROUPED = 0x40000000;
  static final int BASE_KEY = 0x20000000;
  static final int INLINE_VALUES = 0x10000000;

  /**
   * Values of at most this many bytes are written in their key entry, right after its value length,
   * not with the group's other values. Phoenix writes a one-byte value ('x') in the empty column of
   * every row: among the group's values it split the random bytes of the others into short runs
   * that ZSTD codes one by one (the seeds' rows measured 7% larger under aircompressor's ZSTD with
   * it there: {@code EncodedSizeTest -Dsizes.intervals=64} at commits c942068 and bc94cbf); among
   * the key entries it repeats with them, in one match.
   */
  static final int INLINE_MAX = 2;

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
    Fields before = new Fields();
    Fields now = new Fields();
    int[] restarts = new int[64];
    int restartCount;

    /** The block's base cell, what restart entries diff against: entry 0, every field. */
    final Fields base = new Fields();

    /** Bytes written to the block's stream: values, and the key entries of closed groups. */
    int written;

    int sinceRestart;

    /**
     * The qualifier of the last entry that started a group or a row: the one a new row's qualifier
     * diffs against.
     */
    final Fields anchor = new Fields();

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
      int groups = written + keysLen + (keysLen < 0x8000 ? 2 : 4);
      return groups + restartCount * (groups > 0xffff ? 4 : 2) + 4;
    }
  }

  /**
   * One cell's fields, in arrays of their own: the encoder's cell before and cell now, and the base
   * of the seeker's decoded entries ({@code BlockscopeV1Seeker.Entry}).
   */
  static class Fields {
    byte[] row = EMPTY;
    int rowLen;
    byte[] family = EMPTY;
    int familyLen;
    byte[] qualifier = EMPTY;
    int qualifierLen;
    long timestamp;
    byte type;
    int valueLen;
    byte[] tags = EMPTY;
    int tagsLen;
    long seqId;

    /** Drops value length, tags and sequence id: with the base key, the cell before entry 0. */
    void clearRest() {
      valueLen = 0;
      tagsLen = 0;
      seqId = 0;
    }

    /** Becomes a copy of {@code o}: of the base cell, the state before a restart entry. */
    void reset(Fields o) {
      copyKey(o);
      takeRest(o);
    }

    /** Takes the qualifier of {@code o}: the one a new row's first qualifier diffs against. */
    void takeQualifier(Fields o) {
      qualifier = room(qualifier, o.qualifierLen);
      System.arraycopy(o.qualifier, 0, qualifier, 0, o.qualifierLen);
      qualifierLen = o.qualifierLen;
    }

    /** Takes type, value length, tags and sequence id from {@code o}. */
    void takeRest(Fields o) {
      type = o.type;
      valueLen = o.valueLen;
      tagsLen = o.tagsLen;
      if (tagsLen > 0) {
        tags = room(tags, tagsLen);
        System.arraycopy(o.tags, 0, tags, 0, tagsLen);
      }
      seqId = o.seqId;
    }

    /** Takes row, family, qualifier and timestamp from {@code o}, in its own arrays. */
    void copyKey(Fields o) {
      row = room(row, o.rowLen);
      System.arraycopy(o.row, 0, row, 0, o.rowLen);
      rowLen = o.rowLen;
      family = room(family, o.familyLen);
      System.arraycopy(o.family, 0, family, 0, o.familyLen);
      familyLen = o.familyLen;
      qualifier = room(qualifier, o.qualifierLen);
      System.arraycopy(o.qualifier, 0, qualifier, 0, o.qualifierLen);
      qualifierLen = o.qualifierLen;
      timestamp = o.timestamp;
    }

    void read(Cell c, boolean withTags) {
      readKey(c);
      valueLen = c.getValueLength();
      tagsLen = withTags ? c.getTagsLength() : 0;
      if (tagsLen > 0) {
        tags = room(tags, tagsLen);
        PrivateCellUtil.copyTagsTo(c, tags, 0);
      }
      seqId = c.getSequenceId();
    }

    /**
     * Takes row, family, qualifier, timestamp and type from {@code c} (which may be a key-only
     * cell, such as a block's base key), in its own arrays.
     */
    void readKey(Cell c) {
      rowLen = c.getRowLength();
      row = room(row, rowLen);
      CellUtil.copyRowTo(c, row, 0);
      familyLen = c.getFamilyLength();
      family = room(family, familyLen);
      CellUtil.copyFamilyTo(c, family, 0);
      qualifierLen = c.getQualifierLength();
      qualifier = room(qualifier, qualifierLen);
      CellUtil.copyQualifierTo(c, qualifier, 0);
      timestamp = c.getTimestamp();
      type = c.getTypeByte();
    }
  }

  /**
   * What every field array starts as: grown by {@link #room} or {@link #grow} before any write, so
   * that a new seeker (every point get creates one) allocates only what it decodes.
   */
  static final byte[] EMPTY = new byte[0];

  /** {@code a}, or a new larger array (contents not kept), with room for {@code n} bytes. */
  static byte[] room(byte[] a, int n) {
    return a.length >= n ? a : new byte[Math.max(n, a.length * 2)];
  }

  /** {@code a}, or a larger copy of it, with room for {@code n} bytes (contents kept). */
  static byte[] grow(byte[] a, int n) {
    return a.length >= n ? a : java.util.Arrays.copyOf(a, Math.max(n, a.length * 2));
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
    byte[] block = c.getEncodingState() instanceof BlockState b ? b.block : new byte[4096];
    c.setEncodingState(
        new BlockState(
            c.getHFileContext().isIncludesTags(), c.getHFileContext().isIncludesMvcc(), block));
  }

  @Override
  public void encode(Cell cell, HFileBlockEncodingContext ctx, DataOutputStream out)
      throws IOException {
    BlockState s = (BlockState) ctx.getEncodingState();
    Fields now = s.now;
    now.read(cell, s.tags);
    Fields before = s.before;
    if (s.sinceRestart == 0
        || s.sinceRestart >= interval
        || s.written - s.restarts[s.restartCount - 1] + s.keysLen >= RESTART_BYTES) {
      if (s.restartCount > 0) {
        closeGroup(s);
      }
      if (s.restartCount == s.restarts.length) {
        s.restarts = java.util.Arrays.copyOf(s.restarts, s.restartCount * 2);
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
    Fields q = sameRow || s.sinceRestart == 0 ? before : s.anchor;
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
      n = putVLong(h, n, (d << 1) ^ (d >> 63));
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
    int keyLen = KeyValue.KEY_INFRASTRUCTURE_SIZE + now.rowLen + now.familyLen + now.qualifierLen;
    int unencoded =
        KeyValue.KEYVALUE_INFRASTRUCTURE_SIZE
            + keyLen
            + now.valueLen
            + (s.tags ? KeyValue.TAGS_LENGTH_SIZE + now.tagsLen : 0)
            + (s.mvcc ? WritableUtils.getVIntSize(now.seqId) : 0);
    s.postCellEncode(unencoded, encoded);
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

  /** Writes the open group's key entries and their length, after the group's values. */
  private static void closeGroup(BlockState s) {
    s.put(s.keys, 0, s.keysLen);
    if (s.keysLen < 0x8000) {
      s.putShort(s.keysLen);
    } else {
      // low half first: the group's last two bytes say which form it is
      s.putShort(s.keysLen & 0xffff);
      s.putShort(0x8000 | (s.keysLen >>> 16));
    }
    s.keysLen = 0;
  }

  /** The lengths as drawn above, then the bytes after the shared prefix. */
  private static int putSuffix(byte[] h, int n, byte[] a, int len, int shared, int lenBefore) {
    int rest = len - shared;
    if (len == lenBefore && rest <= 127) {
      h[n++] = (byte) rest;
    } else if (shared <= 7 && rest <= 7) {
      h[n++] = (byte) (0x80 | (shared << 3) | rest);
    } else {
      h[n++] = (byte) 0xc0;
      n = putVInt(h, n, shared);
      n = putVInt(h, n, rest);
    }
    System.arraycopy(a, shared, h, n, rest);
    return n + rest;
  }

  private static boolean equal(byte[] a, int an, byte[] b, int bn) {
    return an == bn && java.util.Arrays.equals(a, 0, an, b, 0, bn);
  }

  private static int shared(byte[] a, int an, byte[] b, int bn) {
    int m = java.util.Arrays.mismatch(a, 0, an, b, 0, bn);
    return m < 0 ? an : m;
  }

  static int putVInt(byte[] b, int at, int v) {
    while ((v & ~0x7f) != 0) {
      b[at++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    b[at++] = (byte) v;
    return at;
  }

  static int putVLong(byte[] b, int at, long v) {
    while ((v & ~0x7fL) != 0) {
      b[at++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    b[at++] = (byte) v;
    return at;
  }

  /*
   * Where the block is written (issue 14, B).
   *
   * The tail of a block (the last group's key entries and their length, the restart offsets,
   * the trailer) is known only when the block ends. It used to be written to the stream by
   * endBlockEncoding, which HBase's HFileBlock.Writer keeps (finishBlock compresses
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
    s.putInt(s.restartCount | GROUPED | BASE_KEY | INLINE_VALUES | (wide ? WIDE : 0));
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
  public ByteBuffer decodeKeyValues(DataInputStream source, HFileBlockDecodingContext ctx)
      throws IOException {
    byte[] block = source.readAllBytes();
    BlockscopeV1Seeker seeker = new BlockscopeV1Seeker(ctx);
    seeker.setCurrentBuffer(new SingleByteBuff(ByteBuffer.wrap(block)));
    ByteArrayOutputStream kvs = new ByteArrayOutputStream(block.length * 2);
    DataOutputStream out = new DataOutputStream(kvs);
    boolean tags = ctx.getHFileContext().isIncludesTags();
    boolean mvcc = ctx.getHFileContext().isIncludesMvcc();
    do {
      Cell c = seeker.getCell();
      KeyValue kv = new KeyValue(c);
      out.writeInt(kv.getKeyLength());
      out.writeInt(kv.getValueLength());
      out.write(kv.getBuffer(), kv.getKeyOffset(), kv.getKeyLength());
      out.write(kv.getValueArray(), kv.getValueOffset(), kv.getValueLength());
      if (tags) {
        out.writeShort(kv.getTagsLength());
        out.write(kv.getTagsArray(), kv.getTagsOffset(), kv.getTagsLength());
      }
      if (mvcc) {
        WritableUtils.writeVLong(out, c.getSequenceId());
      }
    } while (seeker.next());
    out.flush();
    return ByteBuffer.wrap(kvs.toByteArray());
  }

  @Override
  public Cell getFirstKeyCellInBlock(ByteBuff block) {
    return BlockscopeV1Seeker.firstKey(block);
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
