package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.BlockscopeRegionObserver;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.RawTable;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Coprocessor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.CoprocessorClassLoader;
import org.junit.Test;

/**
 * Deployment through the table descriptor, with the shaded jar on HDFS, as operators do it. The
 * copy loaded from the jar lives in HBase's child-first CoprocessorClassLoader and joins the JVM's
 * engine (here, the cluster-wide copy's) instead of counting a second time.
 */
public class PerTableDeployIT extends ClusterTestBase {
  @Test
  public void aTableLoadsTheJarFromHdfsAndItsReadsAreCountedOnce() throws Exception {
    File jar = new File(System.getProperty("blockscope.jar", "missing"));
    assertTrue("the shaded jar is built before the integration tests: " + jar, jar.isFile());
    FileSystem fs = cluster.util().getTestFileSystem();
    Path onHdfs = new Path("/blockscope/lib/blockscope-coprocessors.jar");
    fs.copyFromLocalFile(new Path(jar.getAbsolutePath()), onHdfs);

    TableName t = newTable("pertable");
    cluster
        .admin()
        .createTable(
            TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(
                    ColumnFamilyDescriptorBuilder.newBuilder(RawTable.SEED_FAMILY)
                        .setBlocksize(4096)
                        .build())
                .setCoprocessor(
                    CoprocessorDescriptorBuilder.newBuilder(
                            BlockscopeRegionObserver.class.getName())
                        .setJarPath(fs.makeQualified(onHdfs).toString())
                        .setPriority(Coprocessor.PRIORITY_USER)
                        .build())
                .build());
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, 10_000, 9);
    HRegion region = onlyRegion(t);

    List<RegionCoprocessor> copies =
        region.getCoprocessorHost().findCoprocessors(RegionCoprocessor.class).stream()
            .filter(c -> c.getClass().getName().equals(BlockscopeRegionObserver.class.getName()))
            .collect(Collectors.toList());
    assertEquals("cluster-wide copy plus the table's copy", 2, copies.size());
    assertTrue(
        copies.stream()
            .anyMatch(c -> c.getClass().getClassLoader() instanceof CoprocessorClassLoader));

    StoreFiles.evict(cluster.blockCache(), cluster.regions(t));
    CostSnapshot before = regionCosts(region);
    RawTable.scanCells(cluster.connection(), t, new Scan());
    CostSnapshot cold = regionCosts(region).minus(before);
    long cached = StoreFiles.cachedDataBlocks(cluster.blockCache(), cluster.regions(t));
    assertTrue(cached > 10);
    assertEquals(
        "each block counted once, not once per copy", cached, cold.get("blockCache.miss.data"));

    // a tagged scan is wrapped once, by one of the two copies: one scanner, each row once
    String query = "00000000000000000000000000000a7e";
    Scan tagged = new Scan();
    tagged.setAttribute(Attributes.QUERY, query.getBytes(StandardCharsets.US_ASCII));
    long rows;
    try (var table = cluster.connection().getTable(t);
        var scanner = table.getScanner(tagged)) {
      rows = StreamSupport.stream(scanner.spliterator(), false).count();
    }
    assertEquals(10_000, rows);
    String encoded = region.getRegionInfo().getEncodedName();
    assertEquals(
        new io.blockscope.coprocessor.accounting.QueryTracker.Stats(0, 1, 1),
        cluster.diagnostics().queries().stats(query, me()));
    assertEquals(
        "rows counted once, not once per copy",
        rows,
        cluster.diagnostics()
            .queryCosts(query, me(), encoded)[io.blockscope.metrics.CostLayout.SIZE]);

    cluster.admin().disableTable(t);
    assertEquals(null, cluster.diagnostics().registry().region(encoded));
    cluster.admin().deleteTable(t);
    assertNotNull(cluster.diagnostics());
  }
}
