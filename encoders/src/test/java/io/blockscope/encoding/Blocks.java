package io.blockscope.encoding;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ArrayBackedTag;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellComparatorImpl;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.ExtendedCell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.KeyValueUtil;
import org.apache.hadoop.hbase.MetaCellComparator;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.Tag;
import org.apache.hadoop.hbase.io.ByteArrayOutputStream;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.encoding.HFileBlockEncodingContext;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.nio.ByteBuff;
import org.apache.hadoop.hbase.nio.MultiByteBuff;
import org.apache.hadoop.hbase.nio.SingleByteBuff;
import org.apache.hadoop.io.WritableUtils;

/**
 * Test helpers: cells, and blocks encoded by HBase's own encoding context the way the HFile block
 * writer does it ({@code HFileBlock.Writer}: a dummy header, then startBlockEncoding, encode per
 * cell, endBlockEncoding), read back the way {@code HFileReaderImpl.EncodedScanner} hands a block
 * to a seeker (the bytes after the header and the two-byte encoding id).
 */
final class Blocks {
  private Blocks() {}

  static HFileContext context(boolean tags, boolean mvcc) {
    return context(tags, mvcc, CellComparatorImpl.COMPARATOR);
  }

  static HFileContext context(boolean tags, boolean mvcc, CellComparator comparator) {
    return new HFileContextBuilder()
        .withIncludesTags(tags)
        .withIncludesMvcc(mvcc)
        .withCellComparator(comparator)
        .build();
  }

  /** Encodes {@code cells} as one block; returns what a seeker is given. */
  static byte[] encode(
      DataBlockEncoder encoder,
      DataBlockEncoding encoding,
      List<? extends Cell> cells,
      boolean tags,
      boolean mvcc)
      throws IOException {
    return encode(encoder, encoding, cells, tags, mvcc, CellComparatorImpl.COMPARATOR);
  }

  /**
   * As above, in a file ordered by {@code comparator} (ROW_INDEX_V1's encoder checks that each row
   * is after the one before by it: hbase:meta's rows need MetaCellComparator).
   */
  static byte[] encode(
      DataBlockEncoder encoder,
      DataBlockEncoding encoding,
      List<? extends Cell> cells,
      boolean tags,
      boolean mvcc,
      CellComparator comparator)
      throws IOException {
    HFileBlockEncodingContext ctx =
        encoder.newDataBlockEncodingContext(
            new Configuration(false),
            encoding,
            HConstants.HFILEBLOCK_DUMMY_HEADER,
            context(tags, mvcc, comparator));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.write(HConstants.HFILEBLOCK_DUMMY_HEADER);
    DataOutputStream out = new DataOutputStream(bytes);
    encoder.startBlockEncoding(ctx, out);
    for (Cell c : cells) {
      encoder.encode(c, ctx, out);
    }
    encoder.endBlockEncoding(ctx, out, bytes.getBuffer());
    out.flush();
    int from = HConstants.HFILEBLOCK_HEADER_SIZE + DataBlockEncoding.ID_SIZE;
    byte[] all = bytes.toByteArray();
    byte[] payload = new byte[all.length - from];
    System.arraycopy(all, from, payload, 0, payload.length);
    return payload;
  }

  /**
   * Encodes {@code cells} into blocks cut as {@code HFileWriterImpl.checkBlockBoundary} cuts them:
   * a block ends once the cells written to it take 64 KB unencoded.
   */
  static List<byte[]> encodeBlocks(
      DataBlockEncoder encoder,
      DataBlockEncoding encoding,
      List<? extends Cell> cells,
      boolean tags,
      boolean mvcc)
      throws IOException {
    List<byte[]> blocks = new ArrayList<>();
    int from = 0;
    while (from < cells.size()) {
      int to = from;
      long unencoded = 0;
      while (to < cells.size() && unencoded < 64 * 1024) {
        Cell c = cells.get(to++);
        unencoded +=
            ((ExtendedCell) c).getSerializedSize(tags)
                + (mvcc ? WritableUtils.getVIntSize(c.getSequenceId()) : 0);
      }
      blocks.add(encode(encoder, encoding, cells.subList(from, to), tags, mvcc));
      from = to;
    }
    return blocks;
  }

  /** How a block reaches a seeker: on the heap, in one direct buffer, or split in two. */
  enum Memory {
    HEAP,
    DIRECT,
    SPLIT;

    ByteBuff wrap(byte[] block) {
      switch (this) {
        case HEAP:
          // inside a larger array, as HBase's blocks are (header before, checksums after)
          byte[] room = new byte[block.length + 40];
          System.arraycopy(block, 0, room, 17, block.length);
          return new SingleByteBuff(ByteBuffer.wrap(room, 17, block.length).slice());
        case DIRECT:
          ByteBuffer d = ByteBuffer.allocateDirect(block.length);
          d.put(block).flip();
          return new SingleByteBuff(d);
        default:
          int half = block.length / 2;
          ByteBuffer a = ByteBuffer.allocateDirect(half);
          a.put(block, 0, half).flip();
          ByteBuffer b = ByteBuffer.allocateDirect(block.length - half);
          b.put(block, half, block.length - half).flip();
          return new MultiByteBuff(a, b);
      }
    }
  }

  /** What the random cells look like. */
  /** {@code longKeys}: up to that many more bytes on rows and qualifiers. */
  record Shape(
      String name,
      int rows,
      int maxCellsPerRow,
      int maxValue,
      double deletes,
      boolean huge,
      int longKeys) {}

  static final Shape MANY_PER_ROW = new Shape("many cells per row", 40, 60, 40, 0.1, false, 0);
  static final Shape FEW_PER_ROW =
      new Shape("one or two cells per row", 600, 2, 20, 0.05, false, 0);
  static final Shape DELETES = new Shape("mostly delete markers", 200, 6, 10, 0.9, false, 0);
  static final Shape HUGE = new Shape("empty and huge values", 30, 4, 0, 0.1, true, 0);
  static final Shape LONG_KEYS =
      new Shape("rows and qualifiers of up to 300 bytes", 150, 8, 20, 0.1, false, 300);

  /**
   * Random cells of {@code shape} in one family, sorted and with distinct keys (ignoring the
   * sequence id): rows and qualifiers that share prefixes, every key type, tags, sequence ids.
   */
  static List<KeyValue> cells(Shape shape, long seed, boolean tags, boolean mvcc) {
    return cells(shape, seed, tags, mvcc, 1);
  }

  /**
   * As above, each cell in one of {@code families} families (a store file holds one; the format
   * allows more, and CellComparatorImpl orders them).
   */
  static List<KeyValue> cells(Shape shape, long seed, boolean tags, boolean mvcc, int families) {
    return cells(shape, seed, tags, mvcc, families, CellComparatorImpl.COMPARATOR);
  }

  /**
   * As above, in the order of {@code order}; for {@link MetaCellComparator} the rows are
   * hbase:meta's ({@link MetaRows}), which it needs and orders otherwise than bytewise.
   */
  static List<KeyValue> cells(
      Shape shape, long seed, boolean tags, boolean mvcc, int families, CellComparator order) {
    MetaRows meta = order instanceof MetaCellComparator ? new MetaRows() : null;
    Random r = new Random(seed);
    TreeSet<KeyValue> sorted = new TreeSet<>(order);
    // a block holds one family (one store); short or long at random
    byte[][] familyList = new byte[families][];
    for (int f = 0; f < families; f++) {
      String suffix = f == 0 ? "" : "-" + f;
      familyList[f] =
          (r.nextBoolean() ? "f" + suffix : "family-" + r.nextInt(100) + suffix)
              .getBytes(StandardCharsets.UTF_8);
    }
    KeyValue.Type[] types = {
      KeyValue.Type.Delete,
      KeyValue.Type.DeleteColumn,
      KeyValue.Type.DeleteFamily,
      KeyValue.Type.DeleteFamilyVersion
    };
    for (int i = 0; i < shape.rows(); i++) {
      byte[] row =
          meta != null
              ? meta.next(r, i, shape)
              : ("row-"
                      + String.format("%06d", i * 7 + r.nextInt(7))
                      + (r.nextInt(4) == 0 ? "-" + r.nextInt(1000) : "")
                      + pad(r, shape.longKeys()))
                  .getBytes(StandardCharsets.UTF_8);
      int cells = 1 + r.nextInt(shape.maxCellsPerRow());
      for (int j = 0; j < cells; j++) {
        byte[] qualifier =
            r.nextInt(20) == 0
                ? new byte[0]
                : ("q"
                        + r.nextInt(40)
                        + (r.nextBoolean() ? "-suffix" + r.nextInt(100) : "")
                        + pad(r, shape.longKeys()))
                    .getBytes(StandardCharsets.UTF_8);
        long ts = 1_700_000_000_000L + (long) r.nextInt(1000) * (r.nextBoolean() ? 1 : 1_000);
        KeyValue.Type type =
            r.nextDouble() < shape.deletes() ? types[r.nextInt(types.length)] : KeyValue.Type.Put;
        int valueLen =
            shape.huge()
                ? (r.nextInt(3) == 0
                    ? 0
                    : r.nextInt(3) == 0 ? 100_000 + r.nextInt(100_000) : r.nextInt(2000))
                : r.nextInt(shape.maxValue() + 1);
        if (type != KeyValue.Type.Put) {
          valueLen = 0;
        }
        byte[] value = new byte[valueLen];
        r.nextBytes(value);
        List<Tag> tagList = new ArrayList<>();
        if (tags && r.nextInt(3) > 0) {
          for (int t = r.nextInt(3); t >= 0; t--) {
            byte[] tv = new byte[r.nextInt(12)];
            r.nextBytes(tv);
            tagList.add(new ArrayBackedTag((byte) (1 + r.nextInt(5)), tv));
          }
        }
        byte[] family = families == 1 ? familyList[0] : familyList[r.nextInt(families)];
        KeyValue kv =
            new KeyValue(
                row,
                0,
                row.length,
                family,
                0,
                family.length,
                qualifier,
                0,
                qualifier.length,
                ts,
                type,
                value,
                0,
                value.length,
                tagList);
        if (mvcc) {
          kv.setSequenceId(r.nextInt(4) == 0 ? 0 : r.nextInt(1 << 20));
        }
        sorted.add(kv);
      }
    }
    return new ArrayList<>(sorted);
  }

  /**
   * Rows of hbase:meta, each made after the one before: a region's, "table,start key,region
   * id.encoded name." as {@code RegionInfo.createRegionName} makes it, or (1 in 20) a table's state
   * row, its name alone; never with one ',' alone, which MetaCellComparator reads as if it had two.
   * MetaCellComparator compares the table, the start key (up to the last ',') and the region id
   * each as a whole, so a start key that another one begins with comes first, where bytewise the
   * other does if the next byte is below ',': "t,k1,1700..." is before "t,k1\0,1700...", bytewise
   * after it. Half the regions take the start key of the region before and add such bytes or ',' to
   * it.
   */
  private static final class MetaRows {
    /** Tables whose names prefix one another; every one after "a" ({@link KeyValueStub#before}). */
    private static final String[] TABLES = {"t", "t1", "t-x", "ns:t", "usertable"};

    /** What a start key may go on with after another's: bytes below ',', and ',' itself. */
    private static final String[] MORE = {"\0", "!", "+", ",", ",\0", "\1x"};

    private String table;
    private String start;

    byte[] next(Random r, int i, Shape shape) {
      if (start != null && r.nextBoolean()) {
        start += MORE[r.nextInt(MORE.length)];
      } else {
        table = TABLES[r.nextInt(TABLES.length)];
        if (r.nextInt(20) == 0) {
          start = null;
          return table.getBytes(StandardCharsets.UTF_8);
        }
        start = r.nextInt(10) == 0 ? "" : "k" + (i / 3 + r.nextInt(3)) + pad(r, shape.longKeys());
      }
      StringBuilder encoded = new StringBuilder();
      for (int h = 0; h < 32; h++) {
        encoded.append(Character.forDigit(r.nextInt(16), 16));
      }
      long regionId = 1_700_000_000_000L + r.nextInt(1000);
      return (table + "," + start + "," + regionId + "." + encoded + ".")
          .getBytes(StandardCharsets.ISO_8859_1);
    }
  }

  /** Up to {@code max} letters, many rows sharing long prefixes ('a's), some not. */
  private static String pad(Random r, int max) {
    if (max == 0) {
      return "";
    }
    int n = r.nextInt(max + 1);
    return "a".repeat(n) + (char) ('a' + r.nextInt(26));
  }

  /**
   * Every cell of {@code block}, walked by {@code seeker} from the first to the last, as copies.
   */
  static List<KeyValue> walk(DataBlockEncoder.EncodedSeeker seeker, ByteBuff block) {
    seeker.setCurrentBuffer(block);
    List<KeyValue> cells = new ArrayList<>();
    do {
      cells.add(KeyValueUtil.copyToNewKeyValue(seeker.getCell()));
    } while (seeker.next());
    return cells;
  }

  /** Key equality as the seekers compare keys: everything but the sequence id. */
  static int compare(Cell a, Cell b) {
    return PrivateCellUtil.compareKeyIgnoresMvcc(CellComparatorImpl.COMPARATOR, a, b);
  }

  /**
   * What of a cell a block stores {@code got}, a decoded cell, differs in from {@code expected}:
   * "key" (sequence id aside), "value", "tags" (in a block with tags) or "sequence id" (in a block
   * with them), the first that differs; null if none does.
   */
  static String difference(Cell expected, Cell got, boolean tags, boolean mvcc) {
    if (compare(expected, got) != 0) {
      return "key";
    }
    if (!CellUtil.matchingValue(expected, got)) {
      return "value";
    }
    if (tags
        && !Arrays.equals(PrivateCellUtil.cloneTags(expected), PrivateCellUtil.cloneTags(got))) {
      return "tags";
    }
    if (mvcc && expected.getSequenceId() != got.getSequenceId()) {
      return "sequence id";
    }
    return null;
  }
}
