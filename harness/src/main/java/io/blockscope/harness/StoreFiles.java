package io.blockscope.harness;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
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
}
