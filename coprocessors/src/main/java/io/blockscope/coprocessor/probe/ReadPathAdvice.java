package io.blockscope.coprocessor.probe;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import net.bytebuddy.asm.Advice;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.io.hfile.LruCachedBlock;
import org.apache.hadoop.hbase.nio.ByteBuff;

/**
 * The advice each probe inlines into HBase. Every body is one call into {@link ProbeBridge}, which
 * does the work and catches its own failures; {@code suppress = Throwable.class} is the second
 * guard, so that not even a linkage error can escape into HBase.
 *
 * <p>Each class names the HBase method it is woven into; {@link ProbeChecks} checks that the method
 * exists with that signature before installing, and reports the probe unavailable if not.
 */
final class ReadPathAdvice {
  private ReadPathAdvice() {}

  /** The blockscope encoding index of the seeker class an advice is woven into. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.PARAMETER)
  @interface EncodingIndex {}

  /**
   * {@code HFileReaderImpl.getCachedBlock(BlockCacheKey, boolean cacheBlock, boolean useLock,
   * boolean updateCacheMetrics, BlockType, DataBlockEncoding)}: one block cache lookup.
   */
  static final class CacheLookup {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
        @Advice.Argument(2) boolean useLock,
        @Advice.Argument(3) boolean updateCacheMetrics,
        @Advice.Argument(4) BlockType expected,
        @Advice.Return HFileBlock found) {
      ProbeBridge.cacheLookup(found, useLock, updateCacheMetrics, expected);
    }
  }

  /**
   * {@code HFileReaderImpl.readBlock(long, long, boolean, boolean, boolean, boolean, BlockType,
   * DataBlockEncoding, boolean cacheOnly)}: settles a miss whose block type was unknown.
   */
  static final class ReadBlock {
    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.Argument(6) BlockType expected, @Advice.Return HFileBlock block) {
      ProbeBridge.readBlockDone(block, expected);
    }
  }

  /**
   * {@code HFileBlock.FSReaderImpl.readBlockData(long offset, long onDiskSizeWithHeader, boolean
   * pread, boolean updateMetrics, boolean intoHeap)}: one block read from the file system.
   */
  static final class FsRead {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.Return HFileBlock block) {
      ProbeBridge.fsRead(block);
    }
  }

  /**
   * {@code ChecksumUtil.validateChecksum(ByteBuff, String, long, int)}: verification of the inline
   * checksums of one on-disk block.
   */
  static final class Checksum {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {
      return ProbeBridge.start();
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
        @Advice.Enter long start, @Advice.Argument(0) ByteBuff block, @Advice.Return boolean ok) {
      ProbeBridge.checksum(block, ok, start);
    }
  }

  /**
   * {@code HFileBlockDefaultDecodingContext.prepareDecoding(int onDiskSizeWithoutHeader, int
   * uncompressedSizeWithoutHeader, ByteBuff, ByteBuff)}: decompression of one block.
   */
  static final class Decompress {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {
      return ProbeBridge.start();
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
        @Advice.Enter long start,
        @Advice.FieldValue("fileContext") HFileContext context,
        @Advice.Argument(0) int bytesIn,
        @Advice.Argument(1) int bytesOut) {
      ProbeBridge.decompressed(context, bytesIn, bytesOut, start);
    }
  }

  /**
   * {@code decodeNext()} of every {@code DataBlockEncoder.EncodedSeeker}
   * (BufferedDataBlockEncoder's seekers, RowIndexSeekerV1), and {@code decodeFirst()} of the
   * seekers whose decodeFirst does not call decodeNext: one cell decoded, and at TIME one in {@link
   * ProbeBridge#CELL_SAMPLE} of them timed. The encoding is a constant bound per seeker class when
   * the advice is woven ({@link EncodingIndex}): the reader's HFileContext says NONE whatever the
   * file's encoding, so it cannot be asked.
   */
  static final class DecodeCell {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter(@EncodingIndex int encoding) {
      return ProbeBridge.cell(encoding);
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@EncodingIndex int encoding, @Advice.Enter long start) {
      if (start != 0) {
        ProbeBridge.cellTimed(encoding, start);
      }
    }
  }

  /**
   * {@code rewind()} and {@code setCurrentBuffer(ByteBuff)} of the seekers: a block start, at TIME
   * one in {@link ProbeBridge#SEEK_SAMPLE} of them timed with the cells it decodes.
   */
  static final class SeekerCall {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {
      return ProbeBridge.seekerStart();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.Enter long start, @Advice.This Object seeker) {
      ProbeBridge.seekerCall(seeker, false, start);
    }
  }

  /**
   * {@code seekToKeyInBlock(Cell, boolean)} of the seekers: one seek, and at TIME one in {@link
   * ProbeBridge#SEEK_SAMPLE} of them timed with the cells it decodes.
   */
  static final class SeekerSeek {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {
      return ProbeBridge.seekerStart();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.Enter long start, @Advice.This Object seeker) {
      ProbeBridge.seekerCall(seeker, true, start);
    }
  }

  /**
   * {@code org.apache.hadoop.hbase.regionserver.SegmentScanner.updateCurrent()}: a memstore
   * segment's scanner moved to its next visible cell (from its constructor, {@code next}, {@code
   * seek}, {@code reseek} and the backward seeks), which is then its {@code current} field (a
   * {@code Cell} up to HBase 2.6, an {@code ExtendedCell} from 3.0; null past the segment's end).
   */
  static final class MemstoreCell {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.FieldValue("current") Cell current) {
      ProbeBridge.memstoreCell(current);
    }
  }

  /**
   * One RPC call served on this thread: {@code org.apache.hadoop.hbase.ipc.CallRunner.run()} on a
   * handler thread, or the region server's short-circuit connection calling its own RPC services on
   * the caller's thread ({@code ServerConnectionUtils.ShortCircuitingClusterConnection
   * .ClientServiceBlockingInterfaceWrapper.doCall}). Frames the call opened and left open are
   * closed when it ends; frames open before it (the caller's own read) stay.
   */
  static final class CallEnd {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {
      return ProbeBridge.callStarted();
    }

    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.Enter long depthAtStart) {
      ProbeBridge.callEnded(depthAtStart);
    }
  }

  /**
   * The constructors {@code HFileReaderImpl(ReaderContext, HFileInfo, CacheConfig, Configuration)}
   * (every reader: pread, stream, prefetch's) and {@code HFileWriterImpl(Configuration,
   * CacheConfig, Path, FSDataOutputStream, HFileContext)} (cache-on-write in flushes and
   * compactions): the file's blocks are cached under its {@code name}, and its {@code path} tells
   * the table.
   */
  static final class FileOpened {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
        @Advice.FieldValue("name") String name, @Advice.FieldValue("path") Object path) {
      ProbeBridge.hfileOpened(name, path);
    }
  }

  /**
   * The constructor {@code LruCachedBlock(BlockCacheKey, Cacheable, long accessTime, boolean
   * inMemory)}: a block became resident in an LRU block cache (the 3-argument one delegates here).
   */
  static final class CacheInsert {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.Argument(0) BlockCacheKey key, @Advice.Argument(1) Cacheable block) {
      ProbeBridge.cacheInserted(key, block);
    }
  }

  /**
   * {@code LruBlockCache.evictBlock(LruCachedBlock, boolean evictedByEvictionProcess)} (and
   * LruAdaptiveBlockCache's): every removal of a block by the cache's own logic; it returns the
   * bytes freed, 0 when the block was gone already.
   */
  static final class CacheEvict {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
        @Advice.Argument(0) LruCachedBlock block,
        @Advice.Argument(1) boolean capacity,
        @Advice.Return long freed) {
      ProbeBridge.cacheEvicted(block, capacity, freed);
    }
  }

  /**
   * {@code BucketCache.putIntoBackingMap(BlockCacheKey, BucketEntry)}: a block the cache's writer
   * wrote into a bucket became resident (the only place entries are added). On entry, before a
   * lookup can find it, its slot is marked as holding an entry with no hit yet.
   */
  static final class BucketInsert {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object cache, @Advice.Argument(1) Object entry) {
      ProbeBridge.bucketInserting(cache, entry);
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.Argument(0) BlockCacheKey key) {
      ProbeBridge.bucketInserted(key);
    }
  }

  /**
   * {@code BucketCache.blockEvicted(BlockCacheKey, BucketEntry, boolean decrementBlockNumber,
   * boolean evictedByEvictionProcess)}: an entry left the bucket cache, to make room or not. On
   * entry, before {@code markAsEvicted} can free its slot for another entry, whether a lookup found
   * it since its insert is read and its slot cleared.
   */
  static final class BucketEvict {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static int enter(@Advice.This Object cache, @Advice.Argument(1) Object entry) {
      return ProbeBridge.bucketLeaving(cache, entry);
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
        @Advice.Argument(0) BlockCacheKey key,
        @Advice.Argument(3) boolean capacity,
        @Advice.Enter int reads) {
      ProbeBridge.bucketEvicted(key, capacity, reads);
    }
  }

  /**
   * {@code BucketEntry.access(long)}: {@code BucketCache.getBlock} found this entry, and read its
   * block, under the lock of the entry's offset; the entry is handed to the lookup's end ({@link
   * BucketLookup}), which knows the cache.
   */
  static final class BucketEntryAccess {
    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object entry) {
      ProbeBridge.bucketEntryAccessed(entry);
    }
  }

  /**
   * {@code BucketCache.getBlock(BlockCacheKey, boolean caching, boolean repeat, boolean
   * updateCacheMetrics)} ended: the entry it found, if any, had a hit.
   */
  static final class BucketLookup {
    @Advice.OnMethodExit(suppress = Throwable.class, onThrowable = Throwable.class)
    static void exit(@Advice.This Object cache) {
      ProbeBridge.bucketLookedUp(cache);
    }
  }
}
