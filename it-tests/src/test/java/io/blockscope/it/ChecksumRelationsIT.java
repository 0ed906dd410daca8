package io.blockscope.it;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.fs.HFileSystem;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.junit.Test;

/**
 * Relationship 8 of docs/relationships.md, seed 001: "On read, by default HDFS checksum
 * verification is turned off, and HBase itself verifies data integrity", and "we fall back to them
 * [HDFS checksums] when HBase verification fails for any reason".
 */
public class ChecksumRelationsIT extends ClusterTestBase {
  /**
   * The data blocks of an HFile, walked through their headers from the file's start: the ground
   * truth for bytes read and checksum chunks, read by neither HBase's reader nor blockscope.
   */
  private static List<StoreFiles.Block> dataBlocks(Path file) throws Exception {
    return StoreFiles.blocks(file.getFileSystem(cluster.conf()), file).stream()
        .filter(StoreFiles.Block::isData)
        .toList();
  }

  /** A scan of every cell: the cell count and a CRC of every row, qualifier and value. */
  private static long[] scanDigest(TableName t) throws Exception {
    CRC32 crc = new CRC32();
    long cells = 0;
    try (Table table = cluster.connection().getTable(t);
        ResultScanner rs = table.getScanner(new Scan())) {
      for (Result r : rs) {
        for (Cell c : r.rawCells()) {
          crc.update(CellUtil.cloneRow(c));
          crc.update(CellUtil.cloneQualifier(c));
          crc.update(CellUtil.cloneValue(c));
          cells++;
        }
      }
    }
    return new long[] {cells, crc.getValue()};
  }

  private static CostSnapshot coldScan(TableName t, long[] expected) throws Exception {
    StoreFiles.evict(cluster.blockCache(), cluster.regions(t));
    CostSnapshot before = tableCosts(t);
    assertArrayEquals("the scan returned the table's cells", expected, scanDigest(t));
    return tableCosts(t).minus(before);
  }

  @Test
  public void hbaseVerifiesEveryByteItReadsAndNoneWhenVerificationIsOff() throws Exception {
    TableName t = TableName.valueOf(SeedTables.freshCopy(cluster, "NONE", "CRCREL_ON"));
    long[] digest = scanDigest(t);
    assertEquals(SeedTables.CELLS, digest[0]);
    CostSnapshot on = coldScan(t, digest);
    List<StoreFiles.Block> blocks = dataBlocks(onlyStoreFile(cluster.regions(t)));
    System.out.println("cold scan, " + blocks.size() + " data blocks in the file: " + on.nonZero());
    assertEquals(blocks.size(), on.get("fs.read.blocks.data"));
    assertEquals(
        "a full scan reads nothing but the data blocks",
        on.get("fs.read.blocks.data"),
        on.sumKinds("fs.read.blocks"));
    long bytesRead = blocks.stream().mapToLong(StoreFiles.Block::onDiskSize).sum();
    assertEquals("the data blocks' on-disk bytes", bytesRead, on.sumKinds("fs.read.bytes"));
    assertEquals("every byte read is verified", bytesRead, on.get("checksum.bytes"));
    assertEquals(
        "one chunk per bytesPerChecksum of each block's data and header",
        blocks.stream().mapToLong(StoreFiles.Block::chunks).sum(),
        on.get("checksum.chunks"));
    assertEquals(0, on.get("checksum.failures"));

    // hbase.regionserver.checksum.verify=false reaches readers as HFileSystem.useHBaseChecksum,
    // fixed when the region server starts; flip that field and reopen the table's readers.
    HFileSystem fs = (HFileSystem) cluster.regionServer().getFileSystem();
    Field verify = HFileSystem.class.getDeclaredField("useHBaseChecksum");
    verify.setAccessible(true);
    verify.setBoolean(fs, false);
    try {
      reopen(t);
      CostSnapshot off = coldScan(t, digest);
      assertEquals("the same data blocks read", blocks.size(), off.get("fs.read.blocks.data"));
      assertEquals("and nothing else", blocks.size(), off.sumKinds("fs.read.blocks"));
      assertEquals("the data blocks' on-disk bytes", bytesRead, off.sumKinds("fs.read.bytes"));
      assertEquals(0, off.get("checksum.bytes"));
      assertEquals(0, off.get("checksum.chunks"));
    } finally {
      verify.setBoolean(fs, true);
      reopen(t);
    }
  }

  /**
   * A data block whose HBase checksum does not match (its stored checksum is altered, its data and
   * the HDFS checksums are intact): the mismatch is detected and counted, HBase rereads the block
   * with HDFS verification ({@code HFileBlock.FSReaderImpl.readBlockData}, which also leaves the
   * next three reads of that stream to HDFS), and the scan returns exactly the table's cells.
   */
  @Test
  public void aBlockFailingItsHBaseChecksumIsCountedAndServedCorrectlyThroughHdfs()
      throws Exception {
    TableName t = TableName.valueOf(SeedTables.freshCopy(cluster, "NONE", "CRCREL_BAD"));
    long[] digest = scanDigest(t);
    StoreFiles.evict(cluster.blockCache(), cluster.regions(t));
    Path file = onlyStoreFile(cluster.regions(t));
    cluster.admin().disableTable(t);
    corruptFirstBlockChecksum(file);
    cluster.admin().enableTable(t);

    CostSnapshot first = coldScan(t, digest);
    System.out.println("cold scan with one bad block checksum: " + first.nonZero());
    assertEquals("the bad block was detected once", 1, first.get("checksum.failures"));
    List<StoreFiles.Block> blocks = dataBlocks(file);
    long bytesRead = blocks.stream().mapToLong(StoreFiles.Block::onDiskSize).sum();
    assertEquals(bytesRead, first.sumKinds("fs.read.bytes"));
    // HBase verified the bad block (and failed), reread it with HDFS checksums, and left the next
    // reads of that stream to HDFS: the bytes not verified are those of the blocks right after
    // the first, up to four of them (FSDataInputStreamWrapper.checksumOk counts down from
    // HFileBlock's CHECKSUM_VERIFICATION_NUM_IO_THRESHOLD = 3), fewer when the scan moves to its
    // own stream before that (hbase.storescanner.pread.max.bytes)
    long unverified = bytesRead - first.get("checksum.bytes");
    int following = unverifiedBlocksAfterTheFirst(blocks, unverified);
    System.out.println(
        "cold scan with one bad block checksum: "
            + following
            + " blocks after it left to HDFS; "
            + first.nonZero());
    assertTrue(
        "the bytes not verified are 1 to 4 whole blocks after the bad one: " + unverified,
        following >= 1 && following <= 4);
    // A second cold read: whether its stream verifies the bad block again depends on that
    // stream's countdown; its answer is right either way, and it fails at most once.
    CostSnapshot again = coldScan(t, digest);
    System.out.println("second cold scan: " + again.nonZero());
    assertTrue(again.get("checksum.failures") <= 1);
  }

  private static Path onlyStoreFile(List<HRegion> regions) {
    List<Path> files = new ArrayList<>();
    for (HRegion r : regions) {
      for (HStore s : r.getStores()) {
        for (HStoreFile f : s.getStorefiles()) {
          files.add(f.getPath());
        }
      }
    }
    assertEquals(files.toString(), 1, files.size());
    return files.get(0);
  }

  /**
   * How many data blocks right after the first one hold exactly {@code bytes} bytes together; -1
   * when no run of whole blocks does.
   */
  private static int unverifiedBlocksAfterTheFirst(List<StoreFiles.Block> blocks, long bytes) {
    long sum = 0;
    for (int k = 1; k < blocks.size() && sum < bytes; k++) {
      sum += blocks.get(k).onDiskSize();
      if (sum == bytes) {
        return k;
      }
    }
    return bytes == 0 ? 0 : -1;
  }

  /** Rewrites the file with one byte of its first block's stored checksum flipped. */
  private static void corruptFirstBlockChecksum(Path file) throws Exception {
    FileSystem fs = file.getFileSystem(cluster.conf());
    byte[] bytes = StoreFiles.bytes(fs, file);
    StoreFiles.Block first = StoreFiles.blocks(bytes).get(0);
    assertEquals("DATABLK*", first.magic());
    int dataEnd = (int) first.offset() + first.onDiskDataSizeWithHeader();
    int blockEnd = (int) first.offset() + first.onDiskSize();
    assertTrue(
        "checksums follow the data",
        dataEnd > first.offset() + StoreFiles.Block.HEADER_SIZE && dataEnd < blockEnd);
    bytes[dataEnd] ^= 0x5a;
    fs.delete(file, false);
    try (FSDataOutputStream out = fs.create(file, false)) {
      out.write(bytes); // HDFS computes its own checksums over the altered bytes
    }
  }

  private static void reopen(TableName t) throws Exception {
    cluster.admin().disableTable(t);
    cluster.admin().enableTable(t);
  }
}
