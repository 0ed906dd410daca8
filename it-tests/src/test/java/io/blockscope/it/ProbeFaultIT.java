package io.blockscope.it;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.Diagnostics;
import io.blockscope.coprocessor.MiscountDrill;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.workloads.RawTable;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/** A probe that fails must cost the region server nothing but its own figures. */
public class ProbeFaultIT extends ClusterTestBase {
  private static final int ROWS = 5_000;
  private static final int LATER = 10;

  @Test
  public void readsStayCorrectWhileEachProbeFailsAndTheFailuresAreCounted() throws Exception {
    TableName t = newTable("fault");
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(t)
            .encoding(DataBlockEncoding.FAST_DIFF)
            .compression(Compression.Algorithm.GZ)
            .blockSize(4096)
            .level(PerfLevel.TIME));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, ROWS, 11);
    try (Table table = cluster.connection().getTable(t)) { // in the memstore: its probe runs too
      for (int pk = ROWS; pk < ROWS + LATER; pk++) {
        table.put(
            new Put(RawTable.seedRow(pk))
                .addColumn(RawTable.SEED_FAMILY, RawTable.SEED_V1, Bytes.toBytes(pk))
                .addColumn(RawTable.SEED_FAMILY, RawTable.SEED_V2, Bytes.toBytes(pk)));
      }
    }
    Diagnostics engine = cluster.diagnostics();
    Get get = new Get(RawTable.seedRow(1234));
    Result expected;
    try (Table table = cluster.connection().getTable(t)) {
      expected = table.get(get);
    }
    assertEquals(2, expected.size());

    for (int probe = 0; probe < ProbeBridge.N_PROBES; probe++) {
      String name = ProbeBridge.PROBE_NAMES[probe];
      assertTrue(name + " installed", engine.probeInstalled(probe));
      long failuresBefore = engine.probeFailures(probe);
      StoreFiles.evict(cluster.blockCache(), cluster.regions(t));
      MiscountDrill.injectFault(engine, probe);
      try (Table table = cluster.connection().getTable(t)) {
        assertEquals(
            name, 2L * (ROWS + LATER), RawTable.scanCells(cluster.connection(), t, new Scan()));
        Result r = table.get(get);
        assertArrayEquals(
            name,
            expected.getValue(RawTable.SEED_FAMILY, RawTable.SEED_V1),
            r.getValue(RawTable.SEED_FAMILY, RawTable.SEED_V1));
        assertArrayEquals(
            name,
            expected.getValue(RawTable.SEED_FAMILY, RawTable.SEED_V2),
            r.getValue(RawTable.SEED_FAMILY, RawTable.SEED_V2));
      } finally {
        MiscountDrill.injectFault(engine, -1);
      }
      assertTrue(name + " counted its failures", engine.probeFailures(probe) > failuresBefore);
    }
  }
}
