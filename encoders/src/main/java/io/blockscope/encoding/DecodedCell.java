package io.blockscope.encoding;

import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.ExtendedCell;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.ClassSize;

/**
 * A cell read from a BLOCKSCOPE_V1 block: row, family and qualifier copied into one array of its
 * own (the seeker reuses its buffers), value and tags pointing into the block.
 */
final class DecodedCell implements ExtendedCell {
  private static final long FIXED_HEAP =
      ClassSize.align(
          ClassSize.OBJECT
              + 3 * ClassSize.REFERENCE
              + 2 * Bytes.SIZEOF_LONG
              + 7 * Bytes.SIZEOF_INT
              + Bytes.SIZEOF_BYTE);

  private final byte[] key;
  private final int rowLen;
  private final int familyLen;
  private final int qualifierLen;
  private long timestamp;
  private final byte type;
  private final byte[] value;
  private final int valueOffset;
  private final int valueLen;
  private final byte[] tags;
  private final int tagsOffset;
  private final int tagsLen;
  private long seqId;

  DecodedCell(
      byte[] row,
      int rowLen,
      byte[] family,
      int familyLen,
      byte[] qualifier,
      int qualifierLen,
      long timestamp,
      byte type,
      byte[] value,
      int valueOffset,
      int valueLen,
      byte[] tags,
      int tagsOffset,
      int tagsLen,
      long seqId) {
    this.key = new byte[rowLen + familyLen + qualifierLen];
    System.arraycopy(row, 0, key, 0, rowLen);
    System.arraycopy(family, 0, key, rowLen, familyLen);
    System.arraycopy(qualifier, 0, key, rowLen + familyLen, qualifierLen);
    this.rowLen = rowLen;
    this.familyLen = familyLen;
    this.qualifierLen = qualifierLen;
    this.timestamp = timestamp;
    this.type = type;
    this.value = value;
    this.valueOffset = valueOffset;
    this.valueLen = valueLen;
    this.tags = tags;
    this.tagsOffset = tagsOffset;
    this.tagsLen = tagsLen;
    this.seqId = seqId;
  }

  @Override
  public byte[] getRowArray() {
    return key;
  }

  @Override
  public int getRowOffset() {
    return 0;
  }

  @Override
  public short getRowLength() {
    return (short) rowLen;
  }

  @Override
  public byte[] getFamilyArray() {
    return key;
  }

  @Override
  public int getFamilyOffset() {
    return rowLen;
  }

  @Override
  public byte getFamilyLength() {
    return (byte) familyLen;
  }

  @Override
  public byte[] getQualifierArray() {
    return key;
  }

  @Override
  public int getQualifierOffset() {
    return rowLen + familyLen;
  }

  @Override
  public int getQualifierLength() {
    return qualifierLen;
  }

  @Override
  public long getTimestamp() {
    return timestamp;
  }

  @Override
  public byte getTypeByte() {
    return type;
  }

  @Override
  public long getSequenceId() {
    return seqId;
  }

  @Override
  public void setSequenceId(long seqId) {
    this.seqId = seqId;
  }

  @Override
  public void setTimestamp(long ts) {
    this.timestamp = ts;
  }

  @Override
  public void setTimestamp(byte[] ts) {
    this.timestamp = Bytes.toLong(ts, 0);
  }

  @Override
  public byte[] getValueArray() {
    return value;
  }

  @Override
  public int getValueOffset() {
    return valueOffset;
  }

  @Override
  public int getValueLength() {
    return valueLen;
  }

  @Override
  public byte[] getTagsArray() {
    return tags;
  }

  @Override
  public int getTagsOffset() {
    return tagsOffset;
  }

  @Override
  public int getTagsLength() {
    return tagsLen;
  }

  @Override
  public long heapSize() {
    return FIXED_HEAP + ClassSize.align(ClassSize.ARRAY + key.length);
  }

  @Override
  public String toString() {
    return CellUtil.toString(this, false);
  }
}
