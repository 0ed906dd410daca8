package io.blockscope.encoding;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.Reference;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.regionserver.DataBlockEncodingTool;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.regionserver.StoreFileInfo;
import org.apache.hadoop.hbase.regionserver.StoreFileReader;
import org.apache.hadoop.hbase.regionserver.StoreFileScanner;
import org.junit.Test;

/**
 * With BLOCKSCOPE_V1 registered, HBase's {@code DataBlockEncodingTool -f <store file> -b} verifies
 * every codec. Its {@code verifyCodecs} stops with "CorruptBlockException: block without groups"
 * for an encoder that writes to the stream in {@code endBlockEncoding}: HBase's {@code
 * EncodedDataBlock.encodeData}, which the tool encodes every codec with, keeps only the bytes
 * written before {@code endBlockEncoding} (and what that writes in place into the array it is
 * handed), special-casing ROW_INDEX_V1 alone, so BLOCKSCOPE_V1 writes its last group and trailer in
 * place. Here the tool runs as its {@code testCodecs} does (a store file scanner over a real
 * BLOCKSCOPE_V1 store file; statistics, verification, the benchmark and the sizes), with every
 * registered encoding, and must verify them all.
 */
public class DataBlockEncodingToolTest {
  private static final DataBlockEncoding ENCODING = BlockscopeEncoding.register();

  @Test(timeout = 300_000)
  public void toolVerifiesEveryCodecWithBlockscopeRegistered() throws Exception {
    for (boolean tags : new boolean[] {false, true}) {
      java.nio.file.Path dir = Files.createTempDirectory("dbetool");
      Configuration conf = StoreFiles.unchecked();
      List<KeyValue> cells = new ArrayList<>(Blocks.cells(Blocks.MANY_PER_ROW, 5, tags, true));
      Path file =
          StoreFiles.write(
              conf,
              new Path(dir.toUri().toString(), "0123456789abcdef0123456789abcdef"),
              cells,
              ENCODING,
              tags,
              64 * 1024);
      // the tool as `-f <file> -b` runs it: statistics, verification (a failure only logged),
      // benchmark (throws if two codecs decode to different sizes), sizes
      DataBlockEncodingTool.testCodecs(conf, Integer.MAX_VALUE, file.toString(), "gz", true, true);
      // and its verification again, as testCodecs sets it up, with the result asserted
      // (store file info, bloom type, cache config): the constructor HBase 2.6.1 and 2.6.4 share
      FileSystem fs = file.getFileSystem(conf);
      HStoreFile sf =
          new HStoreFile(
              new StoreFileInfo(conf, fs, fs.getFileStatus(file), (Reference) null),
              BloomType.NONE,
              new CacheConfig(conf));
      sf.initReader();
      StoreFileReader reader = sf.getReader();
      reader.loadFileInfo();
      assertEquals(ENCODING, reader.getHFileReader().getDataBlockEncoding());
      StoreFileScanner scanner =
          reader.getStoreFileScanner(false, false, false, sf.getMaxMemStoreTS(), 0, false);
      try {
        DataBlockEncodingTool tool = new DataBlockEncodingTool(conf, "gz");
        // testCodecs sets these two from the file (HFile v3: tags as written; checksummed
        // block headers)
        set(tool, "USE_TAG", reader.getHFileReader().getFileContext().isIncludesTags());
        set(tool, "useHBaseChecksum", true);
        tool.checkStatistics(scanner, Integer.MAX_VALUE);
        assertEquals(
            List.of("PREFIX", "DIFF", "FAST_DIFF", "ROW_INDEX_V1", "BLOCKSCOPE_V1"), codecs(tool));
        assertTrue(
            "verifyCodecs (tags " + tags + ")", tool.verifyCodecs(scanner, Integer.MAX_VALUE));
      } finally {
        scanner.close();
        reader.close(true);
      }
    }
  }

  private static void set(DataBlockEncodingTool tool, String field, boolean value)
      throws Exception {
    Field f = DataBlockEncodingTool.class.getDeclaredField(field);
    f.setAccessible(true);
    f.setBoolean(Modifier.isStatic(f.getModifiers()) ? null : tool, value);
  }

  /** The encodings the tool compares (its private list of EncodedDataBlocks, by name). */
  private static List<String> codecs(DataBlockEncodingTool tool) throws Exception {
    Field f = DataBlockEncodingTool.class.getDeclaredField("codecs");
    f.setAccessible(true);
    List<String> names = new ArrayList<>();
    for (Object codec : (List<?>) f.get(tool)) {
      names.add(codec.toString());
    }
    return names;
  }
}
