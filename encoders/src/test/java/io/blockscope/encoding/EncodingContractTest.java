package io.blockscope.encoding;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellComparatorImpl;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.ExtendedCell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.MetaCellComparator;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder.EncodedSeeker;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.util.Bytes;
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
 * INDEX_KEY_MAGIC; BLOCKSCOPE_V1 refuses seekBefore the first cell), answers compareKey there as
 * the comparator does, and iterates on correctly from there; seeks forward without rewind (as
 * {@code reseekTo} does) too; and the block's first key is right without moving the buffer. With
 * CellComparatorImpl for all, and with hbase:meta's MetaCellComparator, on hbase:meta's rows, for
 * the encodings that seek with the file's comparator (ROW_INDEX_V1, hbase:meta's, and
 * BLOCKSCOPE_V1).
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
    // hbase:meta's comparator, with hbase:meta's rows (Blocks.MetaRows), which it orders otherwise
    // than bytewise. HBase writes hbase:meta in ROW_INDEX_V1 (its table descriptor's encoding,
    // FSTableDescriptors), whose seeker compares with the file's comparator; PREFIX, DIFF and
    // FAST_DIFF compare rows bytewise whatever the comparator
    // (BufferedDataBlockEncoder.BufferedEncodedSeeker.seekToKeyInBlock), so cannot seek them.
    all.add(
        new Object[] {
          "ROW_INDEX_V1, MetaCellComparator",
          DataBlockEncoding.ROW_INDEX_V1,
          DataBlockEncoding.ROW_INDEX_V1.getEncoder(),
          MetaCellComparator.META_COMPARATOR
        });
    for (int interval : new int[] {1, 16, 1024}) {
      all.add(
          new Object[] {
            "BLOCKSCOPE_V1 interval " + interval + ", MetaCellComparator",
            ours,
            new BlockscopeV1Encoder(interval),
            MetaCellComparator.META_COMPARATOR
          });
    }
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
      List<KeyValue> cells = cells(Blocks.MANY_PER_ROW, seed++, true, mvcc, 3);
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
    List<byte[]> blocks = blocksOf(shapes, 100, cells);
    EncodedSeeker seeker = seekerWithTagsAndSeqIds();
    for (int b : new int[] {0, 1, 2, 1, 0, 2, 0}) {
      List<KeyValue> in = cells.get(b);
      String where = encoder + " block " + b + " (" + shapes[b].name() + ")";
      seeker.setCurrentBuffer(Blocks.Memory.HEAP.wrap(blocks.get(b)));
      for (int i = in.size() - 1; i >= 0; i -= 1 + i % 7) {
        seeker.rewind();
        assertEquals(where + " seek to " + i, 0, seeker.seekToKeyInBlock(in.get(i), false));
        assertLanded(where + " seek to " + i, in, i, 0, seeker, in.get(i), true, true);
        if (i > 0 && !CellUtil.matchingRows(in.get(i), in.get(i - 1))) {
          Cell rowStart = PrivateCellUtil.createFirstOnRow(in.get(i));
          seeker.rewind();
          seeker.seekToKeyInBlock(rowStart, true);
          assertLanded(
              where + " seekBefore row of " + i, in, i - 1, 0, seeker, rowStart, true, true);
        }
      }
    }
  }

  /**
   * HBase keeps cells a seeker returned after the seeker moves on (the scanner's last cell, the
   * row's results until they are shipped): every cell read while one seeker seeks, steps, rewinds
   * and moves between blocks still holds its key, value, tags and sequence id when all is done.
   * BLOCKSCOPE_V1's cells of one row share one copy of the row; a walk of a block makes one per
   * row.
   */
  @Test
  public void cellsStayAsReturned() throws Exception {
    Blocks.Shape[] shapes = {Blocks.MANY_PER_ROW, Blocks.FEW_PER_ROW, Blocks.LONG_KEYS};
    List<List<KeyValue>> cells = new ArrayList<>();
    List<byte[]> blocks = blocksOf(shapes, 200, cells);
    EncodedSeeker seeker = seekerWithTagsAndSeqIds();
    List<Cell> kept = new ArrayList<>();
    List<KeyValue> expected = new ArrayList<>();
    Random random = new Random(5);
    for (int b : new int[] {0, 1, 2, 1, 0}) {
      List<KeyValue> in = cells.get(b);
      seeker.setCurrentBuffer(Blocks.Memory.HEAP.wrap(blocks.get(b)));
      int at = 0;
      for (int step = 0; step < 400; step++) {
        int move = random.nextInt(8);
        if (move == 0) {
          at = random.nextInt(in.size());
          seeker.rewind();
          assertEquals(0, seeker.seekToKeyInBlock(in.get(at), false));
        } else if (move == 1 || !seeker.next()) {
          seeker.rewind();
          at = 0;
        } else {
          at++;
        }
        kept.add(seeker.getCell());
        expected.add(in.get(at));
      }
    }
    for (int i = 0; i < kept.size(); i++) {
      assertNull(
          encoder + " cell " + i + " of " + kept.size() + " changed after it was returned",
          Blocks.difference(expected.get(i), kept.get(i), true, true));
    }
    if (encoder instanceof BlockscopeV1Encoder) {
      for (int b = 0; b < blocks.size(); b++) {
        seeker.setCurrentBuffer(Blocks.Memory.HEAP.wrap(blocks.get(b)));
        Set<byte[]> rowCopies = Collections.newSetFromMap(new IdentityHashMap<>());
        Set<String> rows = new HashSet<>();
        do {
          Cell c = seeker.getCell();
          rowCopies.add(c.getRowArray());
          rows.add(Bytes.toStringBinary(CellUtil.cloneRow(c)));
        } while (seeker.next());
        assertEquals(encoder + " block " + b + ": row copies", rows.size(), rowCopies.size());
      }
    }
  }

  /**
   * A block of each shape, with tags and sequence ids, of cells from seeds {@code seed}, {@code
   * seed + 1}, ...; the cells of each go into {@code cells}.
   */
  private List<byte[]> blocksOf(Blocks.Shape[] shapes, long seed, List<List<KeyValue>> cells)
      throws Exception {
    List<byte[]> blocks = new ArrayList<>();
    for (int i = 0; i < shapes.length; i++) {
      cells.add(cells(shapes[i], seed + i, true, true, 1));
      blocks.add(Blocks.encode(encoder, encoding, cells.get(i), true, true, comparator));
    }
    return blocks;
  }

  /** A seeker of blocks with tags and sequence ids. */
  private EncodedSeeker seekerWithTagsAndSeqIds() {
    return encoder.createSeeker(
        encoder.newDataBlockDecodingContext(
            new Configuration(false), Blocks.context(true, true, comparator)));
  }

  @Test
  public void oneCell() throws Exception {
    for (boolean tags : new boolean[] {false, true}) {
      List<KeyValue> one = cells(Blocks.FEW_PER_ROW, 7, tags, true, 1).subList(0, 1);
      for (Blocks.Memory m : Blocks.Memory.values()) {
        checkBlock(one, tags, true, m);
      }
    }
  }

  private void check(Blocks.Shape shape) throws Exception {
    long seed = 42;
    for (boolean tags : new boolean[] {false, true}) {
      for (boolean mvcc : new boolean[] {false, true}) {
        List<KeyValue> cells = cells(shape, seed++, tags, mvcc, 1);
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
    byte[] block = Blocks.encode(encoder, encoding, cells, tags, mvcc, comparator);
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

    assertSeeks(where, cells, seeker, tags, mvcc);

    // forward seeks without rewind, each to a key past the current cell
    seeker.rewind();
    int current = 0;
    for (int i = 1; i < cells.size(); i += 1 + i % 5) {
      Cell target = cells.get(i);
      if (comparator.compare(target, cells.get(current)) <= 0) {
        continue;
      }
      assertEquals(where + " reseek to " + i, 0, seeker.seekToKeyInBlock(target, false));
      assertLanded(where + " reseek to " + i, cells, i, 0, seeker, target, tags, mvcc);
      current = i;
    }
  }

  /**
   * Cells of {@code shape} in this comparator's order ({@link Blocks#cells}); hbase:meta's rows for
   * MetaCellComparator, checked to be out of bytewise order, so that a seek that compares rows
   * bytewise lands elsewhere.
   */
  private List<KeyValue> cells(
      Blocks.Shape shape, long seed, boolean tags, boolean mvcc, int families) {
    List<KeyValue> cells = Blocks.cells(shape, seed, tags, mvcc, families, comparator);
    if (comparator instanceof MetaCellComparator) {
      int inversions = 0;
      for (int i = 1; i < cells.size(); i++) {
        if (Blocks.compare(cells.get(i - 1), cells.get(i)) > 0) {
          inversions++;
        }
      }
      assertTrue(shape.name() + ": hbase:meta rows all in bytewise order", inversions > 0);
    }
    return cells;
  }

  /**
   * Seeks {@code seeker}, set to the block of {@code cells}, to each of {@link #probes} from a
   * rewound position, with and without seekBefore: it lands where a binary search over {@code
   * cells} with the comparator says, returns what HBase's scanner expects (0, 1 or
   * INDEX_KEY_MAGIC), compares keys as the comparator does there, and iterates on correctly. Serves
   * {@link GoldenBlocksTest} too, on the checked-in blocks.
   */
  void assertSeeks(
      String where, List<KeyValue> cells, EncodedSeeker seeker, boolean tags, boolean mvcc) {
    for (Cell probe : probes(cells)) {
      int at = firstAtOrAfter(cells, probe);
      seeker.rewind();
      int result = seeker.seekToKeyInBlock(probe, false);
      if (at < cells.size() && Blocks.compare(cells.get(at), probe) == 0) {
        assertEquals(where + " exact seek " + probe, 0, result);
        assertLanded(where + " exact seek " + probe, cells, at, 2, seeker, probe, tags, mvcc);
      } else if (at == 0) {
        assertEquals(where + " seek before the block " + probe, HConstants.INDEX_KEY_MAGIC, result);
        assertLanded(
            where + " seek before the block " + probe, cells, 0, 2, seeker, probe, tags, mvcc);
      } else if (result == HConstants.INDEX_KEY_MAGIC) {
        // also what StoreFileScanner accepts: on the first cell after the key (ROW_INDEX_V1
        // answers so when the key falls before the first cell of a row)
        assertLanded(where + " inexact seek " + probe, cells, at, 2, seeker, probe, tags, mvcc);
      } else {
        assertEquals(where + " inexact seek " + probe, 1, result);
        assertLanded(where + " inexact seek " + probe, cells, at - 1, 2, seeker, probe, tags, mvcc);
      }
      if (at > 0 && (encoding != DataBlockEncoding.ROW_INDEX_V1 || firstOnRow(probe))) {
        seeker.rewind();
        // HFileReaderImpl.seekBefore ignores the result; only the position counts
        seeker.seekToKeyInBlock(probe, true);
        assertLanded(where + " seekBefore " + probe, cells, at - 1, 2, seeker, probe, tags, mvcc);
      } else if (at == 0 && encoder instanceof BlockscopeV1Encoder) {
        // no cell before the block's first: BLOCKSCOPE_V1 refuses, as CorruptBlocksTest expects.
        // HBase never asks (HFileReaderImpl.seekBefore goes to the block before), and its own
        // seekers answer without refusing (observed with HBase 2.6.1), so only ours is held to it
        seeker.rewind();
        assertThrows(
            where + " seekBefore the first cell " + probe,
            IllegalStateException.class,
            () -> seeker.seekToKeyInBlock(probe, true));
      }
    }
  }

  /** Keys to seek to: each cell's, one just before and after it, each row's first and last. */
  static List<Cell> probes(List<KeyValue> cells) {
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

  /** The index of the first of {@code cells} not below {@code key}, by binary search. */
  private int firstAtOrAfter(List<KeyValue> cells, Cell key) {
    int lo = 0;
    int hi = cells.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (PrivateCellUtil.compareKeyIgnoresMvcc(comparator, cells.get(mid), key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /**
   * The seeker, sought to {@code key}, is on cell {@code at} of {@code cells}, its compareKey
   * answers as the comparator does (for {@code key}, and for the cells before, at and after {@code
   * at}: negative, zero, positive), and next() walks on through the {@code onward} cells after it.
   */
  private void assertLanded(
      String where,
      List<KeyValue> cells,
      int at,
      int onward,
      EncodedSeeker seeker,
      Cell key,
      boolean tags,
      boolean mvcc) {
    assertCell(where, cells.get(at), seeker, tags, mvcc);
    assertCompareKey(where, seeker, key);
    for (int i = Math.max(0, at - 1); i < Math.min(cells.size(), at + 2); i++) {
      assertCompareKey(where + ", cell " + i, seeker, cells.get(i));
    }
    for (int i = at + 1; i < Math.min(cells.size(), at + 1 + onward); i++) {
      assertTrue(where + " next", seeker.next());
      assertCell(where + " then " + i, cells.get(i), seeker, tags, mvcc);
    }
  }

  /**
   * {@code seeker.compareKey(comparator, key)} has the sign of the comparator's comparison of
   * {@code key} with the cell the seeker is on, sequence ids aside (HBase's {@code EncodedSeeker}
   * contract: negative if the key is below the current cell, as {@code
   * HFileReaderImpl.EncodedScanner.compareKey} passes it on).
   */
  private void assertCompareKey(String where, EncodedSeeker seeker, Cell key) {
    Cell on = seeker.getCell();
    int expected = Integer.signum(PrivateCellUtil.compareKeyIgnoresMvcc(comparator, key, on));
    assertEquals(
        where + ": compareKey of " + key + " on " + on,
        expected,
        Integer.signum(seeker.compareKey(comparator, key)));
  }

  private static void assertCell(
      String where, KeyValue expected, EncodedSeeker seeker, boolean tags, boolean mvcc) {
    Cell got = seeker.getCell();
    String differs = Blocks.difference(expected, got, tags, mvcc);
    if (differs != null) {
      fail(where + ": " + differs + " differs: expected " + expected + " got " + got);
    }
    assertEquals(where + " key", 0, Blocks.compare(expected, seeker.getKey()));
    ByteBuffer v = seeker.getValueShallowCopy();
    byte[] copy = new byte[v.remaining()];
    v.duplicate().get(copy);
    assertArrayEquals(where + " value copy", CellUtil.cloneValue(expected), copy);
    assertTrue(where + " an ExtendedCell", got instanceof ExtendedCell);
  }
}
