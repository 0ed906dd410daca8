package io.blockscope.encoding;

import static io.blockscope.encoding.BlockscopeV1Format.BASE_FIELDS;
import static io.blockscope.encoding.BlockscopeV1Format.COUNT;
import static io.blockscope.encoding.BlockscopeV1Format.FAMILY;
import static io.blockscope.encoding.BlockscopeV1Format.INLINE_MAX;
import static io.blockscope.encoding.BlockscopeV1Format.QUALIFIER;
import static io.blockscope.encoding.BlockscopeV1Format.ROW;
import static io.blockscope.encoding.BlockscopeV1Format.SEQID;
import static io.blockscope.encoding.BlockscopeV1Format.TAGS;
import static io.blockscope.encoding.BlockscopeV1Format.TIMESTAMP;
import static io.blockscope.encoding.BlockscopeV1Format.TYPE;
import static io.blockscope.encoding.BlockscopeV1Format.VALUE_LEN;
import static io.blockscope.encoding.BlockscopeV1Format.checkBaseKey;
import static io.blockscope.encoding.BlockscopeV1Format.checkTrailer;
import static io.blockscope.encoding.BlockscopeV1Format.groupKeys;
import static io.blockscope.encoding.BlockscopeV1Format.groupsEnd;
import static io.blockscope.encoding.BlockscopeV1Format.int32;
import static io.blockscope.encoding.BlockscopeV1Format.uint16;
import static io.blockscope.encoding.BlockscopeV1Format.width;

import java.nio.ByteBuffer;
import org.apache.hadoop.hbase.ByteBufferExtendedCell;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellComparatorImpl;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.InnerStoreCellComparator;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.HFileBlockDecodingContext;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Reads BLOCKSCOPE_V1 blocks ({@link BlockscopeV1Encoder} draws the format). Every length read from
 * the block is checked against the block's end before it is used, so a corrupt or truncated block
 * ends in a {@link CorruptBlockException}, never a read outside the block or an allocation sized by
 * an unchecked number; every step moves forward by at least one byte, so no loop can hang.
 *
 * <p>An on-heap block is read in place and the cells returned point into it (HBase keeps a block
 * until the cells read from it are shipped). An off-heap block (a BucketCache in direct memory) is
 * copied to the heap once when the seeker moves to it, and its cells point into that copy.
 */
final class BlockscopeV1Seeker implements DataBlockEncoder.EncodedSeeker {
  private final CellComparator comparator;

  /**
   * The comparator orders rows bytewise, as {@code CellComparatorImpl.compareRows} does: true for
   * {@code CellComparatorImpl} and {@code InnerStoreCellComparator} (every table's store files),
   * false for {@code MetaCellComparator} (hbase:meta) and anything else.
   */
  private final boolean bytewiseRows;

  /** InnerStoreCellComparator: families compare by length alone (one family per store). */
  private final boolean familyLengthOnly;

  private final boolean tags;
  private final boolean mvcc;

  private byte[] buf;

  /** Where the block starts in {@link #buf}; every offset below is from there. */
  private int base;

  /**
   * Per group, four ints: where it starts (its values), where its key entries start and end, and
   * the {@link #generation} of the block they were read for ({@link #openGroup}). One array, so
   * that a new seeker (every point get creates one) allocates one.
   */
  private int[] groups;

  private int restartCount;

  /** The block's base cell: entry 0's key, decoded once per block. */
  private final Entry first = new Entry();

  /** The entry the seeker is on, and a spare for looking one entry ahead. */
  private Entry current;

  private Entry ahead;

  BlockscopeV1Seeker(HFileBlockDecodingContext ctx) {
    this.comparator = ctx.getHFileContext().getCellComparator();
    this.bytewiseRows =
        comparator != null
            && (comparator.getClass() == CellComparatorImpl.class
                || comparator.getClass() == InnerStoreCellComparator.class);
    this.familyLengthOnly =
        comparator != null && comparator.getClass() == InnerStoreCellComparator.class;
    this.tags = ctx.getHFileContext().isIncludesTags();
    this.mvcc = ctx.getHFileContext().isIncludesMvcc();
    // sized by the first block
    this.groups = NO_GROUPS;
    this.current = new Entry();
    this.ahead = new Entry();
  }

  /** One decoded entry: the key fields in arrays of their own, value and tags in the block. */
  static class Entry extends Fields {
    int valueOffset;
    int tagsOffset;

    /** Where the value of the entry after this one starts in the block's array. */
    int valueAt;

    /** Block-relative offsets of this entry and of the one after it. */
    int at;

    int next;

    /** Index of the restart this entry belongs to. */
    int restart;

    /** The row is the row of the entry before (false for a restart entry). */
    boolean sameRow;

    /**
     * The qualifier of the last entry that started the group or a row: the one a new row's
     * qualifier diffs against.
     */
    byte[] rowQualifier = Fields.EMPTY;

    int rowQualifierLen;

    /** This entry as a Cell's key, made when first compared (not by every new seeker). */
    private KeyView key;

    KeyView key() {
      KeyView k = key;
      return k != null ? k : (key = new KeyView(this));
    }

    /** Tags stay in the block: their offset is taken, not their bytes. */
    @Override
    void takeRest(Fields o) {
      Entry e = (Entry) o;
      type = e.type;
      valueLen = e.valueLen;
      tagsOffset = e.tagsOffset;
      tagsLen = e.tagsLen;
      seqId = e.seqId;
    }

    void copy(Entry o) {
      reset(o);
      rowQualifier = Fields.room(rowQualifier, o.rowQualifierLen);
      System.arraycopy(o.rowQualifier, 0, rowQualifier, 0, o.rowQualifierLen);
      rowQualifierLen = o.rowQualifierLen;
      valueOffset = o.valueOffset;
      valueAt = o.valueAt;
      at = o.at;
      next = o.next;
      restart = o.restart;
      sameRow = o.sameRow;
    }
  }

  /**
   * Moves the seeker to {@code block}. If the block is corrupt it throws, and the seeker keeps
   * nothing of the block before: until a block is set that reads, every call that reads a cell
   * throws a {@link CorruptBlockException} naming this failure. (HBase's {@code
   * HFileReaderImpl.EncodedScanner.updateCurrentBlock} makes the new block its current one before
   * it calls this, so after the failure it may still ask this seeker for cells.)
   */
  @Override
  public void setCurrentBuffer(ByteBuff block) {
    failed = null;
    try {
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
    } catch (Throwable t) {
      forgetBlock(t);
      throw t;
    }
    // not rewind(): blockscope's decode probe times each public seeker call, and one inside
    // another would be counted twice
    rewound = true;
  }

  /**
   * The message of the failure of the last {@link #setCurrentBuffer}, or null if it read its block.
   */
  private String failed;

  /**
   * After {@code t} ended {@link #setCurrentBuffer}: drops the block, its restart index and the
   * groups read from it (their stamps go stale), so that no call reads them.
   */
  private void forgetBlock(Throwable t) {
    failed = t.getClass().getSimpleName() + ": " + t.getMessage();
    buf = null;
    base = 0;
    restartCount = 0;
    groupsEnd = 0;
    baseKeyAt = 0;
    baseKeyLen = 0;
    nextGeneration();
    rewound = true;
  }

  /** Fails every read of a seeker whose last {@link #setCurrentBuffer} failed. */
  private void checkBlock() {
    if (failed != null) {
      throw CorruptBlockException.raise(
          "no block to read: the last one set was refused (" + failed + ")");
    }
  }

  /** A new stamp for the groups of a new block ({@link #generation}). */
  private void nextGeneration() {
    if (++generation == Integer.MAX_VALUE) {
      // no group may pass for open with a stamp of an earlier block
      java.util.Arrays.fill(groups, 0);
      generation = 1;
    }
  }

  /**
   * Reads and checks the trailer of a block of {@code n} bytes at {@link #base}: the restart index
   * and the base key; then opens group 0 and decodes entry 0, the base of every other restart
   * entry. The other groups are opened when first used ({@link #openGroup}).
   */
  private void readRestarts(int n) {
    if (n < 4) {
      throw CorruptBlockException.raise("block of " + n + " bytes is too short");
    }
    int raw = int32(buf, base + n - 4);
    checkTrailer(n, raw);
    int count = raw & COUNT;
    int entries = groupsEnd(n, raw);
    if (groups.length < GROUP_INTS * count) {
      groups = new int[GROUP_INTS * count];
    }
    nextGeneration();
    baseKeyLen = vint(buf, base, base + entries);
    baseKeyAt = next - base;
    if (baseKeyLen > entries - baseKeyAt) {
      throw CorruptBlockException.raise(
          "base key of " + baseKeyLen + " bytes in a block of " + n + " bytes");
    }
    checkBaseKey(buf, next, baseKeyLen);
    restartCount = count;
    groupsEnd = entries;
    restartWidth = width(raw);
    openGroup(0);
    decodeFirst();
  }

  /** Where the last group ends (the restart offsets start) in the current block. */
  private int groupsEnd;

  /** Bytes per restart offset in the current block: 2 or 4. */
  private int restartWidth;

  private static final int[] NO_GROUPS = new int[0];
  private static final int GROUP_INTS = 4;

  /**
   * Stamps the groups read for the current block in {@link #groups}: a group is read when a seek or
   * a walk first comes to it, so that moving to a block (every point get does) reads no group but
   * the first.
   */
  private int generation;

  /**
   * Reads and checks where group {@code k} of the current block lies, unless done already: its
   * restart offset and the next ({@link #restartAt}), and from its end where its key entries lie
   * ({@link #keysAt}, {@link #keysEnd}). Every read of a group goes through a restart entry ({@link
   * #decodeRestart}, the binary search's probes, entry 0), which opens it.
   */
  private void openGroup(int k) {
    int g = GROUP_INTS * k;
    if (groups[g + 3] == generation) {
      return;
    }
    int from = restartOffset(k);
    int to = k + 1 < restartCount ? restartOffset(k + 1) : groupsEnd;
    int groupsStart = baseKeyAt + baseKeyLen;
    if ((k == 0 ? from != groupsStart : from <= groupsStart) || to > groupsEnd) {
      throw CorruptBlockException.raise(
          "restart "
              + k
              + " at "
              + from
              + " (groups from "
              + groupsStart
              + " to "
              + groupsEnd
              + ")");
    }
    if (to - from < 3) {
      throw CorruptBlockException.raise("group " + k + " of " + (to - from) + " bytes");
    }
    groups[g] = from;
    long keys =
        groupKeys(
            k,
            from,
            to,
            uint16(buf, base + to - 2),
            to - from >= 4 ? uint16(buf, base + to - 4) : -1);
    groups[g + 1] = (int) (keys >>> 32);
    groups[g + 2] = (int) keys;
    groups[g + 3] = generation;
  }

  /** Where group {@code k} (opened) starts: its values. */
  private int restartAt(int k) {
    return groups[GROUP_INTS * k];
  }

  /** Where the key entries of group {@code k} (opened) start: its restart entry. */
  private int keysAt(int k) {
    return groups[GROUP_INTS * k + 1];
  }

  /** Where the key entries of group {@code k} (opened) end. */
  private int keysEnd(int k) {
    return groups[GROUP_INTS * k + 2];
  }

  /** Where the base key lies in the block (after its length), and its length. */
  private int baseKeyAt;

  private int baseKeyLen;

  /** Restart offset {@code i} as the trailer holds it. */
  private int restartOffset(int i) {
    int at = base + groupsEnd + restartWidth * i;
    return restartWidth == 4 ? int32(buf, at) : uint16(buf, at);
  }

  /**
   * Decodes entry 0 into {@link #first}, the base cell of restart entries: its key is the block's
   * base key, which its key entry must not change.
   */
  private void decodeFirst() {
    Entry f = first;
    f.readKey(new KeyValue.KeyOnlyKeyValue(buf, base + baseKeyAt, baseKeyLen));
    f.clearRest();
    f.restart = 0;
    f.valueAt = base + restartAt(0);
    if ((buf[base + keysAt(0)] & BASE_FIELDS) != BASE_FIELDS) {
      throw corrupt(keysAt(0), "entry 0's key differs from the block's base key");
    }
    decode(f, keysAt(0), true);
    f.sameRow = false;
  }

  /** Decodes the restart entry {@code k} into {@code e}. */
  private void decodeRestart(Entry e, int k) {
    decodeRestart(e, k, true);
  }

  /** As above; with {@code whole} false only the key (binary search probes). */
  private void decodeRestart(Entry e, int k, boolean whole) {
    if (k == 0) {
      // entry 0 was decoded with the block
      e.copy(first);
      return;
    }
    openGroup(k);
    e.reset(first);
    e.restart = k;
    e.valueAt = base + restartAt(k);
    decode(e, keysAt(k), whole);
    e.sameRow = false;
  }

  /**
   * Decodes the entry after {@code e} into {@code e} (which holds the cell before it); a restart
   * entry starts from the base cell. False at the end of the block.
   */
  private boolean decodeNext(Entry e) {
    int at = e.next;
    int k = e.restart;
    if (at != keysEnd(k)) {
      decode(e, at, true);
      return true;
    }
    if (e.valueAt != base + keysAt(k)) {
      throw corrupt(
          at,
          "the values of group "
              + k
              + " end "
              + (base + keysAt(k) - e.valueAt)
              + " bytes before its key entries");
    }
    if (k + 1 == restartCount) {
      return false;
    }
    decodeRestart(e, k + 1);
    return true;
  }

  /**
   * Decodes the entry at block offset {@code at} over {@code e}, which holds the cell before (the
   * base cell at a restart); with {@code whole} false, stops after the key.
   */
  private void decode(Entry e, int at, boolean whole) {
    byte[] b = buf;
    int limit = base + keysEnd(e.restart);
    int p = base + at;
    e.at = at;
    int flags = b[p++] & 0xff;
    e.sameRow = (flags & ROW) != 0;
    if ((flags & ROW) == 0) {
      e.row = prefixed(b, p, limit, at, e.row, e.rowLen, Short.MAX_VALUE, "row");
      e.rowLen = decodedLen;
      p = next;
    }
    // a new row's qualifier diffs against the one of the last row's first entry (or the group's)
    boolean anchor = (flags & ROW) == 0 || at == keysAt(e.restart);
    if (anchor && at != keysAt(e.restart)) {
      e.qualifier = copy(e.rowQualifier, e.rowQualifierLen, e.qualifier);
      e.qualifierLen = e.rowQualifierLen;
    }
    if ((flags & FAMILY) == 0) {
      int len = familyLength(b, p++, limit, at);
      e.family = Fields.room(e.family, len);
      System.arraycopy(b, p, e.family, 0, len);
      e.familyLen = len;
      p += len;
    }
    if ((flags & QUALIFIER) == 0) {
      e.qualifier =
          prefixed(b, p, limit, at, e.qualifier, e.qualifierLen, Integer.MAX_VALUE, "qualifier");
      e.qualifierLen = decodedLen;
      p = next;
    }
    if (anchor) {
      e.rowQualifier = copy(e.qualifier, e.qualifierLen, e.rowQualifier);
      e.rowQualifierLen = e.qualifierLen;
    }
    p = timestampAndType(e, b, p, limit, at, flags);
    if (!whole) {
      return;
    }
    p = valueTagsAndSeqId(e, e.restart, b, p, limit, at, flags);
    e.next = p - base;
  }

  /** The length of a family written at {@code p}, checked against {@code limit}. */
  private int familyLength(byte[] b, int p, int limit, int at) {
    if (p >= limit) {
      throw corrupt(at, "family length past the end");
    }
    int len = b[p] & 0xff;
    if (len > limit - p - 1) {
      throw corrupt(at, "family of " + len + " bytes");
    }
    return len;
  }

  /**
   * Reads the timestamp and type of the entry at {@code at} (flags {@code flags}) from {@code p}
   * over those of {@code e}, the cell before; returns the position after them.
   */
  private int timestampAndType(Entry e, byte[] b, int p, int limit, int at, int flags) {
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
    return p;
  }

  /**
   * Reads the value length, tags and sequence id of the entry at {@code at} of group {@code k} from
   * {@code p} over those of {@code e}, the cell before, and moves {@code e}'s value cursor past its
   * value (which starts at {@code e.valueOffset}); returns the position after them.
   */
  private int valueTagsAndSeqId(Entry e, int k, byte[] b, int p, int limit, int at, int flags) {
    if ((flags & VALUE_LEN) == 0) {
      e.valueLen = vint(b, p, limit);
      p = next;
    }
    if (e.valueLen <= INLINE_MAX) {
      // in the key entry
      if (e.valueLen > limit - p) {
        throw corrupt(at, "value of " + e.valueLen + " bytes");
      }
      e.valueOffset = p;
      p += e.valueLen;
    } else {
      if (e.valueLen > base + keysAt(k) - e.valueAt) {
        throw corrupt(at, "value of " + e.valueLen + " bytes");
      }
      e.valueOffset = e.valueAt;
      e.valueAt += e.valueLen;
    }
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
    return p;
  }

  /** Copies {@code n} bytes of {@code from} into {@code to} (or a larger array); returns it. */
  private static byte[] copy(byte[] from, int n, byte[] to) {
    to = Fields.room(to, n);
    if (n <= 8) {
      for (int i = 0; i < n; i++) {
        to[i] = from[i];
      }
    } else {
      System.arraycopy(from, 0, to, 0, n);
    }
    return to;
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
   * the one before: its lengths, then its bytes after the shared prefix. Returns the array holding
   * it ({@code old} or a larger copy), its length in {@link #decodedLen}, the position after it in
   * {@link #next}.
   */
  private byte[] prefixed(
      byte[] b, int p, int limit, int at, byte[] old, int oldLen, int max, String what) {
    p = lengths(b, p, limit, at, oldLen, what);
    int shared = pairShared;
    int suffix = pairRest;
    if ((long) shared + suffix > max) {
      throw corrupt(at, what + " of " + shared + " + " + suffix + " bytes");
    }
    byte[] into = Fields.room(old, shared + suffix);
    if (into != old) {
      System.arraycopy(old, 0, into, 0, shared);
    }
    if (suffix <= 8) {
      // a few bytes (the common case: a row's or qualifier's last bytes) copy faster by hand
      for (int i = 0; i < suffix; i++) {
        into[shared + i] = b[p + i];
      }
    } else {
      System.arraycopy(b, p, into, shared, suffix);
    }
    decodedLen = shared + suffix;
    next = p + suffix;
    return into;
  }

  /**
   * Reads the lengths (shared prefix, rest) of {@code what}, a row or qualifier whose predecessor
   * had {@code before} bytes, into {@link #pairShared} and {@link #pairRest}, and checks that the
   * prefix is the predecessor's and the rest lies before {@code limit}; returns the position after
   * the lengths (where the rest starts).
   */
  private int lengths(byte[] b, int p, int limit, int at, int before, String what) {
    if (p >= limit) {
      throw corrupt(at, what + " lengths past the end");
    }
    int x = b[p++];
    if (x >= 0) {
      pairShared = before - x;
      pairRest = x;
    } else if ((x & 0x40) == 0) {
      pairShared = (x >>> 3) & 0x07;
      pairRest = x & 0x07;
    } else if (x == (byte) 0xc0) {
      pairShared = vint(b, p, limit);
      pairRest = vint(b, next, limit);
      p = next;
    } else {
      throw corrupt(at, what + " lengths marker " + (x & 0xff));
    }
    if (pairShared < 0 || pairShared > before || pairRest > limit - p) {
      throw corrupt(at, what + " of " + pairShared + " + " + pairRest + " bytes");
    }
    return p;
  }

  private int vint(byte[] b, int p, int limit) {
    if (p < limit && b[p] >= 0) {
      next = p + 1;
      return b[p];
    }
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

  private RuntimeException corrupt(int at, String what) {
    return CorruptBlockException.raise("BLOCKSCOPE_V1 entry at " + at + ": " + what);
  }

  @Override
  public void rewind() {
    // HBase rewinds before every seek in the current block, which then decodes what it needs:
    // entry 0 is decoded only if the seeker is read before anything else moves it
    rewound = true;
  }

  /** The seeker is on entry 0, not yet decoded into {@link #current}. */
  private boolean rewound;

  /** {@link #current}, decoding entry 0 into it first after a rewind. */
  private Entry current() {
    checkBlock();
    if (rewound) {
      // entry 0 was decoded into `first` with the block: copy it rather than decode it again
      rewound = false;
      current.copy(first);
    }
    return current;
  }

  @Override
  public boolean next() {
    // in place: the entry after is decoded over the one before it (decodeNext changes nothing
    // at the end of the block)
    return decodeNext(current());
  }

  @Override
  public int seekToKeyInBlock(Cell key, boolean seekBefore) {
    checkBlock();
    // every seek decodes into `current` what it lands on
    rewound = false;
    if (bytewiseRows && !(key instanceof ByteBufferExtendedCell)) {
      return seekByRows(key, seekBefore);
    }
    return seekByKeys(key, seekBefore);
  }

  /**
   * The seek for comparators that order rows bytewise (every table but hbase:meta). Rows of restart
   * entries are compared with the key's row where they lie in the block; a restart entry equal to
   * the key ends the seek. From the restart entry found, the walk steps over entries without
   * decoding them while their rows are before the key's, comparing only where a new row starts, and
   * keeping the length of the prefix the key's row shares with the current one (a new row sharing
   * fewer bytes with the row before is after the key, one sharing more is before it; only one
   * sharing exactly as many is compared byte by byte). A new row's qualifier diffs against the last
   * anchor's, which the walk keeps, and it keeps the other fields as numbers, so the seeker decodes
   * from the start of the row it lands in, and only that row. The walk ends in its group: the next
   * group's first key is not below the key.
   */
  private int seekByRows(Cell key, boolean seekBefore) {
    byte[] kr = key.getRowArray();
    int ko = key.getRowOffset();
    int kl = key.getRowLength();
    int k = lastRestartBelow(key, kr, ko, kl, !seekBefore);
    if (k < 0) {
      return beforeFirst(key, seekBefore);
    }
    Entry e = current;
    if (equalRestart) {
      // the key is a restart entry's: no walk
      decodeRestart(e, k);
      return 0;
    }
    // group k's rows are not before the base cell's, its restart entry is below the key
    Entry f = first;
    if (keyBaseOrder <= 0) {
      // the key's row is the base cell's, and so the restart entry's: on from that entry
      decodeRestart(e, k);
      return inRow(key, seekBefore);
    }
    int at = walkRows(kr, ko, kl, k, keyBaseMatch);
    if (walkAtKeyRow) {
      // the key's row starts at `at`: compare the key with its first cell where it lies
      Walk w = walk;
      boolean family = w.familyAt >= 0;
      int cmp =
          peek(
              key,
              at,
              walkFieldsAt,
              k,
              family ? buf : f.family,
              family ? w.familyAt : 0,
              family ? w.familyLen : f.familyLen,
              anchorQualifier,
              anchorQualifierLen,
              w.timestamp,
              w.type);
      if (cmp >= 0 && !(cmp == 0 && seekBefore)) {
        Entry r = ahead;
        decodeRowStart(r, k, at, walk);
        current = r;
        ahead = e;
        return cmp == 0 ? 0 : inRow(key, seekBefore);
      }
    }
    // the entry at `at` starts a row after the key's, or is the key's first (with seekBefore,
    // or after the key), or ends group k (the binary search found the next restart entry after
    // the key, or equal to it with seekBefore: equal without it returned above): the seeker
    // lands on the cell before it
    land(k, walkAnchor, at);
    return 1;
  }

  /** {@link #walkRows} stopped at the first entry of the key's row (else after the key's row). */
  private boolean walkAtKeyRow;

  /** With {@link #walkAtKeyRow}: where the fields after the row of that entry start. */
  private int walkFieldsAt;

  /** Where the walk's current row starts (its anchor). */
  private int walkAnchor;

  /**
   * Steps over the entries of group {@code k}, from its restart entry and the base cell before it,
   * while their rows are before the key's row {@code kr[ko, ko + kl)}, which shares {@code
   * rowMatch} bytes with the base cell's; returns the entry it stopped at and sets {@link
   * #walkAtKeyRow}, {@link #walkAnchor} and {@link #walkFieldsAt}, and {@link #walk} to the cell
   * before that entry. It checks every length as {@link #decode} does but copies nothing except the
   * rows' and the anchors' qualifiers' new bytes. The fields of the cell before are kept in local
   * variables: this loop is where a seek spends most of its time.
   */
  private int walkRows(byte[] kr, int ko, int kl, int k, int rowMatch) {
    final byte[] b = buf;
    final int base = this.base;
    final int end = keysEnd(k);
    final int limit = base + end;
    final int valuesEnd = base + keysAt(k);
    final int restartEntry = keysAt(k);
    Entry f = first;
    walkRow = Fields.room(walkRow, f.rowLen);
    System.arraycopy(f.row, 0, walkRow, 0, f.rowLen);
    walkRowLen = f.rowLen;
    anchorQualifier = copy(f.qualifier, f.qualifierLen, anchorQualifier);
    anchorQualifierLen = f.qualifierLen;
    Walk w = walk;
    w.beforeRestart(f, k, base + restartAt(k));
    int at = restartEntry;
    int anchor = restartEntry;
    int familyAt = w.familyAt;
    int familyLen = w.familyLen;
    int qualifierLen = w.qualifierLen;
    long timestamp = w.timestamp;
    byte type = w.type;
    int valueLen = w.valueLen;
    int tagsOffset = w.tagsOffset;
    int tagsLen = w.tagsLen;
    long seqId = w.seqId;
    int valueAt = w.valueAt;
    walkAtKeyRow = false;
    while (at != end) {
      int p = base + at;
      int flags = b[p++] & 0xff;
      // the restart entry, in the base cell's row if its row is not written, is an anchor too
      boolean anchorEntry = at == restartEntry;
      if ((flags & ROW) == 0) {
        p = lengths(b, p, limit, at, walkRowLen, "row");
        int shared = pairShared;
        int rest = pairRest;
        int c;
        int match = rowMatch;
        if (shared < rowMatch) {
          c = -1;
        } else if (shared > rowMatch) {
          c = 1;
        } else {
          c = compareSplit(kr, ko + shared, kl - shared, Fields.EMPTY, 0, b, p, rest);
          match = shared + matched;
        }
        if (c <= 0) {
          walkAtKeyRow = c == 0;
          walkFieldsAt = p + rest;
          break;
        }
        // a row still before the key's: keep its bytes and the state before it, step over it
        walkRow = Fields.grow(walkRow, shared + rest);
        for (int i = 0; i < rest; i++) {
          walkRow[shared + i] = b[p + i];
        }
        walkRowLen = shared + rest;
        rowMatch = match;
        anchor = at;
        Walk a = atAnchor;
        a.familyAt = familyAt;
        a.familyLen = familyLen;
        a.qualifierLen = qualifierLen;
        a.timestamp = timestamp;
        a.type = type;
        a.valueLen = valueLen;
        a.tagsOffset = tagsOffset;
        a.tagsLen = tagsLen;
        a.seqId = seqId;
        a.valueAt = valueAt;
        p += rest;
        anchorEntry = true;
      }
      if ((flags & FAMILY) == 0) {
        familyLen = familyLength(b, p++, limit, at);
        familyAt = p;
        p += familyLen;
      }
      if (anchorEntry) {
        // a new row's qualifier diffs against the anchor's
        qualifierLen = anchorQualifierLen;
      }
      if ((flags & QUALIFIER) == 0) {
        p = lengths(b, p, limit, at, qualifierLen, "qualifier");
        int shared = pairShared;
        int rest = pairRest;
        qualifierLen = shared + rest;
        if (anchorEntry) {
          // the anchor's qualifier is kept: the next row's diffs against it
          anchorQualifier = Fields.grow(anchorQualifier, qualifierLen);
          for (int i = 0; i < rest; i++) {
            anchorQualifier[shared + i] = b[p + i];
          }
          anchorQualifierLen = qualifierLen;
        }
        p += rest;
      }
      if ((flags & TIMESTAMP) == 0) {
        long z;
        if (p < limit && b[p] >= 0) {
          z = b[p++];
        } else {
          z = vlong(b, p, limit);
          p = next;
        }
        timestamp += (z >>> 1) ^ -(z & 1);
      }
      if ((flags & TYPE) == 0) {
        if (p >= limit) {
          throw corrupt(at, "type past the end");
        }
        type = b[p++];
      }
      if ((flags & VALUE_LEN) == 0) {
        if (p < limit && b[p] >= 0) {
          valueLen = b[p++];
        } else {
          valueLen = vint(b, p, limit);
          p = next;
        }
      }
      if (valueLen <= INLINE_MAX) {
        if (valueLen > limit - p) {
          throw corrupt(at, "value of " + valueLen + " bytes");
        }
        p += valueLen;
      } else {
        if (valueLen > valuesEnd - valueAt) {
          throw corrupt(at, "value of " + valueLen + " bytes");
        }
        valueAt += valueLen;
      }
      if (tags && (flags & TAGS) == 0) {
        tagsLen = vint(b, p, limit);
        p = next;
        if (tagsLen > limit - p) {
          throw corrupt(at, "tags of " + tagsLen + " bytes");
        }
        tagsOffset = p;
        p += tagsLen;
      }
      if (mvcc && (flags & SEQID) == 0) {
        seqId = vlong(b, p, limit);
        p = next;
      }
      at = p - base;
    }
    w.familyAt = familyAt;
    w.familyLen = familyLen;
    w.qualifierLen = qualifierLen;
    w.timestamp = timestamp;
    w.type = type;
    w.valueLen = valueLen;
    w.tagsOffset = tagsOffset;
    w.tagsLen = tagsLen;
    w.seqId = seqId;
    w.valueAt = valueAt;
    walkAnchor = anchor;
    return at;
  }

  /**
   * What a walk keeps of the cell before the next entry: its fields as numbers (no row, family or
   * qualifier bytes; the qualifier's length only), enough to decode a new row's first cell, whose
   * qualifier diffs against the walk's anchor qualifier.
   */
  private static final class Walk extends Entry {
    /** Where the family last written lies in the block, or -1: the base cell's family. */
    int familyAt;

    /**
     * Becomes the cell before restart entry {@code k} of a block whose entry 0 is {@code first}
     * (the base cell), as numbers; {@code valueAt} is where the group's values start.
     */
    void beforeRestart(Entry first, int k, int valueAt) {
      familyAt = -1;
      qualifierLen = first.qualifierLen;
      timestamp = first.timestamp;
      takeRest(first);
      if (k == 0) {
        clearRest();
      }
      this.valueAt = valueAt;
    }
  }

  /** The walk's current row, the state before the next entry and before the row's first. */
  private byte[] walkRow = Fields.EMPTY;

  private int walkRowLen;

  /** The qualifier of the walk's last anchor: the group's first entry or a row's first. */
  private byte[] anchorQualifier = Fields.EMPTY;

  private int anchorQualifierLen;
  private final Walk walk = new Walk();
  private final Walk atAnchor = new Walk();

  /**
   * Makes {@code x} the cell before a new row's first entry in group {@code k}: the walk's row and
   * the fields in {@code w}; the family, unless one was written since the walk started (at the
   * restart entry), is the base cell's.
   */
  private void start(Entry x, Walk w, int k) {
    x.row = Fields.room(x.row, walkRowLen);
    System.arraycopy(walkRow, 0, x.row, 0, walkRowLen);
    x.rowLen = walkRowLen;
    x.rowQualifier = copy(anchorQualifier, anchorQualifierLen, x.rowQualifier);
    x.rowQualifierLen = anchorQualifierLen;
    if (w.familyAt >= 0) {
      x.family = Fields.room(x.family, w.familyLen);
      System.arraycopy(buf, w.familyAt, x.family, 0, w.familyLen);
      x.familyLen = w.familyLen;
    } else {
      x.family = Fields.room(x.family, first.familyLen);
      System.arraycopy(first.family, 0, x.family, 0, first.familyLen);
      x.familyLen = first.familyLen;
    }
    x.timestamp = w.timestamp;
    x.type = w.type;
    x.valueLen = w.valueLen;
    x.tagsOffset = w.tagsOffset;
    x.tagsLen = w.tagsLen;
    x.seqId = w.seqId;
    x.valueAt = w.valueAt;
    x.restart = k;
  }

  /**
   * Decodes into {@code x} the entry at {@code at} of group {@code k}, which starts a row the walk
   * came to: the restart entry, or another whose cell before is {@code before} (the walk's row,
   * which the new row's prefix is shared with, and the fields in {@code before}).
   */
  private void decodeRowStart(Entry x, int k, int at, Walk before) {
    if (at == keysAt(k)) {
      decodeRestart(x, k);
    } else {
      start(x, before, k);
      decode(x, at, true);
    }
  }

  /**
   * Decodes into {@link #current} the cells of group {@code k} from the one at {@code anchor} (the
   * restart entry, or the first cell of the walk's current row, the state before it in {@link
   * #atAnchor}) up to the one before the entry at {@code to}.
   */
  private void land(int k, int anchor, int to) {
    Entry e = current;
    decodeRowStart(e, k, anchor, atAnchor);
    while (e.next < to) {
      decode(e, e.next, true);
    }
    if (e.next != to) {
      throw corrupt(e.at, "entry ends at " + e.next + ", past the next one at " + to);
    }
  }

  /**
   * The seeker is on a cell below the key, in the key's row: compare the key with the cells after
   * it where they lie in the block, and decode each that is still below (or equal, without
   * seekBefore) over the current one.
   */
  private int inRow(Cell key, boolean seekBefore) {
    Entry e = current;
    while (true) {
      int at = e.next;
      int k = e.restart;
      if (at == keysEnd(k) || (buf[base + at] & ROW) == 0) {
        // the end of the group the binary search found (the next restart entry is not below
        // the key, nor equal to it without seekBefore), or a new row, after the key's
        return 1;
      }
      int c =
          peek(
              key,
              at,
              base + at + 1,
              k,
              e.family,
              0,
              e.familyLen,
              e.qualifier,
              e.qualifierLen,
              e.timestamp,
              e.type);
      if (c < 0 || (c == 0 && seekBefore)) {
        return 1;
      }
      decode(e, at, true);
      if (c == 0) {
        return 0;
      }
    }
  }

  /**
   * Compares the key with the entry at {@code at} of group {@code k}, in the key's row, without
   * decoding it: its family, qualifier (the prefix it shares with the one it diffs against, and the
   * rest in the block), timestamp and type. Its fields after the row start at {@code p}; what they
   * diff against is given: family, qualifier, timestamp and type.
   */
  private int peek(
      Cell key,
      int at,
      int p,
      int k,
      byte[] family,
      int familyAt,
      int familyLen,
      byte[] qualifier,
      int qualifierLen,
      long timestamp,
      byte type) {
    byte[] b = buf;
    int limit = base + keysEnd(k);
    int flags = b[base + at] & 0xff;
    if ((flags & FAMILY) == 0) {
      familyLen = familyLength(b, p++, limit, at);
      family = b;
      familyAt = p;
      p += familyLen;
    }
    int shared = qualifierLen;
    int restAt = 0;
    int rest = 0;
    if ((flags & QUALIFIER) == 0) {
      p = lengths(b, p, limit, at, qualifierLen, "qualifier");
      shared = pairShared;
      rest = pairRest;
      restAt = p;
      p += rest;
    }
    if ((flags & TIMESTAMP) == 0) {
      long z = vlong(b, p, limit);
      p = next;
      timestamp += (z >>> 1) ^ -(z & 1);
    }
    if ((flags & TYPE) == 0) {
      if (p >= limit) {
        throw corrupt(at, "type past the end");
      }
      type = b[p];
    }
    return compareWithoutRow(
        key, family, familyAt, familyLen, qualifier, shared, b, restAt, rest, timestamp, type);
  }

  /**
   * {@code CellComparatorImpl.compareWithoutRow(key, cell)} (or InnerStoreCellComparator's, which
   * compares families by length only) for a cell of the key's row given by its fields: family,
   * qualifier as a prefix and a rest, timestamp, type.
   */
  private int compareWithoutRow(
      Cell key,
      byte[] family,
      int familyAt,
      int familyLen,
      byte[] prefix,
      int prefixLen,
      byte[] rest,
      int restAt,
      int restLen,
      long timestamp,
      byte type) {
    int kf = key.getFamilyLength();
    int kq = key.getQualifierLength();
    byte kt = key.getTypeByte();
    if (kf + kq == 0 && kt == MINIMUM) {
      return 1;
    }
    if (familyLen + prefixLen + restLen == 0 && type == MINIMUM) {
      return -1;
    }
    int c =
        familyLengthOnly
            ? kf - familyLen
            : Bytes.compareTo(
                key.getFamilyArray(), key.getFamilyOffset(), kf, family, familyAt, familyLen);
    if (c != 0) {
      return c;
    }
    c =
        compareSplit(
            key.getQualifierArray(),
            key.getQualifierOffset(),
            kq,
            prefix,
            prefixLen,
            rest,
            restAt,
            restLen);
    if (c != 0) {
      return c;
    }
    c = Long.compare(timestamp, key.getTimestamp());
    if (c != 0) {
      return c;
    }
    return (0xff & type) - (0xff & kt);
  }

  private static final byte MINIMUM = KeyValue.Type.Minimum.getCode();

  /**
   * The last restart whose first key is below {@code key}, or -1, by binary search. With the key's
   * row given ({@code kr} not null) rows are compared where they lie and keys decoded only when the
   * rows are equal; without, every probed key is decoded and compared. With {@code stopAtEqual}, a
   * restart whose key equals {@code key} ends the search: it is returned and {@link #equalRestart}
   * set. Every restart after the one returned has a key above {@code key}, or equal to it without
   * {@code stopAtEqual}: a walk from it ends in its group.
   */
  private int lastRestartBelow(Cell key, byte[] kr, int ko, int kl, boolean stopAtEqual) {
    int lo = 0;
    int hi = restartCount - 1;
    int found = -1;
    equalRestart = false;
    if (kr != null) {
      // once per seek: every restart entry's row diffs against the base cell's
      keyBaseOrder = compareSplit(kr, ko, kl, first.row, first.rowLen, buf, 0, 0);
      keyBaseMatch = matched;
    }
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = 0;
      if (kr != null) {
        c = mid == 0 ? keyBaseOrder : compareRowAt(kr, ko, kl, mid);
      }
      if (c == 0) {
        decodeRestart(ahead, mid, false);
        c = compare(key, ahead);
      }
      if (c > 0) {
        found = mid;
        lo = mid + 1;
      } else if (c == 0 && stopAtEqual) {
        equalRestart = true;
        return mid;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /**
   * Compares the key's row {@code kr[ko, ko + kl)} with the row of restart entry {@code restart}
   * (which diffs against the base cell's row) where it lies in the block, from how the key's row
   * compares with the base cell's ({@link #keyBaseOrder}, {@link #keyBaseMatch}): only a row that
   * shares exactly as many bytes with the base cell's as the key's does is compared byte by byte,
   * and only after them. Opens the group.
   */
  private int compareRowAt(byte[] kr, int ko, int kl, int restart) {
    openGroup(restart);
    int at = keysAt(restart);
    int limit = base + keysEnd(restart);
    int p = base + at;
    if ((buf[p++] & ROW) != 0) {
      return keyBaseOrder;
    }
    p = lengths(buf, p, limit, at, first.rowLen, "row");
    int shared = pairShared;
    // as the walk compares rows: the restart entry's row is after the base cell's, and first
    // differs from it where its written bytes start
    if (shared < keyBaseMatch) {
      return -1;
    }
    if (shared > keyBaseMatch) {
      return keyBaseOrder;
    }
    return compareSplit(kr, ko + shared, kl - shared, Fields.EMPTY, 0, buf, p, pairRest);
  }

  /**
   * Compares {@code a[ao, ao + al)} bytewise with {@code p[0, pl)} followed by {@code q[qo, qo +
   * ql)}: negative, zero or positive as {@code Bytes.compareTo} would.
   */
  private int compareSplit(byte[] a, int ao, int al, byte[] p, int pl, byte[] q, int qo, int ql) {
    int n = Math.min(al, pl);
    int i = mismatch(a, ao, p, 0, n);
    if (i < n) {
      matched = i;
      return (a[ao + i] & 0xff) - (p[i] & 0xff);
    }
    if (al <= pl) {
      matched = al;
      return al == pl + ql ? 0 : -1;
    }
    int m = Math.min(al - pl, ql);
    int j = mismatch(a, ao + pl, q, qo, m);
    matched = pl + j;
    if (j < m) {
      return (a[ao + pl + j] & 0xff) - (q[qo + j] & 0xff);
    }
    return (al - pl) - ql;
  }

  /**
   * The key's row against the base cell's, as {@link #compareSplit} orders them, and the length of
   * their common prefix: set by {@link #lastRestartBelow} for the seek that compares rows.
   */
  private int keyBaseOrder;

  private int keyBaseMatch;

  /** The last {@link #lastRestartBelow} stopped at a restart entry equal to the key. */
  private boolean equalRestart;

  /** The length of the common prefix set by the last {@link #compareSplit}. */
  private int matched;

  /** Where {@code a[ao..]} and {@code b[bo..]} first differ within {@code n} bytes, or n. */
  private static int mismatch(byte[] a, int ao, byte[] b, int bo, int n) {
    if (n <= 16) {
      // a few bytes (a row's or its suffix) compare faster by hand than through the intrinsic
      for (int i = 0; i < n; i++) {
        if (a[ao + i] != b[bo + i]) {
          return i;
        }
      }
      return n;
    }
    int i = java.util.Arrays.mismatch(a, ao, ao + n, b, bo, bo + n);
    return i < 0 ? n : i;
  }

  /** Any comparator: keys of restart entries and walked entries are decoded and compared. */
  private int seekByKeys(Cell key, boolean seekBefore) {
    int found = lastRestartBelow(key, null, 0, 0, false);
    if (found < 0) {
      return beforeFirst(key, seekBefore);
    }
    decodeRestart(current, found);
    // current < key; walk on while the next cell is below the key (or equal, unless seekBefore).
    // While the rows stay the same and the key's row is after them, no comparison is needed.
    int rowOrder = comparator.compareRows(key, current.key());
    while (true) {
      ahead.copy(current);
      if (!decodeNext(ahead)) {
        return 1;
      }
      int c;
      if (ahead.sameRow && rowOrder > 0) {
        c = 1;
      } else {
        rowOrder = comparator.compareRows(key, ahead.key());
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

  /** The key is at or before the block's first cell. */
  private int beforeFirst(Cell key, boolean seekBefore) {
    rewound = true;
    if (seekBefore) {
      throw new IllegalStateException(
          "Cannot seekBefore if positioned at the first key in " + "the block: key=" + key);
    }
    return compare(key, current()) == 0 ? 0 : HConstants.INDEX_KEY_MAGIC;
  }

  private int compare(Cell key, Entry e) {
    return PrivateCellUtil.compareKeyIgnoresMvcc(comparator, key, e.key());
  }

  @Override
  public int compareKey(CellComparator comparator, Cell key) {
    return PrivateCellUtil.compareKeyIgnoresMvcc(comparator, key, current().key());
  }

  @Override
  public Cell getKey() {
    return keyOnly(current());
  }

  /** A copy of {@code e}'s key as a key-only cell. */
  private static Cell keyOnly(Entry e) {
    byte[] k = PrivateCellUtil.getCellKeySerializedAsKeyValueKey(e.key());
    return new KeyValue.KeyOnlyKeyValue(k, 0, k.length);
  }

  @Override
  public ByteBuffer getValueShallowCopy() {
    Entry e = current();
    return ByteBuffer.wrap(buf, e.valueOffset, e.valueLen).slice();
  }

  @Override
  public Cell getCell() {
    Entry e = current();
    return new DecodedCell(
        e.row,
        e.rowLen,
        e.family,
        e.familyLen,
        e.qualifier,
        e.qualifierLen,
        e.timestamp,
        e.type,
        buf,
        e.valueOffset,
        e.valueLen,
        buf,
        e.tagsOffset,
        e.tagsLen,
        e.seqId);
  }

  /**
   * The first key of an encoded block, without moving the block's position: a copy of its base key.
   * HBase asks for it on every seekBefore ({@code HFileReaderImpl.HFileScannerImpl .seekBefore})
   * and keeps it as the scanner's next indexed key, possibly past the release of the block's
   * buffer, so it is copied rather than viewed.
   */
  static Cell firstKey(ByteBuff block) {
    int n = block.remaining();
    int at = block.position();
    if (n < 4) {
      throw CorruptBlockException.raise("block of " + n + " bytes is too short");
    }
    int raw =
        ((block.get(at + n - 4) & 0xff) << 24)
            | ((block.get(at + n - 3) & 0xff) << 16)
            | ((block.get(at + n - 2) & 0xff) << 8)
            | (block.get(at + n - 1) & 0xff);
    checkTrailer(n, raw);
    int entries = groupsEnd(n, raw);
    int len = 0;
    int p = 0;
    for (int shift = 0; ; shift += 7) {
      if (p >= entries || shift > 28) {
        throw CorruptBlockException.raise("base key length past the groups' start");
      }
      byte x = block.get(at + p++);
      len |= (x & 0x7f) << shift;
      if (x >= 0) {
        break;
      }
    }
    if (len < 0 || len > entries - p) {
      throw CorruptBlockException.raise(
          "base key of " + len + " bytes in a block of " + n + " bytes");
    }
    byte[] k = new byte[len];
    block.get(at + p, k, 0, len);
    checkBaseKey(k, 0, len);
    return new KeyValue.KeyOnlyKeyValue(k, 0, len);
  }
}
