package io.blockscope.workloads;

import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.PerfLevel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Plain HBase tables written with the HBase client: PerformanceEvaluation's shape, a sample of a
 * user's table, or the seeds' shape ({@code (pk integer primary key, v1 float, v2 float)}: a 4-byte
 * big-endian key and two random float cells per row in family {@code f}, without Phoenix's
 * encoding; {@link SeedTable} writes the same rows through Phoenix).
 */
public final class RawTable {
  /** The family and qualifiers of the seeds' shape. */
  public static final byte[] SEED_FAMILY = Bytes.toBytes("f");

  public static final byte[] SEED_V1 = Bytes.toBytes("v1");
  public static final byte[] SEED_V2 = Bytes.toBytes("v2");

  /** PE's family and qualifier. */
  public static final byte[] PE_FAMILY = "info".getBytes(StandardCharsets.UTF_8);

  static final byte[] PE_QUALIFIER = "0".getBytes(StandardCharsets.UTF_8);
  static final int PE_VALUE_BYTES = 1000;

  private RawTable() {}

  /**
   * Applies a configuration to a family: encoding, compression, checksum type, and the block size
   * and bloom filter type where it sets them.
   */
  public static ColumnFamilyDescriptor family(ColumnFamilyDescriptor base, TableConfig c) {
    ColumnFamilyDescriptorBuilder b =
        ColumnFamilyDescriptorBuilder.newBuilder(base)
            .setDataBlockEncoding(DataBlockEncoding.valueOf(c.encoding()))
            .setCompressionType(Compression.Algorithm.valueOf(c.compression()));
    if (c.checksumAlgorithm() != null) {
      b.setConfiguration("hbase.hstore.checksum.algorithm", c.checksumAlgorithm());
    }
    if (c.blockSize() != 0) {
      b.setBlocksize(c.blockSize());
    }
    if (!c.bloom().isEmpty()) {
      b.setBloomFilterType(BloomType.valueOf(c.bloom()));
    }
    return b.build();
  }

  /** Creates {@code table} with the given families, each set to the configuration. */
  public static void create(
      Admin admin, TableName table, List<ColumnFamilyDescriptor> families, TableConfig c)
      throws IOException {
    TableDescriptorBuilder t = TableDescriptorBuilder.newBuilder(table);
    for (ColumnFamilyDescriptor f : families) {
      t.setColumnFamily(family(f, c));
    }
    admin.createTable(t.build());
  }

  /** PE's row key for row {@code i}: ten zero-padded decimal digits. */
  public static byte[] peRow(int i) {
    return String.format("%010d", i).getBytes(StandardCharsets.UTF_8);
  }

  /** Writes rows {@code 0..rows-1} in PE's shape, values from {@code new Random(seed)}. */
  public static void loadPe(Connection c, TableName table, int rows, long seed) throws IOException {
    Random r = new Random(seed);
    byte[] value = new byte[PE_VALUE_BYTES];
    try (BufferedMutator m = c.getBufferedMutator(table)) {
      for (int i = 0; i < rows; i++) {
        r.nextBytes(value);
        m.mutate(new Put(peRow(i)).addColumn(PE_FAMILY, PE_QUALIFIER, value.clone()));
      }
    }
  }

  /** The most regions a sample reads from; beyond it, regions spread evenly over the table. */
  public static final int SAMPLE_REGIONS = 64;

  /**
   * What {@link #copySample} copied: up to 1,000 of the copied row keys, sampled uniformly
   * (reservoir), for the point-read workloads; the rows and cell bytes copied; and the regions read
   * of the table's.
   */
  public record Sample(List<byte[]> keys, long rows, long bytes, int regionsRead, int regions) {}

  /**
   * Copies up to {@code rows} rows of {@code source} (newest version of each cell) into {@code
   * target}, which must have the same families: an equal share from each of up to {@value
   * #SAMPLE_REGIONS} of its regions, spread evenly over them, from each region's first row on, and
   * no more than {@code maxBytes} of cells in all. Only reads the source, without caching its
   * blocks.
   */
  public static Sample copySample(
      Connection c, TableName source, TableName target, int rows, long maxBytes, long seed)
      throws IOException {
    byte[][] starts;
    byte[][] ends;
    try (RegionLocator locator = c.getRegionLocator(source)) {
      starts = locator.getStartKeys();
      ends = locator.getEndKeys();
    }
    int regions = starts.length;
    int read = Math.min(regions, SAMPLE_REGIONS);
    long perRegion = Math.max(1, (rows + read - 1) / read);
    Random r = new Random(seed);
    List<byte[]> keys = new ArrayList<>();
    long seen = 0;
    long bytes = 0;
    try (Table src = c.getTable(source);
        BufferedMutator m = c.getBufferedMutator(target)) {
      for (int i = 0; i < read && seen < rows && bytes < maxBytes; i++) {
        int region = (int) ((long) i * regions / read);
        Scan scan =
            new Scan()
                .withStartRow(starts[region])
                .withStopRow(ends[region])
                .setLimit((int) Math.min(perRegion, rows - seen))
                .setCaching(500)
                .setCacheBlocks(false);
        try (ResultScanner scanner = src.getScanner(scan)) {
          for (Result res : scanner) {
            Put put = new Put(res.getRow());
            for (Cell cell : res.rawCells()) {
              put.add(cell);
              bytes += cell.getSerializedSize();
            }
            m.mutate(put);
            seen++;
            if (keys.size() < 1000) {
              keys.add(res.getRow());
            } else {
              long j = (long) (r.nextDouble() * seen);
              if (j < 1000) {
                keys.set((int) j, res.getRow());
              }
            }
            if (bytes >= maxBytes) {
              break;
            }
          }
        }
      }
    }
    return new Sample(keys, seen, bytes, read, regions);
  }

  /** The settings of one seed-shaped table. */
  public static final class Spec {
    final TableName name;
    DataBlockEncoding encoding = DataBlockEncoding.NONE;
    Compression.Algorithm compression = Compression.Algorithm.NONE;
    int blockSize = 64 * 1024;
    String level;
    byte[][] splits;
    final java.util.Map<String, String> familyConfiguration = new java.util.TreeMap<>();

    public Spec(TableName name) {
      this.name = name;
    }

    public TableName name() {
      return name;
    }

    public Spec encoding(DataBlockEncoding e) {
      this.encoding = e;
      return this;
    }

    public Spec compression(Compression.Algorithm c) {
      this.compression = c;
      return this;
    }

    public Spec blockSize(int bytes) {
      this.blockSize = bytes;
      return this;
    }

    /** Sets the table attribute {@value Attributes#TABLE_LEVEL}. */
    public Spec level(PerfLevel level) {
      return level(level.name());
    }

    /**
     * Sets the table attribute {@value Attributes#TABLE_LEVEL} as an operator would write it, well
     * formed or not.
     */
    public Spec level(String level) {
      this.level = level;
      return this;
    }

    public Spec splits(byte[]... splits) {
      this.splits = splits;
      return this;
    }

    /** Sets an HBase setting on the family, e.g. {@code hfile.index.block.max.size}. */
    public Spec familyConfiguration(String key, String value) {
      familyConfiguration.put(key, value);
      return this;
    }
  }

  /** Creates a seed-shaped table: one family {@code f} with the spec's settings. */
  public static void create(Admin admin, Spec s) throws IOException {
    TableDescriptorBuilder t =
        TableDescriptorBuilder.newBuilder(s.name).setColumnFamily(familyOf(s));
    if (s.level != null) {
      t.setValue(Attributes.TABLE_LEVEL, s.level);
    }
    if (s.splits != null) {
      admin.createTable(t.build(), s.splits);
    } else {
      admin.createTable(t.build());
    }
  }

  private static ColumnFamilyDescriptor familyOf(Spec s) {
    ColumnFamilyDescriptorBuilder f =
        ColumnFamilyDescriptorBuilder.newBuilder(SEED_FAMILY)
            .setDataBlockEncoding(s.encoding)
            .setCompressionType(s.compression)
            .setBlocksize(s.blockSize);
    s.familyConfiguration.forEach(f::setConfiguration);
    return f.build();
  }

  /** The seed-shaped table's row key of {@code pk}: 4 bytes, big-endian. */
  public static byte[] seedRow(int pk) {
    return Bytes.toBytes(pk);
  }

  /**
   * Writes seed-shaped rows {@code 0..rows-1} with values from {@code new Random(seed)}, then
   * flushes them to store files.
   */
  public static void loadSeed(Connection c, Admin admin, TableName name, int rows, long seed)
      throws IOException {
    Random r = new Random(seed);
    try (Table t = c.getTable(name)) {
      List<Put> batch = new ArrayList<>(1000);
      for (int pk = 0; pk < rows; pk++) {
        batch.add(
            new Put(seedRow(pk))
                .addColumn(SEED_FAMILY, SEED_V1, Bytes.toBytes(r.nextFloat()))
                .addColumn(SEED_FAMILY, SEED_V2, Bytes.toBytes(r.nextFloat())));
        if (batch.size() == 1000) {
          t.put(batch);
          batch.clear();
        }
      }
      t.put(batch);
    }
    admin.flush(name);
  }

  /** Scans a table and returns how many cells came back. */
  public static long scanCells(Connection c, TableName name, Scan scan) throws IOException {
    long cells = 0;
    try (Table t = c.getTable(name);
        ResultScanner rs = t.getScanner(scan)) {
      for (Result res : rs) {
        cells += res.rawCells().length;
      }
    }
    return cells;
  }
}
