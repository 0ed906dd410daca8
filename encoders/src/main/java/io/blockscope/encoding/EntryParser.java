package io.blockscope.encoding;

/**
 * The readers of a BLOCKSCOPE_V1 key entry's fields ({@link BlockscopeV1Format} draws them): the
 * lengths of a row or qualifier against the one before, numbers, a family's length; each checks
 * what it reads against the end of its group's key entries. The seeker's decode, its walk over a
 * group, its binary search and the block's base key all read through here. A reader returns where
 * the next field starts, and leaves its other results in this small cursor ({@link #readEnd},
 * {@link #pairShared}, {@link #pairRest}, {@link #decodedLen}) for the caller to take at once.
 */
class EntryReader {
  /** The block's cells carry tags, sequence ids: their entries have those fields. */
  final boolean tags;

  final boolean mvcc;

  /** Where the block starts in its array; offsets in messages are from there. */
  int base;

  EntryReader(boolean tags, boolean mvcc) {
    this.tags = tags;
    this.mvcc = mvcc;
  }

  /** Copies {@code n} bytes of {@code from} into {@code to} (or a larger array); returns it. */
  static byte[] copy(byte[] from, int n, byte[] to) {
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
  int readEnd;

  /** The last lengths read by {@link #lengths}. */
  int pairShared;

  int pairRest;

  /** The length of the last row or qualifier read by {@link #prefixed}. */
  int decodedLen;

  /**
   * Reads a row or qualifier at {@code p} over {@code old}, whose first {@code oldLen} bytes are
   * the one before: its lengths, then its bytes after the shared prefix. Returns the array holding
   * it ({@code old} or a larger copy), its length in {@link #decodedLen}, the position after it in
   * {@link #readEnd}.
   */
  final byte[] prefixed(
      byte[] b, int p, int limit, int at, byte[] old, int oldLen, int max, String what) {
    p = lengths(b, p, limit, at, oldLen, what);
    int prefix = pairShared;
    int suffix = pairRest;
    if ((long) prefix + suffix > max) {
      throw corrupt(at, what + " of " + prefix + " + " + suffix + " bytes");
    }
    byte[] into = Fields.room(old, prefix + suffix);
    if (into != old) {
      System.arraycopy(old, 0, into, 0, prefix);
    }
    if (suffix <= 8) {
      // a few bytes (the common case: a row's or qualifier's last bytes) copy faster by hand
      for (int i = 0; i < suffix; i++) {
        into[prefix + i] = b[p + i];
      }
    } else {
      System.arraycopy(b, p, into, prefix, suffix);
    }
    decodedLen = prefix + suffix;
    readEnd = p + suffix;
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
