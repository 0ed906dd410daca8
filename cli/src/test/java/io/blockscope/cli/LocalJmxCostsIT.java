package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.workloads.RawTable;
import java.lang.management.ManagementFactory;
import javax.management.ObjectName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The embedded evaluate reads a table's costs by their JMX names, and reads exactly what the engine
 * holds: every named cost, on a table whose series did not exist before the read.
 */
public class LocalJmxCostsIT {
  private static final int ROWS = 2_000;
  private static EmbeddedCluster cluster;

  @BeforeClass
  public static void start() throws Exception {
    cluster = EmbeddedCluster.shared();
  }

  @Test(timeout = 180_000)
  public void readsByJmxNameWhatTheEngineHolds() throws Exception {
    TableName t = TableName.valueOf("local_jmx_costs");
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(t).encoding(DataBlockEncoding.FAST_DIFF).level(PerfLevel.TIME));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, ROWS, 1);
    StoreFiles.evict(cluster.blockCache(), cluster.regions(t));
    assertEquals(2L * ROWS, RawTable.scanCells(cluster.connection(), t, new Scan()));

    LocalJmxCosts costs = new LocalJmxCosts();
    long refreshes = refreshes();
    CostSnapshot read = costs.table(t.getNameAsString());
    assertNull(costs.unavailable());
    assertNotNull(read);
    assertTrue("the read asked for an export refresh", refreshes() > refreshes);

    // nothing reads the table now: the engine's figures and the series' agree on every name
    CostSnapshot held = cluster.diagnostics().registry().tableSnapshot(t.getNameAsString());
    assertEquals(held.nonZero(), read.nonZero());
    // and they are the cold scan's: each cell of the store file decoded once, each data block read
    long[] file = StoreFiles.trailerDataBlocksAndCells(cluster.regions(t));
    assertEquals(read.toString(), file[1], read.get("decode.FAST_DIFF.cells"));
    assertEquals(read.toString(), file[0], read.get("fs.read.blocks.data"));
    assertEquals(read.toString(), file[0], read.get("blockCache.miss.data"));

    // a table blockscope has never seen reads as no costs, not as a failure
    CostSnapshot none = costs.table("local_jmx_costs_absent");
    assertEquals(CostSnapshot.ZERO.nonZero(), none.nonZero());
  }

  private static long refreshes() throws Exception {
    return ((Number)
            ManagementFactory.getPlatformMBeanServer()
                .getAttribute(
                    new ObjectName("blockscope:type=Server,name=export.refreshes"), "Count"))
        .longValue();
  }
}
