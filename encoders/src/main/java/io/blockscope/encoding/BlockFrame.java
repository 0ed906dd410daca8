package io.blockscope.encoding;

import static io.blockscope.encoding.BlockscopeV1Format.COUNT;
import static io.blockscope.encoding.BlockscopeV1Format.checkBaseKey;
import static io.blockscope.encoding.BlockscopeV1Format.checkTrailer;
import static io.blockscope.encoding.BlockscopeV1Format.groupKeys;
import static io.blockscope.encoding.BlockscopeV1Format.groupsEnd;
import static io.blockscope.encoding.BlockscopeV1Format.int32;
import static io.blockscope.encoding.BlockscopeV1Format.uint16;
import static io.blockscope.encoding.BlockscopeV1Format.width;

import java.util.Arrays;
import org.apache.hadoop.hbase.ExtendedCell;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.nio.ByteBuff;

/**
 * A BLOCKSCOPE_V1 block's frame ({@link BlockscopeV1Format}): its trailer, base key and restart
 * offsets, read and checked when the seeker moves to the block, and its groups' bounds, read and
 * checked when a seek first comes to a group. Also the block's first key, for HBase's index.
 */
abstract class BlockFrame extends EntryParser {
  private static final int[] NO_GROUPS = new int[0];
  private static final int GROUP_INTS = 4;

  /** The current block's array; it starts at {@link #base}, offsets are from there. */
  byte[] buf;

  /**
   * Per group, four ints: where it starts (its values), where its key entries start and end, and
   * the {@link #generation} of the block they were read for ({@link #openGroup}). One array, so
   * that a new seeker (every point get creates one) allocates one.
   */
  private int[] groups = NO_GROUPS;

  /**
   * Stamps the groups read for the current block in {@link #groups}: a group is read when a seek or
   * a walk first comes to it, so that moving to a block (every point get does) reads no group but
   * the first.
   */
  private int generation;

  /** The number of groups (restart entries) of the current block. */
  int restartCount;

  /** Where the last group ends (the restart offsets start) in the current block. */
  private int groupsEnd;

  /** Bytes per restart offset in the current block: 2 or 4. */
  private int restartWidth;

  /** Where the base key lies in the block (after its length), and its length. */
  int baseKeyAt;

  int baseKeyLen;

  BlockFrame(boolean tags, boolean mvcc) {
    super(tags, mvcc);
  }

  /**
   * Reads and checks the frame of a block of {@code n} bytes at {@code base} in {@code buf}: the
   * trailer, the restart index and the base key; opens group 0. The other groups are opened when
   * first used ({@link #openGroup}).
   */
  final void read(byte[] buf, int base, int n) {
    if (n < 4) {
      throw CorruptBlockException.raise("block of " + n + " bytes is too short");
    }
    int raw = int32(buf, base + n - 4);
    checkTrailer(n, raw);
    int count = raw & COUNT;
    int entries = groupsEnd(n, raw);
    if (groups.length < GROUP_INTS * count) {
      groups = new int[GROUP_INTS * count];
    }
    nextGeneration();
    this.buf = buf;
    this.base = base;
    baseKeyLen = baseKeyLength(buf, base, entries);
    baseKeyAt = readEnd - base;
    checkBaseKey(buf, readEnd, baseKeyLen);
    restartCount = count;
    groupsEnd = entries;
    restartWidth = width(raw);
    openGroup(0);
  }

  /** Drops the block: no group read from it passes for open any more. */
  final void forget() {
    buf = null;
    base = 0;
    restartCount = 0;
    groupsEnd = 0;
    baseKeyAt = 0;
    baseKeyLen = 0;
    nextGeneration();
  }

  /** A new stamp for the groups of a new block ({@link #generation}). */
  private void nextGeneration() {
    if (++generation == Integer.MAX_VALUE) {
      // no group may pass for open with a stamp of an earlier block
      Arrays.fill(groups, 0);
      generation = 1;
    }
  }

  /**
   * Reads and checks where group {@code k} of the current block lies, unless done already: its
   * restart offset and the next ({@link #restartAt}), and from its end where its key entries lie
   * ({@link #keysAt}, {@link #keysEnd}). Every read of a group goes through a restart entry (the
   * seeker's restart decode, the binary search's probes, entry 0), which opens it.
   */
  final void openGroup(int k) {
    int g = GROUP_INTS * k;
    if (groups[g + 3] == generation) {
      return;
    }
    int from = restartOffset(k);
    int to = k + 1 < restartCount ? restartOffset(k + 1) : groupsEnd;
    int groupsStart = baseKeyAt + baseKeyLen;
    if ((k == 0 ? from != groupsStart : from <= groupsStart) || to > groupsEnd) {
      throw CorruptBlockException.raise(
          "restart "
              + k
              + " at "
              + from
              + " (groups from "
              + groupsStart
              + " to "
              + groupsEnd
              + ")");
    }
    if (to - from < 3) {
      throw CorruptBlockException.raise("group " + k + " of " + (to - from) + " bytes");
    }
    groups[g] = from;
    long keys =
        groupKeys(
            k,
            from,
            to,
            uint16(buf, base + to - 2),
            to - from >= 4 ? uint16(buf, base + to - 4) : -1);
    groups[g + 1] = (int) (keys >>> 32);
    groups[g + 2] = (int) keys;
    groups[g + 3] = generation;
  }

  /** Where group {@code k} (opened) starts: its values. */
  final int restartAt(int k) {
    return groups[GROUP_INTS * k];
  }

  /** Where the key entries of group {@code k} (opened) start: its restart entry. */
  final int keysAt(int k) {
    return groups[GROUP_INTS * k + 1];
  }

  /** Where the key entries of group {@code k} (opened) end. */
  final int keysEnd(int k) {
    return groups[GROUP_INTS * k + 2];
  }

  /** Restart offset {@code i} as the trailer holds it. */
  private int restartOffset(int i) {
    int at = base + groupsEnd + restartWidth * i;
    return restartWidth == 4 ? int32(buf, at) : uint16(buf, at);
  }

  /**
   * The first key of an encoded block, without moving the block's position: a copy of its base key,
   * read as the seeker reads it. HBase asks for it on every seekBefore ({@code
   * HFileReaderImpl.HFileScannerImpl.seekBefore}) and keeps it as the scanner's next indexed key,
   * possibly past the release of the block's buffer, so it is copied rather than viewed.
   */
  static ExtendedCell firstKey(ByteBuff block) {
    int n = block.remaining();
    int at = block.position();
    if (n < 4) {
      throw CorruptBlockException.raise("block of " + n + " bytes is too short");
    }
    int raw =
        ((block.get(at + n - 4) & 0xff) << 24)
            | ((block.get(at + n - 3) & 0xff) << 16)
            | ((block.get(at + n - 2) & 0xff) << 8)
            | (block.get(at + n - 1) & 0xff);
    checkTrailer(n, raw);
    int entries = groupsEnd(n, raw);
    // the base key's length: a vint of at most 5 bytes, before the groups' end
    byte[] head = new byte[Math.min(entries, 5)];
    block.get(at, head, 0, head.length);
    EntryParser reader = new EntryParser(false, false);
    int len = reader.baseKeyLength(head, 0, entries);
    byte[] k = new byte[len];
    block.get(at + reader.readEnd, k, 0, len);
    checkBaseKey(k, 0, len);
    return new KeyValue.KeyOnlyKeyValue(k, 0, len);
  }
}
