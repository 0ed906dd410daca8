package io.blockscope.encoding;

import java.util.Arrays;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.io.WritableUtils;

/**
 * One cell's fields, in arrays of their own: the encoder's cell before and cell now, and the base
 * of the seeker's decoded entries ({@link Entry}).
 */
class CellFields {
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

  /** The length of this cell's key in KeyValue's layout (row length to type). */
  int keyLength() {
    return KeyValue.KEY_INFRASTRUCTURE_SIZE + rowLen + familyLen + qualifierLen;
  }

  /**
   * The bytes this cell takes in an unencoded block: KeyValue's layout, the tags' length and tags
   * if the file has tags, the sequence id as a vlong if it has them. What HBase's writer counts per
   * cell ({@code EncodingState.postCellEncode}) and what {@code decodeKeyValues} writes.
   */
  int unencodedSize(boolean withTags, boolean withMvcc) {
    return KeyValue.KEYVALUE_INFRASTRUCTURE_SIZE
        + keyLength()
        + valueLen
        + (withTags ? KeyValue.TAGS_LENGTH_SIZE + tagsLen : 0)
        + (withMvcc ? WritableUtils.getVIntSize(seqId) : 0);
  }

  /** Drops value length, tags and sequence id: with the base key, the cell before entry 0. */
  void clearRest() {
    valueLen = 0;
    tagsLen = 0;
    seqId = 0;
  }

  /** Becomes a copy of {@code o}: of the base cell, the state before a restart entry. */
  void reset(CellFields o) {
    copyKey(o);
    takeRest(o);
  }

  /** Takes the qualifier of {@code o}: the one a new row's first qualifier diffs against. */
  void takeQualifier(CellFields o) {
    qualifier = room(qualifier, o.qualifierLen);
    System.arraycopy(o.qualifier, 0, qualifier, 0, o.qualifierLen);
    qualifierLen = o.qualifierLen;
  }

  /** Takes type, value length, tags and sequence id from {@code o}. */
  void takeRest(CellFields o) {
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
  void copyKey(CellFields o) {
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
   * Takes row, family, qualifier, timestamp and type from {@code c} (which may be a key-only cell,
   * such as a block's base key), in its own arrays.
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

  /**
   * Takes row, family, qualifier, timestamp and type from the key at {@code at} in {@code b}, of
   * {@code len} bytes in KeyValue's key layout, whose row and family lengths have been checked to
   * fit in it ({@code BlockscopeV1Format.checkBaseKey}): what {@link #readKey(Cell)} takes from a
   * key-only cell over those bytes, without making one.
   */
  void readKey(byte[] b, int at, int len) {
    int r = BlockscopeV1Format.uint16(b, at);
    rowLen = r;
    row = room(row, r);
    System.arraycopy(b, at + 2, row, 0, r);
    int f = b[at + 2 + r] & 0xff;
    familyLen = f;
    family = room(family, f);
    System.arraycopy(b, at + 3 + r, family, 0, f);
    int q = len - KeyValue.KEY_INFRASTRUCTURE_SIZE - r - f;
    qualifierLen = q;
    qualifier = room(qualifier, q);
    System.arraycopy(b, at + 3 + r + f, qualifier, 0, q);
    timestamp = Bytes.toLong(b, at + len - KeyValue.TIMESTAMP_TYPE_SIZE);
    type = b[at + len - 1];
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
    return a.length >= n ? a : Arrays.copyOf(a, Math.max(n, a.length * 2));
  }
}
