package io.blockscope.metrics;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * What blockscope counts of blocks entering and leaving the block cache, by table and block kind:
 * the counters' slots and their series names ({@code blockCache.inserted.data}, ...).
 *
 * <p>A table's counters are {@link #WIDTH} slots, kind by kind ({@link CostLayout#KINDS}), each
 * kind {@link #N_COUNTERS} counters. The slot numbers are compile-time constants, for the same
 * reason as {@link CostLayout}'s: the read-path bridge that counts them carries them inlined.
 */
public final class CacheReuse {
  private CacheReuse() {}

  /**
   * Blocks that became resident in the block cache (LruBlockCache, LruAdaptiveBlockCache,
   * BucketCache).
   */
  public static final int INSERTED = 0;

  /**
   * Blocks the cache evicted to make room (what HBase's {@code blockCacheEvictionCount} counts).
   */
  public static final int EVICTED = 1;

  /** Of those, blocks no cache lookup found between their insert and their eviction. */
  public static final int EVICTED_UNREAD = 2;

  /**
   * Of those, blocks whose hits are not known, counted neither read nor unread: the LRU cache's
   * in-memory blocks ({@code IN_MEMORY} families, {@code hbase:meta}), whose priority a hit does
   * not change, and BucketCache entries resident before blockscope counted or beyond its tracked
   * slots.
   */
  public static final int EVICTED_HIT_UNKNOWN = 3;

  /**
   * Blocks taken out because their file went (compacted away, region closed with evict-on-close,
   * {@code clear_block_cache}), not to make room.
   */
  public static final int REMOVED = 4;

  public static final int N_COUNTERS = 5;

  /** The counters' names, in slot order. */
  public static final List<String> COUNTERS =
      Collections.unmodifiableList(
          Arrays.asList("inserted", "evicted", "evictedUnread", "evictedHitUnknown", "removed"));

  /** Slots per table. */
  public static final int WIDTH = CostLayout.N_KINDS * N_COUNTERS;

  /** The slot of {@code counter} for block kind {@code kind}. */
  public static int slot(int kind, int counter) {
    return kind * N_COUNTERS + counter;
  }

  /** The slot of a series name, or -1 for a name that is not one of these. */
  public static int slotOf(String name) {
    for (int i = 0; i < WIDTH; i++) {
      if (name(i).equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /** A slot's series name: {@code blockCache.<counter>.<kind>}. */
  public static String name(int slot) {
    return "blockCache."
        + COUNTERS.get(slot % N_COUNTERS)
        + "."
        + CostLayout.KINDS.get(slot / N_COUNTERS);
  }
}
