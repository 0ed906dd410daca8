package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.blockscope.encoding.BlockscopeEncoding;
import java.io.IOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.tool.BulkLoadHFiles;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/**
 * The master's guard checks descriptor changes only; a bulk load of BLOCKSCOPE_V1-encoded store
 * files into a family that does not use BLOCKSCOPE_V1 went through unchecked (a store file is
 * decoded by the encoding its own metadata names), and the family then held files a region server
 * without the registrar cannot open. The registrar refuses such a load on the region's server; a
 * family that uses BLOCKSCOPE_V1 takes the files.
 */
public class EncoderBulkLoadIT extends ClusterTestBase {
  private static final byte[] F = Bytes.toBytes("f");
  private static final int ROWS = 300;

  private static TableName table(String prefix, DataBlockEncoding encoding) throws IOException {
    TableName t = newTable(prefix);
    cluster
        .admin()
        .createTable(
            TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(
                    ColumnFamilyDescriptorBuilder.newBuilder(F)
                        .setDataBlockEncoding(encoding)
                        .build())
                .build());
    return t;
  }

  /** A directory to bulk load from: {@code <dir>/f/<file>}, one BLOCKSCOPE_V1 store file. */
  private static Path blockscopeFiles(String name) throws IOException {
    FileSystem fs = cluster.util().getTestFileSystem();
    Path dir = new Path(cluster.util().getDataTestDirOnTestFS("bulk"), name);
    Path file = new Path(new Path(dir, "f"), "hfile");
    try (HFile.Writer w =
        HFile.getWriterFactory(cluster.conf(), CacheConfig.DISABLED)
            .withPath(fs, file)
            .withFileContext(
                new HFileContextBuilder()
                    .withDataBlockEncoding(BlockscopeEncoding.register())
                    .withBlockSize(4096)
                    .build())
            .create()) {
      for (int i = 0; i < ROWS; i++) {
        w.append(
            new KeyValue(
                Bytes.toBytes(String.format("row-%05d", i)),
                F,
                Bytes.toBytes("q"),
                1L,
                Bytes.toBytes("value-" + i)));
      }
    }
    return dir;
  }

  @Test
  public void blockscopeFilesAreRefusedByAFamilyThatDoesNotUseTheEncoding() throws Exception {
    TableName fastDiff = table("bulk_fast_diff", DataBlockEncoding.FAST_DIFF);
    Path dir = blockscopeFiles("refused");
    try {
      BulkLoadHFiles.create(cluster.conf()).bulkLoad(fastDiff, dir);
      fail("BLOCKSCOPE_V1 files were loaded into a FAST_DIFF family");
    } catch (IOException expected) {
      StringBuilder all = new StringBuilder(); // the refusal, however the tool wraps it
      for (Throwable t = expected; t != null; t = t.getCause()) {
        all.append(t).append(" / ");
      }
      assertTrue(
          all.toString(),
          all.toString()
              .contains(
                  "the file's blocks are BLOCKSCOPE_V1-encoded and the family uses FAST_DIFF"));
    }
    try (Table t = cluster.connection().getTable(fastDiff);
        ResultScanner s = t.getScanner(new Scan())) {
      assertEquals("nothing was loaded", null, s.next());
    }
  }

  @Test
  public void aFamilyThatUsesTheEncodingTakesThem() throws Exception {
    TableName blockscope = table("bulk_blockscope", BlockscopeEncoding.register());
    BulkLoadHFiles.create(cluster.conf()).bulkLoad(blockscope, blockscopeFiles("taken"));
    int rows = 0;
    try (Table t = cluster.connection().getTable(blockscope);
        ResultScanner s = t.getScanner(new Scan())) {
      for (Result r : s) {
        assertEquals("value-" + rows, Bytes.toString(r.getValue(F, Bytes.toBytes("q"))));
        rows++;
      }
    }
    assertEquals(ROWS, rows);
  }
}
