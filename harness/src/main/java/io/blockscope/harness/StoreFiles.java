package io.blockscope.harness;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
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
   * One block of an HFile as its own header says (HFile version 3's block header with checksums):
   * read from the file's bytes, by neither HBase's reader nor blockscope.
   *
   * @param magic the block's 8-byte magic: {@code DATABLK*} a data block, {@code IDXLEAF2} a leaf
   *     index block, {@code IDXINTE2} an intermediate one, {@code BLMFBLK2} a bloom chunk
   */
  public record Block(
      String magic,
      long offset,
      int onDiskSize,
      int uncompressedSizeWithoutHeader,
      int onDiskDataSizeWithHeader,
      int bytesPerChecksum) {
    /** A block header's size, with the checksum fields. */
    public static final int HEADER_SIZE = 33;

    public boolean isData() {
      return magic.startsWith("DATABLK");
    }

    /** Checksum chunks: one per {@code bytesPerChecksum} of the header and the on-disk data. */
    public long chunks() {
      return bytesPerChecksum <= 0
          ? 0
          : (onDiskDataSizeWithHeader + (long) bytesPerChecksum - 1) / bytesPerChecksum;
    }

    /** What a compressed block's codec takes in: the on-disk data, less header and checksums. */
    public int compressedSize() {
      return onDiskDataSizeWithHeader - HEADER_SIZE;
    }
  }

  /** The magics of blocks with a header, in the order of HFile's sections, up to its trailer. */
  private static final Set<String> BLOCK_MAGICS =
      Set.of(
          "DATABLK*",
          "DATABLKE",
          "IDXLEAF2",
          "BLMFBLK2",
          "METABLKc",
          "IDXINTE2",
          "IDXROOT2",
          "FILEINF2",
          "BLMFMET2");

  /**
   * Every block of an HFile's scanned section and load-on-open section that carries a block header,
   * walked header to header from the file's start until the first bytes that are not one.
   */
  public static List<Block> blocks(FileSystem fs, Path file) throws IOException {
    return blocks(bytes(fs, file));
  }

  /** A file's bytes, whole. */
  public static byte[] bytes(FileSystem fs, Path file) throws IOException {
    try (FSDataInputStream in = fs.open(file)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  /** The blocks of an HFile's bytes (see {@link #blocks(FileSystem, Path)}). */
  public static List<Block> blocks(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    List<Block> blocks = new ArrayList<>();
    int at = 0;
    while (at + Block.HEADER_SIZE <= bytes.length) {
      String magic = new String(bytes, at, 8, StandardCharsets.US_ASCII);
      if (!BLOCK_MAGICS.contains(magic)) {
        break;
      }
      int onDisk = Block.HEADER_SIZE + b.getInt(at + 8);
      blocks.add(
          new Block(magic, at, onDisk, b.getInt(at + 12), b.getInt(at + 29), b.getInt(at + 25)));
      at += onDisk;
    }
    return blocks;
  }

  /**
   * Every block of every store file of a table's regions (see {@link #blocks(FileSystem, Path)}).
   */
  public static List<Block> blocks(List<HRegion> regions) throws IOException {
    List<Block> all = new ArrayList<>();
    for (HRegion r : regions) {
      FileSystem fs = r.getRegionFileSystem().getFileSystem();
      for (HStore s : r.getStores()) {
        for (HStoreFile f : s.getStorefiles()) {
          all.addAll(blocks(fs, f.getPath()));
        }
      }
    }
    return all;
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
