package io.blockscope.benchmarks;

import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.metrics.CostLayout;
import io.blockscope.workloads.RawTable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.HFileBlockDefaultDecodingContext;
import org.apache.hadoop.hbase.io.hfile.BenchmarkChecksums;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.nio.SingleByteBuff;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.ChecksumType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The two per-block probes against what their block costs and against the machine's limit, on the
 * first data block of a real HFile (HBase's writer, seeds' rows, 64 KB blocks, GZ, CRC32C checksums
 * every 16 KB, as a region server writes them):
 *
 * <ul>
 *   <li>{@code hbaseChecksum}: {@code ChecksumUtil.validateChecksum} on the block as read from disk
 *       (header, GZ data, checksums), the method the checksum probe is woven into;
 *   <li>{@code crc32c}: {@link CRC32C} over the same bytes in the same 16 KB chunks, the JDK's
 *       intrinsic (the SSE 4.2 / ARMv8 instruction): the physical limit of that verification;
 *   <li>{@code gzDecompress}: {@code HFileBlockDefaultDecodingContext.prepareDecoding} of the
 *       block, the method the decompression probe is woven into.
 * </ul>
 *
 * With the probes not installed and installed at OFF, COUNT and TIME; each probe runs once per
 * call, so a mode's difference to NOT_INSTALLED is the probe's cost per block.
 *
 * <p>Run: {@code bin/blockscope jmh BlockProbeBenchmark}.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BlockProbeBenchmark extends ProbeModeBenchmark {
  private ByteBuffer onDisk;
  private int dataSizeWithHeader;
  private int bytesPerChecksum;
  private int compressedSize;
  private ByteBuffer unpacked;
  private HFileBlockDefaultDecodingContext decoding;
  private final CRC32C crc = new CRC32C();

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    java.nio.file.Path dir = Files.createTempDirectory("blockscope-block-probe");
    Configuration conf = new Configuration(false);
    FileSystem fs = FileSystem.getLocal(conf);
    Path file = new Path(dir.toUri().toString(), "block");
    HFileContext context =
        new HFileContextBuilder()
            .withCompression(Compression.Algorithm.GZ)
            .withChecksumType(ChecksumType.CRC32C)
            .withBytesPerCheckSum(HFile.DEFAULT_BYTES_PER_CHECKSUM)
            .withBlockSize(HConstants.DEFAULT_BLOCKSIZE)
            .withIncludesMvcc(false)
            .withIncludesTags(false)
            .build();
    Random r = new Random(1);
    try (HFile.Writer w =
        HFile.getWriterFactory(conf, CacheConfig.DISABLED)
            .withPath(fs, file)
            .withFileContext(context)
            .create()) {
      for (int pk = 0; pk < 20_000; pk++) {
        for (byte[] q : new byte[][] {RawTable.SEED_V1, RawTable.SEED_V2}) {
          w.append(
              new KeyValue(
                  RawTable.seedRow(pk),
                  RawTable.SEED_FAMILY,
                  q,
                  1L,
                  KeyValue.Type.Put,
                  Bytes.toBytes(r.nextFloat())));
        }
      }
    }
    byte[] bytes = Files.readAllBytes(java.nio.file.Paths.get(dir.toString(), "block"));
    ByteBuffer header = ByteBuffer.wrap(bytes);
    int headerSize = HConstants.HFILEBLOCK_HEADER_SIZE;
    int onDiskSizeWithHeader = headerSize + header.getInt(8); // the first block starts at 0
    int uncompressedSize = header.getInt(12);
    bytesPerChecksum = header.getInt(25);
    dataSizeWithHeader = header.getInt(29);
    compressedSize = dataSizeWithHeader - headerSize;
    onDisk = ByteBuffer.wrap(bytes, 0, onDiskSizeWithHeader).slice();
    unpacked = ByteBuffer.allocate(uncompressedSize);
    decoding = new HFileBlockDefaultDecodingContext(conf, context);
    if (!BenchmarkChecksums.validate(new SingleByteBuff(onDisk.duplicate()))) {
      throw new IllegalStateException("the block's checksums do not match");
    }
    fs.delete(new Path(dir.toUri().toString()), true);
    System.out.printf(
        "block: %d bytes on disk with header and checksums, %d checksummed, %d of GZ data,"
            + " %d unpacked%n",
        onDiskSizeWithHeader, dataSizeWithHeader, compressedSize, uncompressedSize);
    applyMode();
  }

  /** A probe at COUNT or TIME that counted nothing measured nothing: fail the run instead. */
  @TearDown(Level.Trial)
  public void checkTheProbesCounted(BenchmarkParams params) {
    if (params.getBenchmark().endsWith(".crc32c")) {
      return; // the ceiling runs no probe
    }
    long[] c = ProbeBridge.costs();
    int gzBlocks =
        CostLayout.decompress(CostLayout.algorithmIndex("GZ"), CostLayout.DECOMPRESS_BLOCKS);
    if (counting() && c[CostLayout.CHECKSUM_BYTES] == 0 && c[gzBlocks] == 0) {
      throw new IllegalStateException("the block probes counted nothing at " + mode);
    }
  }

  /** HBase's verification of the block's checksums, as after a read from the file system. */
  @Benchmark
  public boolean hbaseChecksum() {
    return BenchmarkChecksums.validate(new SingleByteBuff(onDisk.duplicate()));
  }

  /** The JDK's CRC32C over the same bytes and chunks: what the verification cannot beat. */
  @Benchmark
  public long crc32c() {
    long sum = 0;
    for (int at = 0; at < dataSizeWithHeader; at += bytesPerChecksum) {
      crc.reset();
      crc.update(
          onDisk.array(),
          onDisk.arrayOffset() + at,
          Math.min(bytesPerChecksum, dataSizeWithHeader - at));
      sum += crc.getValue();
    }
    return sum;
  }

  /** The block's GZ data inflated into its unpacked buffer, as HFileBlock.unpack does. */
  @Benchmark
  public ByteBuff gzDecompress() throws IOException {
    ByteBuff source = new SingleByteBuff(onDisk.duplicate());
    source.position(HConstants.HFILEBLOCK_HEADER_SIZE);
    ByteBuff target = new SingleByteBuff(unpacked.duplicate());
    decoding.prepareDecoding(compressedSize, unpacked.capacity(), target, source);
    return target;
  }
}
