package io.blockscope.encoding;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.io.WritableUtils;
import org.junit.Test;

/**
 * {@code decodeKeyValues}, the whole-block decode HBase's {@code EncodedDataBlock} (and so {@code
 * DataBlockEncodingTool}) reads a block through: for random blocks of every shape, with and without
 * tags and sequence ids, BLOCKSCOPE_V1 returns exactly the bytes of the cells it was given in
 * HBase's unencoded layout, and exactly what FAST_DIFF returns for the same cells.
 */
public class DecodeKeyValuesTest {
  private static final DataBlockEncoding OURS = BlockscopeEncoding.register();

  @Test
  public void everyShapeDecodesToTheCellsAndToFastDiffsBytes() throws IOException {
    Blocks.Shape[] shapes = {
      Blocks.MANY_PER_ROW, Blocks.FEW_PER_ROW, Blocks.DELETES, Blocks.HUGE, Blocks.LONG_KEYS
    };
    long seed = 11;
    int blocks = 0;
    for (Blocks.Shape shape : shapes) {
      for (boolean tags : new boolean[] {false, true}) {
        for (boolean mvcc : new boolean[] {false, true}) {
          List<KeyValue> cells = Blocks.cells(shape, seed++, tags, mvcc);
          byte[] want = unencoded(cells, tags, mvcc);
          String what = shape.name() + ", tags " + tags + ", mvcc " + mvcc;
          byte[] ours = decode(OURS, cells, tags, mvcc);
          assertArrayEquals(what + ": the cells", want, ours);
          assertArrayEquals(
              what + ": FAST_DIFF's bytes",
              decode(DataBlockEncoding.FAST_DIFF, cells, tags, mvcc),
              ours);
          blocks++;
        }
      }
    }
    assertEquals(20, blocks);
  }

  /** One block of {@code cells} in {@code encoding}, decoded whole as EncodedDataBlock does. */
  private static byte[] decode(
      DataBlockEncoding encoding, List<KeyValue> cells, boolean tags, boolean mvcc)
      throws IOException {
    DataBlockEncoder encoder = encoding.getEncoder();
    byte[] block = Blocks.encode(encoder, encoding, cells, tags, mvcc);
    ByteBuffer decoded =
        encoder.decodeKeyValues(
            new DataInputStream(new ByteArrayInputStream(block)),
            encoder.newDataBlockDecodingContext(
                new Configuration(false), Blocks.context(tags, mvcc)));
    // HBase's own decoders leave the position at the end: EncodedDataBlock rewinds, then reads
    // to the limit
    ByteBuffer read = decoded.duplicate();
    read.rewind();
    byte[] bytes = new byte[read.remaining()];
    read.get(bytes);
    return bytes;
  }

  /** The cells as an unencoded block holds them, written field by field from each KeyValue. */
  private static byte[] unencoded(List<KeyValue> cells, boolean tags, boolean mvcc)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    for (KeyValue kv : cells) {
      out.writeInt(kv.getKeyLength());
      out.writeInt(kv.getValueLength());
      out.write(kv.getBuffer(), kv.getKeyOffset(), kv.getKeyLength());
      out.write(kv.getValueArray(), kv.getValueOffset(), kv.getValueLength());
      if (tags) {
        out.writeShort(kv.getTagsLength());
        out.write(kv.getTagsArray(), kv.getTagsOffset(), kv.getTagsLength());
      }
      if (mvcc) {
        WritableUtils.writeVLong(out, kv.getSequenceId());
      }
    }
    out.flush();
    return bytes.toByteArray();
  }
}
