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
 * The parser of a BLOCKSCOPE_V1 key entry ({@link BlockscopeV1Format} draws it): its fields in the
 * format's order, in three stages ({@link #readRowPart}, {@link #readKeyPart}, {@link
 * #readValuePart}) that the seeker's decode, its comparison of an entry with a key and its binary
 * search's probes each call as far as they need; and the base key's length. Every length is checked
 * against the end of its group's key entries before it is used. A stage returns where the next
 * field starts and leaves what it read in this object's fields, for the caller to take at once.
 *
 * <p>One loop reads the order again: the walk over a group's rows ({@link RowWalker#walkRows}),
 * which keeps the cell before in local variables and reads each field inline, checking every length
 * against its group's end as the stages do. Through the stages it made seeks about 10% slower
 * (benchmarks/encoder-measurements.md, "The seeker's classes"). The encoder's contract tests
 * (EncodingContractTest, on the golden blocks too) seek to every cell of their blocks and between
 * them, and check each landing against the cells the block was encoded from: where the walk and the
 * stages disagreed, a seek would land elsewhere.
 */
class EntryParser {
  /*
   * The read path is one object of four classes, each the superclass of the next, one concern
   * each. A level calls the ones above it in this drawing and takes what they read from fields of
   * the object, at once, before the next call writes them again:
   *
   *   EntryParser          an entry's fields in three stages, the base key's length
   *     |  readFlags, readRowShared/Rest/At, readFamilyAt/Len, readQualifierShared/Rest/At,
   *     |  readTimestampDelta, readType, readValueLen/Offset, readValuesAfter, readTagsAt/Len,
   *     |  readSeqId (the stages); pairShared, pairRest (lengths); readEnd (vint, vlong)
   *   BlockFrame           the block's trailer, base key and restart offsets; a group's bounds
   *     |  buf, base, restartCount, baseKeyAt, baseKeyLen; restartAt, keysAt, keysEnd of a group
   *   RowWalker            restart entries' rows against the key's; the walk over a group's rows
   *     |  matched (compareSplit); walkAtKeyRow, walkFieldsAt, walkAnchor, and walk and atAnchor
   *     |  (the cell before the entry the walk stopped at, and before its row), walkRow,
   *     |  anchorQualifier (walkRows); it reads first and keyBaseOrder/Match, which the seeker sets
   *   BlockscopeV1Seeker   decodes into its Entry objects, decides where a seek goes, answers
   *                        HBase's EncodedSeeker calls; EntryCells builds keys and cells
   *
   * Why a chain of superclasses and not parts the seeker holds, as HBase's RowIndexSeekerV1 holds
   * its SeekerState objects: each object a seek reaches through costs it a few percent. HBase
   * makes a seeker for every store file scanner (HFileReaderImpl.EncodedScanner), so every point
   * get makes one, and a seek reads little of a block. SeekAB against the seeker as one class, on
   * a 2-core machine, medians of five JVMs (B/A, for seek, seekBefore and get):
   *
   *   the parser as an object the seeker holds    1.02   1.03   0.99
   *   the frame as a second object                1.06   1.06   1.02
   *   both as superclasses instead                1.02   1.03   1.01
   *   the row walker as a superclass too          1.00   1.01   1.06
   *
   * One parser object holding its position and results, read by decode and the walk alike, with
   * the walk's state in an Entry, measured 1.27, 1.26 and 1.15: each step handed its result to the
   * next through an object's fields, and escape analysis did not keep a walk-local Entry in
   * registers. For the same reason the walk (RowWalker.walkRows) reads the fields in a loop of its
   * own, with the cell before in local variables: routed through this class's stages, handing each
   * field over in the fields above, seeks were 9 to 12% slower (SeekAB, ten JVMs: seek 1.121,
   * seekBefore 1.112, get 1.089). EncodingContractTest holds the walk and the stages to the same
   * landings.
   *
   * The runs: benchmarks/encoder-measurements.md, "The seeker's classes". A change to the read
   * path is held to them: with the build before it in a second work tree (its encoders module
   * compiled there), seek, seekBefore and get each within 3% of 1 in
   *
   *   java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) \
   *       io.blockscope.benchmarks.SeekAB /tmp/old/encoders/target/classes \
   *       encoders/target/classes seek 10
   */

  /** The block's cells carry tags, sequence ids: their entries have those fields. */
  final boolean tags;

  final boolean mvcc;

  /** Where the block starts in its array; offsets in messages are from there. */
  int base;

  EntryParser(boolean tags, boolean mvcc) {
    this.tags = tags;
    this.mvcc = mvcc;
  }

  /** Copies {@code n} bytes of {@code from} into {@code to} (or a larger array); returns it. */
  static byte[] copy(byte[] from, int n, byte[] to) {
    to = CellFields.room(to, n);
    put(from, 0, to, 0, n);
    return to;
  }

  /**
   * Copies {@code n} bytes from {@code from[fromAt]} to {@code to[toAt]}: a few bytes (a row's or a
   * qualifier's, or their last bytes) copy faster by hand than through {@code System.arraycopy}.
   */
  static void put(byte[] from, int fromAt, byte[] to, int toAt, int n) {
    if (n <= 8) {
      for (int i = 0; i < n; i++) {
        to[toAt + i] = from[fromAt + i];
      }
    } else {
      System.arraycopy(from, fromAt, to, toAt, n);
    }
  }

  /** Position after the last vint/vlong read (a field, to spare an allocation per read). */
  int readEnd;

  /** The last lengths read by {@link #lengths}. */
  int pairShared;

  int pairRest;

  // ---- a key entry, field by field in the format's order --------------------------------------
  //
  // Three stages, called by decode, peek and the probes as far as they need: the row; family,
  // qualifier, timestamp and type; value, tags and sequence id. Each checks what it reads and
  // leaves it in the fields below (of this object, not of another: each object a seek reaches
  // through costs it a few percent).

  /** The flags byte of the entry {@link #readRowPart} read. */
  int readFlags;

  /** A written row: the prefix it shares with the row before, its rest and where that lies. */
  int readRowShared;

  int readRowRest;
  int readRowAt;

  /** A written family: where it lies and its length. */
  int readFamilyAt;

  int readFamilyLen;

  /** A written qualifier: the prefix it shares, its rest and where that lies. */
  int readQualifierShared;

  int readQualifierRest;
  int readQualifierAt;

  /** The timestamp's change from the cell before (0 if not written), a written type. */
  long readTimestampDelta;

  byte readType;

  /**
   * The value's length (written or the cell before's), where it starts, the values cursor after.
   */
  int readValueLen;

  int readValueOffset;
  int readValuesAfter;

  /** Written tags: where they lie and their length; a written sequence id. */
  int readTagsAt;

  int readTagsLen;
  long readSeqId;

  /**
   * Reads the flags of the entry at block offset {@code at} (at {@code p} in {@code b}, before
   * {@code limit}, the end of its group's key entries) and, if it writes a row, the row's lengths
   * against the row before ({@code rowBefore} bytes) into {@link #readRowShared}, {@link
   * #readRowRest} and {@link #readRowAt}; returns where the family starts.
   */
  final int readRowPart(byte[] b, int p, int limit, int at, int rowBefore) {
    int flags = b[p++] & 0xff;
    readFlags = flags;
    if ((flags & ROW) == 0) {
      p = lengths(b, p, limit, at, rowBefore, "row");
      int rest = pairRest;
      if (pairShared + rest > Short.MAX_VALUE) {
        throw corrupt(at, "row of " + pairShared + " + " + rest + " bytes");
      }
      readRowShared = pairShared;
      readRowRest = rest;
      readRowAt = p;
      p += rest;
    }
    return p;
  }

  /**
   * Reads from {@code p} the family, qualifier (against one of {@code qualifierBefore} bytes),
   * timestamp and type of the entry at {@code at} whose flags are {@code flags}, as far as it
   * writes them; returns where its value length starts.
   */
  final int readKeyPart(byte[] b, int p, int limit, int at, int flags, int qualifierBefore) {
    if ((flags & FAMILY) == 0) {
      int len = familyLength(b, p++, limit, at);
      readFamilyAt = p;
      readFamilyLen = len;
      p += len;
    }
    if ((flags & QUALIFIER) == 0) {
      p = lengths(b, p, limit, at, qualifierBefore, "qualifier");
      if ((long) pairShared + pairRest > Integer.MAX_VALUE) {
        throw corrupt(at, "qualifier of " + pairShared + " + " + pairRest + " bytes");
      }
      readQualifierShared = pairShared;
      readQualifierRest = pairRest;
      readQualifierAt = p;
      p += pairRest;
    }
    long delta = 0;
    if ((flags & TIMESTAMP) == 0) {
      long z;
      if (p < limit && b[p] >= 0) {
        z = b[p++];
      } else {
        z = vlong(b, p, limit);
        p = readEnd;
      }
      delta = (z >>> 1) ^ -(z & 1);
    }
    readTimestampDelta = delta;
    if ((flags & TYPE) == 0) {
      if (p >= limit) {
        throw corrupt(at, "type past the end");
      }
      readType = b[p++];
    }
    return p;
  }

  /**
   * Reads from {@code p} the value length (else the cell before's, {@code valueLenBefore}), the
   * value (in the key entry, or at {@code valueAt} among its group's values, which end at {@code
   * valuesEnd}), the tags and the sequence id of the entry at {@code at} whose flags are {@code
   * flags}; returns where the next entry starts.
   */
  final int readValuePart(
      byte[] b,
      int p,
      int limit,
      int at,
      int flags,
      int valueLenBefore,
      int valueAt,
      int valuesEnd) {
    int len = valueLenBefore;
    if ((flags & VALUE_LEN) == 0) {
      if (p < limit && b[p] >= 0) {
        len = b[p++];
      } else {
        len = vint(b, p, limit);
        p = readEnd;
      }
    }
    readValueLen = len;
    if (len <= INLINE_MAX) {
      // in the key entry
      if (len > limit - p) {
        throw corrupt(at, "value of " + len + " bytes");
      }
      readValueOffset = p;
      readValuesAfter = valueAt;
      p += len;
    } else {
      if (len > valuesEnd - valueAt) {
        throw corrupt(at, "value of " + len + " bytes");
      }
      readValueOffset = valueAt;
      readValuesAfter = valueAt + len;
    }
    if (tags && (flags & TAGS) == 0) {
      int n = vint(b, p, limit);
      p = readEnd;
      if (n > limit - p) {
        throw corrupt(at, "tags of " + n + " bytes");
      }
      readTagsAt = p;
      readTagsLen = n;
      p += n;
    }
    if (mvcc && (flags & SEQID) == 0) {
      readSeqId = vlong(b, p, limit);
      p = readEnd;
    }
    return p;
  }

  /**
   * Copies a row or qualifier read by the stages above into {@code old}, whose first {@code shared}
   * bytes are the prefix it shares with the one before: its other {@code rest} bytes are at {@code
   * at} in {@code b}. Returns {@code old} or a larger copy of its prefix, with the whole.
   */
  static byte[] spliced(byte[] old, int shared, byte[] b, int at, int rest) {
    byte[] into = CellFields.room(old, shared + rest);
    if (into != old) {
      System.arraycopy(old, 0, into, 0, shared);
    }
    put(b, at, into, shared, rest);
    return into;
  }

  /**
   * Reads the lengths (shared prefix, pairRest) of {@code what}, a row or qualifier whose
   * predecessor had {@code before} bytes, into {@link #pairShared} and {@link #pairRest}, and
   * checks that the prefix is the predecessor's and the rest lies before {@code limit}; returns the
   * position after the lengths (where the rest starts).
   */
  final int lengths(byte[] b, int p, int limit, int at, int before, String what) {
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
      pairRest = vint(b, readEnd, limit);
      p = readEnd;
    } else {
      throw corrupt(at, what + " lengths marker " + (x & 0xff));
    }
    if (pairShared < 0 || pairShared > before || pairRest > limit - p) {
      throw corrupt(at, what + " of " + pairShared + " + " + pairRest + " bytes");
    }
    return p;
  }

  final int vint(byte[] b, int p, int limit) {
    if (p < limit && b[p] >= 0) {
      readEnd = p + 1;
      return b[p];
    }
    long v = vlong(b, p, limit);
    if (v < 0 || v > Integer.MAX_VALUE) {
      throw corrupt(p - base, "length " + v);
    }
    return (int) v;
  }

  final long vlong(byte[] b, int p, int limit) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= limit) {
        throw corrupt(p - base, "number past the end of its entries");
      }
      byte x = b[p++];
      v |= (long) (x & 0x7f) << shift;
      if (x >= 0) {
        readEnd = p;
        return v;
      }
    }
    throw corrupt(p - base, "number longer than 10 bytes");
  }

  /** The length of a family written at {@code p}, checked against {@code limit}. */
  final int familyLength(byte[] b, int p, int limit, int at) {
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
   * The base key's length: the vint at {@code base} in {@code b}, in a block whose groups end
   * {@code groupsEnd} bytes after {@code base}; checked to fit before them. {@link #readEnd}: where
   * the key starts. {@code b} may hold only the block's first bytes: a length that does not fit in
   * them does not fit before the groups' end.
   */
  final int baseKeyLength(byte[] b, int base, int groupsEnd) {
    int limit = base + Math.min(groupsEnd, b.length - base);
    int len = vint(b, base, limit);
    if (len > groupsEnd - (readEnd - base)) {
      throw CorruptBlockException.raise(
          "base key of " + len + " bytes in a block whose groups end at " + groupsEnd);
    }
    return len;
  }

  final RuntimeException corrupt(int at, String what) {
    return CorruptBlockException.raise("BLOCKSCOPE_V1 entry at " + at + ": " + what);
  }
}
