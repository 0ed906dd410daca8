package io.blockscope.encoding;

import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.ExtendedCell;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.ClassSize;

/**
 * A cell read from a BLOCKSCOPE_V1 block: family and qualifier copied into an array of their own
 * (the seeker reuses its buffers), the row too for the first cell the seeker returns of a row, and
 * the cells after it in the row sharing that copy; value and tags pointing into the block.
 */
final class DecodedCell implements ExtendedCell {
  private static final long FIXED_HEAP =
      ClassSize.align(
          ClassSize.OBJECT
              + 4 * ClassSize.REFERENCE
              + 2 * Bytes.SIZEOF_LONG
              + 8 * Bytes.SIZEOF_INT
              + Bytes.SIZEOF_BYTE);

  /** At the start of its array. */
  private final byte[] row;

  private final int rowLen;

  /** Family and qualifier, one after the other. */
  private final byte[] key;

  private final int familyOffset;
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
      byte[] key,
      int familyOffset,
      int familyLen,
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
    this.row = row;
    this.rowLen = rowLen;
    this.key = key;
    this.familyOffset = familyOffset;
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
    return row;
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
    return familyOffset;
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
    return familyOffset + familyLen;
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
    // the key's bytes counted as the cell's own, though the cells of a row share its row's
    return FIXED_HEAP + ClassSize.align(ClassSize.ARRAY + rowLen + familyLen + qualifierLen);
  }

  @Override
  public String toString() {
    return CellUtil.toString(this, false);
  }
}
