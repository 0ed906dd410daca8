package io.blockscope.coprocessor.probe;

import io.blockscope.coprocessor.probe.ProbeTargets.Target;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks each probe's {@link ProbeTargets targets} by reflection against the HBase in this server
 * before anything is woven: a changed HBase signature turns the probe unavailable with the method
 * named ({@code HBase method not found: ...}), instead of a weave that matches nothing.
 */
final class ProbeChecks {
  private ProbeChecks() {}

  /**
   * The probes whose targets {@code loader} all has, by probe id in the order given, each with the
   * targets to weave (those of an absent optional type left out); why each other probe is not there
   * goes into {@code failed}.
   */
  static Map<Integer, List<Target>> found(
      List<Integer> probes, ClassLoader loader, Map<Integer, String> failed) {
    Map<Integer, List<Target>> found = new LinkedHashMap<>();
    for (int p : probes) {
      List<Target> targets = present(ProbeTargets.PROBES.get(p), loader);
      try {
        for (Target t : targets) {
          verify(t, loader);
        }
        found.put(p, targets);
      } catch (ReflectiveOperationException | LinkageError e) {
        failed.put(p, "HBase method not found: " + e.getMessage());
      }
    }
    return found;
  }

  /** The targets but those of optional types that {@code loader} does not have. */
  static List<Target> present(List<Target> targets, ClassLoader loader) {
    List<Target> present = new ArrayList<>();
    for (Target t : targets) {
      if (ProbeTargets.OPTIONAL_TYPES.contains(t.type())) {
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
  static Executable verify(Target t, ClassLoader loader) throws ReflectiveOperationException {
    Class<?> type = Class.forName(t.type(), false, loader);
    boolean constructor = t.method().equals(ProbeTargets.CONSTRUCTOR);
    Executable m = null;
    for (Executable candidate :
        constructor ? type.getDeclaredConstructors() : type.getDeclaredMethods()) {
      if ((constructor || candidate.getName().equals(t.method())) && takes(candidate, t, loader)) {
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
    if (t.advice() == ReadPathAdvice.FileOpened.class) {
      field(type, "name");
      field(type, "path");
    }
    return m;
  }

  private static boolean takes(Executable m, Target t, ClassLoader loader)
      throws ClassNotFoundException {
    Class<?>[] actual = m.getParameterTypes();
    if (actual.length != t.params().length) {
      return false;
    }
    for (int i = 0; i < actual.length; i++) {
      boolean any = false;
      for (String alternative : t.alternatives(i)) {
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
}
