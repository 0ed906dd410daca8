package io.blockscope.encoding;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparatorImpl;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder.EncodedSeeker;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.nio.SingleByteBuff;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/**
 * Truncated, corrupted and fuzzed BLOCKSCOPE_V1 blocks end in a {@link CorruptBlockException} (an
 * IOException to HBase: a {@code CorruptHFileException}) or decode to the cells of the block they
 * were made from (keys, values, tags and sequence ids), unless the damage keeps the block's length
 * (then it may be a valid block of other cells, which HBase's block checksum stands guard against);
 * every truncation is reported. The blocks are handed over in arrays and direct buffers of exactly
 * their size, so a read past the block would be an {@code ArrayIndexOutOfBounds} or {@code
 * IndexOutOfBounds} exception, which fails the test, as would a negative or huge allocation from an
 * unchecked length ({@code NegativeArraySize}, {@code OutOfMemoryError}). A hang shows as more
 * cells than the block has bytes (every entry takes at least one).
 *
 * <p>The fuzzer is a seeded mutation fuzzer (no Jazzer: it needs its own runner and native agent):
 * 100,000 mutants of valid blocks, each with 1-8 mutations drawn from byte flips, random bytes,
 * runs of 0xFF (endless varints), deletions, insertions, and a rewritten restart count or restart
 * offset; each mutant's first key is read, it is iterated to its end and sought into six times, on
 * the heap and in a direct buffer. Same seed, same mutants, on every run.
 */
public class CorruptBlocksTest {
  private static final DataBlockEncoding ENCODING = BlockscopeEncoding.register();
  private static final BlockscopeV1Encoder ENCODER = new BlockscopeV1Encoder(4);

  /** A valid block, and the cells it walks to: what every read of a mutant must find or refuse. */
  @SuppressWarnings("ArrayRecordComponent") // compared by identity, never by value
  private record Sample(byte[] block, List<KeyValue> cells, boolean tags, boolean mvcc) {}

  private static List<Sample> samples() throws Exception {
    List<Sample> s = new ArrayList<>();
    long seed = 1;
    for (Blocks.Shape shape : new Blocks.Shape[] {Blocks.MANY_PER_ROW, Blocks.DELETES}) {
      for (boolean tags : new boolean[] {false, true}) {
        List<KeyValue> cells = Blocks.cells(shape, seed++, tags, true).subList(0, 120);
        byte[] block = Blocks.encode(ENCODER, ENCODING, cells, tags, true);
        List<KeyValue> walked = Blocks.walk(seeker(tags, true), Blocks.Memory.HEAP.wrap(block));
        s.add(new Sample(block, walked, tags, true));
      }
    }
    return s;
  }

  private static EncodedSeeker seeker(boolean tags, boolean mvcc) {
    return ENCODER.createSeeker(
        ENCODER.newDataBlockDecodingContext(new Configuration(false), Blocks.context(tags, mvcc)));
  }

  @Test
  public void everyTruncationIsReported() throws Exception {
    for (Sample s : samples()) {
      for (int cut = 0; cut < s.block().length; cut++) {
        String what = "truncated to " + cut;
        Reading read = read(Arrays.copyOf(s.block(), cut), s, new Random(cut), what);
        assertReportedConsistently(what, read);
        // a cut moves the trailer: the restart index no longer fits, every cut is refused
        assertNotEquals(what + " decoded", 0, read.reported);
      }
    }
  }

  /**
   * Every mutant that changes the block's length is reported corrupt or decodes to the block's own
   * cells (keys, values, tags and sequence ids, in every read that runs through: the first key, the
   * walk and the seeks); one that decodes to other cells without a report fails the test, named
   * with its mutations. A mutant of the same length may decode to other cells unreported: the
   * format, like each of HBase's encodings, has no checksum of its own, and a changed value or key
   * byte is a valid block of other cells. HBase's block checksums ({@code
   * hbase.regionserver.checksum.verify}, on by default) refuse such a block before it is decoded;
   * the test counts these mutants and prints a few (docs/encoder.md).
   */
  @Test
  public void fuzzedBlocksAreReportedOrDecodeToTheirCells() throws Exception {
    List<Sample> samples = samples();
    Random r = new Random(20_261_122);
    int[] by = new int[8];
    int unchanged = 0;
    int partly = 0;
    List<String> silent = new ArrayList<>();
    List<String> shapeChanged = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      int sample = r.nextInt(samples.size());
      Sample s = samples.get(sample);
      List<String> mutations = new ArrayList<>();
      byte[] m = mutate(s.block(), r, mutations);
      String what = "mutant " + i + " (sample " + sample + ", " + mutations + ")";
      Reading read = read(m, s, r, what);
      by[read.reported]++;
      assertReportedConsistently(what, read);
      if (Arrays.equals(m, s.block())) {
        // mutations that undo each other or write what was there
        unchanged++;
        assertEquals(what + ": reported, though its bytes are the block's", 0, read.reported);
      }
      if (!layoutBits(m)) {
        assertEquals(what + ": a trailer without the layout bits read", EVERY_READ, read.reported);
      }
      if (read.reported == 0 && read.differs != null) {
        if (m.length != s.block().length) {
          // a block of another length moves the trailer and the entries' offsets: refused
          shapeChanged.add(what + ": " + read.differs);
        } else {
          silent.add(read.differs);
        }
      } else if (read.differs != null) {
        partly++;
      }
    }
    // the counts depend on the decoder's checks; none is asserted (each mutant is checked above)
    System.out.println(
        "fuzz, mutants by what reported them (none, first key, walk, ...): "
            + Arrays.toString(by)
            + "; unchanged: "
            + unchanged
            + "; reported by none, yet decoded to other cells (same length): "
            + silent.size()
            + "; reported by a read, and decoded to other cells by another that ran through: "
            + partly);
    if (!silent.isEmpty()) {
      System.out.println(
          "e.g. " + String.join("\n     ", silent.subList(0, Math.min(3, silent.size()))));
    }
    assertEquals(
        "mutants of another length reported by no read, decoding to other cells",
        List.of(),
        shapeChanged);
  }

  /**
   * Whatever the first key read or a seek reports, the walk reports too: it reads every entry, and
   * the first key is checked again by setCurrentBuffer, which every seek starts with.
   */
  private static void assertReportedConsistently(String what, Reading read) {
    if ((read.reported & FIRST_KEY) != 0) {
      assertEquals(what + ": the first key refused, not every read", EVERY_READ, read.reported);
    }
    if ((read.reported & SEEK) != 0) {
      assertEquals(what + ": a seek reported it, the walk not", WALK, read.reported & WALK);
    }
  }

  /** Whether the trailer (last four bytes) of {@code block} has the three layout bits set. */
  private static boolean layoutBits(byte[] block) {
    int layout = BlockscopeV1Format.GROUPED | BlockscopeV1Format.BASE_KEY;
    layout |= BlockscopeV1Format.INLINE_VALUES;
    return block.length >= 4 && (Bytes.toInt(block, block.length - 4) & layout) == layout;
  }

  /**
   * {@code block} with 1-8 mutations; what each was is added to {@code log} (offsets in the block
   * as it was when that mutation was made).
   */
  private static byte[] mutate(byte[] block, Random r, List<String> log) {
    byte[] b = block.clone();
    for (int k = 1 + r.nextInt(8); k > 0 && b.length > 0; k--) {
      int at = r.nextInt(b.length);
      switch (r.nextInt(7)) {
        case 0 -> {
          int bit = r.nextInt(8);
          b[at] ^= (byte) (1 << bit);
          log.add("flip bit " + bit + " at " + at);
        }
        case 1 -> {
          b[at] = (byte) r.nextInt(256);
          log.add("byte " + (b[at] & 0xff) + " at " + at);
        }
        case 2 -> {
          // the run's end is drawn again at each byte: the mutants stay those of the seed
          int j = at;
          for (; j < Math.min(b.length, at + 1 + r.nextInt(12)); j++) {
            b[j] = (byte) 0xff;
          }
          log.add("0xff over " + at + ".." + (j - 1));
        }
        case 3 -> {
          byte[] shorter = new byte[b.length - 1];
          System.arraycopy(b, 0, shorter, 0, at);
          System.arraycopy(b, at + 1, shorter, at, b.length - at - 1);
          b = shorter;
          log.add("delete at " + at);
        }
        case 4 -> {
          byte[] longer = new byte[b.length + 1];
          System.arraycopy(b, 0, longer, 0, at);
          longer[at] = (byte) r.nextInt(256);
          System.arraycopy(b, at, longer, at + 1, b.length - at);
          b = longer;
          log.add("insert " + (b[at] & 0xff) + " at " + at);
        }
        case 5 -> {
          if (b.length >= 4) {
            int v = r.nextBoolean() ? r.nextInt() : r.nextInt(64);
            ByteBuffer.wrap(b).putInt(b.length - 4, v);
            log.add("trailer " + Integer.toHexString(v));
          }
        }
        default -> {
          if (b.length >= 8) {
            int to = r.nextInt(b.length - 7);
            int v = r.nextInt(b.length + 8);
            ByteBuffer.wrap(b).putInt(to, v);
            log.add("int32 " + v + " at " + to);
          }
        }
      }
    }
    return b;
  }

  /**
   * A block of an earlier layout (one whose trailer lacks a layout bit: the grouped layout, the
   * base key, small values in key entries) is refused with the layout named, by the seeker and by
   * the first-key read, not decoded as the current layout.
   */
  @Test
  public void blocksOfAnEarlierLayoutAreRefusedByName() throws Exception {
    Sample s = samples().get(0);
    Object[][] layouts = {
      {BlockscopeV1Format.GROUPED, "block without groups"},
      {BlockscopeV1Format.BASE_KEY, "block without a base key"},
      {BlockscopeV1Format.INLINE_VALUES, "block without inline values"}
    };
    for (Object[] layout : layouts) {
      byte[] old = s.block().clone();
      int at = old.length - 4;
      int trailer = Bytes.toInt(old, at) & ~(int) layout[0];
      Bytes.putInt(old, at, trailer);
      ByteBuff buff = new SingleByteBuff(ByteBuffer.wrap(old));
      EncodedSeeker seeker = seeker(s.tags(), s.mvcc());
      for (Runnable read :
          new Runnable[] {
            () -> seeker.setCurrentBuffer(buff), () -> ENCODER.getFirstKeyCellInBlock(buff)
          }) {
        CorruptBlockException expected = refused(read);
        assertTrue(expected.getMessage(), expected.getMessage().startsWith((String) layout[1]));
      }
    }
  }

  /**
   * After {@code setCurrentBuffer} refused a block, the seeker holds none of the restart index,
   * base cell and current entry of the block before, which getCell, next and seeks would read
   * against the refused block's bytes (HBase's {@code EncodedScanner.updateCurrentBlock} makes the
   * block current before it hands it to the seeker, so it may ask for cells after the refusal). Now
   * every read fails, naming the refusal, until a block that reads is set.
   */
  @Test
  public void aRefusedBlockLeavesTheSeekerNothingOfTheBlockBefore() throws Exception {
    Sample s = samples().get(0);
    byte[] bad = s.block().clone();
    int at = bad.length - 4;
    Bytes.putInt(bad, at, Bytes.toInt(bad, at) & ~BlockscopeV1Format.GROUPED);
    EncodedSeeker seeker = seeker(s.tags(), s.mvcc());
    KeyValue middle = s.cells().get(60);
    seeker.setCurrentBuffer(new SingleByteBuff(ByteBuffer.wrap(s.block())));
    assertEquals(0, seeker.seekToKeyInBlock(middle, false));
    String refusal =
        refused(() -> seeker.setCurrentBuffer(new SingleByteBuff(ByteBuffer.wrap(bad))))
            .getMessage();
    Runnable[] reads = {
      seeker::getCell,
      seeker::getKey,
      seeker::getValueShallowCopy,
      seeker::next,
      () -> seeker.compareKey(CellComparatorImpl.COMPARATOR, middle),
      () -> seeker.seekToKeyInBlock(middle, false),
      () -> seeker.seekToKeyInBlock(middle, true),
      () -> {
        seeker.rewind();
        seeker.getCell();
      }
    };
    for (Runnable read : reads) {
      String m = refused(read).getMessage();
      assertTrue(m, m.startsWith("no block to read") && m.contains(refusal));
    }
    // the next block that reads is read from its first cell
    seeker.setCurrentBuffer(new SingleByteBuff(ByteBuffer.wrap(s.block())));
    for (int i = 0; i < s.cells().size(); i++) {
      assertEquals("cell " + i, 0, Blocks.compare(s.cells().get(i), seeker.getCell()));
      assertEquals(i + 1 < s.cells().size(), seeker.next());
    }
  }

  /** Runs {@code read}, which must throw a CorruptBlockException; returns it. */
  private static CorruptBlockException refused(Runnable read) {
    try {
      read.run();
    } catch (Exception e) {
      if (e instanceof CorruptBlockException c) {
        return c;
      }
      throw new AssertionError("expected a CorruptBlockException, got " + e, e);
    }
    throw new AssertionError("read a corrupt block");
  }

  /** Which reads {@link #read} reported the block corrupt. */
  private static final int FIRST_KEY = 1;

  private static final int WALK = 2;
  private static final int SEEK = 4;
  private static final int EVERY_READ = FIRST_KEY | WALK | SEEK;

  /**
   * What {@link #read} found: which reads reported the block corrupt ({@link #FIRST_KEY}, {@link
   * #WALK}, {@link #SEEK}; 0 if none did), and the first read that ran through to other cells than
   * the sample's (null if none).
   */
  private static final class Reading {
    int reported;
    String differs;

    /**
     * Runs {@code read}, which returns how what it decoded differs from the sample's cells (null if
     * it does not): notes a CorruptBlockException as reported by {@code kind}, anything else that
     * comes out fails the test.
     */
    void attempt(int kind, String what, Supplier<String> read) {
      try {
        String d = read.get();
        if (d != null && differs == null) {
          differs = what + ": " + d;
        }
      } catch (Exception | Error e) {
        // a CorruptBlockException is checked (an IOException), thrown through Supplier.get as
        // through HBase's seeker interface: the compiler cannot name it in a catch here
        if (e instanceof CorruptBlockException) {
          reported |= kind;
          return;
        }
        throw new AssertionError(what + ": " + e, e);
      }
    }
  }

  /**
   * Reads {@code block}, a mutant of {@code s}'s, in every way a reader does: the first key, a full
   * walk, and seeks (to cells, and seekBefore to rows) each on a fresh position, so that seeks meet
   * damage the walk would have stopped at; each that runs through is checked against the sample's
   * cells: the first key, every cell walked and their number, and where each seek lands and the
   * cell after it.
   */
  private static Reading read(byte[] block, Sample s, Random r, String what) {
    Reading reading = new Reading();
    List<KeyValue> cells = s.cells();
    for (boolean direct : new boolean[] {false, true}) {
      ByteBuff buff;
      if (direct) {
        ByteBuffer d = ByteBuffer.allocateDirect(block.length);
        d.put(block).flip();
        buff = new SingleByteBuff(d);
      } else {
        buff = new SingleByteBuff(ByteBuffer.wrap(block));
      }
      EncodedSeeker seeker = seeker(s.tags(), s.mvcc());
      String where = what + (direct ? " (direct)" : " (heap)");
      reading.attempt(
          FIRST_KEY,
          where + " first key",
          () -> {
            Cell first = ENCODER.getFirstKeyCellInBlock(buff);
            return Blocks.compare(cells.get(0), first) == 0 ? null : "got " + describeKey(first);
          });
      reading.attempt(
          WALK,
          where + " walk",
          () -> {
            seeker.setCurrentBuffer(buff);
            String differs = null;
            int n = 0;
            do {
              Cell c = seeker.getCell();
              c.getValueLength();
              if (differs == null) {
                differs =
                    n < cells.size() ? differs(cells.get(n), c, s, "cell " + n) : "more cells";
              }
              if (++n > block.length) {
                fail(what + ": more cells than bytes, the seeker does not advance");
              }
            } while (seeker.next());
            return differs != null || n == cells.size() ? differs : n + " cells of " + cells.size();
          });
      for (int k = 0; k < 6; k++) {
        int target = r.nextInt(cells.size());
        boolean before = k % 2 == 1;
        Cell key =
            before
                ? PrivateCellUtil.createFirstOnRow(CellUtil.cloneRow(cells.get(target)))
                : cells.get(target);
        // seekBefore a row lands on the cell before the row's first (none before the first row)
        int lands = target;
        if (before) {
          while (lands > 0 && CellUtil.matchingRows(cells.get(lands - 1), key)) {
            lands--;
          }
          lands--;
        }
        int at = lands;
        reading.attempt(
            SEEK,
            where + (before ? " seekBefore " : " seek to ") + key,
            () -> {
              seeker.setCurrentBuffer(buff);
              seeker.rewind();
              try {
                seeker.seekToKeyInBlock(key, before);
              } catch (IllegalStateException firstKeyOfTheBlock) {
                // HBase's contract (BufferedDataBlockEncoder's seekers throw the
                // same): seekBefore the block's first key, which
                // HFileScannerImpl.seekBefore never asks. Nothing else may come out as an
                // IllegalStateException: corruption is a CorruptBlockException, which is
                // not one (if it were, this catch would count it as decoded).
                assertTrue(
                    what + ": " + firstKeyOfTheBlock,
                    before
                        && firstKeyOfTheBlock
                            .getMessage()
                            .startsWith(
                                "Cannot seekBefore if positioned at the first key in the block"));
                return at < 0 ? null : "refused as the first row";
              }
              if (at < 0) {
                return "landed on " + describe(seeker.getCell()) + " before the first row";
              }
              String differs = differs(cells.get(at), seeker.getCell(), s, "landed on cell " + at);
              boolean next = seeker.next();
              if (differs == null && next != at + 1 < cells.size()) {
                differs = "next() " + next + " after cell " + at;
              }
              return differs != null || !next
                  ? differs
                  : differs(cells.get(at + 1), seeker.getCell(), s, "next, cell " + (at + 1));
            });
      }
    }
    return reading;
  }

  /** How {@code got}, read as cell {@code which}, differs from {@code expected}; null if not. */
  private static String differs(Cell expected, Cell got, Sample s, String which) {
    String field = Blocks.difference(expected, got, s.tags(), s.mvcc());
    return field == null ? null : which + ": " + field + " differs, " + describe(got);
  }

  /**
   * {@code c} as text, its type as a number: a cell decoded from a mutant may have a type byte that
   * is no KeyValue.Type, on which Cell.toString throws.
   */
  private static String describe(Cell c) {
    return describeKey(c) + "/vlen=" + c.getValueLength() + "/seqid=" + c.getSequenceId();
  }

  /** The key of {@code c} as text, as {@link #describe} writes it (a key-only cell has no more). */
  private static String describeKey(Cell c) {
    return Bytes.toStringBinary(CellUtil.cloneRow(c))
        + "/"
        + Bytes.toStringBinary(CellUtil.cloneFamily(c))
        + ":"
        + Bytes.toStringBinary(CellUtil.cloneQualifier(c))
        + "/"
        + c.getTimestamp()
        + "/type "
        + (c.getTypeByte() & 0xff);
  }
}
