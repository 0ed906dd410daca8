package io.blockscope.it;

import io.blockscope.metrics.CostSnapshot;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.junit.BeforeClass;

/** What every integration test shares: the JVM's one embedded cluster and a few readings. */
public abstract class ClusterTestBase {
  private static final AtomicInteger TABLES = new AtomicInteger();

  protected static EmbeddedCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = EmbeddedCluster.shared();
  }

  /** A table name no other test uses. */
  protected static TableName newTable(String prefix) {
    return TableName.valueOf(prefix + "_" + TABLES.incrementAndGet());
  }

  /** Costs of a table, summed over its regions on the region server. */
  protected static CostSnapshot tableCosts(TableName t) {
    return cluster.engine().registry().tableSnapshot(t.getNameAsString());
  }

  protected static CostSnapshot serverCosts() {
    return cluster.engine().registry().serverSnapshot();
  }

  protected static HRegion onlyRegion(TableName t) {
    List<HRegion> regions = cluster.regions(t);
    if (regions.size() != 1) {
      throw new IllegalStateException(t + " has " + regions.size() + " regions");
    }
    return regions.get(0);
  }

  protected static CostSnapshot regionCosts(HRegion r) {
    return cluster.engine().registry().regionSnapshot(r.getRegionInfo().getEncodedName());
  }

  /** Total block cache misses of all kinds in a snapshot. */
  protected static long misses(CostSnapshot s) {
    return s.sumKinds("blockCache.miss");
  }

  protected static long hits(CostSnapshot s) {
    return s.sumKinds("blockCache.hit");
  }
}
