package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertEquals;

import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.PerfLevel;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.io.hfile.HFileBlockBuilder;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.nio.SingleByteBuff;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * Every call of every probe that counts something, drilled: doubled it counts each event twice,
 * halved it drops exactly every other counted event (the first of each drill), and the calls that
 * count nothing (a locked second cache lookup, a miss whose block kind is not known yet, a block
 * start, an unchecksummed or uncompressed block, a segment's end) take no event, so they never
 * decide which counted event is dropped.
 */
public class DrillEveryCallTest {
  private static final int CALLS = 1_001;

  private final BridgeHandle bridge = BridgeHandle.resolve(BlockType.class.getClassLoader(), null);
  private long[] costs;
  private long savedLevel;

  private static final HFileContext GZ =
      new HFileContextBuilder().withCompression(Compression.Algorithm.GZ).build();
  private static final HFileContext NONE =
      new HFileContextBuilder().withCompression(Compression.Algorithm.NONE).build();

  private static final HFileBlock DATA =
      new HFileBlockBuilder()
          .withBlockType(BlockType.DATA)
          .withOnDiskSizeWithoutHeader(1_000)
          .withUncompressedSizeWithoutHeader(1_000)
          .withOnDiskDataSizeWithHeader(1_029)
          .withPrevBlockOffset(-1)
          .withByteBuff(new SingleByteBuff(ByteBuffer.allocate(1_033)))
          .withFillHeader(true)
          .withOffset(0)
          .withNextBlockOnDiskSize(-1)
          .withHFileContext(NONE)
          .withByteBuffAllocator(ByteBuffAllocator.HEAP)
          .withShared(false)
          .build();

  private static ByteBuff checksummed(byte type) {
    ByteBuffer b = ByteBuffer.allocate(100);
    b.put(ProbeBridge.HEADER_CHECKSUM_TYPE, type);
    b.putInt(ProbeBridge.HEADER_BYTES_PER_CHECKSUM, 16_384);
    b.putInt(ProbeBridge.HEADER_ON_DISK_DATA_SIZE_WITH_HEADER, 96);
    return new SingleByteBuff(b);
  }

  private static final ByteBuff CRC32C = checksummed((byte) 3);
  private static final ByteBuff NOT_CHECKSUMMED = checksummed((byte) 0);
  private static final KeyValue CELL =
      new KeyValue(Bytes.toBytes("row"), Bytes.toBytes("f"), Bytes.toBytes("q"), Bytes.toBytes(1));

  /** One counting call: the probe, the slot it fills and by how much, the call and a non-call. */
  private record Call(String name, int probe, int slot, long per, Runnable counts, Runnable not) {}

  private static List<Call> calls() {
    int gz = CostLayout.decompress(CostLayout.algorithmIndex("GZ"), CostLayout.DECOMPRESS_BLOCKS);
    int other = CostLayout.N_ENCODINGS - 1;
    List<Call> c = new ArrayList<>();
    c.add(
        new Call(
            "cache hit",
            ProbeBridge.CACHE,
            CostLayout.CACHE_HIT + CostLayout.KIND_DATA,
            1,
            () -> ProbeBridge.cacheLookup(DATA, false, true, BlockType.DATA),
            () -> ProbeBridge.cacheLookup(null, true, true, BlockType.DATA)));
    c.add(
        new Call(
            "cache miss of a known kind",
            ProbeBridge.CACHE,
            CostLayout.CACHE_MISS + CostLayout.KIND_DATA,
            1,
            () -> ProbeBridge.cacheLookup(null, false, true, BlockType.DATA),
            () -> ProbeBridge.cacheLookup(null, true, true, null)));
    c.add(
        new Call(
            "cache miss settled by readBlock",
            ProbeBridge.CACHE,
            CostLayout.CACHE_MISS + CostLayout.KIND_DATA,
            1,
            () -> {
              ProbeBridge.cacheLookup(null, false, true, null); // takes no event
              ProbeBridge.readBlockDone(DATA, null);
            },
            () -> ProbeBridge.readBlockDone(DATA, null))); // nothing pending: no event
    c.add(
        new Call(
            "file-system read",
            ProbeBridge.FS_READ,
            CostLayout.FS_BLOCKS + CostLayout.KIND_DATA,
            1,
            () -> ProbeBridge.fsRead(DATA),
            () -> ProbeBridge.fsRead(null)));
    c.add(
        new Call(
            "file-system bytes",
            ProbeBridge.FS_READ,
            CostLayout.FS_BYTES + CostLayout.KIND_DATA,
            DATA.getOnDiskSizeWithHeader(),
            () -> ProbeBridge.fsRead(DATA),
            () -> ProbeBridge.fsRead(null)));
    c.add(
        new Call(
            "checksum",
            ProbeBridge.CHECKSUM,
            CostLayout.CHECKSUM_BYTES,
            100,
            () -> ProbeBridge.checksum(CRC32C, true, 0),
            () -> ProbeBridge.checksum(NOT_CHECKSUMMED, true, 0)));
    c.add(
        new Call(
            "decompression",
            ProbeBridge.DECOMPRESS,
            gz,
            1,
            () -> ProbeBridge.decompressed(GZ, 10, 20, 0),
            () -> ProbeBridge.decompressed(NONE, 10, 10, 0)));
    c.add(
        new Call(
            "decoded cell",
            ProbeBridge.DECODE,
            CostLayout.decode(other, CostLayout.DECODE_CELLS),
            1,
            () -> ProbeBridge.cell(other),
            () -> ProbeBridge.seekerCall(new Object(), false, 0))); // a block start
    c.add(
        new Call(
            "seek",
            ProbeBridge.DECODE,
            CostLayout.decode(other, CostLayout.DECODE_SEEKS),
            1,
            () -> ProbeBridge.seekerCall(new Object(), true, 0),
            () -> ProbeBridge.seekerCall(new Object(), false, 0)));
    c.add(
        new Call(
            "memstore cell",
            ProbeBridge.MEMSTORE,
            CostLayout.MEMSTORE_CELLS,
            1,
            () -> ProbeBridge.memstoreCell(CELL),
            () -> ProbeBridge.memstoreCell(null))); // past the segment's end
    c.add(
        new Call(
            "memstore bytes",
            ProbeBridge.MEMSTORE,
            CostLayout.MEMSTORE_BYTES,
            CELL.getSerializedSize(),
            () -> ProbeBridge.memstoreCell(CELL),
            () -> ProbeBridge.memstoreCell(null)));
    return c;
  }

  @Before
  public void countOnThisThread() {
    // the maps an engine sets: block types to kinds, algorithms to slots, seekers to encodings
    bridge.maps(
        ProbeInstaller.blockTypeMap(),
        ProbeInstaller.algorithmMap(),
        seeker -> CostLayout.N_ENCODINGS - 1);
    costs = ProbeBridge.costs();
    savedLevel = costs[CostLayout.LEVEL];
    costs[CostLayout.LEVEL] = PerfLevel.COUNT.ordinal();
  }

  @After
  public void endTheDrill() {
    bridge.drill(null);
    costs[CostLayout.PENDING_MISS] = 0;
    costs[CostLayout.LEVEL] = savedLevel;
  }

  /** What {@code call} adds to its slot over {@link #CALLS} calls, each between two non-calls. */
  private long run(Call call) {
    long before = costs[call.slot()];
    for (int i = 0; i < CALLS; i++) {
      call.not().run();
      call.counts().run();
      call.not().run();
    }
    return costs[call.slot()] - before;
  }

  @Test
  public void eachCountingCallCountsOnceDoubledTwiceAndHalvedExactly() {
    for (Call call : calls()) {
      assertEquals(call.name(), CALLS * call.per(), run(call));
      bridge.drill(new ProbeDrill(call.probe(), ProbeDrill.Mode.DOUBLE));
      assertEquals(call.name() + " doubled", 2 * CALLS * call.per(), run(call));
      bridge.drill(new ProbeDrill(call.probe(), ProbeDrill.Mode.DROP_EVERY_OTHER));
      // 1,001 events: the first dropped, then every other: 500 kept, every run alike
      assertEquals(call.name() + " halved", (CALLS / 2) * call.per(), run(call));
      bridge.drill(new ProbeDrill(call.probe(), ProbeDrill.Mode.DROP_EVERY_OTHER));
      assertEquals(call.name() + " halved again", (CALLS / 2) * call.per(), run(call));
      bridge.drill(null);
    }
  }
}
