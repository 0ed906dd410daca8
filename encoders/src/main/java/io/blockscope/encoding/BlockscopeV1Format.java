package io.blockscope.encoding;

import org.apache.hadoop.hbase.KeyValue;

/**
 * The BLOCKSCOPE_V1 block format, drawn once: {@link BlockscopeV1Encoder} writes it and {@link
 * EntryParser} (entries) and {@link BlockFrame} (the block's frame and groups) read it. Cells are
 * diff-encoded field by field against the cell before, in groups of up to {@code interval} cells
 * whose first entries a seek finds by binary search. Within a group the values (but the shortest)
 * come first and the key entries after them, so a general-purpose compressor on top (GZ, ZSTD) sees
 * the keys' repeating structure in one run instead of broken up by every value.
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
 * entry 0 must take its whole key from it (flags ROW, FAMILY, QUALIFIER, TIMESTAMP and TYPE set:
 * {@link #BASE_FIELDS}), else the block is corrupt. "The cell before" the first entry of every
 * other group (its restart entry) is the block's base cell: entry 0, every field of it. So a
 * restart entry decodes with nothing but entry 0, which the reader decodes once per block. For
 * every other entry "the cell before" is the entry before it, with one exception: the qualifier of
 * an entry that starts a new row diffs against the qualifier of the group's last anchor (its first
 * entry, or the last entry that started a row). A seek's walk can then step over the rows before
 * the key's without decoding their other qualifiers, and decode from the first cell of the row it
 * lands in. A group closes after {@code interval} cells or once it holds {@link
 * BlockscopeV1Encoder#RESTART_BYTES} bytes. A seek compares the rows of O(log r) restart entries
 * where they lie in the block, then walks at most one group.
 */
final class BlockscopeV1Format {
  private BlockscopeV1Format() {}

  /** Flags of a key entry: the field is the cell before's, not written. */
  static final int ROW = 1;

  static final int FAMILY = 1 << 1;
  static final int QUALIFIER = 1 << 2;
  static final int TIMESTAMP = 1 << 3;
  static final int TYPE = 1 << 4;
  static final int VALUE_LEN = 1 << 5;
  static final int TAGS = 1 << 6;
  static final int SEQID = 1 << 7;

  /** The flags of the key fields entry 0 takes from the base key: all of them. */
  static final int BASE_FIELDS = ROW | FAMILY | QUALIFIER | TIMESTAMP | TYPE;

  /**
   * Trailer bits next to the restart count: offsets are int32; the block has groups; it starts with
   * its base key; small values are in their key entries.
   */
  static final int WIDE = 0x80000000;

  static final int GROUPED = 0x40000000;
  static final int BASE_KEY = 0x20000000;
  static final int INLINE_VALUES = 0x10000000;

  /** The trailer's group count. */
  static final int COUNT = 0x0fffffff;

  /**
   * Values of at most this many bytes are written in their key entry, right after its value length,
   * not with the group's other values.
   */
  static final int INLINE_MAX = 2;

  /*
   * Why values of up to INLINE_MAX bytes sit in their key entries: Phoenix writes a one-byte
   * value ('x') in the empty column of every row. Among the group's values it split the random
   * bytes of the others into short runs that ZSTD codes one by one (the seeds' rows measured 7%
   * larger under aircompressor's ZSTD with it there: EncodedSizeTest -Dsizes.intervals=64 on the
   * layouts with and without it); among the key entries it repeats with them, in one match.
   */

  /** The trailer of a block of {@code count} groups, whose restart offsets are int32 if wide. */
  static int trailer(int count, boolean wide) {
    return count | GROUPED | BASE_KEY | INLINE_VALUES | (wide ? WIDE : 0);
  }

  /**
   * Checks the trailer {@code raw} (the last four bytes) of a block of {@code n} bytes: the layout
   * bits, and a group count whose restart offsets and smallest groups fit in the block.
   */
  static void checkTrailer(int n, int raw) {
    if (n < 4 + 2 + 3) {
      throw CorruptBlockException.raise("block of " + n + " bytes is too short");
    }
    if ((raw & GROUPED) == 0) {
      throw CorruptBlockException.raise(
          "block without groups: not a BLOCKSCOPE_V1 block, or one written by a development"
              + " build older than 0.1.0, before the grouped layout");
    }
    if ((raw & BASE_KEY) == 0) {
      throw CorruptBlockException.raise(
          "block without a base key: not a BLOCKSCOPE_V1 block, or one written by a"
              + " development build older than 0.1.0, before the base-key layout");
    }
    if ((raw & INLINE_VALUES) == 0) {
      throw CorruptBlockException.raise(
          "block without inline values: not a BLOCKSCOPE_V1 block, or one written by a"
              + " development build older than 0.1.0, before small values moved into their key"
              + " entries");
    }
    int count = raw & COUNT;
    // each group takes at least its restart offset, one entry's flags and two length bytes
    if (count < 1 || count > (n - 4) / (width(raw) + 3)) {
      throw CorruptBlockException.raise(
          "restart count " + count + " in a block of " + n + " bytes");
    }
  }

  /** Bytes per restart offset in a block whose trailer is {@code raw}. */
  static int width(int raw) {
    return (raw & WIDE) != 0 ? 4 : 2;
  }

  /** Where the groups of a block of {@code n} bytes end: its restart offsets start. */
  static int groupsEnd(int n, int raw) {
    return n - 4 - width(raw) * (raw & COUNT);
  }

  /**
   * Where group {@code k}, from {@code from} to {@code to}, keeps its key entries, from K at its
   * end: {@code last} is the uint16 ending the group, {@code before} the one before it (or -1).
   * Returns start and end offsets packed in a long.
   */
  static long groupKeys(int k, int from, int to, int last, int before) {
    int length;
    int tail;
    if ((last & 0x8000) == 0) {
      length = last;
      tail = 2;
    } else if (before >= 0) {
      length = ((last & 0x7fff) << 16) | before;
      tail = 4;
    } else {
      throw CorruptBlockException.raise("group " + k + " of " + (to - from) + " bytes");
    }
    if (length < 1 || length > to - from - tail) {
      throw CorruptBlockException.raise(
          "group " + k + " of " + (to - from) + " bytes has " + length + " bytes of key entries");
    }
    int end = to - tail;
    return ((long) (end - length) << 32) | end;
  }

  /**
   * Checks that {@code len} bytes at {@code at} hold a key in KeyValue's layout, whose row and
   * family lengths fit in it.
   */
  static void checkBaseKey(byte[] b, int at, int len) {
    int rowLen = len < KeyValue.KEY_INFRASTRUCTURE_SIZE ? -1 : uint16(b, at);
    if (rowLen < 0
        || rowLen > Short.MAX_VALUE
        || rowLen > len - KeyValue.KEY_INFRASTRUCTURE_SIZE
        || (b[at + 2 + rowLen] & 0xff) > len - KeyValue.KEY_INFRASTRUCTURE_SIZE - rowLen) {
      throw CorruptBlockException.raise(
          "base key of "
              + len
              + " bytes with a row of "
              + rowLen
              + " bytes and a family that do not fit in it");
    }
  }

  static int uint16(byte[] b, int at) {
    return ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
  }

  static int int32(byte[] b, int at) {
    return ((b[at] & 0xff) << 24)
        | ((b[at + 1] & 0xff) << 16)
        | ((b[at + 2] & 0xff) << 8)
        | (b[at + 3] & 0xff);
  }

  /** The bytes K takes at the end of a group with {@code keys} bytes of key entries. */
  static int keysLengthBytes(int keys) {
    return keys < 0x8000 ? 2 : 4;
  }

  /**
   * Writes the lengths of a row or qualifier of {@code len} bytes, {@code shared} of them shared
   * with the one before (of {@code lenBefore} bytes), at {@code h[n]}; returns the position after
   * them, where the bytes after the shared prefix go.
   */
  static int putLengths(byte[] h, int n, int len, int shared, int lenBefore) {
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
    return n;
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

  /** The zig-zag form of a timestamp's difference {@code d} from the one before. */
  static long zigZag(long d) {
    return (d << 1) ^ (d >> 63);
  }

  /** The difference a zig-zag {@code z} stands for. */
  static long unZigZag(long z) {
    return (z >>> 1) ^ -(z & 1);
  }
}
