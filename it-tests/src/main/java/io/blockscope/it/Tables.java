package io.blockscope.it;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
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
import org.apache.hadoop.hbase.io.hfile.BlockCache;
import org.apache.hadoop.hbase.io.hfile.CachedBlock;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Tables shaped like the seeds' Phoenix table {@code (pk integer primary key, v1 float,
 * v2 float)}, written with the plain HBase client: a 4-byte big-endian key and two random float
 * cells per row in family {@code f}.
 */
public final class Tables {
  public static final byte[] FAMILY = Bytes.toBytes("f");
  public static final byte[] V1 = Bytes.toBytes("v1");
  public static final byte[] V2 = Bytes.toBytes("v2");

  private Tables() {}

  /** The settings of one test table. */
  public static final class Spec {
    final TableName name;
    DataBlockEncoding encoding = DataBlockEncoding.NONE;
    Compression.Algorithm compression = Compression.Algorithm.NONE;
    int blockSize = 64 * 1024;
    String level;
    byte[][] splits;

    public Spec(TableName name) {
      this.name = name;
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

    /** Sets the table attribute {@code blockscope.level}. */
    public Spec level(String level) {
      this.level = level;
      return this;
    }

    public Spec splits(byte[]... splits) {
      this.splits = splits;
      return this;
    }
  }

  public static void create(Admin admin, Spec s) throws IOException {
    TableDescriptorBuilder t = TableDescriptorBuilder.newBuilder(s.name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY)
            .setDataBlockEncoding(s.encoding)
            .setCompressionType(s.compression)
            .setBlocksize(s.blockSize)
            .build());
    if (s.level != null) {
      t.setValue("blockscope.level", s.level);
    }
    if (s.splits != null) {
      admin.createTable(t.build(), s.splits);
    } else {
      admin.createTable(t.build());
    }
  }

  public static byte[] row(int pk) {
    return Bytes.toBytes(pk);
  }

  /** Writes rows {@code 0..rows-1} with seeded random values, then flushes them to store files. */
  public static void load(Connection c, Admin admin, TableName name, int rows, long seed)
      throws IOException {
    Random r = new Random(seed);
    try (Table t = c.getTable(name)) {
      List<Put> batch = new ArrayList<>(1000);
      for (int pk = 0; pk < rows; pk++) {
        batch.add(new Put(row(pk))
            .addColumn(FAMILY, V1, Bytes.toBytes(r.nextFloat()))
            .addColumn(FAMILY, V2, Bytes.toBytes(r.nextFloat())));
        if (batch.size() == 1000) {
          t.put(batch);
          batch.clear();
        }
      }
      t.put(batch);
    }
    admin.flush(name);
  }

  /** Scans every cell of a table and returns how many came back. */
  public static long scanCells(Connection c, TableName name, Scan scan) throws IOException {
    long cells = 0;
    try (Table t = c.getTable(name); ResultScanner rs = t.getScanner(scan)) {
      for (Result res : rs) {
        for (Cell ignored : res.rawCells()) {
          cells++;
        }
      }
    }
    return cells;
  }

  /** The names of the store files of a table's regions. */
  public static List<String> storeFileNames(List<HRegion> regions) {
    List<String> names = new ArrayList<>();
    for (HRegion region : regions) {
      for (HStore store : region.getStores()) {
        for (HStoreFile f : store.getStorefiles()) {
          names.add(f.getPath().getName());
        }
      }
    }
    return names;
  }

  /** Evicts every cached block of a table: the next read of it is cold. */
  public static void evict(BlockCache cache, List<HRegion> regions) {
    for (String file : storeFileNames(regions)) {
      cache.evictBlocksByHfileName(file);
    }
  }

  /** How many data blocks of a table's store files the block cache holds now. */
  public static long cachedDataBlocks(BlockCache cache, List<HRegion> regions) {
    List<String> files = storeFileNames(regions);
    long n = 0;
    for (CachedBlock b : cache) {
      if (files.contains(b.getFilename()) && b.getBlockType().isData()) {
        n++;
      }
    }
    return n;
  }
}
