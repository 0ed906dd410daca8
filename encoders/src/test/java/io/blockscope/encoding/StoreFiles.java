package io.blockscope.encoding;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparatorImpl;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.regionserver.StoreFileWriter;

/**
 * Test helpers: real store files on the local file system, written by HBase's own writer ({@code
 * StoreFileWriter}, so {@code HFileWriterImpl} and {@code HFileBlock.Writer} drive the encoder),
 * with metadata a store opens.
 */
final class StoreFiles {
  private StoreFiles() {}

  /**
   * A configuration whose local file system keeps no {@code .crc} files ({@link
   * RawLocalFileSystem}) and whose HFile reader does not verify HBase's block checksums ({@code
   * hbase.regionserver.checksum.verify=false}): bytes changed on disk reach the decoder, as on a
   * cluster where the damage happened before the checksums were computed.
   */
  static Configuration unchecked() {
    Configuration conf = HBaseConfiguration.create();
    conf.set("fs.file.impl", RawLocalFileSystem.class.getName());
    conf.setBoolean("fs.file.impl.disable.cache", true);
    conf.setBoolean("hbase.regionserver.checksum.verify", false);
    return conf;
  }

  /** Writes {@code cells} (sorted) as store file {@code path}, blocks of {@code blockSize}. */
  static Path write(
      Configuration conf,
      Path path,
      List<? extends Cell> cells,
      DataBlockEncoding encoding,
      boolean tags,
      int blockSize)
      throws IOException {
    FileSystem fs = path.getFileSystem(conf);
    StoreFileWriter w =
        new StoreFileWriter.Builder(conf, new CacheConfig(conf), fs)
            .withFilePath(path)
            .withFileContext(
                new HFileContextBuilder()
                    .withDataBlockEncoding(encoding)
                    .withIncludesTags(tags)
                    .withIncludesMvcc(true)
                    .withBlockSize(blockSize)
                    .withCellComparator(CellComparatorImpl.COMPARATOR)
                    .build())
            .build();
    long maxSeqId = 0;
    for (Cell c : cells) {
      w.append(c);
      maxSeqId = Math.max(maxSeqId, c.getSequenceId());
    }
    w.appendMetadata(maxSeqId, false);
    w.close();
    return path;
  }
}
