package io.blockscope.encoding;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.CorruptHFileException;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * LevelDB's corruption_test on real store files: a BLOCKSCOPE_V1 store file written by HBase's
 * writer, damaged on disk, read by an {@link HRegion} on the local file system with HBase's block
 * checksums not verified ({@link StoreFiles#unchecked}), so that the damage reaches the decoder.
 * Scans, gets and compactions fail with an IOException whose causes name the CorruptBlockException;
 * what they return before failing is exactly what the file holds; the damage is confined to its
 * block; nothing hangs (every test has a timeout).
 */
public class CorruptStoreFileTest {
  private static final DataBlockEncoding ENCODING = BlockscopeEncoding.register();
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private static final int ROWS = 3000;
  private static final String FILE = "0123456789abcdef0123456789abcdef";

  /** One cell per row, 60-byte values: about 30 data blocks of 4 KB. */
  private static List<KeyValue> cells() {
    List<KeyValue> cells = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      byte[] value = new byte[60];
      Arrays.fill(value, (byte) i);
      KeyValue kv = new KeyValue(row(i), F, Q, 1_700_000_000_000L, value);
      kv.setSequenceId(1);
      cells.add(kv);
    }
    return cells;
  }

  private static byte[] row(int i) {
    return Bytes.toBytes(String.format("row-%05d", i));
  }

  /** A region of one family in BLOCKSCOPE_V1, holding one store file of {@link #cells}. */
  /** Each test's store files, deleted after it. */
  @Rule public final TemporaryFolder tmp = new TemporaryFolder();

  private static final class Fixture {
    final Configuration conf = StoreFiles.unchecked();
    final Path root;
    final FileSystem fs;
    final TableDescriptor table =
        TableDescriptorBuilder.newBuilder(TableName.valueOf("t"))
            .setColumnFamily(
                ColumnFamilyDescriptorBuilder.newBuilder(F)
                    .setDataBlockEncoding(ENCODING)
                    .setBlocksize(4096)
                    .build())
            .build();
    final RegionInfo info = RegionInfoBuilder.newBuilder(table.getTableName()).build();
    final Path file;

    Fixture(File dir) throws IOException {
      conf.setBoolean("hbase.hregion.memstore.mslab.enabled", false);
      root = new Path(dir.toURI().toString());
      CommonFSUtils.setRootDir(conf, root);
      fs = root.getFileSystem(conf);
      HRegion.createHRegion(info, root, conf, table, null).close();
      Path family =
          new Path(
              CommonFSUtils.getRegionDir(root, table.getTableName(), info.getEncodedName()), "f");
      file = StoreFiles.write(conf, new Path(family, FILE), cells(), ENCODING, false, 4096);
    }

    HRegion open() throws IOException {
      return HRegion.openHRegion(conf, fs, root, info, table, null);
    }

    /**
     * Data block {@code k} of the store file (read before it is damaged): its offset, its size with
     * the header, and the index of its first row.
     */
    long[] block(int k) throws IOException {
      try (HFile.Reader r = HFile.createReader(fs, file, new CacheConfig(conf), true, conf)) {
        long at = r.getTrailer().getFirstDataBlockOffset();
        for (int i = 0; ; i++) {
          HFileBlock b = r.readBlock(at, -1, false, true, false, false, null, null);
          assertTrue("a data block " + k, b.getBlockType().isData());
          if (i == k) {
            // the encoded bytes, as HFileReaderImpl.EncodedScanner.getEncodedBuffer cuts them
            ByteBuff buf = b.getBufferReadOnly();
            int from = b.headerSize() + DataBlockEncoding.ID_SIZE;
            buf.position(from);
            buf.limit(from + b.getUncompressedSizeWithoutHeader() - DataBlockEncoding.ID_SIZE);
            Cell first = ENCODING.getEncoder().getFirstKeyCellInBlock(buf.slice());
            int row = Integer.parseInt(Bytes.toString(CellUtil.cloneRow(first)).substring(4));
            return new long[] {at, b.headerSize() + b.getUncompressedSizeWithoutHeader(), row};
          }
          at += b.getOnDiskSizeWithHeader();
        }
      }
    }

    /** XORs {@code mask} into {@code n} bytes of the file from {@code at}. */
    void corrupt(long at, int n, int mask) throws IOException {
      try (RandomAccessFile f = new RandomAccessFile(new File(file.toUri()), "rw")) {
        byte[] b = new byte[n];
        f.seek(at);
        f.readFully(b);
        for (int i = 0; i < n; i++) {
          b[i] ^= (byte) mask;
        }
        f.seek(at);
        f.write(b);
      }
    }
  }

  /** Block 10 with its trailer's "grouped layout" bit flipped. */
  @Test(timeout = 120_000)
  public void aFlippedBitInABlockFailsScansAndGetsOfThatBlockOnly() throws Exception {
    Fixture x = new Fixture(tmp.newFolder("corrupt-store"));
    long[] b = x.block(10);
    x.corrupt(b[0] + b[1] - 4, 1, 0x40);
    checkDamage(x, 10, (int) b[2], "block without groups");
  }

  /** Block 20's last 64 bytes (restart offsets, trailer) zeroed, as by a torn write. */
  @Test(timeout = 120_000)
  public void aBlockWithItsIndexWipedFailsScansAndGetsOfThatBlockOnly() throws Exception {
    Fixture x = new Fixture(tmp.newFolder("corrupt-store"));
    long[] b = x.block(20);
    try (RandomAccessFile f = new RandomAccessFile(new File(x.file.toUri()), "rw")) {
      f.seek(b[0] + b[1] - 64);
      f.write(new byte[64]);
    }
    checkDamage(x, 20, (int) b[2], "block without groups");
  }

  private static void checkDamage(Fixture x, int k, int first, String what) throws Exception {
    HRegion region = x.open();
    try {
      // a scan returns the rows before the block, exactly, then fails
      List<Cell> got = new ArrayList<>();
      IOException scan = null;
      try (RegionScanner s = region.getScanner(new Scan())) {
        List<Cell> row = new ArrayList<>();
        boolean more;
        do {
          row.clear();
          more = s.next(row);
          got.addAll(row);
          assertTrue("rows past the damaged block: " + got.size(), got.size() <= first);
        } while (more);
      } catch (IOException e) {
        scan = e;
      }
      assertCorrupt("scan", scan, what);
      // the scanner reads one cell ahead: the last row before the block may not come out
      assertTrue(
          got.size() + " rows before block " + k + " at row " + first,
          got.size() == first || got.size() == first - 1);
      List<KeyValue> want = cells();
      for (int i = 0; i < got.size(); i++) {
        assertEquals("row " + i, 0, Blocks.compare(want.get(i), got.get(i)));
        assertTrue("row " + i, CellUtil.matchingValue(want.get(i), got.get(i)));
      }
      // a get in the block fails; gets elsewhere read
      IOException get = null;
      try {
        region.get(new Get(row(first + 1)));
      } catch (IOException e) {
        get = e;
      }
      assertCorrupt("get", get, what);
      for (int i : new int[] {0, first - 200, first + 1000, ROWS - 1}) {
        Result r = region.get(new Get(row(i)));
        assertArrayEquals("row " + i, CellUtil.cloneValue(want.get(i)), r.getValue(F, Q));
      }
      // a compaction fails, and keeps the file it could not read
      HStore store = region.getStore(F);
      IOException compaction = null;
      try {
        region.compact(true);
      } catch (IOException e) {
        compaction = e;
      }
      List<String> files = new ArrayList<>();
      for (HStoreFile f : store.getStorefiles()) {
        files.add(f.getPath().getName());
      }
      assertEquals(List.of(FILE), files);
      if (compaction != null) {
        assertCorrupt("compaction", compaction, what);
      } else {
        fail("the compaction of a corrupt file succeeded");
      }
    } finally {
      region.close();
    }
  }

  /**
   * {@code e} is an IOException whose causes hold a CorruptBlockException, a CorruptHFileException,
   * saying {@code what}.
   */
  private static void assertCorrupt(String where, IOException e, String what) {
    assertTrue(where + " did not fail", e != null);
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CorruptBlockException) {
        assertTrue(
            where + ": " + t, t instanceof CorruptHFileException && t.getMessage().contains(what));
        return;
      }
    }
    throw new AssertionError(where + " failed without a CorruptBlockException", e);
  }

  /** A store file cut short does not open: HBase reads its trailer first. */
  @Test(timeout = 120_000)
  public void aTruncatedStoreFileDoesNotOpen() throws Exception {
    Fixture x = new Fixture(tmp.newFolder("corrupt-store"));
    long[] b = x.block(5);
    try (RandomAccessFile f = new RandomAccessFile(new File(x.file.toUri()), "rw")) {
      f.setLength(b[0] + b[1] / 2);
    }
    try {
      x.open().close();
      fail("opened a region whose store file is truncated");
    } catch (IOException e) {
      boolean named = false;
      for (Throwable t = e; t != null; t = t.getCause()) {
        named |= t instanceof CorruptHFileException;
      }
      assertTrue("no CorruptHFileException in " + e, named);
    }
  }
}
