package io.blockscope.coprocessor;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reaches an {@link Engine} made by another class loader's copy of blockscope, e.g. the
 * cluster-wide copy on the server classpath when this copy was loaded from a table descriptor's
 * jar. Both copies then share one set of counters, probes and JMX beans.
 */
final class ForeignHooks implements Hooks {
  private static final Logger LOG = LoggerFactory.getLogger(ForeignHooks.class);
  private static final MethodType ENV =
      MethodType.methodType(void.class, RegionCoprocessorEnvironment.class);

  private final MethodHandle opened;
  private final MethodHandle closed;
  private final MethodHandle measures;
  private final MethodHandle enter;
  private final MethodHandle exit;
  private final MethodHandle queryScan;
  private final MethodHandle scannerOpened;
  private final MethodHandle queryActive;
  private final MethodHandle scannerClosed;
  private final MethodHandle queryCosts;

  ForeignHooks(Object engine) throws ReflectiveOperationException {
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    Class<?> type = engine.getClass();
    opened = lookup.findVirtual(type, "regionOpened", ENV).bindTo(engine);
    closed = lookup.findVirtual(type, "regionClosed", ENV).bindTo(engine);
    measures =
        lookup
            .findVirtual(
                type,
                "measures",
                MethodType.methodType(boolean.class, RegionCoprocessorEnvironment.class))
            .bindTo(engine);
    enter = lookup.findVirtual(type, "enter", ENV).bindTo(engine);
    exit = lookup.findVirtual(type, "exit", MethodType.methodType(void.class)).bindTo(engine);
    queryScan =
        lookup
            .findVirtual(
                type,
                "queryScan",
                MethodType.methodType(
                    Object.class,
                    byte[].class,
                    Object.class,
                    RegionCoprocessorEnvironment.class,
                    int.class))
            .bindTo(engine);
    scannerOpened =
        lookup
            .findVirtual(
                type,
                "scannerOpened",
                MethodType.methodType(void.class, Object.class, Object.class))
            .bindTo(engine);
    queryActive =
        lookup
            .findVirtual(
                type, "queryActive", MethodType.methodType(void.class, Object.class, int.class))
            .bindTo(engine);
    scannerClosed =
        lookup
            .findVirtual(type, "scannerClosed", MethodType.methodType(void.class, Object.class))
            .bindTo(engine);
    queryCosts =
        lookup
            .findVirtual(
                type, "queryCosts", MethodType.methodType(long[].class, String.class, String.class))
            .bindTo(engine);
  }

  @Override
  public void regionOpened(RegionCoprocessorEnvironment env) {
    call(opened, env);
  }

  @Override
  public void regionClosed(RegionCoprocessorEnvironment env) {
    call(closed, env);
  }

  @Override
  public boolean measures(RegionCoprocessorEnvironment env) {
    try {
      return (boolean) measures.invokeExact(env);
    } catch (Throwable t) {
      LOG.debug("blockscope: foreign engine call failed", t);
      return false;
    }
  }

  @Override
  public void enter(RegionCoprocessorEnvironment env) {
    call(enter, env);
  }

  @Override
  public void exit() {
    try {
      exit.invokeExact();
    } catch (Throwable t) {
      LOG.debug("blockscope: foreign engine call failed", t);
    }
  }

  @Override
  public Object queryScan(
      byte[] queryId, Object scan, RegionCoprocessorEnvironment env, int level) {
    try {
      return (Object) queryScan.invokeExact(queryId, scan, env, level);
    } catch (Throwable t) {
      LOG.debug("blockscope: foreign engine call failed", t);
      return null;
    }
  }

  @Override
  public void scannerOpened(Object scanner, Object handle) {
    try {
      scannerOpened.invokeExact(scanner, handle);
    } catch (Throwable t) {
      LOG.debug("blockscope: foreign engine call failed", t);
    }
  }

  @Override
  public void queryActive(Object handle, int rows) {
    try {
      queryActive.invokeExact(handle, rows);
    } catch (Throwable t) {
      LOG.debug("blockscope: foreign engine call failed", t);
    }
  }

  @Override
  public long[] queryCosts(String queryId, String region) {
    try {
      return (long[]) queryCosts.invokeExact(queryId, region);
    } catch (Throwable t) {
      LOG.debug("blockscope: foreign engine call failed", t);
      return null;
    }
  }

  @Override
  public void scannerClosed(Object scanner) {
    try {
      scannerClosed.invokeExact(scanner);
    } catch (Throwable t) {
      LOG.debug("blockscope: foreign engine call failed", t);
    }
  }

  private static void call(MethodHandle h, RegionCoprocessorEnvironment env) {
    try {
      h.invokeExact(env);
    } catch (Throwable t) {
      LOG.debug("blockscope: foreign engine call failed", t);
    }
  }
}
