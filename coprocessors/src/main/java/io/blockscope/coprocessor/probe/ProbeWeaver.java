package io.blockscope.coprocessor.probe;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.blockscope.coprocessor.probe.ProbeTargets.Target;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import net.bytebuddy.ByteBuddy;
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

/**
 * Weaves probes' {@link ReadPathAdvice} into HBase's classes with Byte Buddy, by retransforming the
 * classes their targets name. A probe counts as woven only when every class it names was
 * retransformed without error; a weave that fails is taken out again, whole. Nothing here throws: a
 * failure is returned as the reason the probe is not woven.
 */
final class ProbeWeaver {
  private ProbeWeaver() {}

  /*
   * Why the probes are woven together first. A retransformation brings the JVM to a safepoint:
   * every thread of the region server stops while the classes are rewritten. The probes are
   * woven at a server's first blockscope region open, so all of them go into one transformer and
   * one retransformation, and the server stops once for every probe, not once per probe.
   *
   * A failure must still take out only its own probe (an HBase class another agent holds, say,
   * should not cost the probes that do not touch it). So when the weave together fails, it is
   * taken out whole (weave() does that) and each probe is woven again on its own; only those whose
   * own weave fails are reported unavailable. Probes woven together share their transformer, and
   * whoever takes them out resets it once (ProbeInstaller.uninstallAll).
   */

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
    // class the server has loaded; ProbeChecks.verify loaded each of them already
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
                                    ReadPathAdvice.EncodingIndex.class,
                                    ProbeTargets.encodingOfSeeker(t.type()))
                                .to(t.advice())
                                .on(matcher(t));
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

  /**
   * The target's method as Byte Buddy matches it: by name (a constructor: {@link
   * ProbeTargets#CONSTRUCTOR}) and parameter type names, not abstract.
   */
  private static ElementMatcher<MethodDescription> matcher(Target t) {
    ElementMatcher.Junction<MethodDescription> named =
        t.method().equals(ProbeTargets.CONSTRUCTOR) ? isConstructor() : named(t.method());
    ElementMatcher.Junction<MethodDescription> m =
        named.and(takesArguments(t.params().length)).and(not(isAbstract()));
    for (int i = 0; i < t.params().length; i++) {
      ElementMatcher.Junction<TypeDescription> p = null;
      for (String alternative : t.alternatives(i)) {
        p = p == null ? named(alternative) : p.or(named(alternative));
      }
      m = m.and(takesArgument(i, p));
    }
    return m;
  }
}
