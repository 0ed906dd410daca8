package io.blockscope.it;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.Engine;
import io.blockscope.coprocessor.probe.ProbeBridge;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.junit.Test;

/** A probe that fails must cost the region server nothing but its own figures. */
public class ProbeFaultIT extends ClusterTestBase {
  private static final int ROWS = 5_000;

  @Test
  public void readsStayCorrectWhileEachProbeFailsAndTheFailuresAreCounted() throws Exception {
    TableName t = newTable("fault");
    Tables.create(cluster.admin(), new Tables.Spec(t)
        .encoding(DataBlockEncoding.FAST_DIFF).compression(Compression.Algorithm.GZ)
        .blockSize(4096).level("TIME"));
    Tables.load(cluster.connection(), cluster.admin(), t, ROWS, 11);
    Engine engine = cluster.engine();
    Get get = new Get(Tables.row(1234));
    Result expected;
    try (Table table = cluster.connection().getTable(t)) {
      expected = table.get(get);
    }
    assertEquals(2, expected.size());

    for (int probe = 0; probe < ProbeBridge.N_PROBES; probe++) {
      String name = ProbeBridge.PROBE_NAMES[probe];
      assertTrue(name + " installed", engine.probeInstalled(probe));
      long failuresBefore = engine.probeFailures(probe);
      Tables.evict(cluster.blockCache(), cluster.regions(t));
      engine.injectFault(probe);
      try (Table table = cluster.connection().getTable(t)) {
        assertEquals(name, 2L * ROWS, Tables.scanCells(cluster.connection(), t, new Scan()));
        Result r = table.get(get);
        assertArrayEquals(name, expected.getValue(Tables.FAMILY, Tables.V1),
            r.getValue(Tables.FAMILY, Tables.V1));
        assertArrayEquals(name, expected.getValue(Tables.FAMILY, Tables.V2),
            r.getValue(Tables.FAMILY, Tables.V2));
      } finally {
        engine.injectFault(-1);
      }
      assertTrue(name + " counted its failures", engine.probeFailures(probe) > failuresBefore);
    }
  }
}
