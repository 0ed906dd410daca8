package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.blockscope.encoding.EncodedFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.ChoreService;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.Stoppable;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.master.HMaster;
import org.apache.hadoop.hbase.master.cleaner.CleanerChore;
import org.apache.hadoop.hbase.master.cleaner.DirScanPool;
import org.apache.hadoop.hbase.master.cleaner.HFileCleaner;
import org.apache.hadoop.hbase.master.cleaner.TimeToLiveHFileCleaner;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.apache.hadoop.hbase.util.HFileArchiveUtil;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.junit.Test;

/**
 * The way back from BLOCKSCOPE_V1 with a snapshot present, and the master's guard on snapshots, on
 * the embedded cluster. {@link EncodedFiles} lists the files a JVM without blockscope could not
 * read: after the ALTER to FAST_DIFF and the major compaction the table's own files are FAST_DIFF,
 * but the snapshot still holds the BLOCKSCOPE_V1 ones, moved to the archive; they go only when the
 * snapshot is deleted and HBase's HFileCleaner has run.
 */
public class EncoderWayBackIT extends ClusterTestBase {
  private static final byte[] F = Bytes.toBytes("f");

  private static ColumnFamilyDescriptor family(byte[] name, String encoding) {
    // the encoding as a string, as Phoenix and the shell's METADATA give it
    return ColumnFamilyDescriptorBuilder.newBuilder(name)
        .setValue("DATA_BLOCK_ENCODING", encoding)
        .build();
  }

  private static void createWithRows(TableName t, int flushes) throws IOException {
    Admin admin = cluster.admin();
    admin.createTable(
        TableDescriptorBuilder.newBuilder(t).setColumnFamily(family(F, "BLOCKSCOPE_V1")).build());
    try (Table table = cluster.connection().getTable(t)) {
      for (int flush = 0; flush < flushes; flush++) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
          puts.add(
              new Put(Bytes.toBytes(String.format("row%05d", flush * 1000 + i)))
                  .addColumn(F, Bytes.toBytes("q"), Bytes.toBytes("value " + i)));
        }
        table.put(puts);
        admin.flush(t);
      }
    }
  }

  /** Runs the lister as {@code hbase io.blockscope.encoding.EncodedFiles <t>}: status, lines. */
  private static List<String> lister(TableName t, int expectedStatus) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        EncodedFiles.run(
            cluster.conf(),
            new String[] {t.getNameAsString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = out.toString(StandardCharsets.UTF_8);
    System.out.println(
        "$ hbase io.blockscope.encoding.EncodedFiles "
            + t
            + "   (exit "
            + status
            + ")\n"
            + text
            + err.toString(StandardCharsets.UTF_8));
    assertEquals(text + err, expectedStatus, status);
    return List.of(text.split("\n"));
  }

  private static String last(List<String> lines) {
    return lines.get(lines.size() - 1);
  }

  private static long lines(List<String> lines, String prefix, String suffix) {
    return lines.stream().filter(l -> l.startsWith(prefix) && l.endsWith(suffix)).count();
  }

  /**
   * Runs HBase's own HFileCleaner, with the master's cleaner plugins (TTL, snapshots, links) but a
   * TTL of 0, on the table's archive directory: what the master's cleaner does once {@code
   * hbase.master.hfilecleaner.ttl} (5 minutes by default) has passed.
   */
  private static void runArchiveCleaner(TableName t) throws Exception {
    HMaster master = cluster.util().getMiniHBaseCluster().getMaster();
    Configuration conf = new Configuration(master.getConfiguration());
    assertTrue(
        conf.get(HFileCleaner.MASTER_HFILE_CLEANER_PLUGINS),
        conf.get(HFileCleaner.MASTER_HFILE_CLEANER_PLUGINS).contains("SnapshotHFileCleaner"));
    conf.setLong(TimeToLiveHFileCleaner.TTL_CONF_KEY, 0);
    Path dir = HFileArchiveUtil.getTableArchivePath(CommonFSUtils.getRootDir(conf), t);
    Stoppable never =
        new Stoppable() {
          private volatile boolean stopped;

          @Override
          public void stop(String why) {
            stopped = true;
          }

          @Override
          public boolean isStopped() {
            return stopped;
          }
        };
    DirScanPool pool = DirScanPool.getHFileCleanerScanPool(conf);
    ChoreService chores = new ChoreService("blockscope-wayback-cleaner");
    HFileCleaner cleaner =
        new HFileCleaner(
            3_600_000,
            never,
            conf,
            CommonFSUtils.getRootDirFileSystem(conf),
            dir,
            pool,
            Map.of(HMaster.MASTER, master));
    try {
      runOnce(cleaner, chores);
    } finally {
      cleaner.cancel(true);
      chores.shutdown();
      pool.shutdownNow();
      never.stop("done");
    }
  }

  /**
   * One pass of {@code cleaner} over its directory: HBase 2.6's {@code triggerCleanerNow} (on the
   * scheduled chore), or 2.5's {@code runCleaner} (on this thread); each line has only its own.
   */
  private static void runOnce(HFileCleaner cleaner, ChoreService chores) throws Exception {
    Method trigger;
    try {
      trigger = CleanerChore.class.getMethod("triggerCleanerNow");
    } catch (NoSuchMethodException hbase25) {
      CleanerChore.class.getMethod("runCleaner").invoke(cleaner);
      return;
    }
    chores.scheduleChore(cleaner);
    ((CompletableFuture<?>) trigger.invoke(cleaner)).get(60, TimeUnit.SECONDS);
  }

  @Test
  public void theListerFollowsASnapshotsFilesIntoTheArchiveUntilTheCleanerRemovesThem()
      throws Exception {
    TableName t = newTable("ENC_WAYBACK");
    String snapshot = t.getNameAsString() + "_snap";
    createWithRows(t, 2);
    List<String> out = lister(t, 1);
    assertEquals(2, lines(out, "BLOCKSCOPE_V1 ", " (table)"));
    assertEquals(
        t
            + ": 2 of 2 files in BLOCKSCOPE_V1 (table 2, mob 0, archive 0, snapshots 0);"
            + " 0 unreadable",
        last(out));

    cluster.admin().snapshot(snapshot, t);
    out = lister(t, 1);
    assertEquals(2, lines(out, "BLOCKSCOPE_V1 ", " (snapshot " + snapshot + ", table)"));
    assertEquals(
        t
            + ": 2 of 2 files in BLOCKSCOPE_V1 (table 2, mob 0, archive 0, snapshots 2);"
            + " 0 unreadable",
        last(out));

    // the way back: FAST_DIFF, a major compaction, and the compacted files archived
    // (HStore.closeAndArchiveCompactedFiles, as the region server's CompactedHFilesDischarger
    // does every hbase.hfile.compaction.discharger.interval)
    cluster.admin().modifyColumnFamily(t, family(F, "FAST_DIFF"));
    SeedTables.compact(cluster, t);
    for (HRegion r : cluster.regions(t)) {
      for (HStore s : r.getStores()) {
        s.closeAndArchiveCompactedFiles();
      }
    }
    out = lister(t, 1);
    assertEquals(2, lines(out, "BLOCKSCOPE_V1 ", " (archive, snapshot " + snapshot + ")"));
    assertEquals(
        t
            + ": 2 of 3 files in BLOCKSCOPE_V1 (table 0, mob 0, archive 2, snapshots 2);"
            + " 0 unreadable",
        last(out));

    // HBase's cleaner keeps what a snapshot refers to
    runArchiveCleaner(t);
    assertEquals(out, lister(t, 1));

    cluster.admin().deleteSnapshot(snapshot);
    out = lister(t, 1);
    assertEquals(2, lines(out, "BLOCKSCOPE_V1 ", " (archive)"));
    assertEquals(
        t
            + ": 2 of 3 files in BLOCKSCOPE_V1 (table 0, mob 0, archive 2, snapshots 0);"
            + " 0 unreadable",
        last(out));

    runArchiveCleaner(t);
    out = lister(t, 0);
    assertEquals(
        List.of(
            t
                + ": 0 of 1 files in BLOCKSCOPE_V1 (table 0, mob 0, archive 0, "
                + "snapshots 0); 0 unreadable"),
        out);
  }

  private static String failureOf(ThrowingRunnable r) {
    try {
      r.run();
    } catch (Exception expected) {
      StringBuilder b = new StringBuilder();
      for (Throwable e = expected; e != null; e = e.getCause()) {
        b.append(e).append(' ');
      }
      System.out.println("refused: " + b);
      return b.toString();
    }
    fail("not refused");
    return null;
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  public void snapshotsOfAnEncodedTableAreClonedAndRestoredOnlyWhereEveryServerHasIt()
      throws Exception {
    Admin admin = cluster.admin();
    TableName t = newTable("ENC_GUARD");
    TableName clone = TableName.valueOf(t + "_clone");
    TableName refusedClone = TableName.valueOf(t + "_clone2");
    String snapshot = t + "_snap";
    createWithRows(t, 1);
    admin.snapshot(snapshot, t);
    // every server has the registrar: the clone is made, with the encoding
    admin.cloneSnapshot(snapshot, clone);
    assertEquals(
        "BLOCKSCOPE_V1",
        admin.getDescriptor(clone).getColumnFamily(F).getValue("DATA_BLOCK_ENCODING"));
    ServerName withIt = cluster.regionServer().getServerName();
    Set<String> reported =
        admin.getClusterMetrics().getLiveServerMetrics().get(withIt).getCoprocessorNames();
    // HBase 2.6.1 reports simple names (CoprocessorHost.getCoprocessors)
    assertTrue(reported.toString(), reported.contains("EncodingRegistrar"));
    assertFalse(reported.toString(), reported.contains("io.blockscope.encoding.EncodingRegistrar"));

    JVMClusterUtil.RegionServerThread bare = startServerWithoutRegistrar();
    String name = bare.getRegionServer().getServerName().getServerName();
    try {

      // an ALTER keeping the encoding goes through while a server (this one, holding no
      // region) reports no coprocessor
      admin.modifyColumnFamily(
          t,
          ColumnFamilyDescriptorBuilder.newBuilder(admin.getDescriptor(t).getColumnFamily(F))
              .setTimeToLive(86_400)
              .build());
      assertEquals(86_400, admin.getDescriptor(t).getColumnFamily(F).getTimeToLive());

      String m =
          failureOf(() -> admin.addColumnFamily(t, family(Bytes.toBytes("h"), "BLOCKSCOPE_V1")));
      assertTrue(
          m,
          m.contains("refusing to alter " + t + ": families [h] would use " + "BLOCKSCOPE_V1")
              && m.contains(name));
      assertEquals(1, admin.getDescriptor(t).getColumnFamilyCount());

      m = failureOf(() -> admin.cloneSnapshot(snapshot, refusedClone));
      assertTrue(
          m,
          m.contains(
                  "refusing to clone snapshot "
                      + snapshot
                      + " as "
                      + refusedClone
                      + ": families [f] would use BLOCKSCOPE_V1")
              && m.contains(name));
      assertFalse(admin.tableExists(refusedClone));

      // a restore onto the table while it has the encoding gives no server anything new
      admin.disableTable(t);
      admin.restoreSnapshot(snapshot);
      // one that puts it back after the way back does
      admin.modifyColumnFamily(t, family(F, "FAST_DIFF"));
      m = failureOf(() -> admin.restoreSnapshot(snapshot));
      assertTrue(
          m,
          m.contains(
                  "refusing to restore snapshot "
                      + snapshot
                      + " onto "
                      + t
                      + ": families [f] would use BLOCKSCOPE_V1")
              && m.contains(name));
      assertEquals(
          "FAST_DIFF", admin.getDescriptor(t).getColumnFamily(F).getValue("DATA_BLOCK_ENCODING"));
    } finally {
      stopSecondServer(bare);
    }
    admin.deleteSnapshot(snapshot);
    admin.deleteTable(t);
    admin.disableTable(clone);
    admin.deleteTable(clone);
  }
}
