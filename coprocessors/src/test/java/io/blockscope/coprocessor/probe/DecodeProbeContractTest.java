package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.encoding.BlockscopeEncoding;
import io.blockscope.metrics.CostLayout;
import java.io.DataOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.ByteArrayOutputStream;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.encoding.HFileBlockEncodingContext;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.nio.SingleByteBuff;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * One contract for every encoding's seeker, with the probes woven into this JVM: walking a block
 * decodes each cell exactly once, a seek is one seek, and OFF counts nothing.
 */
public class DecodeProbeContractTest {
  private static final int ROWS = 500;

  @BeforeClass
  public static void weave() {
    // BLOCKSCOPE_V1 (the encoders jar, a test dependency) takes the same contract, counted
    // under its own name, on every HBase this builds against (2.5 and 2.6: docs/compatibility.md)
    BlockscopeEncoding.register();
    List<String> problems = new ArrayList<>();
    ProbeInstaller.installAll(true, 30_000, problems);
    assertTrue(problems.toString(), problems.isEmpty());
  }

  private static DataBlockEncoder.EncodedSeeker seeker(DataBlockEncoding enc, ByteBuffer[] block)
      throws Exception {
    HFileContext meta =
        new HFileContextBuilder()
            .withIncludesMvcc(false)
            .withIncludesTags(false)
            .withDataBlockEncoding(enc)
            .build();
    Configuration conf = new Configuration(false);
    DataBlockEncoder encoder = enc.getEncoder();
    // the block as HFileBlock.Writer makes it: dummy header, start, every cell, end, which is
    // handed the stream's own buffer (baosInMemory.getBuffer()): encoders write into it in place
    // (BufferedDataBlockEncoder its unencoded size, BLOCKSCOPE_V1 its whole block)
    HFileBlockEncodingContext ctx =
        encoder.newDataBlockEncodingContext(conf, enc, HConstants.HFILEBLOCK_DUMMY_HEADER, meta);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.write(HConstants.HFILEBLOCK_DUMMY_HEADER);
    DataOutputStream out = new DataOutputStream(bytes);
    encoder.startBlockEncoding(ctx, out);
    for (int pk = 0; pk < ROWS; pk++) {
      for (String q : List.of("v1", "v2")) {
        encoder.encode(
            new KeyValue(
                Bytes.toBytes(pk),
                Bytes.toBytes("0"),
                Bytes.toBytes(q),
                1L,
                Bytes.toBytes((float) pk)),
            ctx,
            out);
      }
    }
    encoder.endBlockEncoding(ctx, out, bytes.getBuffer());
    byte[] encoded = bytes.toByteArray();
    int skip = HConstants.HFILEBLOCK_HEADER_SIZE + Bytes.SIZEOF_SHORT;
    block[0] = ByteBuffer.wrap(encoded, skip, encoded.length - skip).slice();
    return encoder.createSeeker(encoder.newDataBlockDecodingContext(conf, meta));
  }

  private static long[] costsAt(int level) {
    long[] c = ProbeBridge.costs();
    Arrays.fill(c, 0);
    c[CostLayout.LEVEL] = level;
    return c;
  }

  @Test
  public void everySeekerDecodesEachCellOnceAndCountsSeeks() throws Exception {
    for (DataBlockEncoding enc : DataBlockEncoding.values()) {
      if (enc.getEncoder() == null) {
        continue;
      }
      ByteBuffer[] block = new ByteBuffer[1];
      DataBlockEncoder.EncodedSeeker s = seeker(enc, block);
      int index = CostLayout.encodingIndex(enc.name());
      long[] c = costsAt(1);
      s.setCurrentBuffer(new SingleByteBuff(block[0].duplicate()));
      int walked = 1;
      while (s.next()) {
        walked++;
      }
      assertEquals(enc.name(), 2 * ROWS, walked);
      assertEquals(
          enc.name() + " cells", 2L * ROWS, c[CostLayout.decode(index, CostLayout.DECODE_CELLS)]);
      for (int other = 0; other < CostLayout.N_ENCODINGS; other++) {
        if (other != index) {
          assertEquals(
              enc.name() + " cells counted under " + CostLayout.ENCODINGS.get(other),
              0,
              c[CostLayout.decode(other, CostLayout.DECODE_CELLS)]);
        }
      }
      assertEquals(enc.name() + " seeks", 0, c[CostLayout.decode(index, CostLayout.DECODE_SEEKS)]);
      assertEquals(
          enc.name() + " nanos at COUNT", 0, c[CostLayout.decode(index, CostLayout.DECODE_NANOS)]);

      s.rewind();
      KeyValue target = lastRowsFirstCell();
      long before = c[CostLayout.decode(index, CostLayout.DECODE_CELLS)];
      assertEquals(enc.name(), 0, s.seekToKeyInBlock(target, false));
      assertEquals(enc.name() + " seeks", 1, c[CostLayout.decode(index, CostLayout.DECODE_SEEKS)]);
      long seekWalk = c[CostLayout.decode(index, CostLayout.DECODE_CELLS)] - before;
      if (enc == DataBlockEncoding.ROW_INDEX_V1) {
        // its row index finds the row: one decodeNext, from decodeAtPosition
        assertEquals(enc.name() + " cells of the seek", 1, seekWalk);
      } else if (LINEAR.contains(enc)) {
        // from rewind's first cell, one decodeNext per cell up to the last row's first
        assertEquals(enc.name() + " cells of the seek", 2 * ROWS - 2, seekWalk);
      } else {
        assertTrue(enc.name() + " a seek decodes cells", seekWalk > 0);
      }

      // past the block's last cell: the walk ends at the block's end (the other return)
      s.rewind();
      before = c[CostLayout.decode(index, CostLayout.DECODE_CELLS)];
      assertEquals(enc.name(), 1, s.seekToKeyInBlock(pastTheEnd(), false));
      seekWalk = c[CostLayout.decode(index, CostLayout.DECODE_CELLS)] - before;
      if (enc == DataBlockEncoding.ROW_INDEX_V1) {
        // the last row's first cell from decodeAtPosition, then its second
        assertEquals(enc.name() + " cells of the seek", 2, seekWalk);
      } else if (LINEAR.contains(enc)) {
        assertEquals(enc.name() + " cells of the seek", 2 * ROWS - 1, seekWalk);
      }

      // seekBefore an exact match steps back, a walk of its own
      s.rewind();
      before = c[CostLayout.decode(index, CostLayout.DECODE_CELLS)];
      assertEquals(enc.name(), 1, s.seekToKeyInBlock(target, true));
      seekWalk = c[CostLayout.decode(index, CostLayout.DECODE_CELLS)] - before;
      if (LINEAR.contains(enc)) {
        assertEquals(enc.name() + " cells of seekBefore", 2 * ROWS - 2, seekWalk);
      }
      assertEquals(enc.name() + " seeks", 3, c[CostLayout.decode(index, CostLayout.DECODE_SEEKS)]);
    }
  }

  /** HBase's encodings whose seek walks the block cell by cell from its first cell. */
  private static final List<DataBlockEncoding> LINEAR =
      List.of(DataBlockEncoding.PREFIX, DataBlockEncoding.DIFF, DataBlockEncoding.FAST_DIFF);

  /** A key after every cell of the block. */
  private static KeyValue pastTheEnd() {
    return new KeyValue(
        Bytes.toBytes(ROWS), Bytes.toBytes("0"), Bytes.toBytes("v1"), 1L, Bytes.toBytes(0f));
  }

  @Test
  public void offCountsNothingAndTimeTimes() throws Exception {
    ByteBuffer[] block = new ByteBuffer[1];
    DataBlockEncoder.EncodedSeeker s = seeker(DataBlockEncoding.FAST_DIFF, block);
    long[] off = costsAt(0);
    s.setCurrentBuffer(new SingleByteBuff(block[0].duplicate()));
    while (s.next()) {
      // walk
    }
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      assertEquals(CostLayout.name(i), 0, off[i]);
    }
    long[] time = costsAt(2);
    s.setCurrentBuffer(new SingleByteBuff(block[0].duplicate()));
    while (s.next()) {
      // walk
    }
    int fastDiff = CostLayout.encodingIndex("FAST_DIFF");
    assertTrue(time[CostLayout.decode(fastDiff, CostLayout.DECODE_NANOS)] > 0);
    costsAt(0);
  }

  /** The sampling state after {@code decisions} decisions from a fresh thread's. */
  private static long stateAfter(long decisions) {
    long state = 0;
    for (long i = 0; i < decisions; i++) {
      state = ProbeBridge.nextState(state);
    }
    return state;
  }

  /**
   * At TIME each cell is still counted, but only the cell steps outside a seek or block start are
   * sampling decisions of their own (one in {@link ProbeBridge#CELL_SAMPLE} of them timed, at
   * random); the cells a seek decodes are in the seek's call, and the flag it set is gone when it
   * returns.
   */
  @Test
  public void timeSamplesCellStepsOutsideSeeks() throws Exception {
    ByteBuffer[] block = new ByteBuffer[1];
    DataBlockEncoder.EncodedSeeker s = seeker(DataBlockEncoding.FAST_DIFF, block);
    int fastDiff = CostLayout.encodingIndex("FAST_DIFF");
    long[] time = costsAt(2);
    s.setCurrentBuffer(new SingleByteBuff(block[0].duplicate()));
    assertEquals(
        "a block start is one decision, its first cell none",
        stateAfter(1),
        time[CostLayout.CELL_SAMPLING]);
    int steps = 0;
    while (s.next()) {
      steps++;
    }
    assertEquals(2 * ROWS - 1, steps);
    assertEquals(stateAfter(1 + steps), time[CostLayout.CELL_SAMPLING]);
    assertEquals(2L * ROWS, time[CostLayout.decode(fastDiff, CostLayout.DECODE_CELLS)]);
    assertTrue(
        "sampled steps are timed", time[CostLayout.decode(fastDiff, CostLayout.DECODE_NANOS)] > 0);

    s.rewind();
    KeyValue last = lastRowsFirstCell();
    long cellsBefore = time[CostLayout.decode(fastDiff, CostLayout.DECODE_CELLS)];
    assertEquals(0, s.seekToKeyInBlock(last, false));
    // from the first cell (rewind's), the seek decodes every cell up to the last row's first
    assertEquals(
        cellsBefore + 2 * (ROWS - 1), time[CostLayout.decode(fastDiff, CostLayout.DECODE_CELLS)]);
    assertEquals(
        "the rewind and the seek are a decision each, their cells none",
        stateAfter(3 + steps),
        time[CostLayout.CELL_SAMPLING]);
    costsAt(0);
  }

  /**
   * At TIME a seek or block start is timed, with its cells, when its decision says so (one in
   * {@link ProbeBridge#SEEK_SAMPLE}), and counted that many times; every seek is counted, and the
   * calls not timed add no time.
   */
  @Test
  public void timeTimesSampledSeekerCallsAndScalesThem() throws Exception {
    ByteBuffer[] block = new ByteBuffer[1];
    DataBlockEncoder.EncodedSeeker s = seeker(DataBlockEncoding.FAST_DIFF, block);
    int fastDiff = CostLayout.encodingIndex("FAST_DIFF");
    int nanos = CostLayout.decode(fastDiff, CostLayout.DECODE_NANOS);
    KeyValue last = lastRowsFirstCell();
    long[] time = costsAt(2);
    s.setCurrentBuffer(new SingleByteBuff(block[0].duplicate()));
    long state = ProbeBridge.nextState(0);
    int timedCalls = (state & (ProbeBridge.SEEK_SAMPLE - 1)) == 0 ? 1 : 0;
    for (int call = 2; call <= 320; call++) {
      long before = time[nanos];
      s.seekToKeyInBlock(last, false);
      state = ProbeBridge.nextState(state);
      boolean sampled = (state & (ProbeBridge.SEEK_SAMPLE - 1)) == 0;
      timedCalls += sampled ? 1 : 0;
      if (sampled) {
        assertTrue("call " + call + " is timed", time[nanos] > before);
      } else {
        assertEquals("call " + call + " is not timed", before, time[nanos]);
      }
    }
    assertEquals(state, time[CostLayout.CELL_SAMPLING]);
    assertEquals(319, time[CostLayout.decode(fastDiff, CostLayout.DECODE_SEEKS)]);
    assertEquals("timed and counted 16 times", 0, time[nanos] % ProbeBridge.SEEK_SAMPLE);
    assertTrue("about one call in 16 of 320 was timed: " + timedCalls, timedCalls >= 8);
    assertTrue(timedCalls <= 40);
    costsAt(0);
  }

  /** While the engine says no region is measured, even a thread at COUNT counts nothing. */
  @Test
  public void nothingIsReadWhileNoRegionIsMeasured() throws Exception {
    ByteBuffer[] block = new ByteBuffer[1];
    DataBlockEncoder.EncodedSeeker s = seeker(DataBlockEncoding.ROW_INDEX_V1, block);
    long[] count = costsAt(1);
    ProbeBridge.measuring = false;
    try {
      s.setCurrentBuffer(new SingleByteBuff(block[0].duplicate()));
      while (s.next()) {
        // walk
      }
    } finally {
      ProbeBridge.measuring = true;
    }
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      assertEquals(CostLayout.name(i), 0, count[i]);
    }
    s.rewind();
    assertEquals(
        1L,
        count[
            CostLayout.decode(CostLayout.encodingIndex("ROW_INDEX_V1"), CostLayout.DECODE_CELLS)]);
    costsAt(0);
  }

  /** The block's last row's first cell, as the blocks above are written. */
  private static KeyValue lastRowsFirstCell() {
    return new KeyValue(
        Bytes.toBytes(ROWS - 1),
        Bytes.toBytes("0"),
        Bytes.toBytes("v1"),
        1L,
        Bytes.toBytes((float) (ROWS - 1)));
  }
}
