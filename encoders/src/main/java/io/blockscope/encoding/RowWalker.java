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

/**
 * A seek's comparisons of rows where they lie in the block, for comparators that order rows
 * bytewise: the key's row against restart entries' rows (the binary search), and the walk over one
 * group's entries while their rows are before the key's, which keeps the cell before as numbers.
 * The seeker decodes from the start of the row the walk stopped in.
 */
abstract class RowWalker extends BlockFrame {
  /** The block's base cell: entry 0's key, decoded once per block. */
  final Entry first = new Entry();

  RowWalker(boolean tags, boolean mvcc) {
    super(tags, mvcc);
  }

  /** {@link #walkRows} stopped at the first entry of the key's row (else after the key's row). */
  boolean walkAtKeyRow;

  /** With {@link #walkAtKeyRow}: where the fields after the row of that entry start. */
  int walkFieldsAt;

  /** Where the walk's current row starts (its anchor). */
  int walkAnchor;

  /**
   * Steps over the entries of {@code group}, from its restart entry and the base cell before it,
   * while their rows are before the key's row {@code keyRow[keyRowOffset, keyRowOffset +
   * keyRowLen)}, which shares {@code rowMatch} bytes with the base cell's; returns the entry it
   * stopped at and sets {@link #walkAtKeyRow}, {@link #walkAnchor} and {@link #walkFieldsAt}, and
   * {@link #walk} to the cell before that entry. It checks every length as {@link EntryParser}'s
   * stages do, but reads the fields inline and copies nothing except the rows' and the anchors'
   * qualifiers' new bytes. The fields of the cell before are kept in local variables: this loop is
   * where a seek spends most of its time, and through the stages, handing each field over in the
   * parser's fields, it cost seeks about 10% (EntryParser).
   */
  final int walkRows(byte[] keyRow, int keyRowOffset, int keyRowLen, int group, int rowMatch) {
    final byte[] b = buf;
    final int base = this.base;
    final int end = keysEnd(group);
    final int limit = base + end;
    final int valuesEnd = base + keysAt(group);
    final int restartEntry = keysAt(group);
    Entry f = first;
    walkRow = CellFields.room(walkRow, f.rowLen);
    System.arraycopy(f.row, 0, walkRow, 0, f.rowLen);
    walkRowLen = f.rowLen;
    anchorQualifier = EntryParser.copy(f.qualifier, f.qualifierLen, anchorQualifier);
    anchorQualifierLen = f.qualifierLen;
    Walk w = walk;
    w.beforeRestart(f, group, base + restartAt(group));
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
          c =
              compareSplit(
                  keyRow,
                  keyRowOffset + shared,
                  keyRowLen - shared,
                  CellFields.EMPTY,
                  0,
                  b,
                  p,
                  rest);
          match = shared + matched;
        }
        if (c <= 0) {
          walkAtKeyRow = c == 0;
          walkFieldsAt = p + rest;
          break;
        }
        // a row still before the key's: keep its bytes and the state before it, step over it
        walkRow = CellFields.grow(walkRow, shared + rest);
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
          anchorQualifier = CellFields.grow(anchorQualifier, qualifierLen);
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
          p = readEnd;
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
          p = readEnd;
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
        p = readEnd;
        if (tagsLen > limit - p) {
          throw corrupt(at, "tags of " + tagsLen + " bytes");
        }
        tagsOffset = p;
        p += tagsLen;
      }
      if (mvcc && (flags & SEQID) == 0) {
        seqId = vlong(b, p, limit);
        p = readEnd;
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
  static final class Walk extends Entry {
    /** Where the family last written lies in the block, or -1: the base cell's family. */
    int familyAt;

    /**
     * Becomes the cell before the restart entry of {@code group} in a block whose entry 0 is {@code
     * first} (the base cell), as numbers; {@code valueAt} is where the group's values start.
     */
    void beforeRestart(Entry first, int group, int valueAt) {
      familyAt = -1;
      qualifierLen = first.qualifierLen;
      timestamp = first.timestamp;
      takeRest(first);
      if (group == 0) {
        clearRest();
      }
      this.valueAt = valueAt;
    }
  }

  /** The walk's current row, the state before the next entry and before the row's first. */
  byte[] walkRow = CellFields.EMPTY;

  int walkRowLen;

  /** The qualifier of the walk's last anchor: the group's first entry or a row's first. */
  byte[] anchorQualifier = CellFields.EMPTY;

  int anchorQualifierLen;
  final Walk walk = new Walk();
  final Walk atAnchor = new Walk();

  /**
   * Makes {@code x} the cell before a new row's first entry in {@code group}: the walk's row and
   * the fields in {@code w}; the family, unless one was written since the walk started (at the
   * restart entry), is the base cell's.
   */
  final void start(Entry x, Walk w, int group) {
    x.row = CellFields.room(x.row, walkRowLen);
    System.arraycopy(walkRow, 0, x.row, 0, walkRowLen);
    x.rowLen = walkRowLen;
    x.rowQualifier = EntryParser.copy(anchorQualifier, anchorQualifierLen, x.rowQualifier);
    x.rowQualifierLen = anchorQualifierLen;
    if (w.familyAt >= 0) {
      x.family = CellFields.room(x.family, w.familyLen);
      System.arraycopy(buf, w.familyAt, x.family, 0, w.familyLen);
      x.familyLen = w.familyLen;
    } else {
      x.family = CellFields.room(x.family, first.familyLen);
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
    x.restart = group;
  }

  /**
   * Compares the key's row {@code keyRow[keyRowOffset, keyRowOffset + keyRowLen)} with the row of
   * the restart entry of {@code group} (which diffs against the base cell's row) where it lies in
   * the block, from how the key's row compares with the base cell's ({@link #keyBaseOrder}, {@link
   * #keyBaseMatch}): only a row that shares exactly as many bytes with the base cell's as the key's
   * does is compared byte by byte, and only after them. Opens the group.
   */
  final int compareRowAt(byte[] keyRow, int keyRowOffset, int keyRowLen, int group) {
    openGroup(group);
    int at = keysAt(group);
    int limit = base + keysEnd(group);
    readRowPart(buf, base + at, limit, at, first.rowLen);
    if ((readFlags & ROW) != 0) {
      return keyBaseOrder;
    }
    int shared = readRowShared;
    // as the walk compares rows: the restart entry's row is after the base cell's, and first
    // differs from it where its written bytes start
    if (shared < keyBaseMatch) {
      return -1;
    }
    if (shared > keyBaseMatch) {
      return keyBaseOrder;
    }
    return compareSplit(
        keyRow,
        keyRowOffset + shared,
        keyRowLen - shared,
        CellFields.EMPTY,
        0,
        buf,
        readRowAt,
        readRowRest);
  }

  /**
   * Compares {@code a[ao, ao + al)} bytewise with {@code p[0, pl)} followed by {@code q[qo, qo +
   * ql)}: negative, zero or positive as {@code Bytes.compareTo} would.
   */
  final int compareSplit(byte[] a, int ao, int al, byte[] p, int pl, byte[] q, int qo, int ql) {
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
   * their common prefix: set by the seeker's binary search for the seek that compares rows.
   */
  int keyBaseOrder;

  int keyBaseMatch;

  /** The length of the common prefix set by the last {@link #compareSplit}. */
  int matched;

  /** Where {@code a[ao..]} and {@code b[bo..]} first differ within {@code n} bytes, or n. */
  static int mismatch(byte[] a, int ao, byte[] b, int bo, int n) {
    if (n <= 16) {
      // a few bytes (a row's or its suffix) compare faster by hand than through the intrinsic
      for (int i = 0; i < n; i++) {
        if (a[ao + i] != b[bo + i]) {
          return i;
        }
      }
      return n;
    }
    int i = ByteRuns.mismatch(a, ao, ao + n, b, bo, bo + n);
    return i < 0 ? n : i;
  }
}
