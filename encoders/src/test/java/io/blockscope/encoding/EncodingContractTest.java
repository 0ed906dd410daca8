package io.blockscope.encoding;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellComparatorImpl;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.ExtendedCell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder.EncodedSeeker;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/**
 * Every data block encoding HBase 2.6 has, and BLOCKSCOPE_V1 with restart intervals 1, 16 and 1024,
 * against the reference: the cells themselves, in order, as NONE stores them. For random blocks of
 * several shapes, with and without tags and sequence ids, on the heap, in a direct buffer and split
 * over two: the full iteration returns the cells; every seek (to each key, just before and after
 * it, to the first and last key of each row, before and after the block), with and without
 * seekBefore, lands where the reference says, returns what HBase's scanner expects (0, 1 or
 * INDEX_KEY_MAGIC), and iterates on correctly from there; seeks forward without rewind (as {@code
 * reseekTo} does) too; and the block's first key is right without moving the buffer.
 */
@RunWith(Parameterized.class)
public class EncodingContractTest {
  @Parameters(name = "{0}")
  // an anonymous CellComparatorImpl inherits CellComparatorImpl's raw getSimpleComparator
  @SuppressWarnings("unchecked")
  public static Collection<Object[]> encoders() {
    DataBlockEncoding ours = BlockscopeEncoding.register();
    List<Object[]> all = new ArrayList<>();
    for (DataBlockEncoding e :
        new DataBlockEncoding[] {
          DataBlockEncoding.PREFIX,
          DataBlockEncoding.DIFF,
          DataBlockEncoding.FAST_DIFF,
          DataBlockEncoding.ROW_INDEX_V1
        }) {
      all.add(new Object[] {e.name(), e, e.getEncoder(), CellComparatorImpl.COMPARATOR});
    }
    for (int interval : new int[] {1, 16, 1024}) {
      all.add(
          new Object[] {
            "BLOCKSCOPE_V1 interval " + interval,
            ours,
            new BlockscopeV1Encoder(interval),
            CellComparatorImpl.COMPARATOR
          });
    }
    // InnerStoreCellComparator, which store files are read with, takes the same seek as
    // CellComparatorImpl; any other comparator class (hbase:meta's) the seek that decodes keys:
    // a subclass that orders as CellComparatorImpl does checks that one against the same cells
    CellComparator innerStore = innerStoreComparator();
    if (innerStore != null) {
      all.add(
          new Object[] {
            "BLOCKSCOPE_V1 interval 16, InnerStoreCellComparator",
            ours,
            new BlockscopeV1Encoder(16),
            innerStore
          });
    }
    all.add(
        new Object[] {
          "BLOCKSCOPE_V1 interval 16, keys decoded",
          ours,
          new BlockscopeV1Encoder(16),
          new CellComparatorImpl() {}
        });
    return all;
  }

  private final DataBlockEncoding encoding;
  private final DataBlockEncoder encoder;
  private final CellComparator comparator;

  public EncodingContractTest(
      String name,
      DataBlockEncoding encoding,
      DataBlockEncoder encoder,
      CellComparator comparator) {
    this.encoding = encoding;
    this.encoder = encoder;
    this.comparator = comparator;
  }

  @Test
  public void manyCellsPerRow() throws Exception {
    check(Blocks.MANY_PER_ROW);
  }

  @Test
  public void fewCellsPerRow() throws Exception {
    check(Blocks.FEW_PER_ROW);
  }

  @Test
  public void deleteMarkers() throws Exception {
    check(Blocks.DELETES);
  }

  @Test
  public void emptyAndHugeValues() throws Exception {
    check(Blocks.HUGE);
  }

  @Test
  public void longRowsAndQualifiers() throws Exception {
    check(Blocks.LONG_KEYS);
  }

  /**
   * Cells of three families in one block: never in a store file, but BLOCKSCOPE_V1's format writes
   * a family that changes, and its seeks must follow it. Run by {@link SeveralFamiliesTest} for the
   * encoders and comparators that can hold such a block.
   */
  void severalFamilies() throws Exception {
    long seed = 77;
    for (boolean mvcc : new boolean[] {false, true}) {
      List<KeyValue> cells = Blocks.cells(Blocks.MANY_PER_ROW, seed++, true, mvcc, 3);
      for (Blocks.Memory m : Blocks.Memory.values()) {
        checkBlock(cells, true, mvcc, m);
      }
    }
  }

  /** Which of {@link #encoders()} can hold cells of several families in one block. */
  static boolean holdsSeveralFamilies(DataBlockEncoding encoding, CellComparator comparator) {
    // PREFIX, DIFF and FAST_DIFF keep the block's first family for every cell (they decode f-1
    // cells as f: a store holds one family); InnerStoreCellComparator orders families by length
    // alone
    return encoding != DataBlockEncoding.PREFIX
        && encoding != DataBlockEncoding.DIFF
        && encoding != DataBlockEncoding.FAST_DIFF
        && comparator != innerStoreComparator();
  }

  /**
   * HBase 2.6's comparator of a store's own files, or null on an HBase without it (2.5), where the
   * seeker never meets it.
   */
  static CellComparator innerStoreComparator() {
    try {
      return (CellComparator)
          Class.forName("org.apache.hadoop.hbase.InnerStoreCellComparator")
              .getField("INNER_STORE_COMPARATOR")
              .get(null);
    } catch (ReflectiveOperationException absent) {
      return null;
    }
  }

  /**
   * One seeker moved between blocks of different shapes and back, as a scanner's seeker moves
   * (HFileReaderImpl.EncodedScanner keeps one for its life): after each move, exact seeks and
   * seekBefore to row starts read the block it is on, nothing kept from the one before.
   */
  @Test
  public void oneSeekerMovesBetweenBlocks() throws Exception {
    Blocks.Shape[] shapes = {Blocks.MANY_PER_ROW, Blocks.FEW_PER_ROW, Blocks.LONG_KEYS};
    List<List<KeyValue>> cells = new ArrayList<>();
    List<byte[]> blocks = new ArrayList<>();
    for (int i = 0; i < shapes.length; i++) {
      cells.add(Blocks.cells(shapes[i], 100 + i, true, true));
      blocks.add(Blocks.encode(encoder, encoding, cells.get(i), true, true));
    }
    EncodedSeeker seeker =
        encoder.createSeeker(
            encoder.newDataBlockDecodingContext(
                new Configuration(false), Blocks.context(true, true, comparator)));
    for (int b : new int[] {0, 1, 2, 1, 0, 2, 0}) {
      List<KeyValue> in = cells.get(b);
      String where = encoder + " block " + b + " (" + shapes[b].name() + ")";
      seeker.setCurrentBuffer(Blocks.Memory.HEAP.wrap(blocks.get(b)));
      for (int i = in.size() - 1; i >= 0; i -= 1 + i % 7) {
        seeker.rewind();
        assertEquals(where + " seek to " + i, 0, seeker.seekToKeyInBlock(in.get(i), false));
        assertCell(where + " seek to " + i, in.get(i), seeker, true, true);
        if (i > 0 && !CellUtil.matchingRows(in.get(i), in.get(i - 1))) {
          seeker.rewind();
          seeker.seekToKeyInBlock(PrivateCellUtil.createFirstOnRow(in.get(i)), true);
          assertCell(where + " seekBefore row of " + i, in.get(i - 1), seeker, true, true);
        }
      }
    }
  }

  @Test
  public void oneCell() throws Exception {
    for (boolean tags : new boolean[] {false, true}) {
      List<KeyValue> one = Blocks.cells(Blocks.FEW_PER_ROW, 7, tags, true).subList(0, 1);
      for (Blocks.Memory m : Blocks.Memory.values()) {
        checkBlock(one, tags, true, m);
      }
    }
  }

  private void check(Blocks.Shape shape) throws Exception {
    long seed = 42;
    for (boolean tags : new boolean[] {false, true}) {
      for (boolean mvcc : new boolean[] {false, true}) {
        List<KeyValue> cells = Blocks.cells(shape, seed++, tags, mvcc);
        for (Blocks.Memory m : Blocks.Memory.values()) {
          checkBlock(cells, tags, mvcc, m);
        }
      }
    }
  }

  private void checkBlock(List<KeyValue> cells, boolean tags, boolean mvcc, Blocks.Memory memory)
      throws Exception {
    String where =
        encoder + " tags=" + tags + " mvcc=" + mvcc + " " + memory + " " + cells.size() + " cells";
    byte[] block = Blocks.encode(encoder, encoding, cells, tags, mvcc);
    EncodedSeeker seeker =
        encoder.createSeeker(
            encoder.newDataBlockDecodingContext(
                new Configuration(false), Blocks.context(tags, mvcc, comparator)));
    ByteBuff buff = memory.wrap(block);
    seeker.setCurrentBuffer(buff);

    // the whole block, in order
    for (int i = 0; i < cells.size(); i++) {
      assertCell(where + " cell " + i, cells.get(i), seeker, tags, mvcc);
      assertEquals(where + " next after " + i, i + 1 < cells.size(), seeker.next());
    }
    assertFalse(where + " past the end", seeker.next());

    // first key, position untouched
    ByteBuff again = memory.wrap(block);
    int position = again.position();
    Cell first = encoder.getFirstKeyCellInBlock(again);
    assertEquals(where + " first key", 0, Blocks.compare(cells.get(0), first));
    assertEquals(where + " first key moved the buffer", position, again.position());

    // seeks from a rewound seeker, then onward
    for (Cell probe : probes(cells)) {
      int at = firstAtOrAfter(cells, probe);
      seeker.rewind();
      int result = seeker.seekToKeyInBlock(probe, false);
      if (at < cells.size() && Blocks.compare(cells.get(at), probe) == 0) {
        assertEquals(where + " exact seek " + probe, 0, result);
        assertOnAndOn(where + " exact seek " + probe, cells, at, seeker, tags, mvcc);
      } else if (at == 0) {
        assertEquals(where + " seek before the block " + probe, HConstants.INDEX_KEY_MAGIC, result);
        assertOnAndOn(where + " seek before the block " + probe, cells, 0, seeker, tags, mvcc);
      } else if (result == HConstants.INDEX_KEY_MAGIC) {
        // also what StoreFileScanner accepts: on the first cell after the key (ROW_INDEX_V1
        // answers so when the key falls before the first cell of a row)
        assertOnAndOn(where + " inexact seek " + probe, cells, at, seeker, tags, mvcc);
      } else {
        assertEquals(where + " inexact seek " + probe, 1, result);
        assertOnAndOn(where + " inexact seek " + probe, cells, at - 1, seeker, tags, mvcc);
      }
      if (at > 0 && (encoding != DataBlockEncoding.ROW_INDEX_V1 || firstOnRow(probe))) {
        seeker.rewind();
        // HFileReaderImpl.seekBefore ignores the result; only the position counts
        seeker.seekToKeyInBlock(probe, true);
        assertOnAndOn(where + " seekBefore " + probe, cells, at - 1, seeker, tags, mvcc);
      }
    }

    // forward seeks without rewind, each to a key past the current cell
    seeker.rewind();
    int current = 0;
    for (int i = 1; i < cells.size(); i += 1 + i % 5) {
      Cell target = cells.get(i);
      if (Blocks.compare(target, cells.get(current)) <= 0) {
        continue;
      }
      assertEquals(where + " reseek to " + i, 0, seeker.seekToKeyInBlock(target, false));
      assertCell(where + " reseek to " + i, cells.get(i), seeker, tags, mvcc);
      current = i;
    }
  }

  /** Keys to seek to: each cell's, one just before and after it, each row's first and last. */
  private static List<Cell> probes(List<KeyValue> cells) {
    List<Cell> probes = new ArrayList<>();
    KeyValue first = cells.get(0);
    KeyValue last = cells.get(cells.size() - 1);
    probes.add(KeyValueStub.before(first));
    probes.add(PrivateCellUtil.createLastOnRow(last));
    for (int i = 0; i < cells.size(); i++) {
      KeyValue c = cells.get(i);
      probes.add(KeyValueStub.keyOnly(c));
      probes.add(KeyValueStub.withTimestamp(c, c.getTimestamp() + 1));
      if (c.getTimestamp() > 0) {
        probes.add(KeyValueStub.withTimestamp(c, c.getTimestamp() - 1));
      }
      if (i == 0 || !CellUtil.matchingRows(c, cells.get(i - 1))) {
        probes.add(PrivateCellUtil.createFirstOnRow(c));
        probes.add(PrivateCellUtil.createLastOnRow(c));
      }
    }
    return probes;
  }

  /**
   * HBase's ROW_INDEX_V1 seeker seeks before a key only at row granularity: asked for the cell
   * before a key inside a row (or before a row's last-on-row key) it stops on another cell of the
   * row (observed with HBase 2.6.1). HBase's readers only ever pass it first-on-row keys ({@code
   * StoreFileScanner.seekToPreviousRow}), so only those are checked for it.
   */
  private static boolean firstOnRow(Cell probe) {
    return probe.getTypeByte() == KeyValue.Type.Maximum.getCode()
        && probe.getFamilyLength() == 0
        && probe.getQualifierLength() == 0;
  }

  private static int firstAtOrAfter(List<KeyValue> cells, Cell key) {
    int lo = 0;
    int hi = cells.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Blocks.compare(cells.get(mid), key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** The seeker is on cell {@code at}, and next() walks on through the following few cells. */
  private static void assertOnAndOn(
      String where,
      List<KeyValue> cells,
      int at,
      EncodedSeeker seeker,
      boolean tags,
      boolean mvcc) {
    assertCell(where, cells.get(at), seeker, tags, mvcc);
    for (int i = at + 1; i < Math.min(cells.size(), at + 3); i++) {
      assertTrue(where + " next", seeker.next());
      assertCell(where + " then " + i, cells.get(i), seeker, tags, mvcc);
    }
  }

  private static void assertCell(
      String where, KeyValue expected, EncodedSeeker seeker, boolean tags, boolean mvcc) {
    Cell got = seeker.getCell();
    if (Blocks.compare(expected, got) != 0) {
      fail(where + ": expected " + expected + " got " + got);
    }
    assertEquals(where + " key", 0, Blocks.compare(expected, seeker.getKey()));
    assertTrue(where + " value", CellUtil.matchingValue(expected, got));
    ByteBuffer v = seeker.getValueShallowCopy();
    byte[] copy = new byte[v.remaining()];
    v.duplicate().get(copy);
    assertArrayEquals(where + " value copy", CellUtil.cloneValue(expected), copy);
    if (tags) {
      assertArrayEquals(
          where + " tags", PrivateCellUtil.cloneTags(expected), PrivateCellUtil.cloneTags(got));
    }
    if (mvcc) {
      assertEquals(where + " sequence id", expected.getSequenceId(), got.getSequenceId());
    }
    assertTrue(where + " an ExtendedCell", got instanceof ExtendedCell);
  }
}
