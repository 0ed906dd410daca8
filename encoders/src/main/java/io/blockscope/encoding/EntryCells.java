package io.blockscope.encoding;

import static io.blockscope.encoding.BlockscopeV1Format.FAMILY;
import static io.blockscope.encoding.BlockscopeV1Format.QUALIFIER;
import static io.blockscope.encoding.BlockscopeV1Format.TYPE;

import java.nio.ByteBuffer;
import org.apache.hadoop.hbase.ExtendedCell;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.util.ByteBufferUtils;

/**
 * The building of a decoded entry's key ({@link Entry}) and of what HBase takes from the entry: its
 * cell, a copy of its key, and its bytes as an unencoded block lays them out. Static methods of
 * nothing but their arguments, called by {@link BlockscopeV1Seeker} with its entries and block;
 * small enough for the JIT to inline them where the seeker calls them.
 */
final class EntryCells {
  private EntryCells() {}

  /**
   * Takes into {@code e}, which holds the cell before, the family, qualifier, timestamp and type
   * that {@code read} read last from {@code b} ({@link EntryParser#readKeyPart}) of the entry whose
   * flags are {@code flags}, as far as it writes them. The qualifier of a new row's first entry
   * ({@code newRow}) diffs against the row qualifier (the one of the last row's first entry, or of
   * the group's restart entry), which it becomes, and so does a restart entry's ({@code
   * restartEntry}).
   */
  static void takeKeyPart(
      Entry e, EntryParser read, byte[] b, int flags, boolean newRow, boolean restartEntry) {
    if ((flags & FAMILY) == 0) {
      e.family = CellFields.room(e.family, read.readFamilyLen);
      System.arraycopy(b, read.readFamilyAt, e.family, 0, read.readFamilyLen);
      e.familyLen = read.readFamilyLen;
    }
    if (newRow) {
      if ((flags & QUALIFIER) == 0) {
        int shared = read.readQualifierShared;
        int rest = read.readQualifierRest;
        e.rowQualifier = EntryParser.spliced(e.rowQualifier, shared, b, read.readQualifierAt, rest);
        e.rowQualifierLen = shared + rest;
      }
      e.qualifier = EntryParser.copy(e.rowQualifier, e.rowQualifierLen, e.qualifier);
      e.qualifierLen = e.rowQualifierLen;
    } else {
      if ((flags & QUALIFIER) == 0) {
        int shared = read.readQualifierShared;
        int rest = read.readQualifierRest;
        e.qualifier = EntryParser.spliced(e.qualifier, shared, b, read.readQualifierAt, rest);
        e.qualifierLen = shared + rest;
      }
      if (restartEntry) {
        e.rowQualifier = EntryParser.copy(e.qualifier, e.qualifierLen, e.rowQualifier);
        e.rowQualifierLen = e.qualifierLen;
      }
    }
    e.timestamp += read.readTimestampDelta;
    if ((flags & TYPE) == 0) {
      e.type = read.readType;
    }
  }

  /**
   * The cell of {@code e}, whose value and tags lie in {@code block}: its family and qualifier are
   * copied into an array of its own, after a copy of its row unless {@code row} is given (a copy of
   * the same row, at the start of its array, that an earlier cell holds), which it then shares.
   * Nothing is written into the arrays after the cell is made.
   */
  static DecodedCell cell(Entry e, byte[] row, byte[] block) {
    int familyLen = e.familyLen;
    int qualifierLen = e.qualifierLen;
    int rowLen = e.rowLen;
    int familyAt = 0;
    byte[] key;
    if (row != null) {
      key = new byte[familyLen + qualifierLen];
    } else {
      key = new byte[rowLen + familyLen + qualifierLen];
      EntryParser.put(e.row, 0, key, 0, rowLen);
      row = key;
      familyAt = rowLen;
    }
    EntryParser.put(e.family, 0, key, familyAt, familyLen);
    EntryParser.put(e.qualifier, 0, key, familyAt + familyLen, qualifierLen);
    return new DecodedCell(
        row,
        rowLen,
        key,
        familyAt,
        familyLen,
        qualifierLen,
        e.timestamp,
        e.type,
        block,
        e.valueOffset,
        e.valueLen,
        block,
        e.tagsOffset,
        e.tagsLen,
        e.seqId);
  }

  /** A copy of {@code e}'s key as a key-only cell. */
  static ExtendedCell keyOnly(Entry e) {
    byte[] bytes = PrivateCellUtil.getCellKeySerializedAsKeyValueKey(e.key());
    return new KeyValue.KeyOnlyKeyValue(bytes, 0, bytes.length);
  }

  /**
   * Appends {@code e}, whose value and tags lie in {@code block}, to {@code out} as HBase lays out
   * an unencoded block's cells ({@code DataBlockEncoder.decodeKeyValues}): key length, value
   * length, the key, the value, then the tags' length and tags if the file has {@code tags}, then
   * the sequence id as a Hadoop vlong if it has them ({@code mvcc}). The fields go straight from
   * the entry and the block, with no cell in between. Returns {@code out}, or a copy of it with
   * room when the cell does not fit.
   */
  static ByteBuffer appendKeyValue(
      ByteBuffer out, Entry e, byte[] block, boolean tags, boolean mvcc) {
    int size = e.unencodedSize(tags, mvcc);
    if (out.remaining() < size) {
      ByteBuffer room = ByteBuffer.allocate(Math.max(out.capacity() * 2, out.position() + size));
      out.flip();
      out = room.put(out);
    }
    out.putInt(e.keyLength()).putInt(e.valueLen);
    out.putShort((short) e.rowLen).put(e.row, 0, e.rowLen);
    out.put((byte) e.familyLen).put(e.family, 0, e.familyLen);
    out.put(e.qualifier, 0, e.qualifierLen).putLong(e.timestamp).put(e.type);
    out.put(block, e.valueOffset, e.valueLen);
    if (tags) {
      out.putShort((short) e.tagsLen).put(block, e.tagsOffset, e.tagsLen);
    }
    if (mvcc) {
      ByteBufferUtils.writeVLong(out, e.seqId);
    }
    return out;
  }
}
