package io.blockscope.encoding;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;

/**
 * The few {@code sun.misc.Unsafe} operations {@link BlockscopeEncoding} needs to add an enum
 * constant to HBase's {@code DataBlockEncoding}, reached through method handles looked up by name:
 * linking the class directly draws javac's "internal proprietary API" warning, which no annotation
 * can silence and the build treats as an error. Not on any read path: used once, at registration.
 */
final class UnsafeAccess {
  private final Object unsafe;
  private final MethodHandle allocateInstance;
  private final MethodHandle getObject;
  private final MethodHandle objectFieldOffset;
  private final MethodHandle staticFieldBase;
  private final MethodHandle staticFieldOffset;
  private final MethodHandle putObject;
  private final MethodHandle putObjectVolatile;
  private final MethodHandle putInt;
  private final MethodHandle putShort;

  /** The JVM's Unsafe; throws when it is not reachable. */
  UnsafeAccess() throws ReflectiveOperationException {
    Class<?> type = Class.forName("sun.misc.Unsafe");
    Field theUnsafe = type.getDeclaredField("theUnsafe");
    theUnsafe.setAccessible(true);
    unsafe = theUnsafe.get(null);
    MethodHandles.Lookup l = MethodHandles.lookup();
    allocateInstance = handle(l, type, "allocateInstance", Object.class, Class.class);
    getObject = handle(l, type, "getObject", Object.class, Object.class, long.class);
    objectFieldOffset = handle(l, type, "objectFieldOffset", long.class, Field.class);
    staticFieldBase = handle(l, type, "staticFieldBase", Object.class, Field.class);
    staticFieldOffset = handle(l, type, "staticFieldOffset", long.class, Field.class);
    putObject = handle(l, type, "putObject", void.class, Object.class, long.class, Object.class);
    putObjectVolatile =
        handle(l, type, "putObjectVolatile", void.class, Object.class, long.class, Object.class);
    putInt = handle(l, type, "putInt", void.class, Object.class, long.class, int.class);
    putShort = handle(l, type, "putShort", void.class, Object.class, long.class, short.class);
  }

  private MethodHandle handle(
      MethodHandles.Lookup l, Class<?> type, String name, Class<?> ret, Class<?>... params)
      throws ReflectiveOperationException {
    return l.findVirtual(type, name, MethodType.methodType(ret, params)).bindTo(unsafe);
  }

  Object allocateInstance(Class<?> type) throws InstantiationException {
    try {
      return allocateInstance.invoke(type);
    } catch (InstantiationException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  Object getObject(Object base, long offset) {
    return call(getObject, base, offset);
  }

  long objectFieldOffset(Field f) {
    return (long) call(objectFieldOffset, f);
  }

  Object staticFieldBase(Field f) {
    return call(staticFieldBase, f);
  }

  long staticFieldOffset(Field f) {
    return (long) call(staticFieldOffset, f);
  }

  void putObject(Object base, long offset, Object value) {
    call(putObject, base, offset, value);
  }

  void putObjectVolatile(Object base, long offset, Object value) {
    call(putObjectVolatile, base, offset, value);
  }

  void putInt(Object base, long offset, int value) {
    call(putInt, base, offset, value);
  }

  void putShort(Object base, long offset, short value) {
    call(putShort, base, offset, value);
  }

  private static Object call(MethodHandle h, Object... args) {
    try {
      return h.invokeWithArguments(args);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
