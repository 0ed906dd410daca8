package io.blockscope.coprocessor;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Hooks} for an engine made by another class loader's copy of blockscope, e.g. the
 * cluster-wide copy on the server classpath when this copy was loaded from a table descriptor's
 * jar: both copies then share one set of counters, probes and JMX beans. The contract is the {@link
 * Hooks} interface alone: each of its methods is bound, by name and parameter types, to the same
 * method of the other copy's {@code Hooks}, which its engine implements, so a method added to the
 * interface is forwarded with no change here, and a copy whose interface lacks one is refused whole
 * when it is bound (not at its first call). A call that throws in the other copy returns the return
 * type's default (false, 0, null) and is logged at debug: it never reaches HBase.
 */
final class OtherCopyHooks implements InvocationHandler {
  private static final Logger LOG = LoggerFactory.getLogger(OtherCopyHooks.class);

  /** Hooks that do nothing: a copy that cannot reach the JVM's engine stays passive. */
  static final Hooks NONE = proxy(new OtherCopyHooks(Collections.emptyMap(), "passive"));

  /** This copy's {@code Hooks} methods, each bound to the other copy's and spread over args. */
  private final Map<Method, MethodHandle> calls;

  private final String name;

  private OtherCopyHooks(Map<Method, MethodHandle> calls, String name) {
    this.calls = calls;
    this.name = name;
  }

  /**
   * Hooks that forward to {@code engine}, an engine of another copy of blockscope; throws if that
   * copy's {@code Hooks} lacks a method of this copy's, or declares it with another return type.
   */
  static Hooks of(Object engine) throws ReflectiveOperationException {
    ClassLoader theirs = engine.getClass().getClassLoader();
    Class<?> contract = Class.forName(Hooks.class.getName(), false, theirs);
    if (!contract.isInstance(engine)) {
      throw new ClassCastException(engine.getClass() + " does not implement " + contract);
    }
    Map<Method, MethodHandle> calls = new HashMap<>();
    for (Method ours : Hooks.class.getMethods()) {
      Method other = contract.getMethod(ours.getName(), ours.getParameterTypes());
      if (other.getReturnType() != ours.getReturnType()) {
        throw new NoSuchMethodException(
            other + " returns " + other.getReturnType() + ", not " + ours.getReturnType());
      }
      // the interface is package-private in both copies
      other.setAccessible(true);
      MethodHandle h = MethodHandles.lookup().unreflect(other).bindTo(engine);
      int arity = h.type().parameterCount();
      calls.put(ours, h.asType(h.type().generic()).asSpreader(Object[].class, arity));
    }
    return proxy(new OtherCopyHooks(Collections.unmodifiableMap(calls), "joined to " + theirs));
  }

  private static Hooks proxy(OtherCopyHooks handler) {
    return (Hooks)
        Proxy.newProxyInstance(Hooks.class.getClassLoader(), new Class<?>[] {Hooks.class}, handler);
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) {
    MethodHandle call = calls.get(method);
    if (call == null) {
      return method.getDeclaringClass() == Object.class
          ? objectMethod(proxy, method, args)
          : defaultOf(method.getReturnType());
    }
    try {
      return (Object) call.invokeExact(args == null ? new Object[0] : args);
    } catch (Throwable t) {
      LOG.debug("blockscope: foreign engine call {} failed", method.getName(), t);
      return defaultOf(method.getReturnType());
    }
  }

  private Object objectMethod(Object proxy, Method method, Object[] args) {
    switch (method.getName()) {
      case "equals":
        return proxy == args[0];
      case "hashCode":
        return System.identityHashCode(proxy);
      default:
        return "blockscope hooks (" + name + ")";
    }
  }

  /** What a call returns when it cannot be made: false, zero or null. */
  private static Object defaultOf(Class<?> type) {
    if (type == boolean.class) {
      return false;
    }
    if (type == int.class) {
      return 0;
    }
    if (type == long.class) {
      return 0L;
    }
    return null;
  }
}
