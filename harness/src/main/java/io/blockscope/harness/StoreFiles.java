package io.blockscope.harness;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.apache.hadoop.hbase.io.hfile.FixedFileTrailer;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;

/** A table's store files on a region server of this JVM, and their blocks in its block cache. */
public final class StoreFiles {
  private StoreFiles() {}

  /** The names of the store files of a table's regions. */
  public static List<String> names(List<HRegion> regions) {
    List<String> names = new ArrayList<>();
    for (HRegion region : regions) {
      for (HStore store : region.getStores()) {
        for (HStoreFile f : store.getStorefiles()) {
          names.add(f.getPath().getName());
        }
      }
    }
    return names;
  }

  /** Evicts every cached block of a table: the next read of it is cold. */
  public static void evict(BlockCache cache, List<HRegion> regions) {
    for (String file : names(regions)) {
      cache.evictBlocksByHfileName(file);
    }
  }

  /** How many data blocks of a table's store files the block cache holds now. */
  public static long cachedDataBlocks(BlockCache cache, List<HRegion> regions) {
    List<String> files = names(regions);
    long n = 0;
    for (CachedBlock b : cache) {
      if (files.contains(b.getFilename()) && b.getBlockType().isData()) {
        n++;
      }
    }
    return n;
  }

  /**
   * The data blocks and cells of a table's store files, read from their trailers: {@code {blocks,
   * cells}}. A file with a multi-level block index is refused: its trailer counts root entries, not
   * data blocks.
   */
  public static long[] trailerDataBlocksAndCells(List<HRegion> regions) {
    long blocks = 0;
    long cells = 0;
    for (HRegion r : regions) {
      for (HStore s : r.getStores()) {
        for (HStoreFile f : s.getStorefiles()) {
          FixedFileTrailer trailer = f.getReader().getHFileReader().getTrailer();
          if (trailer.getNumDataIndexLevels() != 1) {
            throw new IllegalStateException(
                f.getPath() + " has a multi-level index: its root entries are not its data blocks");
          }
          blocks += trailer.getDataIndexCount();
          cells += trailer.getEntryCount();
        }
      }
    }
    return new long[] {blocks, cells};
  }
}
