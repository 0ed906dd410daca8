package io.blockscope.coprocessor.probe;

import io.blockscope.coprocessor.probe.ProbeTargets.Target;
import io.blockscope.metrics.CostLayout;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Weaves {@link ReadPathAdvice} into HBase's HFile read path: every probe at once, or one at a time
 * where weaving them together failed.
 *
 * <p>Each probe is a list of HBase methods, written once in {@link ProbeTargets#PROBES}: the same
 * list is checked by reflection before anything is woven ({@link ProbeChecks}: a changed HBase
 * signature turns the probe "unavailable" with the method named, instead of weaving nothing
 * silently) and woven by {@link ProbeWeaver}. A probe counts as installed only when every class it
 * names was retransformed without error. This class runs it once per JVM: it gets instrumentation,
 * sets up the bridge HBase's classes see, records there which probes are installed and why the
 * others are not, and keeps what this copy wove so that it can be taken out again. Nothing here
 * throws: failures become a probe status.
 */
public final class ProbeInstaller {
  private static final Logger LOG = LoggerFactory.getLogger(ProbeInstaller.class);

  /** The transformers this copy wove, by probe id, so they can be taken out again. */
  private static final Map<Integer, ResettableClassFileTransformer> WOVEN =
      new ConcurrentHashMap<>();

  private static Instrumentation instrumentation;

  /** This copy's one attempt to get instrumentation; made by the first {@link #installAll}. */
  private static Attacher attacher;

  /** The probes whose unavailability this copy logged: each once, not at every region open. */
  private static final Set<Integer> LOGGED = ConcurrentHashMap.newKeySet();

  private ProbeInstaller() {}

  /**
   * Installs every probe into the JVM once; later calls (from any class loader's copy of
   * blockscope) find them installed or find the reason they are not, and only report: a probe is
   * never woven twice, and a failed attach or weave is not retried on the next region open. Waits
   * at most {@code attachTimeoutMillis} for instrumentation. Never throws.
   *
   * @return the bridge HBase's classes see, or null when not even that could be set up
   */
  public static synchronized BridgeHandle installAll(
      boolean enabled, long attachTimeoutMillis, List<String> problems) {
    ClassLoader hbaseLoader = BlockType.class.getClassLoader();
    try {
      BridgeHandle woven = BridgeHandle.resolve(hbaseLoader, null);
      if (allInstalled(woven)) {
        return woven; // another copy of blockscope wove every probe already
      }
    } catch (IllegalStateException notYet) {
      // the bridge is not visible yet: inject it below
    }
    Instrumentation inst = null;
    String whyNoInstrumentation = null;
    if (enabled) {
      if (attacher == null) {
        attacher = new Attacher(ProbeInstaller::instrumentation, attachTimeoutMillis);
      }
      try {
        inst = attacher.get();
      } catch (Throwable t) {
        whyNoInstrumentation = "no java.lang.instrument access (" + t.getMessage() + ")";
      }
    } else {
      whyNoInstrumentation = "probes disabled by blockscope.probes.enabled=false";
    }
    BridgeHandle bridge;
    try {
      bridge = BridgeHandle.resolve(hbaseLoader, inst);
    } catch (Throwable t) {
      problems.add("read-path bridge unavailable: " + t.getMessage());
      LOG.warn("blockscope: read-path probes unavailable, the region server runs unmeasured", t);
      return null;
    }
    synchronized (bridge.setupLock()) {
      bridge.maps(blockTypeMap(), algorithmMap(), ProbeTargets::encodingOfSeekerType);
      List<Integer> untried = new ArrayList<>();
      for (int p = 0; p < ProbeBridge.N_PROBES; p++) {
        if (bridge.installed().get(p) == 1) {
          continue; // woven earlier, perhaps by another copy of blockscope
        }
        String why = bridge.unavailable().get(p); // tried once in this JVM, by whichever copy
        if (why == null && whyNoInstrumentation != null) {
          why = whyNoInstrumentation; // another copy, with instrumentation, may still weave it
        } else if (why == null) {
          untried.add(p);
        }
        unavailable(p, why, problems);
      }
      if (!untried.isEmpty()) {
        Map<Integer, String> failed = install(untried, inst, hbaseLoader, bridge);
        for (int p : untried) {
          String why = failed.get(p);
          bridge.unavailable().set(p, why);
          unavailable(p, why, problems);
        }
      }
    }
    return bridge;
  }

  /** Reports a probe that is not installed, and why; logs it once per copy. Null: installed. */
  private static void unavailable(int probe, String why, List<String> problems) {
    if (why != null) {
      problems.add("probe " + ProbeBridge.PROBE_NAMES[probe] + " unavailable: " + why);
      if (LOGGED.add(probe)) {
        LOG.warn("blockscope: probe {} unavailable: {}", ProbeBridge.PROBE_NAMES[probe], why);
      }
    }
  }

  /**
   * Takes every probe this copy wove out of HBase's classes again, restoring their original
   * bytecode; {@link #installAll} weaves them anew. The overhead benchmark uses this to measure a
   * region server with no probe at all in the same run; it is safe at any time, reads in flight
   * finish with whichever version of a method they entered.
   */
  public static void uninstallAll() {
    BridgeHandle bridge;
    try {
      bridge = BridgeHandle.resolve(BlockType.class.getClassLoader(), null);
    } catch (IllegalStateException none) {
      return;
    }
    synchronized (bridge.setupLock()) {
      // probes woven together share one transformer, which is taken out once
      Set<ResettableClassFileTransformer> reset =
          Collections.newSetFromMap(new IdentityHashMap<>());
      for (Map.Entry<Integer, ResettableClassFileTransformer> e : WOVEN.entrySet()) {
        if (reset.add(e.getValue())) {
          e.getValue().reset(instrumentation, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
        }
        bridge.installed().set(e.getKey(), 0);
        bridge.unavailable().set(e.getKey(), null);
      }
      WOVEN.clear();
    }
  }

  private static boolean allInstalled(BridgeHandle bridge) {
    for (int p = 0; p < ProbeBridge.N_PROBES; p++) {
      if (bridge.installed().get(p) != 1) {
        return false;
      }
    }
    return true;
  }

  private static Instrumentation instrumentation() {
    try {
      Class<?> agent =
          Class.forName(BlockscopeAgent.class.getName(), true, ClassLoader.getSystemClassLoader());
      Object i = agent.getMethod("instrumentation").invoke(null);
      if (i != null) {
        return (Instrumentation) i; // started with -javaagent:blockscope-coprocessors.jar
      }
    } catch (ReflectiveOperationException | LinkageError notAnAgent) {
      // fall through to self-attach
    }
    return ByteBuddyAgent.install();
  }

  /**
   * Installs the probes whose methods are all found, woven together ({@link
   * ProbeWeaver#weaveProbes}: one retransformation for them all, or one per probe should that fail,
   * so that a failure takes out only its own probe).
   *
   * @return why each probe that is not installed is not, by probe id
   */
  private static Map<Integer, String> install(
      List<Integer> probes, Instrumentation inst, ClassLoader hbaseLoader, BridgeHandle bridge) {
    Map<Integer, String> failed = new HashMap<>();
    Map<Integer, List<Target>> found = ProbeChecks.found(probes, hbaseLoader, failed);
    failed.putAll(
        ProbeWeaver.weaveProbes(
            found,
            inst,
            hbaseLoader,
            (p, transformer) -> {
              WOVEN.put(p, transformer);
              instrumentation = inst;
              bridge.installed().set(p, 1);
            }));
    return failed;
  }

  // ---- ordinal maps from HBase enums to blockscope dimensions --------------------------------

  static int[] blockTypeMap() {
    BlockType[] types = BlockType.values();
    int[] map = new int[types.length];
    for (BlockType t : types) {
      map[t.ordinal()] = kindOf(t);
    }
    return map;
  }

  static int kindOf(BlockType t) {
    switch (t) {
      case DATA:
      case ENCODED_DATA:
        return CostLayout.KIND_DATA;
      case LEAF_INDEX:
        return CostLayout.KIND_LEAF_INDEX;
      case INTERMEDIATE_INDEX:
        return CostLayout.KIND_INTERMEDIATE_INDEX;
      case ROOT_INDEX:
        return CostLayout.KIND_ROOT_INDEX;
      case BLOOM_CHUNK:
      case GENERAL_BLOOM_META:
      case DELETE_FAMILY_BLOOM_META:
        return CostLayout.KIND_BLOOM;
      default:
        return CostLayout.KIND_OTHER;
    }
  }

  static int[] algorithmMap() {
    Compression.Algorithm[] all = Compression.Algorithm.values();
    int[] map = new int[all.length];
    for (Compression.Algorithm a : all) {
      map[a.ordinal()] = CostLayout.algorithmIndex(a.name());
    }
    return map;
  }
}
