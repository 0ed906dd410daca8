package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.workloads.RawTable;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Waiter;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/** Profiling levels (per table, per server, changed live) and the life of a region's series. */
public class LevelsAndLifecycleIT extends ClusterTestBase {
  private static final int ROWS = 10_000;

  private static TableName loaded(RawTable.Spec spec) throws Exception {
    RawTable.create(cluster.admin(), spec);
    RawTable.loadSeed(cluster.connection(), cluster.admin(), spec.name(), ROWS, 7);
    return spec.name();
  }

  private static CostSnapshot coldScan(TableName t) throws Exception {
    StoreFiles.evict(cluster.blockCache(), cluster.regions(t));
    CostSnapshot before = tableCosts(t);
    RawTable.scanCells(cluster.connection(), t, new Scan());
    return tableCosts(t).minus(before);
  }

  private static long nanos(CostSnapshot s) {
    return s.get("checksum.nanos")
        + s.sumOver("decompress", "nanos")
        + s.sumOver("decode", "nanos");
  }

  @Test
  public void tableAttributeSetsTheLevel() throws Exception {
    RawTable.Spec base =
        new RawTable.Spec(newTable("lvl_time"))
            .encoding(DataBlockEncoding.FAST_DIFF)
            .compression(Compression.Algorithm.GZ);
    TableName time = loaded(base.level(PerfLevel.TIME));
    TableName count =
        loaded(
            new RawTable.Spec(newTable("lvl_count"))
                .encoding(DataBlockEncoding.FAST_DIFF)
                .compression(Compression.Algorithm.GZ));
    TableName off = loaded(new RawTable.Spec(newTable("lvl_off")).level("off"));
    TableName bad = loaded(new RawTable.Spec(newTable("lvl_bad")).level("LOUD"));

    CostSnapshot timed = coldScan(time);
    assertTrue(timed.get("checksum.nanos") > 0);
    assertTrue(timed.get("decompress.GZ.nanos") > 0);
    assertTrue(timed.get("decode.FAST_DIFF.nanos") > 0);
    assertEquals(2L * ROWS, timed.get("decode.FAST_DIFF.cells"));

    CostSnapshot counted = coldScan(count);
    assertEquals(0, nanos(counted));
    assertEquals(timed.get("decode.FAST_DIFF.cells"), counted.get("decode.FAST_DIFF.cells"));
    assertEquals(timed.sumKinds("fs.read.blocks"), counted.sumKinds("fs.read.blocks"));

    assertEquals(CostSnapshot.ZERO, coldScan(off));

    // An unknown level is reported and the region runs at the server level (COUNT).
    CostSnapshot unknown = coldScan(bad);
    assertEquals(
        "its store files' data blocks (a NONE table: no cells decoded to count)",
        SeedTables.dataBlocksAndCells(cluster.regions(bad))[0],
        unknown.get("fs.read.blocks.data"));
    assertEquals(0, nanos(unknown));
    assertTrue(cluster.diagnostics().problems().stream().anyMatch(p -> p.contains("LOUD")));
  }

  /**
   * TIME's figures on the scale of the wall clock: a scan's RPCs run one after another, each on one
   * handler thread, and the timed sections (checksums, inflating, decoding) do not nest, so their
   * sum is within the wall time the client waited for the scan; a time counted several times over
   * is not. Inflating a 64 KB GZ block takes more than 5 us, which a time counted in microseconds
   * (a thousandth) is not.
   */
  @Test
  public void timesAreWithinTheWallTimeOfTheScanThatSpentThem() throws Exception {
    TableName t = newTable("lvl_wall");
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(t)
            .encoding(DataBlockEncoding.FAST_DIFF)
            .compression(Compression.Algorithm.GZ)
            .level(PerfLevel.TIME));
    // few cells, each 16 KB of words GZ packs about 3 to 1: inflating them is much of what the
    // server does for the scan, as it is not for small cells
    int rows = 1_500;
    Random random = new Random(7);
    String[] words = {"block", "cache", "region", "server", "scan", "seek", "cell", "store"};
    try (Table table = cluster.connection().getTable(t)) {
      for (int i = 0; i < rows; i++) {
        StringBuilder v = new StringBuilder();
        while (v.length() < 16_384) {
          v.append(words[random.nextInt(words.length)]).append(random.nextInt(100)).append(' ');
        }
        table.put(
            new Put(RawTable.seedRow(i))
                .addColumn(RawTable.SEED_FAMILY, RawTable.SEED_V1, Bytes.toBytes(v.toString())));
      }
    }
    cluster.admin().flush(t);
    // a filter no cell passes: the server reads, checks, inflates and decodes every cell and sends
    // none
    Scan readAll =
        new Scan()
            .setFilter(
                new ValueFilter(
                    CompareOperator.EQUAL, new BinaryComparator(Bytes.toBytes("no such value"))));
    CostSnapshot timed = null;
    long wall = 0;
    for (int round = 0; round < 2; round++) { // the first warms the code paths the second times
      StoreFiles.evict(cluster.blockCache(), cluster.regions(t));
      CostSnapshot before = tableCosts(t);
      long start = System.nanoTime();
      assertEquals(0, RawTable.scanCells(cluster.connection(), t, readAll));
      wall = System.nanoTime() - start;
      timed = tableCosts(t).minus(before);
    }
    System.out.println(
        "a cold scan at TIME: "
            + wall
            + " ns on the client's clock, "
            + nanos(timed)
            + " ns timed: "
            + timed.nonZero());
    assertEquals(rows, timed.get("decode.FAST_DIFF.cells"));
    assertAtMost("the scan's timed sections within its wall time", wall, nanos(timed));
    long gzBlocks = timed.get("decompress.GZ.blocks");
    assertEquals(timed.sumKinds("fs.read.blocks"), gzBlocks);
    assertTrue(
        timed.get("decompress.GZ.nanos") + " ns for " + gzBlocks + " GZ blocks",
        timed.get("decompress.GZ.nanos") >= 5_000 * gzBlocks);
    assertTrue(timed.get("checksum.nanos") > 0);
    assertTrue(timed.get("decode.FAST_DIFF.nanos") > 0);
  }

  @Test
  public void updateConfigurationChangesTheServerLevelWithoutARestart() throws Exception {
    TableName t = loaded(new RawTable.Spec(newTable("lvl_live")).encoding(DataBlockEncoding.DIFF));
    assertEquals(0, nanos(coldScan(t)));
    HRegionServer rs = cluster.regionServer();
    rs.getConfiguration().set("blockscope.level", "TIME");
    try {
      cluster.admin().updateConfiguration(rs.getServerName());
      assertEquals(PerfLevel.TIME, cluster.diagnostics().serverLevel());
      assertTrue(coldScan(t).get("decode.DIFF.nanos") > 0);
    } finally {
      rs.getConfiguration().set("blockscope.level", "COUNT");
      cluster.admin().updateConfiguration(rs.getServerName());
    }
    assertEquals(PerfLevel.COUNT, cluster.diagnostics().serverLevel());
    assertEquals(0, nanos(coldScan(t)));
  }

  @Test
  public void compactionReadsAreAttributedToTheRegionTheyCompact() throws Exception {
    TableName t = newTable("compact");
    RawTable.create(cluster.admin(), new RawTable.Spec(t).encoding(DataBlockEncoding.FAST_DIFF));
    HRegion region = twoStoreFiles(t);
    long[] inputs = SeedTables.dataBlocksAndCells(List.of(region));
    CostSnapshot compaction = majorCompacted(region);
    System.out.println(
        "compaction of files with "
            + inputs[0]
            + " data blocks and "
            + inputs[1]
            + " cells: "
            + compaction.nonZero());
    // A compaction reads every block of its input files from the file system (its readers do not
    // cache), each once: the first block of each input while HBase opens the compaction's scanner
    // (Compactor.createScanner seeks every file between the preCompactScannerOpen and preCompact
    // hooks, outside any frame: held on the thread and handed over by preCompact), the rest through
    // preCompact's wrapper, batch by batch.
    assertEquals(compaction.toString(), inputs[0], compaction.get("fs.read.blocks.data"));
    assertEquals(inputs[0], compaction.get("blockCache.miss.data"));
    assertEquals(compaction.sumKinds("fs.read.bytes"), compaction.get("checksum.bytes"));
    // Every cell of both files is decoded; the older versions are skipped with reseeks, which
    // decode a few cells again (measured: 41,574 cells for 40,000 before the opening's reads were
    // counted, with 1,577 seeks); bounded at 10% more.
    assertEquals(4L * ROWS, inputs[1]);
    long cells = compaction.get("decode.FAST_DIFF.cells");
    assertTrue(compaction.toString(), cells >= inputs[1] && cells <= inputs[1] * 11 / 10);
  }

  /** Major-compacts a region into one store file and returns what blockscope counted meanwhile. */
  private static CostSnapshot majorCompacted(HRegion region) throws Exception {
    CostSnapshot before = regionCosts(region);
    cluster.admin().majorCompactRegion(region.getRegionInfo().getRegionName());
    cluster
        .util()
        .waitFor(
            60_000,
            (Waiter.Predicate<Exception>) () -> StoreFiles.names(List.of(region)).size() == 1);
    return regionCosts(region).minus(before);
  }

  /** No compaction runs on the region and none of its current files is a reference. */
  private static boolean compactedAway(HRegion region) {
    return region.getCompactionState() == CompactionState.NONE
        && region.getStores().stream()
            .flatMap(s -> s.getStorefiles().stream())
            .noneMatch(HStoreFile::isReference);
  }

  /** Loads the seed twice into a new table, one store file each time, and returns its region. */
  private static HRegion twoStoreFiles(TableName t) throws Exception {
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, ROWS, 1);
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, ROWS, 2);
    HRegion region = onlyRegion(t);
    assertEquals(2, StoreFiles.names(List.of(region)).size());
    return region;
  }

  /**
   * A FAST_DIFF table with FaultInjectingObserver running before blockscope's observer, whose
   * compactions all go to the region server's pool of small compactions (one thread).
   */
  private static TableName faultObservedTable(String prefix, String fault) throws Exception {
    TableName t = newTable(prefix);
    TableDescriptorBuilder table =
        TableDescriptorBuilder.newBuilder(t)
            // CompactSplit sends a compaction bigger than this to the pool of large compactions
            .setValue(
                "hbase.regionserver.thread.compaction.throttle", Long.toString(Long.MAX_VALUE))
            .setColumnFamily(
                ColumnFamilyDescriptorBuilder.newBuilder(RawTable.SEED_FAMILY)
                    .setDataBlockEncoding(DataBlockEncoding.FAST_DIFF)
                    .build())
            .setCoprocessor(
                CoprocessorDescriptorBuilder.newBuilder(FaultInjectingObserver.class.getName())
                    .setPriority(1)
                    .build());
    if (fault != null) {
      table.setValue(FaultInjectingObserver.FAULT, fault);
    }
    cluster.admin().createTable(table.build());
    return t;
  }

  /**
   * A compaction that fails after HBase opened its scanner (another coprocessor's preCompact throws
   * before blockscope's runs) leaves the opening's reads on the compaction thread: they are
   * measured by none, and the next compaction on that thread counts its own reads, exactly. HBase
   * runs small compactions on two threads (its pools of small and large compactions share one
   * queue), so two failing compactions are held until both threads run one.
   */
  @Test
  public void aCompactionThatFailsAfterItsScannerOpenedLeavesNothingToTheNext() throws Exception {
    List<HRegion> failing = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      failing.add(twoStoreFiles(faultObservedTable("compact_fail", "preCompact")));
    }
    HRegion next = twoStoreFiles(faultObservedTable("compact_next", null));
    long[] nextInputs = SeedTables.dataBlocksAndCells(List.of(next));
    long hookFailures = serverCounter("hooks.failures");
    List<String> threads = FaultInjectingObserver.COMPACTION_THREADS;
    threads.clear();
    FaultInjectingObserver.failingCompactionsMeet = new CountDownLatch(2);

    CostSnapshot failingBefore = regionCosts(failing.get(0)).plus(regionCosts(failing.get(1)));
    for (HRegion r : failing) {
      cluster.admin().majorCompactRegion(r.getRegionInfo().getRegionName());
    }
    cluster
        .util()
        .waitFor(
            90_000,
            (Waiter.Predicate<Exception>)
                () ->
                    threads.size() == 2
                        && failing.stream()
                            .allMatch(r -> r.getCompactionState().equals(CompactionState.NONE)));
    assertNotEquals(
        "the two failing compactions held two threads at once: " + threads,
        threads.get(0),
        threads.get(1));
    for (HRegion r : failing) {
      assertEquals(2, StoreFiles.names(List.of(r)).size());
    }
    CostSnapshot failed =
        regionCosts(failing.get(0)).plus(regionCosts(failing.get(1))).minus(failingBefore);
    assertEquals(failed.toString(), 0, failed.sumKinds("fs.read.blocks"));

    CostSnapshot compaction = majorCompacted(next);
    assertEquals(threads.toString(), 3, threads.size());
    assertTrue(
        "the next compaction ran on a thread a failed one left: " + threads,
        threads.subList(0, 2).contains(threads.get(2)));
    // each failed opening read one block of each of its two files; none of them is counted here
    assertEquals(compaction.toString(), nextInputs[0], compaction.get("fs.read.blocks.data"));
    assertEquals(nextInputs[0], compaction.get("blockCache.miss.data"));
    assertEquals(hookFailures, serverCounter("hooks.failures"));
    assertEquals(0, cluster.diagnostics().openFrames());
  }

  @Test
  public void afterASplitEachDaughterHasItsOwnSeriesAndTheParentsAreGone() throws Exception {
    TableName t = loaded(new RawTable.Spec(newTable("split")).blockSize(4096));
    HRegion parent = onlyRegion(t);
    String parentName = parent.getRegionInfo().getEncodedName();
    coldScan(t);
    cluster.diagnostics().refreshExport();
    MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
    ObjectName parentBeans = new ObjectName("blockscope:type=Region,region=" + parentName + ",*");
    assertFalse(mbs.queryNames(parentBeans, null).isEmpty());
    CostSnapshot tableBefore = tableCosts(t);

    cluster.admin().split(t, RawTable.seedRow(ROWS / 2));
    // each daughter opens on references to the parent's file and compacts them away; the
    // comparison below reads the daughters and then the table, so no compaction may run between
    cluster
        .util()
        .waitFor(
            60_000,
            (Waiter.Predicate<Exception>)
                () ->
                    cluster.regions(t).size() == 2
                        && cluster.regions(t).stream()
                            .allMatch(r -> r.isAvailable() && compactedAway(r))
                        && cluster.diagnostics().openFrames() == 0);
    cluster.util().waitUntilNoRegionsInTransition(60_000);

    assertNull(cluster.diagnostics().registry().region(parentName));
    assertTrue(mbs.queryNames(parentBeans, null).isEmpty());
    // the parent closed before its daughters opened; the table's counters go on from its costs,
    // plus exactly what the daughters read since they opened (their compactions)
    CostSnapshot daughtersRead = CostSnapshot.ZERO;
    for (HRegion d : cluster.regions(t)) {
      daughtersRead = daughtersRead.plus(regionCosts(d));
    }
    assertEquals(
        "the table's counters do not restart across the split",
        tableBefore.plus(daughtersRead),
        tableCosts(t));

    List<HRegion> daughters = cluster.regions(t);
    Map<String, CostSnapshot> daughtersBefore = new HashMap<>();
    for (HRegion d : daughters) {
      daughtersBefore.put(d.getRegionInfo().getEncodedName(), regionCosts(d));
    }
    CostSnapshot cold = coldScan(t);
    cluster.diagnostics().refreshExport();
    // each daughter read its own file's data blocks once, and the table exactly their sum
    long[] files = StoreFiles.trailerDataBlocksAndCells(daughters);
    for (HRegion d : daughters) {
      String name = d.getRegionInfo().getEncodedName();
      assertNotEquals(parentName, name);
      CostSnapshot c = regionCosts(d).minus(daughtersBefore.get(name));
      long[] own = StoreFiles.trailerDataBlocksAndCells(List.of(d));
      assertEquals(name + " read its own blocks: " + c, own[0], c.get("fs.read.blocks.data"));
      assertEquals(name + " missed them: " + c, own[0], c.get("blockCache.miss.data"));
      Set<ObjectName> beans =
          mbs.queryNames(new ObjectName("blockscope:type=Region,region=" + name + ",*"), null);
      assertFalse(beans.isEmpty());
    }
    assertEquals("the table's cold scan: " + cold, files[0], cold.get("fs.read.blocks.data"));
    assertEquals("the table's cold scan: " + cold, files[0], cold.get("blockCache.miss.data"));
  }
}
