package io.blockscope.coprocessor;

import io.blockscope.coprocessor.accounting.CostRegistry;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.metrics.CostLayout;
import java.util.function.IntPredicate;
import java.util.function.IntToLongFunction;
import java.util.function.LongSupplier;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.MetricRegistry;

/**
 * The server-wide figures in HBase's own coprocessor metrics registry ({@code
 * RegionCoprocessorEnvironment.getMetricRegistryForRegionServer()}, published by HBase under {@code
 * Hadoop:service=HBase,name=RegionServer,sub=Coprocessor.Region.CP_<class>}): read-only views of
 * blockscope's registry, registered once per registry.
 */
final class HBaseExport {
  private HBaseExport() {}

  static void register(
      MetricRegistry hbase,
      CostRegistry registry,
      IntPredicate probeInstalled,
      IntToLongFunction probeFailures) {
    if (hbase == null || hbase.get("probe.decode.installed").isPresent()) {
      return; // already there; HBase keeps one registry per coprocessor class while in use
    }
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      final int slot = s;
      if (!CostLayout.alwaysZero(s)) {
        hbase.register(CostLayout.name(s), readOnly(() -> registry.serverCost(slot)));
      }
    }
    for (int p = 0; p < ProbeBridge.N_PROBES; p++) {
      final int probe = p;
      hbase.register(
          "probe." + ProbeBridge.PROBE_NAMES[p] + ".failures",
          readOnly(() -> probeFailures.applyAsLong(probe)));
      hbase.register(
          "probe." + ProbeBridge.PROBE_NAMES[p] + ".installed",
          (Gauge<Integer>) () -> probeInstalled.test(probe) ? 1 : 0);
    }
  }

  private static Counter readOnly(LongSupplier value) {
    return new Counter() {
      @Override
      public void increment() {
        throw new UnsupportedOperationException("read-only");
      }

      @Override
      public void increment(long n) {
        throw new UnsupportedOperationException("read-only");
      }

      @Override
      public void decrement() {
        throw new UnsupportedOperationException("read-only");
      }

      @Override
      public void decrement(long n) {
        throw new UnsupportedOperationException("read-only");
      }

      @Override
      public long getCount() {
        return value.getAsLong();
      }
    };
  }
}
