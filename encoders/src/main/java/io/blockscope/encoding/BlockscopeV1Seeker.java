package io.blockscope.encoding;

import static io.blockscope.encoding.BlockscopeV1Format.BASE_FIELDS;
import static io.blockscope.encoding.BlockscopeV1Format.FAMILY;
import static io.blockscope.encoding.BlockscopeV1Format.QUALIFIER;
import static io.blockscope.encoding.BlockscopeV1Format.ROW;
import static io.blockscope.encoding.BlockscopeV1Format.SEQID;
import static io.blockscope.encoding.BlockscopeV1Format.TAGS;
import static io.blockscope.encoding.BlockscopeV1Format.TYPE;

import java.nio.ByteBuffer;
import org.apache.hadoop.hbase.ByteBufferExtendedCell;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellComparatorImpl;
import org.apache.hadoop.hbase.ExtendedCell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.HFileBlockDecodingContext;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Reads BLOCKSCOPE_V1 blocks ({@link BlockscopeV1Format} draws the format). Every length read from
 * the block is checked against the block's end before it is used, so a corrupt or truncated block
 * ends in a {@link CorruptBlockException}, never a read outside the block or an allocation sized by
 * an unchecked number; every step moves forward by at least one byte, so no loop can hang.
 *
 * <p>An on-heap block is read in place and the cells returned point into it (HBase keeps a block
 * until the cells read from it are shipped). An off-heap block (a BucketCache in direct memory) is
 * copied to the heap once when the seeker moves to it, and its cells point into that copy.
 */
final class BlockscopeV1Seeker extends RowWalker implements DataBlockEncoder.EncodedSeeker {
  /*
   * The chain of superclasses this class ends, the fields that carry results along it, and why it
   * is a chain: EntryParser's design note.
   */

  private final CellComparator comparator;

  /**
   * The comparator orders rows bytewise, as {@code CellComparatorImpl.compareRows} does: true for
   * {@code CellComparatorImpl} and {@code InnerStoreCellComparator} (every table's store files),
   * false for {@code MetaCellComparator} (hbase:meta) and anything else.
   */
  private final boolean bytewiseRows;

  /** InnerStoreCellComparator: families compare by length alone (one family per store). */
  private final boolean familyLengthOnly;

  /**
   * HBase 2.6's comparator of a store's own files, looked up rather than linked so that the seeker
   * loads on an HBase without it (2.5.13 has none); null there.
   */
  private static final Class<?> INNER_STORE_COMPARATOR = innerStoreComparator();

  private static Class<?> innerStoreComparator() {
    try {
      return Class.forName(
          "org.apache.hadoop.hbase.InnerStoreCellComparator",
          false,
          CellComparatorImpl.class.getClassLoader());
    } catch (ClassNotFoundException absent) {
      return null;
    }
  }

  /** The entry the seeker is on, and a spare for looking one entry ahead. */
  private Entry current;

  private Entry ahead;

  BlockscopeV1Seeker(HFileBlockDecodingContext ctx) {
    super(ctx.getHFileContext().isIncludesTags(), ctx.getHFileContext().isIncludesMvcc());
    this.comparator = ctx.getHFileContext().getCellComparator();
    this.bytewiseRows =
        comparator != null
            && (comparator.getClass() == CellComparatorImpl.class
                || comparator.getClass() == INNER_STORE_COMPARATOR);
    this.familyLengthOnly = comparator != null && comparator.getClass() == INNER_STORE_COMPARATOR;
    // sized by the first block
    this.current = new Entry();
    this.ahead = new Entry();
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
    gotNext = -1;
    try {
      int n = block.remaining();
      if (block.hasArray()) {
        read(block.array(), block.arrayOffset() + block.position(), n);
      } else {
        byte[] copy = new byte[n];
        block.get(block.position(), copy, 0, n);
        read(copy, 0, n);
      }
      decodeFirst();
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
    forget();
    rewound = true;
  }

  /** Fails every read of a seeker whose last {@link #setCurrentBuffer} failed. */
  private void checkBlock() {
    if (failed != null) {
      throw CorruptBlockException.raise(
          "no block to read: the last one set was refused (" + failed + ")");
    }
  }

  /**
   * Decodes entry 0 into {@link #first}, the base cell of restart entries: its key is the block's
   * base key, which its key entry must not change.
   */
  private void decodeFirst() {
    Entry f = first;
    f.readKey(buf, base + baseKeyAt, baseKeyLen);
    f.clearRest();
    f.restart = 0;
    f.valueAt = base + restartAt(0);
    if ((buf[base + keysAt(0)] & BASE_FIELDS) != BASE_FIELDS) {
      throw corrupt(keysAt(0), "entry 0's key differs from the block's base key");
    }
    decode(f, keysAt(0), true);
    f.sameRow = false;
  }

  /** Decodes the restart entry of {@code group} into {@code e}. */
  private void decodeRestart(Entry e, int group) {
    decodeRestart(e, group, true);
  }

  /** As above; with {@code whole} false only the key (binary search probes). */
  private void decodeRestart(Entry e, int group, boolean whole) {
    if (group == 0) {
      // entry 0 was decoded with the block
      e.copy(first);
      return;
    }
    openGroup(group);
    e.reset(first);
    e.restart = group;
    e.valueAt = base + restartAt(group);
    decode(e, keysAt(group), whole);
    e.sameRow = false;
  }

  /**
   * Decodes the entry after {@code e} into {@code e} (which holds the cell before it); a restart
   * entry starts from the base cell. False at the end of the block.
   */
  private boolean decodeNext(Entry e) {
    int at = e.next;
    int group = e.restart;
    if (at != keysEnd(group)) {
      decode(e, at, true);
      return true;
    }
    if (e.valueAt != base + keysAt(group)) {
      throw corrupt(
          at,
          "the values of group "
              + group
              + " end "
              + (base + keysAt(group) - e.valueAt)
              + " bytes before its key entries");
    }
    if (group + 1 == restartCount) {
      return false;
    }
    decodeRestart(e, group + 1);
    return true;
  }

  /**
   * Decodes the entry at block offset {@code at} over {@code e}, which holds the cell before (the
   * base cell at a restart); with {@code whole} false, stops after the key.
   */
  private void decode(Entry e, int at, boolean whole) {
    byte[] b = buf;
    int group = e.restart;
    int limit = base + keysEnd(group);
    int p = readRowPart(b, base + at, limit, at, e.rowLen);
    int flags = readFlags;
    e.at = at;
    e.sameRow = (flags & ROW) != 0;
    if ((flags & ROW) == 0) {
      e.row = spliced(e.row, readRowShared, b, readRowAt, readRowRest);
      e.rowLen = readRowShared + readRowRest;
    }
    // a new row's qualifier diffs against the one of the last row's first entry (or the group's)
    boolean restartEntry = at == keysAt(group);
    boolean newRow = (flags & ROW) == 0 && !restartEntry;
    p = readKeyPart(b, p, limit, at, flags, newRow ? e.rowQualifierLen : e.qualifierLen);
    EntryCells.takeKeyPart(e, this, b, flags, newRow, restartEntry);
    if (!whole) {
      return;
    }
    p = readValuePart(b, p, limit, at, flags, e.valueLen, e.valueAt, base + keysAt(group));
    e.valueLen = readValueLen;
    e.valueOffset = readValueOffset;
    e.valueAt = readValuesAfter;
    if (tags && (flags & TAGS) == 0) {
      e.tagsOffset = readTagsAt;
      e.tagsLen = readTagsLen;
    }
    if (mvcc && (flags & SEQID) == 0) {
      e.seqId = readSeqId;
    }
    e.next = p - base;
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
    return seek(key, seekBefore);
  }

  /**
   * HBase 3.0's form of {@link #seekToKeyInBlock(Cell, boolean)}: its {@code EncodedSeeker} takes
   * an {@code ExtendedCell} (the call HBase 3.0.0's {@code HFileReaderImpl} makes). Not called on
   * 2.x. Both forms call {@link #seek}, neither the other, so the decode probe (woven into both)
   * counts each seek once.
   */
  public int seekToKeyInBlock(ExtendedCell key, boolean seekBefore) {
    return seek(key, seekBefore);
  }

  private int seek(Cell key, boolean seekBefore) {
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
    byte[] keyRow = key.getRowArray();
    int keyRowOffset = key.getRowOffset();
    int keyRowLen = key.getRowLength();
    int group = lastRestartBelow(key, keyRow, keyRowOffset, keyRowLen, !seekBefore);
    if (group < 0) {
      return beforeFirst(key, seekBefore);
    }
    Entry e = current;
    if (equalRestart) {
      // the key is a restart entry's: no walk
      decodeRestart(e, group);
      return 0;
    }
    // the group's rows are not before the base cell's, its restart entry is below the key
    Entry f = first;
    if (keyBaseOrder <= 0) {
      // the key's row is the base cell's, and so the restart entry's: on from that entry
      decodeRestart(e, group);
      return inRow(key, seekBefore);
    }
    int at = walkRows(keyRow, keyRowOffset, keyRowLen, group, keyBaseMatch);
    if (walkAtKeyRow) {
      // the key's row starts at `at`: compare the key with its first cell where it lies
      Walk w = walk;
      boolean family = w.familyAt >= 0;
      int cmp =
          peek(
              key,
              at,
              walkFieldsAt,
              group,
              family ? buf : f.family,
              family ? w.familyAt : 0,
              family ? w.familyLen : f.familyLen,
              anchorQualifier,
              anchorQualifierLen,
              w.timestamp,
              w.type);
      if (cmp >= 0 && !(cmp == 0 && seekBefore)) {
        Entry r = ahead;
        decodeRowStart(r, group, at, walk);
        current = r;
        ahead = e;
        return cmp == 0 ? 0 : inRow(key, seekBefore);
      }
    }
    // the entry at `at` starts a row after the key's, or is the key's first (with seekBefore,
    // or after the key), or ends the group (the binary search found the next restart entry after
    // the key, or equal to it with seekBefore: equal without it returned above): the seeker
    // lands on the cell before it
    land(group, walkAnchor, at);
    return 1;
  }

  /**
   * Decodes into {@code x} the entry at {@code at} of {@code group}, which starts a row the walk
   * came to: the restart entry, or another whose cell before is {@code before} (the walk's row,
   * which the new row's prefix is shared with, and the fields in {@code before}).
   */
  private void decodeRowStart(Entry x, int group, int at, Walk before) {
    if (at == keysAt(group)) {
      decodeRestart(x, group);
    } else {
      start(x, before, group);
      decode(x, at, true);
    }
  }

  /**
   * Decodes into {@link #current} the cells of {@code group} from the one at {@code anchor} (the
   * restart entry, or the first cell of the walk's current row, the state before it in {@link
   * #atAnchor}) up to the one before the entry at {@code to}.
   */
  private void land(int group, int anchor, int to) {
    Entry e = current;
    decodeRowStart(e, group, anchor, atAnchor);
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
      int group = e.restart;
      if (at == keysEnd(group) || (buf[base + at] & ROW) == 0) {
        // the end of the group the binary search found (the next restart entry is not below
        // the key, nor equal to it without seekBefore), or a new row, after the key's
        return 1;
      }
      int c =
          peek(
              key,
              at,
              base + at + 1,
              group,
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
   * Compares the key with the entry at {@code at} of {@code group}, in the key's row, without
   * decoding it: its family, qualifier (the prefix it shares with the one it diffs against, and the
   * rest in the block), timestamp and type. Its fields after the row start at {@code p}; what they
   * diff against is given: family, qualifier, timestamp and type.
   */
  private int peek(
      Cell key,
      int at,
      int p,
      int group,
      byte[] family,
      int familyAt,
      int familyLen,
      byte[] qualifier,
      int qualifierLen,
      long timestamp,
      byte type) {
    byte[] b = buf;
    int flags = b[base + at] & 0xff;
    readKeyPart(b, p, base + keysEnd(group), at, flags, qualifierLen);
    if ((flags & FAMILY) == 0) {
      family = b;
      familyAt = readFamilyAt;
      familyLen = readFamilyLen;
    }
    int shared = qualifierLen;
    int restAt = 0;
    int rest = 0;
    if ((flags & QUALIFIER) == 0) {
      shared = readQualifierShared;
      rest = readQualifierRest;
      restAt = readQualifierAt;
    }
    timestamp += readTimestampDelta;
    if ((flags & TYPE) == 0) {
      type = readType;
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
    int keyFamilyLen = key.getFamilyLength();
    int keyQualifierLen = key.getQualifierLength();
    byte keyType = key.getTypeByte();
    if (keyFamilyLen + keyQualifierLen == 0 && keyType == MINIMUM) {
      return 1;
    }
    if (familyLen + prefixLen + restLen == 0 && type == MINIMUM) {
      return -1;
    }
    int c =
        familyLengthOnly
            ? keyFamilyLen - familyLen
            : Bytes.compareTo(
                key.getFamilyArray(),
                key.getFamilyOffset(),
                keyFamilyLen,
                family,
                familyAt,
                familyLen);
    if (c != 0) {
      return c;
    }
    c =
        compareSplit(
            key.getQualifierArray(),
            key.getQualifierOffset(),
            keyQualifierLen,
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
    return (0xff & type) - (0xff & keyType);
  }

  private static final byte MINIMUM = KeyValue.Type.Minimum.getCode();

  /**
   * The last restart whose first key is below {@code key}, or -1, by binary search. With the key's
   * row given ({@code keyRow} not null) rows are compared where they lie and keys decoded only when
   * the rows are equal; without, every probed key is decoded and compared. With {@code
   * stopAtEqual}, a restart whose key equals {@code key} ends the search: it is returned and {@link
   * #equalRestart} set. Every restart after the one returned has a key above {@code key}, or equal
   * to it without {@code stopAtEqual}: a walk from it ends in its group.
   */
  private int lastRestartBelow(
      Cell key, byte[] keyRow, int keyRowOffset, int keyRowLen, boolean stopAtEqual) {
    int lo = 0;
    int hi = restartCount - 1;
    int found = -1;
    equalRestart = false;
    if (keyRow != null) {
      // once per seek: every restart entry's row diffs against the base cell's
      keyBaseOrder =
          compareSplit(keyRow, keyRowOffset, keyRowLen, first.row, first.rowLen, buf, 0, 0);
      keyBaseMatch = matched;
    }
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = 0;
      if (keyRow != null) {
        c = mid == 0 ? keyBaseOrder : compareRowAt(keyRow, keyRowOffset, keyRowLen, mid);
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

  /** The last {@link #lastRestartBelow} stopped at a restart entry equal to the key. */
  private boolean equalRestart;

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

  /** HBase 3.0's form of {@link #compareKey(CellComparator, Cell)}. Not called on 2.x. */
  public int compareKey(CellComparator comparator, ExtendedCell key) {
    return compareKey(comparator, (Cell) key);
  }

  /**
   * An {@code ExtendedCell}, as HBase 3.0's {@code EncodedSeeker.getKey} returns; the compiler's
   * bridge answers 2.x's {@code Cell getKey()}.
   */
  @Override
  public ExtendedCell getKey() {
    return EntryCells.keyOnly(current());
  }

  @Override
  public ByteBuffer getValueShallowCopy() {
    Entry e = current();
    return ByteBuffer.wrap(buf, e.valueOffset, e.valueLen).slice();
  }

  /** Appends the cell the seeker is on to {@code out}, as {@link EntryCells#appendKeyValue}. */
  ByteBuffer appendKeyValue(ByteBuffer out) {
    return EntryCells.appendKeyValue(out, current(), buf, tags, mvcc);
  }

  /**
   * An {@code ExtendedCell}, as HBase 3.0's {@code EncodedSeeker.getCell} returns; the compiler's
   * bridge answers 2.x's {@code Cell getCell()}. It shares the row's copy of the cell returned
   * before it when it is in that cell's row (the entry just before in the block, or a restart entry
   * with that row): one copy of each row a scan walks.
   */
  @Override
  public ExtendedCell getCell() {
    Entry e = current();
    boolean inGotRow = e.sameRow ? e.at == gotNext : restartInGotRow(e);
    gotNext = e.next;
    DecodedCell cell = EntryCells.cell(e, inGotRow ? gotRow : null, buf);
    if (!inGotRow) {
      gotRow = cell.getRowArray();
      gotRowLen = e.rowLen;
    }
    return cell;
  }

  /**
   * The row of the cell {@link #getCell} returned last (at the start of its array), and where the
   * entry after that cell starts in the block (-1 when no cell of the current block was returned).
   */
  private byte[] gotRow;

  private int gotRowLen;
  private int gotNext = -1;

  /**
   * {@code e} is a restart entry (never marked as in the row before, though a group may start
   * inside a row) whose row is the one of the cell returned last: compared, once per group a scan
   * walks. Any copy with the same bytes may be shared, since none is ever written over.
   */
  private boolean restartInGotRow(Entry e) {
    return e.at == keysAt(e.restart)
        && gotRow != null
        && Bytes.equals(e.row, 0, e.rowLen, gotRow, 0, gotRowLen);
  }
}
