package io.blockscope.it;

import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.harness.StoreFiles;
import io.blockscope.workloads.SeedTable;
import io.blockscope.workloads.TableConfig;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The seeds' Phoenix table {@code (pk INTEGER PRIMARY KEY, v1 FLOAT, v2 FLOAT)}, one per encoding
 * and compression, loaded through Phoenix once per test JVM and shared by the relationship tests.
 * Every copy holds the same {@value #ROWS} rows (one source table written with a fixed random seed,
 * copied with {@code UPSERT SELECT}), flushed and major-compacted into one store file, so sizes and
 * per-block counts compare like with like.
 *
 * <p>Tests that need a cold cache evict the table's blocks themselves; nobody writes to these
 * tables after loading.
 */
final class SeedTables {
  /** 2^15 rows, three cells each (v1, v2 and Phoenix's empty column). */
  static final int ROWS = 1 << 15;

  static final int CELLS = 3 * ROWS;

  private static final String SOURCE = "SEEDREL_SOURCE";
  private static final Map<TableConfig, String> LOADED = new HashMap<>();
  private static boolean sourceLoaded;

  private SeedTables() {}

  /** The Phoenix (and HBase) name of the seed table in {@code config}, loaded on first use. */
  static synchronized String get(EmbeddedCluster cluster, TableConfig config) throws Exception {
    String name = LOADED.get(config);
    if (name == null) {
      name = load(cluster, config, "SEEDREL_" + config.tableSuffix());
      LOADED.put(config, name);
    }
    return name;
  }

  /**
   * A new copy of the seed rows that the caller may change: a table no other test reads. A table of
   * that name left by an earlier run of the same test in this JVM (the miscount drill) is dropped
   * first.
   */
  static synchronized String freshCopy(EmbeddedCluster cluster, String config, String name)
      throws Exception {
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + name);
    }
    return load(cluster, TableConfig.parse(config), name);
  }

  private static String load(EmbeddedCluster cluster, TableConfig config, String name)
      throws Exception {
    try (Connection c = cluster.phoenix()) {
      if (!sourceLoaded) {
        SeedTable.create(c, SOURCE, TableConfig.parse("NONE"));
        SeedTable.fill(c, SOURCE, ROWS, 2016);
        sourceLoaded = true;
      }
      SeedTable.create(c, name, config);
      SeedTable.copy(c, SOURCE, name);
    }
    compact(cluster, TableName.valueOf(name));
    return name;
  }

  static String get(EmbeddedCluster cluster, String config) throws Exception {
    return get(cluster, TableConfig.parse(config));
  }

  /**
   * A seed-shaped table of {@code rows} rows split into four regions at {@code rows / 4} steps,
   * written through Phoenix and compacted; for the hint tests. A table of that name already there
   * is taken as it is.
   */
  static void createSplit(
      EmbeddedCluster cluster, String table, int rows, long seed, String options) throws Exception {
    if (cluster.admin().tableExists(TableName.valueOf(table))) {
      return; // loaded by an earlier run of the same test class in this JVM (the miscount drill)
    }
    int q = rows / 4;
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE "
              + table
              + " (pk INTEGER PRIMARY KEY, v1 FLOAT, v2 FLOAT) "
              + options
              + " SPLIT ON ("
              + q
              + ", "
              + 2 * q
              + ", "
              + 3 * q
              + ")");
      SeedTable.fill(c, table, rows, seed);
    }
    compact(cluster, TableName.valueOf(table));
    if (cluster.regions(TableName.valueOf(table)).size() != 4) {
      throw new IllegalStateException(table + " is not in four regions");
    }
  }

  /** A connection through blockscope's driver to the cluster's Phoenix. */
  static Connection blockscope(EmbeddedCluster cluster) throws SQLException {
    return DriverManager.getConnection(
        cluster.phoenixUrl().replace("jdbc:phoenix:", "jdbc:blockscope:phoenix:"));
  }

  /**
   * Flushes the memstore and major-compacts the table into one store file per region, both in the
   * calling thread ({@code HRegion.compact(true)} through the mini cluster), so the files are final
   * when this returns: nothing to poll for.
   */
  static void compact(EmbeddedCluster cluster, TableName t) throws Exception {
    cluster.util().flush(t);
    cluster.util().compact(t, true);
  }

  /** The row key Phoenix writes for an INTEGER primary key: big-endian, sign bit flipped. */
  static byte[] phoenixKey(int pk) {
    return Bytes.toBytes(pk ^ Integer.MIN_VALUE);
  }

  /** Runs a statement through Phoenix and returns the first column of its first row. */
  static long queryLong(EmbeddedCluster cluster, String sql) throws Exception {
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement();
        var rs = s.executeQuery(sql)) {
      if (!rs.next()) {
        throw new AssertionError("no row from " + sql);
      }
      return rs.getLong(1);
    }
  }

  /** Bytes of all store files of a table's regions. */
  static long storeFileBytes(List<HRegion> regions) {
    long bytes = 0;
    for (HRegion r : regions) {
      for (HStore s : r.getStores()) {
        bytes += s.getStorefilesSize();
      }
    }
    return bytes;
  }

  /** The data blocks and cells of a table's store files, read from their trailers. */
  static long[] dataBlocksAndCells(List<HRegion> regions) {
    return StoreFiles.trailerDataBlocksAndCells(regions);
  }

  /**
   * The data blocks a key-ordered scan reads from the first row up to {@code lastRow} and the first
   * cell after it (which tells the scanner that the row ended), from the block indexes of a table's
   * store files: every block up to and including the one holding the first possible key of the row
   * after {@code lastRow}.
   */
  static long dataBlocksThrough(List<HRegion> regions, byte[] lastRow) throws Exception {
    Cell next = PrivateCellUtil.createFirstOnNextRow(PrivateCellUtil.createFirstOnRow(lastRow));
    long blocks = 0;
    for (HRegion r : regions) {
      for (HStore s : r.getStores()) {
        for (HStoreFile f : s.getStorefiles()) {
          HFile.Reader reader = f.getReader().getHFileReader();
          if (reader.getTrailer().getNumDataIndexLevels() != 1) {
            throw new IllegalStateException(f.getPath() + " has a multi-level index");
          }
          // HFileBlockIndex's readers are package-private in HBase: reached by reflection
          Object index = reader.getDataBlockIndexReader();
          Method containing = indexMethod(index, "rootBlockContainingKey", Cell.class);
          Method count = indexMethod(index, "getRootBlockCount");
          int root = (Integer) count.invoke(index);
          blocks += Math.min(root, (Integer) containing.invoke(index, next) + 1);
        }
      }
    }
    return blocks;
  }

  private static Method indexMethod(Object index, String name, Class<?>... params)
      throws NoSuchMethodException {
    for (Class<?> c = index.getClass(); c != null; c = c.getSuperclass()) {
      try {
        Method m = c.getDeclaredMethod(name, params);
        m.setAccessible(true);
        return m;
      } catch (NoSuchMethodException notHere) {
        // declared higher up
      }
    }
    throw new NoSuchMethodException(index.getClass() + "." + name);
  }
}
