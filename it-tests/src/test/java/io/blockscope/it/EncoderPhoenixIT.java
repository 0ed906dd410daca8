package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.blockscope.encoding.BlockscopeEncoding;
import io.blockscope.encoding.EncodingRegistrar;
import io.blockscope.harness.JvmFlags;
import io.blockscope.workloads.SeedTable;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.junit.Test;

/**
 * BLOCKSCOPE_V1 through Phoenix DDL on the embedded cluster, whose region servers and master carry
 * the encoding's registrar and guard: written, flushed, read (point selects, scans, reverse scans,
 * filters) with the same answers as a FAST_DIFF copy of the same rows; split and compacted, read
 * again; then the way back (ALTER to FAST_DIFF, major compaction), after which a JVM without
 * blockscope's encoders reads every store file, while it could not read them before. And the
 * master's guard refuses the encoding while a region server lacks it.
 */
public class EncoderPhoenixIT extends ClusterTestBase {
  private static final String TABLE = "ENC_V1";
  private static final String CONTROL = "ENC_CONTROL";
  private static final int ROWS = 30_000;

  private static List<String> rows(String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          b.append(rs.getString(i)).append('|');
        }
        out.add(b.toString());
      }
    }
    return out;
  }

  /** The same queries on the encoded table and on the FAST_DIFF control give the same rows. */
  private static void assertReadsLikeControl(String when) throws SQLException {
    String[] queries = {
      "SELECT COUNT(*), SUM(v1), MIN(v2), MAX(v2) FROM %s",
      "SELECT pk, v1, v2 FROM %s ORDER BY pk",
      "SELECT pk, v1, v2 FROM %s ORDER BY pk DESC LIMIT 500",
      "SELECT pk, v2 FROM %s WHERE pk BETWEEN 12345 AND 13345 ORDER BY pk DESC",
      "SELECT pk, v1 FROM %s WHERE v2 < 0.01 ORDER BY pk",
      "SELECT v1, v2 FROM %s WHERE pk = 0",
      "SELECT v1, v2 FROM %s WHERE pk = 17777",
      "SELECT v1, v2 FROM %s WHERE pk = " + (ROWS - 1),
      "SELECT pk, v1 FROM %s WHERE pk IN (3, 333, 3333, 29999, 40000) ORDER BY pk"
    };
    for (String q : queries) {
      List<String> encoded = rows(String.format(q, TABLE));
      List<String> control = rows(String.format(q, CONTROL));
      assertFalse(when + ": " + q + " returned nothing", control.isEmpty());
      if (!control.equals(encoded)) {
        int i = 0;
        while (i < Math.min(control.size(), encoded.size())
            && control.get(i).equals(encoded.get(i))) {
          i++;
        }
        fail(
            when
                + ": "
                + q
                + ": "
                + encoded.size()
                + " rows, FAST_DIFF "
                + control.size()
                + "; first difference at "
                + i
                + ": "
                + (i < encoded.size() ? encoded.get(i) : "-")
                + " vs "
                + (i < control.size() ? control.get(i) : "-"));
      }
    }
  }

  private static List<HStoreFile> storeFiles(String table) {
    List<HStoreFile> files = new ArrayList<>();
    for (HRegion r : cluster.util().getMiniHBaseCluster().getRegions(TableName.valueOf(table))) {
      for (HStore s : r.getStores()) {
        files.addAll(s.getStorefiles());
      }
    }
    return files;
  }

  /** Each store file's encoding, as written in its file info. */
  private static List<String> encodings(String table) {
    List<String> e = new ArrayList<>();
    for (HStoreFile f : storeFiles(table)) {
      e.add(f.getReader().getHFileReader().getDataBlockEncoding().name());
    }
    return e;
  }

  private static void compact(String table) throws Exception {
    SeedTables.compact(cluster, TableName.valueOf(table));
  }

  @Test
  public void writeReadSplitCompactAndTheWayBack() throws Exception {
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE "
              + TABLE
              + " (pk INTEGER PRIMARY KEY, v1 FLOAT, v2 FLOAT)"
              + " DATA_BLOCK_ENCODING='BLOCKSCOPE_V1'");
      s.execute(
          "CREATE TABLE "
              + CONTROL
              + " (pk INTEGER PRIMARY KEY, v1 FLOAT, v2 FLOAT)"
              + " DATA_BLOCK_ENCODING='FAST_DIFF'");
      SeedTable.fill(c, TABLE, ROWS, 5);
      SeedTable.fill(c, CONTROL, ROWS, 5);
    }
    ColumnFamilyDescriptor family =
        cluster.admin().getDescriptor(TableName.valueOf(TABLE)).getColumnFamilies()[0];
    assertEquals(BlockscopeEncoding.NAME, family.getDataBlockEncoding().name());

    // before any flush: the memstore answers
    assertReadsLikeControl("memstore");
    cluster.util().flush(TableName.valueOf(TABLE));
    cluster.util().flush(TableName.valueOf(CONTROL));
    assertEquals(List.of("BLOCKSCOPE_V1"), encodings(TABLE));
    assertReadsLikeControl("flushed");

    // a second flush, then a split: the daughters read the parent's file through references
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "UPSERT INTO " + TABLE + " SELECT pk, v2, v1 FROM " + TABLE + " WHERE pk < 100");
      s.executeUpdate(
          "UPSERT INTO " + CONTROL + " SELECT pk, v2, v1 FROM " + CONTROL + " WHERE pk < 100");
      c.commit();
    }
    cluster.util().flush(TableName.valueOf(TABLE));
    cluster.util().flush(TableName.valueOf(CONTROL));
    cluster.admin().split(TableName.valueOf(TABLE), SeedTables.phoenixKey(ROWS / 2));
    cluster
        .util()
        .waitFor(60_000, 100, () -> cluster.regions(TableName.valueOf(TABLE)).size() == 2);
    assertReadsLikeControl("split");

    compact(TABLE);
    compact(CONTROL);
    List<String> before = encodings(TABLE);
    assertEquals(List.of("BLOCKSCOPE_V1", "BLOCKSCOPE_V1"), before);
    assertReadsLikeControl("compacted");
    List<String> encodedFiles = new ArrayList<>();
    storeFiles(TABLE).forEach(f -> encodedFiles.add(f.getPath().toString()));
    List<String> unregistered = readWithoutBlockscope(encodedFiles);
    for (String line : unregistered) {
      assertTrue(
          "a JVM without the registration read a BLOCKSCOPE_V1 file: " + line,
          line.startsWith("FAILED ") && line.contains("BLOCKSCOPE_V1"));
    }

    // the way back: a built-in encoding, then a major compaction rewrites every file
    try (Connection c = cluster.phoenix();
        Statement s = c.createStatement()) {
      s.execute("ALTER TABLE " + TABLE + " SET DATA_BLOCK_ENCODING='FAST_DIFF'");
    }
    assertEquals(
        DataBlockEncoding.FAST_DIFF,
        cluster
            .admin()
            .getDescriptor(TableName.valueOf(TABLE))
            .getColumnFamilies()[0]
            .getDataBlockEncoding());
    compact(TABLE);
    assertEquals(List.of("FAST_DIFF", "FAST_DIFF"), encodings(TABLE));
    assertReadsLikeControl("rolled back");
    List<String> files = new ArrayList<>();
    storeFiles(TABLE).forEach(f -> files.add(f.getPath().toString()));
    long cells = 0;
    for (String line : readWithoutBlockscope(files)) {
      assertTrue(
          "a JVM without the registration cannot read the rolled-back file: " + line,
          line.startsWith("OK ") && line.contains(" FAST_DIFF "));
      cells += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
    }
    // three cells a row: Phoenix's empty column, v1 and v2
    assertEquals(3L * ROWS, cells);
  }

  /**
   * Runs {@link HFileReadCheck} on {@code files} in a new JVM whose class path is this one's
   * without blockscope's encoders; returns its lines.
   */
  private static List<String> readWithoutBlockscope(List<String> files) throws Exception {
    String path =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    StringBuilder cp = new StringBuilder();
    for (String e : path.split(File.pathSeparator)) {
      if (e.contains("blockscope-encoders") || e.replace('\\', '/').contains("/encoders/target")) {
        continue;
      }
      cp.append(cp.length() == 0 ? "" : File.pathSeparator).append(e);
    }
    List<String> cmd =
        new ArrayList<>(List.of(System.getProperty("java.home") + "/bin/java", "-Xmx512m"));
    cmd.addAll(JvmFlags.opens());
    cmd.addAll(
        List.of(
            "-cp",
            cp.toString(),
            HFileReadCheck.class.getName(),
            cluster.conf().get("fs.defaultFS")));
    cmd.addAll(files);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
    // its log goes to a pipe nobody reads if not drained: drain stderr in the background
    Thread drain =
        new Thread(
            () -> {
              try {
                p.getErrorStream().transferTo(OutputStream.nullOutputStream());
              } catch (IOException ignored) {
                // the process is gone
              }
            });
    drain.setDaemon(true);
    drain.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("the reader JVM did not finish");
    }
    List<String> lines = new ArrayList<>();
    for (String line : out.split("\n")) {
      if (line.startsWith("OK ") || line.startsWith("FAILED ")) {
        lines.add(line);
      }
    }
    System.out.println("JVM without blockscope's encoders:\n" + String.join("\n", lines));
    assertEquals(out, files.size(), lines.size());
    return lines;
  }

  @Test
  public void theMasterRefusesTheEncodingWhileAServerLacksIt() throws Exception {
    JVMClusterUtil.RegionServerThread bare = startServerWithoutRegistrar();
    String name = bare.getRegionServer().getServerName().getServerName();
    try {
      try (Connection c = cluster.phoenix();
          Statement s = c.createStatement()) {
        s.execute(
            "CREATE TABLE ENC_REFUSED (pk INTEGER PRIMARY KEY, v1 FLOAT)"
                + " DATA_BLOCK_ENCODING='BLOCKSCOPE_V1'");
        fail("the master created a BLOCKSCOPE_V1 table with " + name + " lacking it");
      } catch (SQLException expected) {
        String m = expected.toString() + " " + expected.getCause();
        System.out.println("refused: " + m);
        assertTrue(m, m.contains("do not report " + EncodingRegistrar.class.getName()));
        assertTrue(m, m.contains(name));
      }
      // an existing table cannot be altered to it either
      try (Connection c = cluster.phoenix();
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE ENC_ALTER (pk INTEGER PRIMARY KEY, v1 FLOAT)");
        try {
          s.execute("ALTER TABLE ENC_ALTER SET DATA_BLOCK_ENCODING='BLOCKSCOPE_V1'");
          fail("the master altered a table to BLOCKSCOPE_V1 with " + name + " lacking it");
        } catch (SQLException expected) {
          String m = expected.toString() + " " + expected.getCause();
          assertTrue(m, m.contains("refusing to alter"));
        }
      }
      assertEquals(
          DataBlockEncoding.FAST_DIFF,
          cluster
              .admin()
              .getDescriptor(TableName.valueOf("ENC_ALTER"))
              .getColumnFamilies()[0]
              .getDataBlockEncoding());
    } finally {
      stopSecondServer(bare);
    }
  }
}
