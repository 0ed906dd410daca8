package io.blockscope.coprocessor.probe;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.blockscope.metrics.CostLayout;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Weaves {@link ReadPathAdvice} into HBase's HFile read path: every probe at once, or one at a time
 * where weaving them together failed.
 *
 * <p>Each probe is a list of HBase methods, written once in {@link #PROBES}: the same list is
 * checked by reflection before anything is woven (so a changed HBase signature turns the probe
 * "unavailable" with the method named, instead of weaving nothing silently) and turned into Byte
 * Buddy matchers. A probe counts as installed only when every class it names was retransformed
 * without error. Nothing here throws: failures become a probe status.
 */
public final class ProbeInstaller {
  private static final Logger LOG = LoggerFactory.getLogger(ProbeInstaller.class);

  private static final String HFILE = "org.apache.hadoop.hbase.io.hfile.";
  private static final String ENCODING = "org.apache.hadoop.hbase.io.encoding.";
  private static final String BYTE_BUFF = "org.apache.hadoop.hbase.nio.ByteBuff";
  private static final String REGION_SERVER = "org.apache.hadoop.hbase.regionserver.";
  private static final String CALL_RUNNER = "org.apache.hadoop.hbase.ipc.CallRunner";

  /**
   * The region server's short-circuit connection (HBase 2.5 and 2.6): a client call to a region on
   * the same server runs the RPC service on the caller's own thread (a coprocessor's pool, a
   * compaction hook), through this wrapper's {@code doCall}, never through {@code CallRunner}.
   */
  static final String SHORT_CIRCUIT_CALL =
      "org.apache.hadoop.hbase.client.ServerConnectionUtils$ShortCircuitingClusterConnection"
          + "$ClientServiceBlockingInterfaceWrapper";

  /**
   * The key an encoded seeker seeks to: a Cell up to HBase 3.0.0-beta-1, an ExtendedCell from HBase
   * 3.0.0 on (its HFileReaderImpl calls {@code EncodedSeeker.seekToKeyInBlock(ExtendedCell,
   * boolean)}).
   */
  static final String CELL = "org.apache.hadoop.hbase.Cell|org.apache.hadoop.hbase.ExtendedCell";

  private static List<String> alternatives(String param) {
    return list(param.split("\\|"));
  }

  /**
   * One HBase method a probe is woven into. A parameter written {@code A|B} is the type that
   * changed between HBase versions: A on one, B on another ({@link #CELL}); the method takes one of
   * them.
   */
  static final class Target {
    private final String type;
    private final String method;
    private final Class<?> advice;
    private final String[] params;

    Target(String type, String method, Class<?> advice, String... params) {
      this.type = type;
      this.method = method;
      this.advice = advice;
      this.params = params;
    }

    String type() {
      return type;
    }

    String method() {
      return method;
    }

    Class<?> advice() {
      return advice;
    }

    String[] params() {
      return params;
    }

    ElementMatcher<MethodDescription> matcher() {
      ElementMatcher.Junction<MethodDescription> m =
          named(method).and(takesArguments(params.length)).and(not(isAbstract()));
      for (int i = 0; i < params.length; i++) {
        ElementMatcher.Junction<TypeDescription> p = null;
        for (String alternative : alternatives(params[i])) {
          p = p == null ? named(alternative) : p.or(named(alternative));
        }
        m = m.and(takesArgument(i, p));
      }
      return m;
    }

    @Override
    public String toString() {
      return type.substring(type.lastIndexOf('.') + 1)
          + "."
          + method
          + "("
          + String.join(", ", params)
          + ")";
    }
  }

  /**
   * Seekers whose decode methods the DECODE probe weaves (HBase 2.6 class names), and the encoding
   * each decodes. CopyKey is a test encoding that no DataBlockEncoding names.
   */
  static final Map<String, String> SEEKER_ENCODING = seekerEncodings();

  private static Map<String, String> seekerEncodings() {
    Map<String, String> m = new HashMap<>();
    m.put(ENCODING + "CopyKeyDataBlockEncoder$SeekerStateBufferedEncodedSeeker", "OTHER");
    m.put(ENCODING + "DiffKeyDeltaEncoder$DiffSeekerStateBufferedEncodedSeeker", "DIFF");
    m.put(ENCODING + "FastDiffDeltaEncoder$FastDiffSeekerStateBufferedEncodedSeeker", "FAST_DIFF");
    m.put(ENCODING + "PrefixKeyDeltaEncoder$SeekerStateBufferedEncodedSeeker", "PREFIX");
    m.put(ENCODING + "RowIndexSeekerV1", "ROW_INDEX_V1");
    return Collections.unmodifiableMap(m);
  }

  /**
   * Seekers whose decodeFirst() decodes the first cell itself instead of calling decodeNext()
   * (HBase 2.6 DiffKeyDeltaEncoder and FastDiffDeltaEncoder); the others' first cell is counted in
   * decodeNext.
   */
  static final Set<String> FIRST_DECODES_ITSELF =
      set(
          ENCODING + "DiffKeyDeltaEncoder$DiffSeekerStateBufferedEncodedSeeker",
          ENCODING + "FastDiffDeltaEncoder$FastDiffSeekerStateBufferedEncodedSeeker");

  static final List<String> SEEKERS =
      Collections.unmodifiableList(new ArrayList<>(new TreeSet<>(SEEKER_ENCODING.keySet())));

  /**
   * blockscope's own BLOCKSCOPE_V1 seeker (the encoders jar, docs/encoder.md), counted under its
   * own name: cells it decodes ({@code decode(Entry, int, boolean)}, one entry's key or whole cell;
   * entries a seek steps over undecoded are not counted), its seeks and its time. Optional: a
   * region server without the encoders jar keeps the decode probe for HBase's seekers.
   */
  static final String BLOCKSCOPE_SEEKER = "io.blockscope.encoding.BlockscopeV1Seeker";

  static final String BLOCKSCOPE_ENCODING = "BLOCKSCOPE_V1";

  /**
   * The decoded entry the seeker's {@code decode} fills: its own class since the encoder's entry
   * parser was split out; nested in the seeker in an encoders jar from before.
   */
  static final String BLOCKSCOPE_ENTRY =
      "io.blockscope.encoding.Entry|" + BLOCKSCOPE_SEEKER + "$Entry";

  /** Types a probe weaves where they exist: blockscope's encoder, HBase's short-circuit calls. */
  static final Set<String> OPTIONAL_TYPES = set(BLOCKSCOPE_SEEKER, SHORT_CIRCUIT_CALL);

  /** The encoding index of a seeker class, by its own name or its nearest known superclass. */
  private static final ClassValue<Integer> SEEKER_ENCODINGS =
      new ClassValue<Integer>() {
        @Override
        protected Integer computeValue(Class<?> type) {
          for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(BLOCKSCOPE_SEEKER) || SEEKER_ENCODING.containsKey(c.getName())) {
              return encodingOfSeeker(c.getName());
            }
          }
          return CostLayout.N_ENCODINGS - 1;
        }
      };

  static int encodingOfSeeker(String seekerClass) {
    String encoding =
        seekerClass.equals(BLOCKSCOPE_SEEKER)
            ? BLOCKSCOPE_ENCODING
            : SEEKER_ENCODING.get(seekerClass);
    return CostLayout.encodingIndex(encoding == null ? "OTHER" : encoding);
  }

  private static final String BUFFERED_SEEKER =
      ENCODING + "BufferedDataBlockEncoder$BufferedEncodedSeeker";

  /** Every probe's targets, indexed by probe id. */
  static final List<List<Target>> PROBES =
      list(
          list(
              new Target(
                  HFILE + "HFileReaderImpl",
                  "getCachedBlock",
                  ReadPathAdvice.CacheLookup.class,
                  HFILE + "BlockCacheKey",
                  "boolean",
                  "boolean",
                  "boolean",
                  HFILE + "BlockType",
                  ENCODING + "DataBlockEncoding"),
              new Target(
                  HFILE + "HFileReaderImpl",
                  "readBlock",
                  ReadPathAdvice.ReadBlock.class,
                  "long",
                  "long",
                  "boolean",
                  "boolean",
                  "boolean",
                  "boolean",
                  HFILE + "BlockType",
                  ENCODING + "DataBlockEncoding",
                  "boolean")),
          list(
              new Target(
                  HFILE + "HFileBlock$FSReaderImpl",
                  "readBlockData",
                  ReadPathAdvice.FsRead.class,
                  "long",
                  "long",
                  "boolean",
                  "boolean",
                  "boolean")),
          list(
              new Target(
                  HFILE + "ChecksumUtil",
                  "validateChecksum",
                  ReadPathAdvice.Checksum.class,
                  BYTE_BUFF,
                  "java.lang.String",
                  "long",
                  "int")),
          list(
              new Target(
                  ENCODING + "HFileBlockDefaultDecodingContext",
                  "prepareDecoding",
                  ReadPathAdvice.Decompress.class,
                  "int",
                  "int",
                  BYTE_BUFF,
                  BYTE_BUFF)),
          decodeTargets(),
          list(
              new Target(CALL_RUNNER, "run", ReadPathAdvice.CallEnd.class),
              new Target(
                  SHORT_CIRCUIT_CALL,
                  "doCall",
                  ReadPathAdvice.CallEnd.class,
                  "org.apache.hbase.thirdparty.com.google.protobuf.RpcController",
                  "java.lang.Object",
                  SHORT_CIRCUIT_CALL + "$Operation")),
          list(
              new Target(
                  REGION_SERVER + "SegmentScanner",
                  "updateCurrent",
                  ReadPathAdvice.MemstoreCell.class)));

  private static List<Target> decodeTargets() {
    List<Target> t = new ArrayList<>();
    for (String seeker : SEEKERS) {
      t.add(new Target(seeker, "decodeNext", ReadPathAdvice.DecodeCell.class));
      if (FIRST_DECODES_ITSELF.contains(seeker)) {
        t.add(new Target(seeker, "decodeFirst", ReadPathAdvice.DecodeCell.class));
      }
    }
    t.add(
        new Target(
            BLOCKSCOPE_SEEKER,
            "decode",
            ReadPathAdvice.DecodeCell.class,
            BLOCKSCOPE_ENTRY,
            "int",
            "boolean"));
    for (String seeker : list(BUFFERED_SEEKER, ENCODING + "RowIndexSeekerV1", BLOCKSCOPE_SEEKER)) {
      t.add(new Target(seeker, "rewind", ReadPathAdvice.SeekerCall.class));
      t.add(new Target(seeker, "setCurrentBuffer", ReadPathAdvice.SeekerCall.class, BYTE_BUFF));
      t.add(
          new Target(seeker, "seekToKeyInBlock", ReadPathAdvice.SeekerSeek.class, CELL, "boolean"));
    }
    return t;
  }

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
      bridge.maps(blockTypeMap(), algorithmMap(), SEEKER_ENCODINGS::get);
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
   * Installs the probes whose methods are all found, in one weave: one transformer and one
   * retransformation, which stops the server's threads once, where a weave per probe stopped them
   * seven times at a server's first blockscope region open. Should that weave fail, it is taken out
   * whole and each probe is woven on its own, so that a failure still takes out only its own probe.
   *
   * @return why each probe that is not installed is not, by probe id
   */
  private static Map<Integer, String> install(
      List<Integer> probes, Instrumentation inst, ClassLoader hbaseLoader, BridgeHandle bridge) {
    Map<Integer, String> failed = new HashMap<>();
    Map<Integer, List<Target>> found = new LinkedHashMap<>();
    for (int p : probes) {
      List<Target> targets = present(PROBES.get(p), hbaseLoader);
      try {
        for (Target t : targets) {
          verify(t, hbaseLoader);
        }
        found.put(p, targets);
      } catch (ReflectiveOperationException | LinkageError e) {
        failed.put(p, "HBase method not found: " + e.getMessage());
      }
    }
    failed.putAll(
        weaveProbes(
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

  /**
   * Weaves the probes' targets together; if that fails, each probe's on its own. Tells {@code
   * woven} of each probe in place, with its transformer (one shared by all when woven together).
   *
   * @return why each probe that is not woven is not, by probe id
   */
  static Map<Integer, String> weaveProbes(
      Map<Integer, List<Target>> probes,
      Instrumentation inst,
      ClassLoader loader,
      BiConsumer<Integer, ResettableClassFileTransformer> woven) {
    Map<Integer, String> failed = new HashMap<>();
    if (probes.isEmpty()) {
      return failed;
    }
    List<Target> all = new ArrayList<>();
    probes.values().forEach(all::addAll);
    Weave together = weave(all, inst, loader);
    for (Map.Entry<Integer, List<Target>> e : probes.entrySet()) {
      Weave w =
          together.failure() == null || probes.size() == 1
              ? together
              : weave(e.getValue(), inst, loader);
      if (w.failure() != null) {
        failed.put(e.getKey(), w.failure());
      } else {
        woven.accept(e.getKey(), w.transformer());
      }
    }
    return failed;
  }

  /** A weave's transformer, in place; or why there is none. */
  static final class Weave {
    private final ResettableClassFileTransformer transformer;
    private final String failure;

    Weave(ResettableClassFileTransformer transformer, String failure) {
      this.transformer = transformer;
      this.failure = failure;
    }

    ResettableClassFileTransformer transformer() {
      return transformer;
    }

    String failure() {
      return failure;
    }
  }

  /** An unmodifiable list of the items (List.of is JDK 9; this jar runs on JDK 8 too). */
  @SafeVarargs
  @SuppressWarnings("varargs") // the array is only wrapped, never written or handed out
  private static <T> List<T> list(T... items) {
    return Collections.unmodifiableList(Arrays.asList(items));
  }

  @SafeVarargs
  @SuppressWarnings("varargs") // the array is only copied
  private static <T> Set<T> set(T... items) {
    return Collections.unmodifiableSet(new HashSet<>(Arrays.asList(items)));
  }

  /**
   * Weaves every target's advice into its class. A weave that fails for any class is taken out
   * again, from the classes it did reach too: no transformer stays installed for a probe that is
   * reported unavailable, and none is stacked on it later (no later region open retries the probe;
   * {@link #weaveProbes} weaves again at once, each probe on its own, after taking it out). Only
   * the targets' classes, as {@code loader} loads them, are retransformed.
   */
  static Weave weave(List<Target> targets, Instrumentation inst, ClassLoader loader) {
    Set<String> types = ConcurrentHashMap.newKeySet();
    targets.forEach(t -> types.add(t.type()));
    // the classes to retransform, named, so that Byte Buddy looks at them alone and not at every
    // class the server has loaded; verify() loaded each of them already
    Set<Class<?>> classes = new HashSet<>();
    for (String type : types) {
      try {
        classes.add(Class.forName(type, false, loader));
      } catch (ClassNotFoundException | LinkageError e) {
        return new Weave(null, "weaving failed: " + type + " not loadable: " + e);
      }
    }
    AgentBuilder.RedefinitionStrategy.DiscoveryStrategy only =
        new AgentBuilder.RedefinitionStrategy.DiscoveryStrategy.Explicit(classes);
    Set<String> transformed = ConcurrentHashMap.newKeySet();
    Map<String, Throwable> errors = new ConcurrentHashMap<>();
    AgentBuilder.Listener listener =
        new AgentBuilder.Listener.Adapter() {
          @Override
          public void onTransformation(
              TypeDescription type,
              ClassLoader loader,
              JavaModule module,
              boolean loaded,
              DynamicType dynamicType) {
            transformed.add(type.getName());
          }

          @Override
          public void onError(
              String typeName,
              ClassLoader loader,
              JavaModule module,
              boolean loaded,
              Throwable throwable) {
            errors.put(typeName, throwable);
          }
        };
    ResettableClassFileTransformer woven;
    try {
      woven =
          new AgentBuilder.Default(new ByteBuddy().with(TypeValidation.DISABLED))
              .disableClassFormatChanges()
              .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
              .with(only)
              .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
              .with(AgentBuilder.TypeStrategy.Default.REDEFINE)
              .with(listener)
              .ignore(t -> !types.contains(t.getName()))
              .type(t -> types.contains(t.getName()))
              .transform(
                  (builder, type, typeLoader, module, domain) -> {
                    for (Target t : targets) {
                      if (t.type().equals(type.getName())) {
                        AsmVisitorWrapper advice =
                            Advice.withCustomMapping()
                                .bind(
                                    ReadPathAdvice.EncodingIndex.class, encodingOfSeeker(t.type()))
                                .to(t.advice())
                                .on(t.matcher());
                        builder = builder.visit(advice);
                      }
                    }
                    return builder;
                  })
              .installOn(inst);
    } catch (Throwable t) {
      return new Weave(null, "weaving failed: " + t);
    }
    String why = null;
    if (!errors.isEmpty()) {
      why = "weaving failed: " + errors;
    } else if (!transformed.containsAll(types)) {
      Set<String> missing = ConcurrentHashMap.newKeySet();
      missing.addAll(types);
      missing.removeAll(transformed);
      why = "classes not retransformed: " + missing;
    }
    if (why == null) {
      return new Weave(woven, null);
    }
    try {
      woven.reset(inst, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION, only);
    } catch (Throwable t) {
      why += "; and taking the partial weave out failed: " + t;
    }
    return new Weave(null, why);
  }

  /** The targets but those of optional types that {@code loader} does not have. */
  static List<Target> present(List<Target> targets, ClassLoader loader) {
    List<Target> present = new ArrayList<>();
    for (Target t : targets) {
      if (OPTIONAL_TYPES.contains(t.type())) {
        try {
          Class.forName(t.type(), false, loader);
        } catch (ClassNotFoundException | LinkageError absent) {
          continue;
        }
      }
      present.add(t);
    }
    return present;
  }

  /**
   * Checks that a target method (and any field its advice reads) exists; returns it. Of a
   * parameter's alternatives, the first that the class takes is the one.
   */
  static Method verify(Target t, ClassLoader loader) throws ReflectiveOperationException {
    Class<?> type = Class.forName(t.type(), false, loader);
    Method m = null;
    for (Method candidate : type.getDeclaredMethods()) {
      if (candidate.getName().equals(t.method()) && takes(candidate, t.params(), loader)) {
        m = candidate;
        break;
      }
    }
    if (m == null) {
      throw new NoSuchMethodException(
          t.type() + "." + t.method() + "(" + String.join(", ", t.params()) + ")");
    }
    if (Modifier.isAbstract(m.getModifiers())) {
      throw new NoSuchMethodException(t + " is abstract");
    }
    if (t.advice() == ReadPathAdvice.Decompress.class) {
      field(type, "fileContext");
    }
    if (t.advice() == ReadPathAdvice.MemstoreCell.class) {
      field(type, "current");
    }
    return m;
  }

  private static boolean takes(Method m, String[] params, ClassLoader loader)
      throws ClassNotFoundException {
    Class<?>[] actual = m.getParameterTypes();
    if (actual.length != params.length) {
      return false;
    }
    for (int i = 0; i < params.length; i++) {
      boolean any = false;
      for (String alternative : alternatives(params[i])) {
        if (isType(alternative, loader) && actual[i] == typeOf(alternative, loader)) {
          any = true;
          break;
        }
      }
      if (!any) {
        return false;
      }
    }
    return true;
  }

  private static boolean isType(String name, ClassLoader loader) {
    try {
      typeOf(name, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError absent) {
      return false;
    }
  }

  private static Field field(Class<?> type, String name) throws NoSuchFieldException {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      try {
        return c.getDeclaredField(name);
      } catch (NoSuchFieldException next) {
        // look in the superclass
      }
    }
    throw new NoSuchFieldException(type.getName() + "." + name);
  }

  private static Class<?> typeOf(String name, ClassLoader loader) throws ClassNotFoundException {
    switch (name) {
      case "boolean":
        return boolean.class;
      case "int":
        return int.class;
      case "long":
        return long.class;
      default:
        return Class.forName(name, false, loader);
    }
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
