package io.blockscope.coprocessor;

import io.blockscope.metrics.HBaseScanMetrics;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Reads HBase's own server-side scan metrics of the scan RPC running on this thread, for a query
 * profile. From HBase 2.6.4, {@code RSRpcServices.scan} resets the thread-local counters of {@code
 * org.apache.hadoop.hbase.monitoring.ThreadLocalServerSideScanMetrics} at the start of every scan
 * RPC that asks for scan metrics ({@code Scan.setScanMetricsEnabled}), {@code HFileBlock} and
 * {@code HFileReaderImpl} add to them as the RPC reads, and {@code RSRpcServices} copies them into
 * the response after {@code postScannerNext}: read there, they are that RPC's. Looked up, not
 * linked: on an HBase without the class (2.6.3 and older, 2.5) {@link #find} says why and the
 * profiles carry blockscope's costs alone.
 */
final class HBaseScanMetricsReader {
  static final String CLASS = "org.apache.hadoop.hbase.monitoring.ThreadLocalServerSideScanMetrics";

  /** The counter getter of each metric, in {@link HBaseScanMetrics#NAMES} order. */
  private static final List<String> GETTERS =
      Arrays.asList(
          "getBlockReadOpsCountCounter",
          "getBytesReadFromFsCounter",
          "getBytesReadFromBlockCacheCounter",
          "getBytesReadFromMemstoreCounter",
          "getFsReadTimeCounter");

  private final MethodHandle enabled;
  private final MethodHandle[] counters;

  private HBaseScanMetricsReader(MethodHandle enabled, MethodHandle[] counters) {
    this.enabled = enabled;
    this.counters = counters;
  }

  /** The reader, or null with the reason added to {@code why}. */
  static HBaseScanMetricsReader find(ClassLoader hbase, List<String> why) {
    try {
      Class<?> c = Class.forName(CLASS, false, hbase);
      MethodHandles.Lookup l = MethodHandles.publicLookup();
      MethodHandle enabled =
          l.findStatic(c, "isScanMetricsEnabled", MethodType.methodType(boolean.class));
      MethodHandle[] counters = new MethodHandle[GETTERS.size()];
      for (int i = 0; i < counters.length; i++) {
        counters[i] = l.findStatic(c, GETTERS.get(i), MethodType.methodType(AtomicLong.class));
      }
      return new HBaseScanMetricsReader(enabled, counters);
    } catch (ReflectiveOperationException | LinkageError e) {
      why.add("HBase's scan metrics in query profiles unavailable on this HBase (2.6.4 on): " + e);
      return null;
    }
  }

  /**
   * Adds this thread's scan RPC's metrics to {@code into}; false (and nothing added) when the RPC
   * did not ask HBase to track them.
   */
  boolean addTo(AtomicLongArray into) throws Throwable {
    if (!(boolean) enabled.invokeExact()) {
      return false;
    }
    for (int i = 0; i < counters.length; i++) {
      into.addAndGet(i, ((AtomicLong) counters[i].invokeExact()).get());
    }
    return true;
  }
}
