package io.blockscope.workloads;

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
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;

/** Plain HBase scratch tables: PerformanceEvaluation's shape, or a sample of a user's table. */
public final class RawTable {
  /** PE's family and qualifier. */
  public static final byte[] PE_FAMILY = "info".getBytes(StandardCharsets.UTF_8);

  static final byte[] PE_QUALIFIER = "0".getBytes(StandardCharsets.UTF_8);
  static final int PE_VALUE_BYTES = 1000;

  private RawTable() {}

  /** Applies a configuration to a family: encoding, compression and checksum type. */
  public static ColumnFamilyDescriptor family(ColumnFamilyDescriptor base, TableConfig c) {
    ColumnFamilyDescriptorBuilder b = ColumnFamilyDescriptorBuilder.newBuilder(base)
        .setDataBlockEncoding(DataBlockEncoding.valueOf(c.encoding()))
        .setCompressionType(Compression.Algorithm.valueOf(c.compression()));
    if (c.checksumAlgorithm() != null) {
      b.setConfiguration("hbase.hstore.checksum.algorithm", c.checksumAlgorithm());
    }
    return b.build();
  }

  /** Creates {@code table} with the given families, each set to the configuration. */
  public static void create(Admin admin, TableName table, List<ColumnFamilyDescriptor> families,
      TableConfig c) throws IOException {
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

  /**
   * Copies the first {@code rows} rows of {@code source} (newest version of each cell) into
   * {@code target}, which must have the same families; returns up to 1,000 of the copied row
   * keys, sampled uniformly (reservoir), for the point-read workloads. Only reads the source.
   */
  public static List<byte[]> copySample(Connection c, TableName source, TableName target,
      int rows, long seed) throws IOException {
    Random r = new Random(seed);
    List<byte[]> keys = new ArrayList<>();
    int seen = 0;
    try (Table src = c.getTable(source);
        ResultScanner scanner = src.getScanner(new Scan().setLimit(rows).setCaching(500)
            .setCacheBlocks(false));
        BufferedMutator m = c.getBufferedMutator(target)) {
      for (Result res : scanner) {
        Put put = new Put(res.getRow());
        for (Cell cell : res.rawCells()) {
          put.add(cell);
        }
        m.mutate(put);
        seen++;
        if (keys.size() < 1000) {
          keys.add(res.getRow());
        } else {
          int j = r.nextInt(seen);
          if (j < 1000) {
            keys.set(j, res.getRow());
          }
        }
      }
    }
    return keys;
  }
}
