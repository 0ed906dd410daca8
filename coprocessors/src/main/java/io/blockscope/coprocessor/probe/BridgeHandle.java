package io.blockscope.coprocessor.probe;

import io.blockscope.metrics.CostLayout;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntConsumer;
import java.util.function.IntUnaryOperator;
import java.util.function.ToIntFunction;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * The copy of {@link ProbeBridge} that HBase's classes see, reached through JDK types only.
 *
 * <p>When blockscope's jar is on the region server classpath, that copy is the one this class
 * loader sees too. When the jar is loaded from a table descriptor, HBase's {@code
 * CoprocessorClassLoader} loads {@code io.blockscope.*} child-first, so this loader has a private
 * copy that HBase's classes cannot see; the bridge's bytes are then appended to the loader that
 * loaded HBase (the system class loader) and used from there.
 */
public final class BridgeHandle {
  private static final String NAME = ProbeBridge.class.getName();

  private final Class<?> type;
  private final MethodHandle costs;
  private final MethodHandle engine;
  private final MethodHandle maps;
  private final MethodHandle onCallEnd;
  private final MethodHandle cacheTables;
  private final MethodHandle cacheFiles;
  private final AtomicLongArray cacheReuseCounts;

  /** {@code ProbeBridge.measuring}, looked up once (read and written as the volatile it is). */
  private final Field measuringFlag;

  private final AtomicIntegerArray installed;
  private final AtomicLongArray failures;
  private final AtomicReferenceArray<String> unavailable;
  private final Object setupLock;

  private BridgeHandle(Class<?> type) throws ReflectiveOperationException {
    this.type = type;
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    costs = lookup.findStatic(type, "costs", MethodType.methodType(long[].class));
    engine = lookup.findStatic(type, "engine", MethodType.methodType(Object.class, Object.class));
    maps =
        lookup.findStatic(
            type,
            "maps",
            MethodType.methodType(void.class, int[].class, int[].class, ToIntFunction.class));
    onCallEnd =
        lookup.findStatic(type, "onCallEnd", MethodType.methodType(void.class, IntConsumer.class));
    measuringFlag = type.getField("measuring");
    installed = (AtomicIntegerArray) type.getField("INSTALLED").get(null);
    failures = (AtomicLongArray) type.getField("FAILURES").get(null);
    @SuppressWarnings("unchecked") // the bridge's own field, of this type
    AtomicReferenceArray<String> reasons =
        (AtomicReferenceArray<String>) type.getField("UNAVAILABLE").get(null);
    unavailable = reasons;
    setupLock = type.getField("SETUP_LOCK").get(null);
    String skew = skew(type.getField("N_PROBES").getInt(null), costs().length);
    if (skew != null) {
      throw new IllegalStateException(skew);
    }
    // after the skew check: an older bridge lacks these, and the skew is what to report then
    cacheTables = lookup.findStatic(type, "cacheTables", MethodType.methodType(String[].class));
    cacheFiles = lookup.findStatic(type, "cacheFiles", MethodType.methodType(int.class));
    cacheReuseCounts = (AtomicLongArray) type.getField("CACHE_REUSE_COUNTS").get(null);
  }

  /**
   * Why a bridge with {@code probes} probes and {@code slots} cost slots cannot serve this copy of
   * blockscope (another version of it made the bridge first, in the same JVM), or null when it can:
   * the bridge's arrays and the probes' slot numbers must be this copy's.
   */
  static String skew(int probes, int slots) {
    if (probes == ProbeBridge.N_PROBES && slots == CostLayout.SIZE) {
      return null;
    }
    return "the read-path bridge in this JVM is another blockscope version's ("
        + probes
        + " probes, "
        + slots
        + " cost slots; this one has "
        + ProbeBridge.N_PROBES
        + " and "
        + CostLayout.SIZE
        + "): run one blockscope version per region server";
  }

  /**
   * The bridge HBase's classes resolve, injecting it first if {@code instrumentation} is given and
   * the bridge is not there yet.
   *
   * @param hbaseLoader the class loader that defined HBase's HFile classes
   * @throws IllegalStateException when the bridge can be neither found nor injected
   */
  public static BridgeHandle resolve(ClassLoader hbaseLoader, Instrumentation instrumentation) {
    try {
      return new BridgeHandle(Class.forName(NAME, true, hbaseLoader));
    } catch (ClassNotFoundException notThere) {
      if (instrumentation == null || hbaseLoader != ClassLoader.getSystemClassLoader()) {
        throw new IllegalStateException(
            "the read-path bridge is not visible to HBase's class loader and cannot be added",
            notThere);
      }
      try {
        instrumentation.appendToSystemClassLoaderSearch(new JarFile(bridgeJar().toFile()));
        return new BridgeHandle(Class.forName(NAME, true, hbaseLoader));
      } catch (IOException | ReflectiveOperationException e) {
        throw new IllegalStateException("cannot inject the read-path bridge", e);
      }
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("the read-path bridge has an unexpected shape", e);
    }
  }

  /** A one-class jar holding the bridge, in a temporary file deleted on exit. */
  private static Path bridgeJar() throws IOException {
    String entry = NAME.replace('.', '/') + ".class";
    Path jar = Files.createTempFile("blockscope-bridge", ".jar");
    jar.toFile().deleteOnExit();
    try (InputStream in = ProbeBridge.class.getClassLoader().getResourceAsStream(entry);
        JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      if (in == null) {
        throw new IOException("class file " + entry + " not found in blockscope's jar");
      }
      out.putNextEntry(new JarEntry(entry));
      byte[] buf = new byte[8192];
      for (int n; (n = in.read(buf)) > 0; ) {
        out.write(buf, 0, n);
      }
      out.closeEntry();
    }
    return jar;
  }

  /** Tables by their slot in {@link #cacheReuseCounts}: a copy, null past the last slot used. */
  public String[] cacheTables() {
    try {
      return (String[]) cacheTables.invokeExact();
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** HFile names whose table the bridge keeps now. */
  public int cacheFiles() {
    try {
      return (int) cacheFiles.invokeExact();
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Blocks entering and leaving the block cache, JVM-wide: {@code CacheReuse.WIDTH} counters per
   * table slot of {@link #cacheTables}.
   */
  public AtomicLongArray cacheReuseCounts() {
    return cacheReuseCounts;
  }

  /** The calling thread's cost array. */
  public long[] costs() {
    try {
      return (long[]) costs.invokeExact();
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** The JVM-wide engine: {@code candidate} if none was published yet. */
  public Object engine(Object candidate) {
    try {
      return (Object) engine.invokeExact(candidate);
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  void maps(int[] blockTypes, int[] algorithms, ToIntFunction<Class<?>> seekerEncodings) {
    try {
      maps.invokeExact(blockTypes, algorithms, seekerEncodings);
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Sets what runs when an RPC call ends with frames it opened still open on its thread; the hook
   * is given the depth at which the call started.
   */
  public void onCallEnd(IntConsumer hook) {
    try {
      onCallEnd.invokeExact(hook);
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Tells the probes whether any region is measured; while none is, they return before reading the
   * thread's cost array ({@code ProbeBridge.measuring}). Through a field looked up once: a region
   * server opening thousands of regions calls this at each open and close, and a reflective field
   * lookup per call showed in a profile of region opens (Class.searchFields).
   */
  public void measuring(boolean any) {
    // every region open and close asks: the flag is written only when it changes, since each
    // write of the volatile the probes read on every read-path call takes its cache line from
    // every core that holds it. A Field, not a method handle: opens are too rare for the JIT to
    // compile this, and a handle's invocation costs more than a Field's access when interpreted
    // (the handle showed in the profile of region opens, in Invokers.checkCustomized).
    try {
      if (measuringFlag.getBoolean(null) != any) {
        measuringFlag.setBoolean(null, any);
      }
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  public AtomicIntegerArray installed() {
    return installed;
  }

  public AtomicLongArray failures() {
    return failures;
  }

  /** Why each probe is unavailable, JVM-wide; null where not tried or woven. */
  public AtomicReferenceArray<String> unavailable() {
    return unavailable;
  }

  /**
   * The one lock of the JVM under which probes are woven and the engine is made, whichever class
   * loader's copy of blockscope asks: two copies starting at once would otherwise both weave every
   * probe (counting each event twice) or both make an engine.
   */
  public Object setupLock() {
    return setupLock;
  }

  /**
   * Sets how many times each probe counts an event ({@link ProbeBridge#drill}; null: once, the
   * production value). Only the test suite's drills set it.
   */
  public void drill(IntUnaryOperator counts) {
    try {
      type.getField("drill").set(null, counts);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
