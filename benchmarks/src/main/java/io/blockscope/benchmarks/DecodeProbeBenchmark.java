package io.blockscope.benchmarks;

import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.metrics.CostLayout;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.encoding.EncodedDataBlock;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.nio.SingleByteBuff;
import org.apache.hadoop.hbase.util.Bytes;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The cost of blockscope's decode probe where it is paid most often: once per decoded cell ({@code
 * decodeBlock} walks every cell of one encoded block, 1,000 rows x 2 cells of the seeds' shape),
 * and once per seeker call ({@code pointSeek}: a block start and a seek, as a point read does),
 * with HBase's own seeker, with the probes not installed, and installed at OFF, COUNT and TIME. No
 * cluster: the seeker runs in the benchmark thread, whose level slot is set directly.
 *
 * <p>Run: {@code bin/blockscope jmh DecodeProbeBenchmark} (defaults below: 3 forks per mode,
 * interleaving is JMH's fork order; report the ratio of medians to NOT_INSTALLED).
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class DecodeProbeBenchmark extends ProbeModeBenchmark {
  @Param({"FAST_DIFF", "ROW_INDEX_V1"})
  public String encoding;

  private DataBlockEncoder.EncodedSeeker seeker;
  private ByteBuffer block;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    SeedBlock b = SeedBlock.of(DataBlockEncoding.valueOf(encoding));
    block = b.bytes;
    seeker = b.seeker;
    applyMode();
  }

  /** One encoded block of 1,000 rows x 2 cells of the seeds' shape, and a seeker for it. */
  static final class SeedBlock {
    static final int ROWS = 1000;
    final ByteBuffer bytes;
    final DataBlockEncoder.EncodedSeeker seeker;

    private SeedBlock(ByteBuffer bytes, DataBlockEncoder.EncodedSeeker seeker) {
      this.bytes = bytes;
      this.seeker = seeker;
    }

    static SeedBlock of(DataBlockEncoding enc) throws Exception {
      HFileContext meta =
          new HFileContextBuilder()
              .withIncludesMvcc(false)
              .withIncludesTags(false)
              .withDataBlockEncoding(enc)
              .build();
      ByteArrayOutputStream raw = new ByteArrayOutputStream();
      Random r = new Random(1);
      for (int pk = 0; pk < ROWS; pk++) {
        for (String q : List.of("v1", "v2")) {
          KeyValue kv = cell(pk, q, r.nextFloat());
          raw.write(kv.getBuffer(), kv.getOffset(), kv.getLength());
        }
      }
      Configuration conf = new Configuration(false);
      DataBlockEncoder encoder = enc.getEncoder();
      byte[] encoded =
          new EncodedDataBlock(conf, encoder, enc, raw.toByteArray(), meta).encodeData();
      int skip = HConstants.HFILEBLOCK_HEADER_SIZE + Bytes.SIZEOF_SHORT;
      return new SeedBlock(
          ByteBuffer.wrap(encoded, skip, encoded.length - skip).slice(),
          encoder.createSeeker(encoder.newDataBlockDecodingContext(conf, meta)));
    }

    /** A cell of the block: row {@code pk}, qualifier {@code q}. */
    static KeyValue cell(int pk, String q, float value) {
      return new KeyValue(
          Bytes.toBytes(pk), Bytes.toBytes("0"), Bytes.toBytes(q), 1L, Bytes.toBytes(value));
    }
  }

  /** A counting mode that counted nothing measured nothing: fail the run instead. */
  @TearDown(Level.Trial)
  public void checkTheProbeCounted() {
    if (counting()) {
      long cells =
          ProbeBridge.costs()[
              CostLayout.decode(CostLayout.encodingIndex(encoding), CostLayout.DECODE_CELLS)];
      if (cells == 0) {
        throw new IllegalStateException("the decode probe counted no cell at " + mode);
      }
    }
  }

  private final KeyValue[] rows = new KeyValue[SeedBlock.ROWS];
  private int next;

  /** A point read's work in a block: a block start and a seek to a row (a fixed walk of rows). */
  @Benchmark
  public int pointSeek() {
    if (rows[0] == null) {
      for (int pk = 0; pk < rows.length; pk++) {
        rows[pk] = SeedBlock.cell(pk, "v1", 0f);
      }
    }
    next = (next + 389) % rows.length; // 389 is prime to 1,000: every row in turn, scattered
    seeker.setCurrentBuffer(new SingleByteBuff(block.duplicate()));
    return seeker.seekToKeyInBlock(rows[next], false);
  }

  /** Decodes every cell of the block; returns a value so nothing is optimized away. */
  @Benchmark
  public int decodeBlock() {
    seeker.setCurrentBuffer(new SingleByteBuff(block.duplicate()));
    int cells = 1;
    while (seeker.next()) {
      cells++;
    }
    return cells;
  }
}
