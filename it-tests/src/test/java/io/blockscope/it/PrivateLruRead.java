package io.blockscope.it;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileScanner;
import org.apache.hadoop.hbase.io.hfile.LruBlockCache;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;

/**
 * HBase's own HFile reader reading one store file through an LRU block cache of its own that holds
 * a fraction of the file's data blocks, made without an eviction thread, so that the cache evicts
 * on the inserting thread and every figure is settled when a read returns. The shared cluster's
 * region server caches more than any table of the suite, so this is how a test makes a table's
 * blocks be evicted to make room, in this JVM, where blockscope's cache probes count them.
 */
final class PrivateLruRead implements AutoCloseable {
  final LruBlockCache cache;
  final HFile.Reader reader;

  /** The file's data blocks. */
  final long blocks;

  private final Configuration conf;

  private PrivateLruRead(
      LruBlockCache cache, HFile.Reader reader, long blocks, Configuration conf) {
    this.cache = cache;
    this.reader = reader;
    this.blocks = blocks;
    this.conf = conf;
  }

  /** A reader of {@code file} through a cache sized for {@code 1/share} of its data blocks. */
  static PrivateLruRead of(Path file, Configuration conf, int share) throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    // the heap a resident block takes, measured on a cache large enough for the whole file
    LruBlockCache roomy = new LruBlockCache(256L << 20, 4096, false, conf);
    long empty = roomy.getCurrentSize();
    long blocks;
    try (HFile.Reader reader =
        HFile.createReader(fs, file, new CacheConfig(conf, roomy), true, conf)) {
      scan(reader, conf, Long.MAX_VALUE);
      blocks = roomy.getDataBlockCount();
    }
    long perBlock = (roomy.getCurrentSize() - empty) / Math.max(blocks, 1);
    shutdown(roomy);
    // a cache's fixed overhead grows with its size: sized again once its own overhead is known
    long room = perBlock * blocks / share;
    LruBlockCache sizing = new LruBlockCache(room, 4096, false, conf);
    long overhead = sizing.getCurrentSize();
    shutdown(sizing);
    LruBlockCache cache = new LruBlockCache(overhead + room, 4096, false, conf);
    return new PrivateLruRead(
        cache,
        HFile.createReader(fs, file, new CacheConfig(conf, cache), true, conf),
        blocks,
        conf);
  }

  /** The store file with the most bytes of {@code regions}. */
  static Path largestStoreFile(List<HRegion> regions) {
    HStoreFile largest = null;
    for (HRegion r : regions) {
      for (HStore s : r.getStores()) {
        for (HStoreFile f : s.getStorefiles()) {
          if (largest == null || f.getReader().length() > largest.getReader().length()) {
            largest = f;
          }
        }
      }
    }
    if (largest == null) {
      throw new IllegalStateException("no store file in " + regions);
    }
    return largest.getPath();
  }

  /**
   * Reads the largest store file of {@code regions} once through a cache of a quarter of it, and
   * takes its blocks out of that cache: the table's blocks inserted, evicted unread and removed.
   */
  static void evictUnread(List<HRegion> regions, Configuration conf) throws IOException {
    Path file = largestStoreFile(regions);
    try (PrivateLruRead read = of(file, conf, 4)) {
      read.scan(Long.MAX_VALUE);
      read.cache.evictBlocksByHfileName(file.getName());
    }
  }

  /** Reads the file's cells in order, with caching, {@code cells} at most. */
  void scan(long cells) throws IOException {
    scan(reader, conf, cells);
  }

  private static void scan(HFile.Reader reader, Configuration conf, long cells) throws IOException {
    HFileScanner s = reader.getScanner(conf, true, true);
    long read = 0;
    if (s.seekTo()) {
      do {
        read++;
      } while (read < cells && s.next());
    }
    s.close();
  }

  @Override
  public void close() throws IOException {
    try {
      reader.close();
    } finally {
      shutdown(cache);
    }
  }

  /**
   * Stops a cache's statistics thread. A cache made without an eviction thread then throws on the
   * one it lacks ({@code LruBlockCache.shutdown} calls {@code evictionThread.shutdown()} unchecked,
   * HBase 2.5 and 2.6), after the statistics thread is stopped.
   */
  private static void shutdown(LruBlockCache cache) {
    try {
      cache.shutdown();
    } catch (NullPointerException noEvictionThread) {
      // the statistics thread is stopped; there is nothing else to stop
    }
  }
}
