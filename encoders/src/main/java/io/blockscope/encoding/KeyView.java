package io.blockscope.encoding;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HConstants;

/**
 * The key of the seeker's current (or probed) entry as a {@link Cell}, for the comparator; no copy,
 * valid until the entry changes. Never leaves the seeker.
 */
final class KeyView implements Cell {
  private final Entry e;

  KeyView(Entry e) {
    this.e = e;
  }

  @Override
  public byte[] getRowArray() {
    return e.row;
  }

  @Override
  public int getRowOffset() {
    return 0;
  }

  @Override
  public short getRowLength() {
    return (short) e.rowLen;
  }

  @Override
  public byte[] getFamilyArray() {
    return e.family;
  }

  @Override
  public int getFamilyOffset() {
    return 0;
  }

  @Override
  public byte getFamilyLength() {
    return (byte) e.familyLen;
  }

  @Override
  public byte[] getQualifierArray() {
    return e.qualifier;
  }

  @Override
  public int getQualifierOffset() {
    return 0;
  }

  @Override
  public int getQualifierLength() {
    return e.qualifierLen;
  }

  @Override
  public long getTimestamp() {
    return e.timestamp;
  }

  @Override
  public byte getTypeByte() {
    return e.type;
  }

  @Override
  public long getSequenceId() {
    return 0;
  }

  @Override
  public byte[] getValueArray() {
    return HConstants.EMPTY_BYTE_ARRAY;
  }

  @Override
  public int getValueOffset() {
    return 0;
  }

  @Override
  public int getValueLength() {
    return 0;
  }

  @Override
  public int getSerializedSize() {
    return 0;
  }

  @Override
  public byte[] getTagsArray() {
    return HConstants.EMPTY_BYTE_ARRAY;
  }

  @Override
  public int getTagsOffset() {
    return 0;
  }

  @Override
  public int getTagsLength() {
    return 0;
  }

  @Override
  public long heapSize() {
    return 0;
  }
}
