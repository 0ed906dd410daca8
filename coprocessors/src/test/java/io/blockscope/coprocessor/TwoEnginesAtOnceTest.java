package io.blockscope.coprocessor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.ServerMetric;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.junit.Test;

/**
 * Two copies of blockscope opening their first regions at the same moment both made an engine; the
 * one whose engine was not published closed it, and its close took out the JMX beans it had
 * registered first, under the names the published engine then failed to register: {@code top} and
 * {@code evaluate --zk} found no export.
 */
public class TwoEnginesAtOnceTest {

  private static Method hooks(Class<?> engine) throws NoSuchMethodException {
    Method m = engine.getDeclaredMethod("hooks", Configuration.class, List.class);
    m.setAccessible(true);
    return m;
  }

  @Test
  public void twoCopiesStartingAtOnceMakeOneEngineWhoseBeansAreAllThere() throws Exception {
    assertNull("no engine in this JVM yet", ProbeBridge.engine(null));
    Class<?> other =
        Class.forName(
            JvmEngine.class.getName(),
            true,
            OtherCopy.ofPackage(
                TwoEnginesAtOnceTest.class.getClassLoader(), "io.blockscope.coprocessor."));
    assertNotSame(JvmEngine.class, other);
    Method ours = hooks(JvmEngine.class);
    Method theirs = hooks(other);

    OtherCopy.atOnce(
        () -> ours.invoke(null, new Configuration(false), new ArrayList<String>()),
        () -> theirs.invoke(null, new Configuration(false), new ArrayList<String>()));

    Object engine = ProbeBridge.engine(null);
    Method registryOf = engine.getClass().getMethod("registry");
    registryOf.setAccessible(true); // the other copy's Engine is package-private in its loader
    // Either copy may win the race, so the registry may be the other loader's class: reach its
    // Dropwizard registry (one class for both copies) by name rather than by a cast.
    Object registry = registryOf.invoke(engine);
    Method metricsOf = registry.getClass().getMethod("metrics");
    metricsOf.setAccessible(true);
    MetricRegistry metrics = (MetricRegistry) metricsOf.invoke(registry);
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    List<String> keys = new ArrayList<>(metrics.getMetrics().keySet());
    for (ServerMetric m : ServerMetric.values()) {
      assertTrue(m + " registered: " + keys, keys.contains(m.key()));
    }
    List<String> missing = new ArrayList<>();
    for (String key : keys) {
      ObjectName name = MetricKeys.objectName(key);
      if (!server.isRegistered(name)) {
        missing.add(key);
      }
    }
    assertEquals("every series of the JVM's engine is on JMX", List.of(), missing);
  }
}
