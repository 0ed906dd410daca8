package io.blockscope.encoding;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CellComparatorImpl;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder.EncodedSeeker;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.junit.Test;

/**
 * Encoded blocks checked in under {@code src/test/resources/golden/}: each must decode to the cells
 * it was made from, every seek into it must land on the cell its walk puts there, and encoding
 * those cells again must give the same bytes, so the format cannot change without this test
 * failing. Once released, a deliberate format change is a new encoding (new name and id, e.g.
 * BLOCKSCOPE_V2), since files written in the old one stay on disk; before the first release the
 * files were rewritten with each deliberate change (the last: the grouped layout of 2026-11-22).
 * They are written only by running this test with {@code -Dgolden.write=<directory>}.
 */
public class GoldenBlocksTest {
  private static final DataBlockEncoding ENCODING = BlockscopeEncoding.register();

  private record Golden(
      String file,
      Blocks.Shape shape,
      long seed,
      int cells,
      int interval,
      boolean tags,
      boolean mvcc) {}

  private static final Golden[] GOLDEN = {
    new Golden("many-per-row-tags-mvcc-16.bin", Blocks.MANY_PER_ROW, 11, 400, 16, true, true),
    new Golden("few-per-row-mvcc-1.bin", Blocks.FEW_PER_ROW, 12, 300, 1, false, true),
    new Golden("deletes-16.bin", Blocks.DELETES, 13, 300, 16, false, false),
    new Golden("few-per-row-tags-1024.bin", Blocks.FEW_PER_ROW, 14, 200, 1024, true, false)
  };

  private static List<KeyValue> cells(Golden g) {
    List<KeyValue> all = Blocks.cells(g.shape(), g.seed(), g.tags(), g.mvcc());
    return all.subList(0, Math.min(g.cells(), all.size()));
  }

  @Test
  public void checkedInBlocksDecodeAndReencodeToTheSameBytes() throws Exception {
    String write = System.getProperty("golden.write");
    for (Golden g : GOLDEN) {
      List<KeyValue> cells = cells(g);
      BlockscopeV1Encoder encoder = new BlockscopeV1Encoder(g.interval());
      byte[] encoded = Blocks.encode(encoder, ENCODING, cells, g.tags(), g.mvcc());
      if (write != null) {
        Files.write(Path.of(write, g.file()), encoded);
        continue;
      }
      byte[] golden = golden(g);
      List<KeyValue> walked = Blocks.walk(seeker(g, encoder), Blocks.Memory.HEAP.wrap(golden));
      assertEquals(g.file() + " cells", cells.size(), walked.size());
      for (int i = 0; i < cells.size(); i++) {
        String differs = Blocks.difference(cells.get(i), walked.get(i), g.tags(), g.mvcc());
        assertNull(g.file() + " cell " + i + ": " + differs + " differs", differs);
      }
      assertArrayEquals(
          g.file() + ": the encoder no longer writes the checked-in bytes", golden, encoded);
    }
  }

  /**
   * The checked-in blocks sought as the contract test seeks ({@link
   * EncodingContractTest#assertSeeks}): to each cell's key, to keys just before and after each, to
   * each row's first and last key, before the first cell and after the last, with seekBefore false
   * and true, on the heap, in a direct buffer and split over two. Each lands on the cell a binary
   * search over the cells the block walks to finds (the one at or after the key without seekBefore,
   * else the one before it), and compareKey answers there as the comparator does.
   */
  @Test
  public void checkedInBlocksSeekToTheCellsTheyWalkTo() throws Exception {
    for (Golden g : GOLDEN) {
      BlockscopeV1Encoder encoder = new BlockscopeV1Encoder(g.interval());
      byte[] golden = golden(g);
      EncodedSeeker seeker = seeker(g, encoder);
      List<KeyValue> walked = Blocks.walk(seeker, Blocks.Memory.HEAP.wrap(golden));
      EncodingContractTest contract =
          new EncodingContractTest(g.file(), ENCODING, encoder, CellComparatorImpl.COMPARATOR);
      for (Blocks.Memory m : Blocks.Memory.values()) {
        seeker.setCurrentBuffer(m.wrap(golden));
        contract.assertSeeks(g.file() + " " + m, walked, seeker, g.tags(), g.mvcc());
      }
    }
  }

  private byte[] golden(Golden g) throws IOException {
    try (InputStream in = getClass().getResourceAsStream("/golden/" + g.file())) {
      assertNotNull("missing golden file " + g.file(), in);
      return in.readAllBytes();
    }
  }

  private static EncodedSeeker seeker(Golden g, BlockscopeV1Encoder encoder) {
    return encoder.createSeeker(
        encoder.newDataBlockDecodingContext(
            new Configuration(false), Blocks.context(g.tags(), g.mvcc())));
  }
}
