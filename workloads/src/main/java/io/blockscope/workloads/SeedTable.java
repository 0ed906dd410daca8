package io.blockscope.workloads;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;

/**
 * The seeds' Phoenix table, {@code (pk INTEGER PRIMARY KEY, v1 FLOAT, v2 FLOAT)} with random values
 * in [0, 1): seed 000 and 002 load it by doubling; here a source table is written once with a fixed
 * random seed and copied into one table per configuration, so every configuration holds exactly the
 * same rows.
 */
public final class SeedTable {
  private SeedTable() {}

  /**
   * Creates {@code name} with the seeds' schema, the configuration's encoding and compression, and
   * its block size and bloom filter type where it sets them.
   */
  public static void create(Connection c, String name, TableConfig config) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE "
              + name
              + " (pk INTEGER PRIMARY KEY, v1 FLOAT, v2 FLOAT)"
              + " DATA_BLOCK_ENCODING='"
              + config.encoding()
              + "', COMPRESSION='"
              + config.compression()
              + "'"
              + (config.blockSize() == 0 ? "" : ", BLOCKSIZE=" + config.blockSize())
              + (config.bloom().isEmpty() ? "" : ", BLOOMFILTER='" + config.bloom() + "'")
              + ", UPDATE_CACHE_FREQUENCY=NEVER");
    }
  }

  /** Writes rows {@code 0..rows-1} with values drawn from {@code new Random(seed)}. */
  public static void fill(Connection c, String name, int rows, long seed) throws SQLException {
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(false);
    Random r = new Random(seed);
    try (PreparedStatement p = c.prepareStatement("UPSERT INTO " + name + " VALUES (?, ?, ?)")) {
      for (int pk = 0; pk < rows; pk++) {
        p.setInt(1, pk);
        p.setFloat(2, r.nextFloat());
        p.setFloat(3, r.nextFloat());
        p.executeUpdate();
        if (pk % 5000 == 4999) {
          c.commit();
        }
      }
      c.commit();
    } finally {
      c.setAutoCommit(auto);
    }
  }

  /** Copies every row of {@code from} into {@code to}. */
  public static void copy(Connection c, String from, String to) throws SQLException {
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(true);
    try (Statement s = c.createStatement()) {
      s.executeUpdate("UPSERT INTO " + to + " SELECT pk, v1, v2 FROM " + from);
    } finally {
      c.setAutoCommit(auto);
    }
  }

  public static void drop(Connection c, String name) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + name + " CASCADE");
    }
  }
}
