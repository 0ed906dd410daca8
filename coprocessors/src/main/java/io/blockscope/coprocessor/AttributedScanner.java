package io.blockscope.coprocessor;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.InternalScanner;

/**
 * A compaction scanner whose every batch is one attribution frame of its region, and which is
 * otherwise the scanner it wraps: it implements every public interface that scanner implements and
 * forwards every call.
 *
 * <p>Design note. HBase decides how to drive a compaction scanner by {@code instanceof}: HBase
 * 2.6's {@code Compactor.performCompaction} calls {@code Shipper.shipped()} on it every {@code
 * shippedCallSizeLimit} bytes written, but only if the scanner it got back from {@code
 * RegionObserver.preCompact} is a {@code Shipper} (the {@code StoreScanner} is one; {@code
 * shipped()} releases the blocks the batch referenced, which for an off-heap BucketCache returns
 * them to the pool). A wrapper that is only an {@code InternalScanner} keeps every block of the
 * compaction referenced until it ends. Which interfaces matter moves between versions ({@code
 * Shipper} in 2.x, and {@code KeyValueScanner} itself extends it), so the wrapper is a dynamic
 * proxy over all the wrapped scanner's interfaces rather than a class that names them: nothing to
 * update when HBase adds one, and {@code AttributedScannerTest} holds it to that. The reflective
 * call costs nanoseconds per batch of a compaction (a batch is up to {@code
 * hbase.hstore.compaction.kv.max} cells, 10 by default), not per cell.
 */
final class AttributedScanner implements InvocationHandler {
  private final InternalScanner delegate;
  private final Hooks hooks;
  private final RegionCoprocessorEnvironment env;

  private AttributedScanner(
      InternalScanner delegate, Hooks hooks, RegionCoprocessorEnvironment env) {
    this.delegate = delegate;
    this.hooks = hooks;
    this.env = env;
  }

  /** {@code delegate}, with its batches attributed to {@code env}'s region. */
  static InternalScanner wrap(
      InternalScanner delegate, Hooks hooks, RegionCoprocessorEnvironment env) {
    ClassLoader loader = delegate.getClass().getClassLoader();
    Set<Class<?>> interfaces = new LinkedHashSet<>();
    interfaces.add(InternalScanner.class);
    collectInterfaces(delegate.getClass(), loader, interfaces);
    return (InternalScanner)
        Proxy.newProxyInstance(
            loader == null ? InternalScanner.class.getClassLoader() : loader,
            interfaces.toArray(new Class<?>[0]),
            new AttributedScanner(delegate, hooks, env));
  }

  /** The public interfaces of {@code type} and its supertypes that {@code loader} can see. */
  private static void collectInterfaces(Class<?> type, ClassLoader loader, Set<Class<?>> out) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      for (Class<?> i : c.getInterfaces()) {
        if (Modifier.isPublic(i.getModifiers()) && visible(i, loader)) {
          out.add(i);
        }
        collectInterfaces(i, loader, out);
      }
    }
  }

  private static boolean visible(Class<?> type, ClassLoader loader) {
    try {
      return Class.forName(type.getName(), false, loader) == type;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * The batch calls of {@code InternalScanner}: {@code next(List)} and {@code next(List,
   * ScannerContext)}.
   */
  private static boolean isBatch(Method m) {
    return m.getName().equals("next")
        && m.getParameterCount() >= 1
        && m.getParameterTypes()[0] == List.class;
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    if (method.getDeclaringClass() == Object.class) {
      switch (method.getName()) {
        case "equals":
          return proxy == args[0];
        case "hashCode":
          return System.identityHashCode(proxy);
        default:
          return "blockscope(" + delegate + ")";
      }
    }
    boolean batch = isBatch(method);
    if (batch) {
      hooks.enter(env);
    }
    try {
      return method.invoke(delegate, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    } finally {
      if (batch) {
        hooks.exit(env);
      }
    }
  }
}
