package io.blockscope.benchmarks;

import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.workloads.RawTable;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.io.hfile.LruBlockCache;
import org.apache.hadoop.hbase.util.Bytes;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the cacheReuse probe adds to a block entering and leaving HBase's LRU block cache: {@code
 * insertAndEvict} caches a data block of a real HFile (HBase's writer and reader, 64 KB blocks)
 * under a new key in an LRU cache of 256 such blocks made without an eviction thread, so that in
 * the steady state each call inserts one block and the cache evicts one on the calling thread. The
 * file lies under a table's directory, so its name maps to a table as a store file's does. The
 * probe counts at every level, so {@code NOT_INSTALLED} against {@code COUNT} is its cost per
 * insert and eviction.
 *
 * <p>Run: {@code bin/blockscope jmh CacheReuseBenchmark -p mode=NOT_INSTALLED,COUNT}.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CacheReuseBenchmark extends ProbeModeBenchmark {
  private LruBlockCache cache;
  private HFileBlock block;
  private String name;
  private long next;
  private long countedAtStart;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    applyMode(); // first: the reader opened below is then one the probe sees
    java.nio.file.Path dir = Files.createTempDirectory("blockscope-cache-reuse");
    Configuration conf = new Configuration(false);
    FileSystem fs = FileSystem.getLocal(conf);
    Path file =
        new Path(
            dir.toUri().toString(), "data/default/bench/0123456789abcdef0123456789abcdef/f/file");
    HFileContext context = new HFileContextBuilder().withIncludesTags(false).build();
    Random r = new Random(1);
    try (HFile.Writer w =
        HFile.getWriterFactory(conf, CacheConfig.DISABLED)
            .withPath(fs, file)
            .withFileContext(context)
            .create()) {
      for (int pk = 0; pk < 20_000; pk++) {
        w.append(
            new KeyValue(
                RawTable.seedRow(pk),
                RawTable.SEED_FAMILY,
                RawTable.SEED_V1,
                1L,
                KeyValue.Type.Put,
                Bytes.toBytes(r.nextFloat())));
      }
    }
    try (HFile.Reader reader = HFile.createReader(fs, file, CacheConfig.DISABLED, true, conf)) {
      block = reader.readBlock(0, -1, false, true, false, false, null, null);
      name = reader.getName();
    }
    LruBlockCache sizing = new LruBlockCache(1L << 20, block.getOnDiskSizeWithHeader(), false);
    long overhead = sizing.getCurrentSize();
    cache =
        new LruBlockCache(
            overhead + 256L * (block.heapSize() + 256), block.getOnDiskSizeWithHeader(), false);
    countedAtStart = counted();
  }

  /** Every count of the probe, all tables and counters together. */
  private static long counted() {
    long n = 0;
    for (int i = 0; i < ProbeBridge.CACHE_REUSE_COUNTS.length(); i++) {
      n += ProbeBridge.CACHE_REUSE_COUNTS.get(i);
    }
    return n;
  }

  /** A probe that is installed and counted nothing measured nothing: fail the run instead. */
  @TearDown(Level.Trial)
  public void checkTheProbeCounted() {
    if (!mode.equals("NOT_INSTALLED") && counted() == countedAtStart) {
      throw new IllegalStateException("the cacheReuse probe counted nothing at " + mode);
    }
    if (cache.getStats().getEvictedCount() == 0) {
      throw new IllegalStateException("the cache evicted nothing: the benchmark measured inserts");
    }
  }

  /** One block cached under a new key; about one evicted to make room. */
  @Benchmark
  public long insertAndEvict() {
    cache.cacheBlock(new BlockCacheKey(name, next++ << 16), block);
    return cache.getBlockCount();
  }
}
