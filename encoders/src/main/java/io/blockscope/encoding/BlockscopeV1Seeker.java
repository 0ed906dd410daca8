package io.blockscope.encoding;

import static io.blockscope.encoding.BlockscopeV1Encoder.FAMILY;
import static io.blockscope.encoding.BlockscopeV1Encoder.QUALIFIER;
import static io.blockscope.encoding.BlockscopeV1Encoder.ROW;
import static io.blockscope.encoding.BlockscopeV1Encoder.SEQID;
import static io.blockscope.encoding.BlockscopeV1Encoder.TAGS;
import static io.blockscope.encoding.BlockscopeV1Encoder.TIMESTAMP;
import static io.blockscope.encoding.BlockscopeV1Encoder.TYPE;
import static io.blockscope.encoding.BlockscopeV1Encoder.VALUE_LEN;

import java.nio.ByteBuffer;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.HFileBlockDecodingContext;
import org.apache.hadoop.hbase.nio.ByteBuff;

/**
 * Reads BLOCKSCOPE_V1 blocks ({@link BlockscopeV1Encoder} draws the format). Every length read
 * from the block is checked against the block's end before it is used, so a corrupt or
 * truncated block ends in a {@link CorruptBlockException}, never a read outside the block or an
 * allocation sized by an unchecked number; every step moves forward by at least one byte, so no
 * loop can hang.
 *
 * <p>An on-heap block is read in place and the cells returned point into it (HBase keeps a block
 * until the cells read from it are shipped). An off-heap block (a BucketCache in direct memory) is
 * copied to the heap once when the seeker moves to it, and its cells point into that copy.
 */
final class BlockscopeV1Seeker implements DataBlockEncoder.EncodedSeeker {
  private final CellComparator comparator;
  private final boolean tags;
  private final boolean mvcc;

  private byte[] buf;
  /** Where the block's entries start and end in {@link #buf}. */
  private int base;
  private int end;
  private int[] restarts;
  private int restartCount;
  /** The block's base cell: entry 0's key, decoded once per block. */
  private final Entry first = new Entry();

  /** The entry the seeker is on, and a spare for looking one entry ahead. */
  private Entry current;
  private Entry ahead;

  BlockscopeV1Seeker(HFileBlockDecodingContext ctx) {
    this.comparator = ctx.getHFileContext().getCellComparator();
    this.tags = ctx.getHFileContext().isIncludesTags();
    this.mvcc = ctx.getHFileContext().isIncludesMvcc();
    this.restarts = new int[64];
    this.current = new Entry();
    this.ahead = new Entry();
  }

  /** One decoded entry: the key fields in arrays of their own, value and tags in the block. */
  static final class Entry extends BlockscopeV1Encoder.Fields {
    int valueOffset;
    int tagsOffset;
    /** Block-relative offsets of this entry and of the one after it. */
    int at;
    int next;
    /** Index of the restart this entry belongs to. */
    int restart;
    /** The row is the row of the entry before (false for a restart entry). */
    boolean sameRow;
    final KeyView key = new KeyView(this);

    void copy(Entry o) {
      copyKey(o);
      type = o.type;
      valueOffset = o.valueOffset;
      valueLen = o.valueLen;
      tagsOffset = o.tagsOffset;
      tagsLen = o.tagsLen;
      seqId = o.seqId;
      at = o.at;
      next = o.next;
      restart = o.restart;
      sameRow = o.sameRow;
    }
  }

  @Override
  public void setCurrentBuffer(ByteBuff block) {
    int n = block.remaining();
    if (block.hasArray()) {
      buf = block.array();
      base = block.arrayOffset() + block.position();
    } else {
      buf = new byte[n];
      block.get(block.position(), buf, 0, n);
      base = 0;
    }
    readRestarts(n);
    rewind();
  }

  /**
   * Reads and checks the restart index of a block of {@code n} bytes at {@link #base}, then
   * decodes entry 0's key: the base of every other restart entry.
   */
  private void readRestarts(int n) {
    if (n < 4 + 2 + 1) {
      throw new CorruptBlockException("block of " + n + " bytes is too short");
    }
    int raw = readInt(buf, base + n - 4);
    boolean wide = raw < 0;
    int width = wide ? 4 : 2;
    int count = raw & 0x7fffffff;
    if (count < 1 || count > (n - 5) / width) {
      throw new CorruptBlockException("restart count " + count + " in a block of " + n
          + " bytes");
    }
    int entries = n - 4 - width * count;
    if (restarts.length < count) {
      restarts = new int[count];
    }
    int previous = -1;
    for (int i = 0; i < count; i++) {
      int at = base + entries + width * i;
      int r = wide ? readInt(buf, at) : ((buf[at] & 0xff) << 8) | (buf[at + 1] & 0xff);
      if (r <= previous || r >= entries || (i == 0 && r != 0)) {
        throw new CorruptBlockException("restart " + i + " at " + r + " (entries end at "
            + entries + ", previous restart at " + previous + ")");
      }
      restarts[i] = r;
      previous = r;
    }
    restartCount = count;
    end = base + entries;
    decodeFirstKey();
  }

  /** Decodes entry 0's key into {@link #first}. */
  private void decodeFirstKey() {
    first.empty();
    first.restart = 0;
    decode(first, 0, false);
  }

  private static int readInt(byte[] b, int at) {
    return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8)
        | (b[at + 3] & 0xff);
  }

  /** Where the entries of restart {@code k} end (the next restart, or the end of entries). */
  private int restartEnd(int k) {
    return k + 1 < restartCount ? restarts[k + 1] : end - base;
  }

  /** Decodes the restart entry {@code k} into {@code e}. */
  private void decodeRestart(Entry e, int k) {
    decodeRestart(e, k, true);
  }

  /** As above; with {@code whole} false only the key (binary search probes). */
  private void decodeRestart(Entry e, int k, boolean whole) {
    if (k == 0) {
      e.empty();
    } else {
      e.reset(first);
    }
    e.restart = k;
    decode(e, restarts[k], whole);
    e.sameRow = false;
  }

  /**
   * Decodes the entry after {@code e} into {@code e} (which holds the cell before it); a restart
   * entry starts from the empty cell. False at the end of the block.
   */
  private boolean decodeNext(Entry e) {
    int at = e.next;
    if (base + at >= end) {
      return false;
    }
    if (at == restartEnd(e.restart)) {
      decodeRestart(e, e.restart + 1);
    } else {
      decode(e, at, true);
    }
    return true;
  }

  /**
   * Decodes the entry at block offset {@code at} over {@code e}, which holds the cell before
   * (cleared at a restart); with {@code whole} false, stops after the key.
   */
  private void decode(Entry e, int at, boolean whole) {
    byte[] b = buf;
    int limit = base + restartEnd(e.restart);
    int p = base + at;
    e.at = at;
    int flags = b[p++] & 0xff;
    e.sameRow = (flags & ROW) != 0;
    if ((flags & ROW) == 0) {
      e.row = prefixed(b, p, limit, at, e.row, e.rowLen, Short.MAX_VALUE, "row");
      e.rowLen = decodedLen;
      p = next;
    }
    if ((flags & FAMILY) == 0) {
      if (p >= limit) {
        throw corrupt(at, "family length past the end");
      }
      int len = b[p++] & 0xff;
      if (len > limit - p) {
        throw corrupt(at, "family of " + len + " bytes");
      }
      e.family = BlockscopeV1Encoder.room(e.family, len);
      System.arraycopy(b, p, e.family, 0, len);
      e.familyLen = len;
      p += len;
    }
    if ((flags & QUALIFIER) == 0) {
      e.qualifier = prefixed(b, p, limit, at, e.qualifier, e.qualifierLen, Integer.MAX_VALUE,
          "qualifier");
      e.qualifierLen = decodedLen;
      p = next;
    }
    if ((flags & TIMESTAMP) == 0) {
      long z = vlong(b, p, limit);
      p = next;
      e.timestamp += (z >>> 1) ^ -(z & 1);
    }
    if ((flags & TYPE) == 0) {
      if (p >= limit) {
        throw corrupt(at, "type past the end");
      }
      e.type = b[p++];
    }
    if (!whole) {
      return;
    }
    if ((flags & VALUE_LEN) == 0) {
      e.valueLen = vint(b, p, limit);
      p = next;
    }
    if (e.valueLen > limit - p) {
      throw corrupt(at, "value of " + e.valueLen + " bytes");
    }
    e.valueOffset = p;
    p += e.valueLen;
    if (tags && (flags & TAGS) == 0) {
      int len = vint(b, p, limit);
      p = next;
      if (len > limit - p) {
        throw corrupt(at, "tags of " + len + " bytes");
      }
      e.tagsOffset = p;
      e.tagsLen = len;
      p += len;
    }
    if (mvcc && (flags & SEQID) == 0) {
      e.seqId = vlong(b, p, limit);
      p = next;
    }
    e.next = p - base;
  }

  /** Position after the last vint/vlong read (a field, to spare an allocation per read). */
  private int next;
  /** The last lengths read by {@link #lengths}. */
  private int pairShared;
  private int pairRest;
  /** The length of the last row or qualifier read by {@link #prefixed}. */
  private int decodedLen;

  /**
   * Reads a row or qualifier at {@code p} over {@code old}, whose first {@code oldLen} bytes are
   * the one before: its lengths, then its bytes after the shared prefix. Returns the array
   * holding it ({@code old} or a larger copy), its length in {@link #decodedLen}, the position
   * after it in {@link #next}.
   */
  private byte[] prefixed(byte[] b, int p, int limit, int at, byte[] old, int oldLen, int max,
      String what) {
    p = lengths(b, p, limit, at, oldLen);
    int shared = pairShared;
    int suffix = pairRest;
    if (shared > oldLen || suffix > limit - p || (long) shared + suffix > max) {
      throw corrupt(at, what + " of " + shared + " + " + suffix + " bytes");
    }
    byte[] into = BlockscopeV1Encoder.room(old, shared + suffix);
    if (into != old) {
      System.arraycopy(old, 0, into, 0, shared);
    }
    System.arraycopy(b, p, into, shared, suffix);
    decodedLen = shared + suffix;
    next = p + suffix;
    return into;
  }

  /**
   * Reads a row's or qualifier's lengths (shared prefix, rest) for one whose predecessor had
   * {@code before} bytes; returns the position after them.
   */
  private int lengths(byte[] b, int p, int limit, int at, int before) {
    if (p >= limit) {
      throw corrupt(at, "lengths past the end");
    }
    int x = b[p++];
    if (x >= 0) {
      if (x > before) {
        throw corrupt(at, x + " new bytes of " + before);
      }
      pairShared = before - x;
      pairRest = x;
      return p;
    }
    if ((x & 0x40) == 0) {
      pairShared = (x >>> 3) & 0x07;
      pairRest = x & 0x07;
      return p;
    }
    if (x != (byte) 0xc0) {
      throw corrupt(at, "lengths marker " + (x & 0xff));
    }
    pairShared = vint(b, p, limit);
    pairRest = vint(b, next, limit);
    return next;
  }

  private int vint(byte[] b, int p, int limit) {
    long v = vlong(b, p, limit);
    if (v < 0 || v > Integer.MAX_VALUE) {
      throw corrupt(p - base, "length " + v);
    }
    return (int) v;
  }

  private long vlong(byte[] b, int p, int limit) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= limit) {
        throw corrupt(p - base, "number past the end of its entries");
      }
      byte x = b[p++];
      v |= (long) (x & 0x7f) << shift;
      if (x >= 0) {
        next = p;
        return v;
      }
    }
    throw corrupt(p - base, "number longer than 10 bytes");
  }

  private CorruptBlockException corrupt(int at, String what) {
    return new CorruptBlockException("BLOCKSCOPE_V1 entry at " + at + ": " + what);
  }

  @Override
  public void rewind() {
    decodeRestart(current, 0);
  }

  @Override
  public boolean next() {
    // in place: the entry after is decoded over the one before it (decodeNext changes nothing
    // at the end of the block)
    return decodeNext(current);
  }

  @Override
  public int seekToKeyInBlock(Cell key, boolean seekBefore) {
    // the last restart whose first key is below `key`
    int lo = 0;
    int hi = restartCount - 1;
    int found = -1;
    Entry probe = ahead;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      decodeRestart(probe, mid, false);
      if (compare(key, probe) > 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (found < 0) {
      rewind();
      if (seekBefore) {
        throw new IllegalStateException("Cannot seekBefore if positioned at the first key in "
            + "the block: key=" + key);
      }
      return compare(key, current) == 0 ? 0 : HConstants.INDEX_KEY_MAGIC;
    }
    decodeRestart(current, found);
    // current < key; walk on while the next cell is below the key (or equal, unless seekBefore).
    // While the rows stay the same and the key's row is after them, no comparison is needed.
    int rowOrder = comparator.compareRows(key, current.key);
    while (true) {
      ahead.copy(current);
      if (!decodeNext(ahead)) {
        return 1;
      }
      int c;
      if (ahead.sameRow && rowOrder > 0) {
        c = 1;
      } else {
        rowOrder = comparator.compareRows(key, ahead.key);
        c = rowOrder != 0 ? rowOrder : compare(key, ahead);
      }
      if (c < 0 || (c == 0 && seekBefore)) {
        return 1;
      }
      Entry t = current;
      current = ahead;
      ahead = t;
      if (c == 0) {
        return 0;
      }
    }
  }

  private int compare(Cell key, Entry e) {
    return PrivateCellUtil.compareKeyIgnoresMvcc(comparator, key, e.key);
  }

  @Override
  public int compareKey(CellComparator comparator, Cell key) {
    return PrivateCellUtil.compareKeyIgnoresMvcc(comparator, key, current.key);
  }

  @Override
  public Cell getKey() {
    return keyOnly(current);
  }

  /** A copy of {@code e}'s key as a key-only cell. */
  private static Cell keyOnly(Entry e) {
    byte[] k = flatKey(e);
    return new KeyValue.KeyOnlyKeyValue(k, 0, k.length);
  }

  @Override
  public ByteBuffer getValueShallowCopy() {
    return ByteBuffer.wrap(buf, current.valueOffset, current.valueLen).slice();
  }

  @Override
  public Cell getCell() {
    Entry e = current;
    return new DecodedCell(e.row, e.rowLen, e.family, e.familyLen, e.qualifier, e.qualifierLen,
        e.timestamp, e.type, buf, e.valueOffset, e.valueLen, buf, e.tagsOffset, e.tagsLen,
        e.seqId);
  }

  /** The key in KeyValue's layout: row length, row, family length, family, qualifier, ts, type. */
  static byte[] flatKey(Entry e) {
    byte[] k = new byte[KeyValue.KEY_INFRASTRUCTURE_SIZE + e.rowLen + e.familyLen
        + e.qualifierLen];
    int p = 0;
    k[p++] = (byte) (e.rowLen >> 8);
    k[p++] = (byte) e.rowLen;
    System.arraycopy(e.row, 0, k, p, e.rowLen);
    p += e.rowLen;
    k[p++] = (byte) e.familyLen;
    System.arraycopy(e.family, 0, k, p, e.familyLen);
    p += e.familyLen;
    System.arraycopy(e.qualifier, 0, k, p, e.qualifierLen);
    p += e.qualifierLen;
    for (int i = 7; i >= 0; i--) {
      k[p++] = (byte) (e.timestamp >>> (8 * i));
    }
    k[p] = e.type;
    return k;
  }

  /**
   * The first key of an encoded block, without moving the block's position. HBase asks for it on
   * every seekBefore ({@code HFileReaderImpl.HFileScannerImpl.seekBefore}), so only entry 0's
   * key is read: in place on the heap; off the heap, from a copy of the block's first 4 KB (the
   * whole block if the key is longer).
   */
  static Cell firstKey(ByteBuff block) {
    int n = block.remaining();
    int at = block.position();
    if (n < 4 + 2 + 1) {
      throw new CorruptBlockException("block of " + n + " bytes is too short");
    }
    int raw = block.getInt(at + n - 4);
    int count = raw & 0x7fffffff;
    long entries = (long) n - 4 - (long) (raw < 0 ? 4 : 2) * count;
    if (count < 1 || entries < 1) {
      throw new CorruptBlockException("restart count " + count + " in a block of " + n
          + " bytes");
    }
    BlockscopeV1Seeker s = new BlockscopeV1Seeker();
    s.restartCount = 1;
    s.restarts[0] = 0;
    if (block.hasArray()) {
      s.buf = block.array();
      s.base = block.arrayOffset() + at;
      return s.firstKeyOf((int) entries);
    }
    int part = (int) Math.min(entries, 4096);
    s.buf = new byte[part];
    block.get(at, s.buf, 0, part);
    try {
      return s.firstKeyOf(part);
    } catch (CorruptBlockException truncated) {
      if (part == entries) {
        throw truncated;
      }
      s.buf = new byte[(int) entries];
      block.get(at, s.buf, 0, (int) entries);
      return s.firstKeyOf((int) entries);
    }
  }

  /** Entry 0's key, reading at most {@code entries} bytes from {@link #base}. */
  private Cell firstKeyOf(int entries) {
    end = base + entries;
    decodeFirstKey();
    return keyOnly(first);
  }

  /**
   * A seeker that reads entry 0's key and nothing else: no value, tags or sequence id, one
   * restart, no entries to move between.
   */
  private BlockscopeV1Seeker() {
    this.comparator = null;
    this.tags = false;
    this.mvcc = false;
    this.restarts = new int[1];
  }
}
