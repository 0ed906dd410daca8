package io.blockscope.encoding;

/**
 * One decoded BLOCKSCOPE_V1 entry: the key fields in arrays of their own, value and tags in the
 * block. The seeker holds two (the current entry and one for looking ahead) and swaps them.
 */
class Entry extends CellFields {
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
   * The qualifier of the last entry that started the group or a row: the one a new row's qualifier
   * diffs against.
   */
  byte[] rowQualifier = CellFields.EMPTY;

  int rowQualifierLen;

  /** This entry as a Cell's key, made when first compared (not by every new seeker). */
  private KeyView key;

  KeyView key() {
    KeyView k = key;
    return k != null ? k : (key = new KeyView(this));
  }

  /** Tags stay in the block: their offset is taken, not their bytes. */
  @Override
  void takeRest(CellFields o) {
    Entry e = (Entry) o;
    type = e.type;
    valueLen = e.valueLen;
    tagsOffset = e.tagsOffset;
    tagsLen = e.tagsLen;
    seqId = e.seqId;
  }

  void copy(Entry o) {
    reset(o);
    rowQualifier = CellFields.room(rowQualifier, o.rowQualifierLen);
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
