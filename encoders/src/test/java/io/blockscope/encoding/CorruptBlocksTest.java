package io.blockscope.encoding;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder.EncodedSeeker;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.nio.SingleByteBuff;
import org.junit.Test;

/**
 * Truncated, corrupted and fuzzed BLOCKSCOPE_V1 blocks end in a {@link CorruptBlockException} or
 * decode to some cells; nothing else. The blocks are handed over in arrays and direct buffers of
 * exactly their size, so a read past the block would be an {@code ArrayIndexOutOfBounds} or
 * {@code IndexOutOfBounds} exception, which fails the test, as would a negative or huge
 * allocation from an unchecked length ({@code NegativeArraySize}, {@code OutOfMemoryError}).
 * A hang shows as more cells than the block has bytes (every entry takes at least one).
 *
 * <p>The fuzzer is a seeded mutation fuzzer (no Jazzer: it needs its own runner and native
 * agent): 100,000 mutants of valid blocks, each with 1-8 mutations drawn from byte flips, random
 * bytes, runs of 0xFF (endless varints), deletions, insertions, and a rewritten restart count or
 * restart offset; each mutant is iterated to its end and sought into five times. Same seed, same
 * mutants, on every run.
 */
public class CorruptBlocksTest {
  private static final DataBlockEncoding ENCODING = BlockscopeEncoding.register();
  private static final BlockscopeV1Encoder ENCODER = new BlockscopeV1Encoder(4);

  private record Sample(byte[] block, List<KeyValue> cells, boolean tags, boolean mvcc) {}

  private static List<Sample> samples() throws Exception {
    List<Sample> s = new ArrayList<>();
    long seed = 1;
    for (Blocks.Shape shape : new Blocks.Shape[] {Blocks.MANY_PER_ROW, Blocks.DELETES}) {
      for (boolean tags : new boolean[] {false, true}) {
        List<KeyValue> cells = Blocks.cells(shape, seed++, tags, true).subList(0, 120);
        s.add(new Sample(Blocks.encode(ENCODER, ENCODING, cells, tags, true), cells, tags, true));
      }
    }
    return s;
  }

  @Test
  public void everyTruncationIsReportedOrHarmless() throws Exception {
    for (Sample s : samples()) {
      for (int cut = 0; cut < s.block().length; cut++) {
        byte[] t = java.util.Arrays.copyOf(s.block(), cut);
        read(t, s, new Random(cut), "truncated to " + cut);
      }
    }
  }

  @Test
  public void fuzzedBlocksEndInATypedException() throws Exception {
    List<Sample> samples = samples();
    Random r = new Random(20_261_122);
    int corrupt = 0;
    for (int i = 0; i < 100_000; i++) {
      Sample s = samples.get(r.nextInt(samples.size()));
      byte[] m = mutate(s.block(), r);
      if (!read(m, s, r, "mutant " + i)) {
        corrupt++;
      }
    }
    System.out.println("fuzz: " + corrupt + " of 100000 mutants reported corrupt, the others "
        + "decoded");
    // the checks do fire: most mutants are caught, not decoded as garbage
    assertTrue("mutants reported corrupt: " + corrupt, corrupt > 50_000);
  }

  private static byte[] mutate(byte[] block, Random r) {
    byte[] b = block.clone();
    for (int k = 1 + r.nextInt(8); k > 0 && b.length > 0; k--) {
      int at = r.nextInt(b.length);
      switch (r.nextInt(7)) {
        case 0 -> b[at] ^= (byte) (1 << r.nextInt(8));
        case 1 -> b[at] = (byte) r.nextInt(256);
        case 2 -> {
          for (int j = at; j < Math.min(b.length, at + 1 + r.nextInt(12)); j++) {
            b[j] = (byte) 0xff;
          }
        }
        case 3 -> {
          byte[] shorter = new byte[b.length - 1];
          System.arraycopy(b, 0, shorter, 0, at);
          System.arraycopy(b, at + 1, shorter, at, b.length - at - 1);
          b = shorter;
        }
        case 4 -> {
          byte[] longer = new byte[b.length + 1];
          System.arraycopy(b, 0, longer, 0, at);
          longer[at] = (byte) r.nextInt(256);
          System.arraycopy(b, at, longer, at + 1, b.length - at);
          b = longer;
        }
        case 5 -> {
          if (b.length >= 4) {
            ByteBuffer.wrap(b).putInt(b.length - 4, r.nextBoolean() ? r.nextInt() : r.nextInt(64));
          }
        }
        default -> {
          if (b.length >= 8) {
            ByteBuffer.wrap(b).putInt(r.nextInt(b.length - 7), r.nextInt(b.length + 8));
          }
        }
      }
    }
    return b;
  }

  /**
   * A block of an earlier layout (one whose trailer lacks a layout bit: the grouped layout, the
   * base key, small values in key entries) is refused with the layout named, by the seeker and
   * by the first-key read, not decoded as the current layout.
   */
  @Test
  public void blocksOfAnEarlierLayoutAreRefusedByName() throws Exception {
    Sample s = samples().get(0);
    Object[][] layouts = {{BlockscopeV1Encoder.GROUPED, "block without groups"},
        {BlockscopeV1Encoder.BASE_KEY, "block without a base key"},
        {BlockscopeV1Encoder.INLINE_VALUES, "block without inline values"}};
    for (Object[] layout : layouts) {
      byte[] old = s.block().clone();
      int at = old.length - 4;
      int trailer = org.apache.hadoop.hbase.util.Bytes.toInt(old, at) & ~(int) layout[0];
      org.apache.hadoop.hbase.util.Bytes.putInt(old, at, trailer);
      ByteBuff buff = new SingleByteBuff(ByteBuffer.wrap(old));
      EncodedSeeker seeker = ENCODER.createSeeker(ENCODER.newDataBlockDecodingContext(
          new Configuration(false), Blocks.context(s.tags(), s.mvcc())));
      for (Runnable read : new Runnable[] {() -> seeker.setCurrentBuffer(buff),
          () -> ENCODER.getFirstKeyCellInBlock(buff)}) {
        try {
          read.run();
          fail("read a block without " + layout[1]);
        } catch (CorruptBlockException expected) {
          assertTrue(expected.getMessage(), expected.getMessage().startsWith((String) layout[1]));
        }
      }
    }
  }

  /**
   * Reads {@code block} in every way a reader does: the first key, a full walk, and seeks (to
   * cells, and seekBefore to rows) each on a fresh position, so that seeks meet damage the walk
   * would have stopped at; true if everything decoded, false if anything was reported.
   */
  private static boolean read(byte[] block, Sample s, Random r, String what) {
    boolean decoded = true;
    for (boolean direct : new boolean[] {false, true}) {
      ByteBuff buff;
      if (direct) {
        ByteBuffer d = ByteBuffer.allocateDirect(block.length);
        d.put(block).flip();
        buff = new SingleByteBuff(d);
      } else {
        buff = new SingleByteBuff(ByteBuffer.wrap(block));
      }
      EncodedSeeker seeker = ENCODER.createSeeker(ENCODER.newDataBlockDecodingContext(
          new Configuration(false), Blocks.context(s.tags(), s.mvcc())));
      String where = what + (direct ? " (direct)" : " (heap)");
      decoded &= reported(where, () -> ENCODER.getFirstKeyCellInBlock(buff));
      decoded &= reported(where, () -> {
        seeker.setCurrentBuffer(buff);
        int cells = 0;
        do {
          Cell c = seeker.getCell();
          c.getValueLength();
          if (++cells > block.length) {
            fail(what + ": more cells than bytes, the seeker does not advance");
          }
        } while (seeker.next());
      });
      for (int k = 0; k < 6; k++) {
        Cell target = s.cells().get(r.nextInt(s.cells().size()));
        boolean before = k % 2 == 1;
        Cell key = before ? PrivateCellUtil.createFirstOnRow(CellUtil.cloneRow(target)) : target;
        decoded &= reported(where, () -> {
          seeker.setCurrentBuffer(buff);
          seeker.rewind();
          try {
            seeker.seekToKeyInBlock(key, before);
          } catch (IllegalStateException firstKeyOfTheBlock) {
            // HBase's contract: seekBefore the block's first key; the reader never asks it
            return;
          }
          seeker.getCell();
          seeker.next();
        });
      }
    }
    return decoded;
  }

  /** Runs {@code read}: true if it ran through, false if it reported the block corrupt. */
  private static boolean reported(String what, Runnable read) {
    try {
      read.run();
      return true;
    } catch (CorruptBlockException reported) {
      return false;
    } catch (RuntimeException | Error e) {
      throw new AssertionError(what + ": " + e, e);
    }
  }
}
