package io.blockscope.cli;

import io.blockscope.coprocessor.Diagnostics;
import io.blockscope.harness.BeanReader;
import io.blockscope.metrics.CostSnapshot;
import java.io.IOException;
import java.lang.management.ManagementFactory;

/**
 * The embedded {@code evaluate}'s costs: a table's series read by their ObjectNames from this JVM's
 * platform MBeanServer ({@link BeanReader}), the names an operator scrapes. A series appears at the
 * first export refresh after its cost becomes non-zero, reading 0 until the refresh after, and a
 * production server refreshes every 10 s (at least every second), so before each read this asks the
 * engine in this JVM for two refreshes ({@link Diagnostics#refreshExport}) (counted in {@code
 * export.refreshes} like the periodic ones): the series then exist for every non-zero cost, and
 * they read live values. That request is the one call into the engine.
 */
final class LocalJmxCosts implements CostSource {
  private final BeanReader beans =
      BeanReader.of(ManagementFactory.getPlatformMBeanServer(), "this JVM");
  private String why;

  @Override
  public CostSnapshot table(String table) {
    Diagnostics e = Diagnostics.current();
    if (e == null) {
      why = "blockscope engine not started";
      return null;
    }
    e.refreshExport();
    try {
      return beans.table(table);
    } catch (IOException | RuntimeException ex) {
      why = "cannot read blockscope's JMX series: " + ex;
      return null;
    }
  }

  @Override
  public String unavailable() {
    if (why == null && Diagnostics.current() == null) {
      why = "blockscope engine not started";
    }
    return why;
  }
}
