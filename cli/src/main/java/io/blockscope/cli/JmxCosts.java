package io.blockscope.cli;

import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.MetricKeys;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;

/**
 * blockscope's figures read the way an operator's scraper reads them: by the ObjectNames of
 * docs/metrics.md, from a JMX connection (this JVM's platform MBeanServer for the embedded
 * cluster). Nothing here reaches into the engine.
 *
 * <p>A table's or region's series appear at the first export refresh after its costs become
 * non-zero, reading 0 until the refresh after; {@link #awaitExport} waits for three refreshes,
 * after which every non-zero series exists and reads current values.
 */
final class JmxCosts {
  private static final String REFRESHES = "blockscope:type=Server,name=export.refreshes";

  private final MBeanServerConnection jmx;
  private final long exportIntervalMs;

  JmxCosts(MBeanServerConnection jmx, long exportIntervalMs) {
    this.jmx = jmx;
    this.exportIntervalMs = exportIntervalMs;
  }

  /**
   * Waits until the server's export has refreshed three times more: the one in progress may have
   * missed the last reads, the second registers their series, which read 0 until the third; at most
   * five intervals.
   */
  void awaitExport() throws IOException, InterruptedException {
    long seen = refreshes();
    long deadline = System.nanoTime() + 5 * exportIntervalMs * 1_000_000L;
    while (refreshes() < seen + 3) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "blockscope's export did not refresh within " + 5 * exportIntervalMs + " ms");
      }
      Thread.sleep(Math.max(1, exportIntervalMs / 20));
    }
  }

  /** The table's costs over its regions, open and closed, as its series show them. */
  CostSnapshot table(String table) throws IOException {
    return sum(pattern("blockscope:type=Table,table=" + MetricKeys.value(table) + ",*"));
  }

  /** The region's costs since it opened, as its series show them (zero when not exported). */
  CostSnapshot region(String table, String encodedRegion) throws IOException {
    return sum(
        pattern(
            "blockscope:type=Region,table="
                + MetricKeys.value(table)
                + ",region="
                + MetricKeys.value(encodedRegion)
                + ",*"));
  }

  /** Whether a probe is woven into HBase here ({@code probe.<name>.installed} reads 1). */
  boolean probeInstalled(String probe) throws IOException {
    Object v =
        attribute(pattern("blockscope:type=Probe,probe=" + probe + ",name=installed"), "Value");
    return v instanceof Number n && n.intValue() == 1;
  }

  /** The value of a counter series, by its ObjectName. */
  Object count(ObjectName name) throws IOException {
    return attribute(name, "Count");
  }

  /** Named costs (docs/metrics.md's names) as a snapshot; names that are not costs are ignored. */
  static CostSnapshot snapshot(long[] slots) {
    Map<String, Long> named = new LinkedHashMap<>();
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      named.put(CostLayout.name(i), slots[i]);
    }
    return CostSnapshot.of(named);
  }

  private long refreshes() throws IOException {
    Object v = attribute(pattern(REFRESHES), "Count");
    if (!(v instanceof Number n)) {
      throw new IllegalStateException(
          "no " + REFRESHES + ": blockscope is not running in this JVM or its JMX is off");
    }
    return n.longValue();
  }

  private CostSnapshot sum(ObjectName pattern) throws IOException {
    long[] slots = new long[CostLayout.SIZE];
    for (ObjectName name : jmx.queryNames(pattern, null)) {
      int slot = CostLayout.slotOf(name.getKeyProperty("name"));
      if (slot >= 0 && attribute(name, "Count") instanceof Number n) {
        slots[slot] += n.longValue();
      }
    }
    return snapshot(slots);
  }

  private Object attribute(ObjectName name, String attribute) throws IOException {
    try {
      return jmx.isRegistered(name) ? jmx.getAttribute(name, attribute) : null;
    } catch (JMException e) {
      return null; // unregistered between the two calls: a region that just closed
    }
  }

  private static ObjectName pattern(String name) {
    try {
      return new ObjectName(name);
    } catch (JMException e) {
      throw new IllegalArgumentException("not an ObjectName: " + name, e);
    }
  }
}
