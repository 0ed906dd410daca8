package io.blockscope.coprocessor.accounting;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.jmx.JmxReporter;
import io.blockscope.metrics.MetricKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import javax.management.MBeanServer;

/**
 * The registry's series as Dropwizard metrics and JMX beans: which are registered, the ones that
 * read 0 until the refresh after the one that registered them, and the JMX reporter. What is
 * exported is the registry's choice ({@link CostRegistry#refreshExport}); every method here is
 * called under the registry's lock.
 */
final class SeriesExport {
  private final MetricRegistry metrics = new MetricRegistry();

  /** Series registered at the last refresh that read 0 until the next one. */
  private final List<FromZero> holding = new ArrayList<>();

  private JmxReporter jmx;

  /** A read-only Dropwizard counter whose count is computed; JMX shows it as {@code Count}. */
  static Counter readOnlyCounter(LongSupplier value) {
    return new Counter() {
      @Override
      public long getCount() {
        return value.getAsLong();
      }

      @Override
      public void inc(long n) {
        throw new UnsupportedOperationException("blockscope counters are read-only");
      }

      @Override
      public void dec(long n) {
        throw new UnsupportedOperationException("blockscope counters are read-only");
      }
    };
  }

  MetricRegistry metrics() {
    return metrics;
  }

  /** Registers a series that is always there (a server total or gauge). */
  void register(String key, Metric metric) {
    metrics.register(key, metric);
  }

  /** Registers a metric under {@code key} unless one is there. */
  void registerOnce(String key, Metric metric) {
    if (!metrics.getMetrics().containsKey(key)) {
      metrics.register(key, metric);
    }
  }

  /** A refresh begins: the series the last one registered show their values from now on. */
  void showHeld() {
    for (FromZero h : holding) {
      h.held = false;
    }
    holding.clear();
  }

  /**
   * Registers {@code key} as a series of {@code value} unless {@code exported} has it already; with
   * {@code fromZero}, it reads 0 until the next refresh.
   */
  void export(Set<String> exported, String key, LongSupplier value, boolean fromZero) {
    if (exported.add(key)) {
      LongSupplier shown = value;
      if (fromZero) {
        FromZero h = new FromZero(value);
        holding.add(h);
        shown = h;
      }
      metrics.register(key, readOnlyCounter(shown));
    }
  }

  /** Registers {@code key} as a gauge of {@code value} unless {@code exported} has it already. */
  void exportGauge(Set<String> exported, String key, Gauge<Long> value) {
    if (exported.add(key)) {
      metrics.register(key, value);
    }
  }

  /** Removes every series of {@code exported}. */
  void unexport(Set<String> exported) {
    for (String key : exported) {
      metrics.remove(key);
    }
    exported.clear();
  }

  /** Exposes every series as an MBean under {@link MetricKeys#DOMAIN}. */
  void startJmx(MBeanServer server) {
    if (jmx == null) {
      jmx =
          JmxReporter.forRegistry(metrics)
              .inDomain(MetricKeys.DOMAIN)
              .createsObjectNamesWith(ObjectNames.FACTORY)
              .registerWith(server)
              .build();
      jmx.start();
    }
  }

  void close() {
    if (jmx != null) {
      jmx.stop();
      jmx = null;
    }
  }

  /** A series' value that reads 0 until the refresh after the one that registered it. */
  private static final class FromZero implements LongSupplier {
    private final LongSupplier value;
    private volatile boolean held = true;

    FromZero(LongSupplier value) {
      this.value = value;
    }

    @Override
    public long getAsLong() {
      return held ? 0 : value.getAsLong();
    }
  }
}
