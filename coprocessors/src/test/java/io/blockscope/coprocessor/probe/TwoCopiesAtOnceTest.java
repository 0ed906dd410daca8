package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;

import io.blockscope.coprocessor.OtherCopy;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.Test;

/**
 * Two copies of blockscope in one region server (the cluster-wide jar and a table's jar, or two jar
 * paths) that open their first regions at the same moment. Each copy's {@code synchronized} locked
 * only itself, so both found a probe not woven yet, both wove it, and every event of that probe was
 * counted twice.
 */
public class TwoCopiesAtOnceTest {

  /** A copy's transformers, by the probe each wove (probes woven together share one). */
  private static Map<?, ?> woven(Class<?> installer) throws ReflectiveOperationException {
    java.lang.reflect.Field woven = installer.getDeclaredField("WOVEN");
    woven.setAccessible(true);
    return (Map<?, ?>) woven.get(null);
  }

  @Test
  public void twoCopiesStartingAtOnceWeaveEachProbeOnce() throws Exception {
    ProbeInstaller.uninstallAll(); // from a JVM with no probe woven (another test may have woven)
    Class<?> other =
        Class.forName(
            ProbeInstaller.class.getName(),
            true,
            OtherCopy.ofPackage(
                TwoCopiesAtOnceTest.class.getClassLoader(),
                ProbeInstaller.class.getPackage().getName() + "."));
    assertNotSame(ProbeInstaller.class, other);
    Method otherInstall = other.getMethod("installAll", boolean.class, long.class, List.class);

    List<String> ours = new ArrayList<>();
    List<String> theirs = new ArrayList<>();
    OtherCopy.atOnce(
        () -> ProbeInstaller.installAll(true, 30_000, ours),
        () -> otherInstall.invoke(null, true, 30_000L, theirs));

    int installed = 0;
    for (int p = 0; p < ProbeBridge.N_PROBES; p++) {
      installed += ProbeBridge.INSTALLED.get(p);
    }
    assertEquals(ours + " " + theirs, ProbeBridge.N_PROBES, installed);
    Map<?, ?> ourWeave = woven(ProbeInstaller.class);
    Map<?, ?> theirWeave = woven(other);
    assertEquals(
        "each probe woven by one copy, whichever it was",
        installed,
        ourWeave.size() + theirWeave.size());
    Set<Object> transformers = Collections.newSetFromMap(new IdentityHashMap<>());
    transformers.addAll(ourWeave.values());
    transformers.addAll(theirWeave.values());
    assertEquals("all probes woven together, by the copy that came first", 1, transformers.size());
  }
}
