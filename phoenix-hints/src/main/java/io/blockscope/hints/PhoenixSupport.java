package io.blockscope.hints;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The Phoenix internals the hints rely on, checked once, before the first connection is handed out:
 * on a Phoenix that lacks one, {@link BlockscopeDriver#connect} and {@link BlockscopePhoenix#wrap}
 * refuse with a message that names it, instead of a query failing later in the middle of a plan.
 *
 * <p>The check is by the members themselves, not by Phoenix's version constants ({@code
 * MetaDataProtocol} says patch 0 in 5.2.1 and 5.3.1 alike). Every member listed is in Phoenix 5.2.1
 * (tested here) and, read from the sources of the 5.3.0 and 5.3.1 tags, unchanged there
 * (docs/compatibility.md).
 */
final class PhoenixSupport {
  private PhoenixSupport() {}

  /** A field, constructor or method the driver uses, by class, name and types. */
  static final class Member {
    private final String type;
    private final String name;
    private final String valueType;
    private final String[] params;

    Member(String type, String name, String valueType, String... params) {
      this.type = type;
      this.name = name;
      this.valueType = valueType;
      this.params = params;
    }

    String type() {
      return type;
    }

    String name() {
      return name;
    }

    String valueType() {
      return valueType;
    }

    String[] params() {
      return params;
    }

    static Member field(String type, String name, String valueType) {
      return new Member(type, name, valueType);
    }

    static Member constructor(String type, String... params) {
      return new Member(type, "<init>", null, params);
    }

    static Member method(String type, String name, String... params) {
      return new Member(type, name, null, params);
    }

    @Override
    public String toString() {
      String simple = type.substring(type.lastIndexOf('.') + 1);
      if (valueType != null) {
        return simple
            + "."
            + name
            + " ("
            + valueType.substring(valueType.lastIndexOf('.') + 1)
            + ")";
      }
      List<String> p = new ArrayList<>();
      for (String s : params) {
        p.add(s.substring(s.lastIndexOf('.') + 1));
      }
      return simple + (name.equals("<init>") ? "" : "." + name) + "(" + String.join(", ", p) + ")";
    }
  }

  private static final String P = "org.apache.phoenix.";

  /**
   * What SerialPlans, SerialExecutor, ExtendingQueryServices, ExtendingOptimizer, wrap and EXPLAIN
   * ANALYZE use.
   */
  static final List<Member> REQUIRED =
      Collections.unmodifiableList(
          Arrays.asList(
              Member.field(P + "execute.ScanPlan", "isSerial", "boolean"),
              Member.field(P + "execute.AggregatePlan", "isSerial", "boolean"),
              Member.field(P + "parse.SelectStatement", "hint", P + "parse.HintNode"),
              Member.field(P + "execute.SortMergeJoinPlan", "lhsPlan", P + "compile.QueryPlan"),
              Member.field(P + "execute.SortMergeJoinPlan", "rhsPlan", P + "compile.QueryPlan"),
              Member.field(P + "execute.DelegateQueryPlan", "delegate", P + "compile.QueryPlan"),
              Member.field(P + "iterate.BaseResultIterators", "plan", P + "compile.QueryPlan"),
              Member.constructor(
                  P + "query.DelegateConnectionQueryServices", P + "query.ConnectionQueryServices"),
              Member.constructor(P + "optimize.QueryOptimizer", P + "query.QueryServices"),
              Member.method(
                  P + "optimize.QueryOptimizer",
                  "optimize",
                  P + "jdbc.PhoenixStatement",
                  P + "compile.QueryPlan"),
              Member.method(
                  P + "optimize.QueryOptimizer",
                  "optimize",
                  P + "compile.QueryPlan",
                  P + "jdbc.PhoenixStatement",
                  "java.util.List",
                  P + "iterate.ParallelIteratorFactory"),
              Member.constructor(
                  P + "jdbc.PhoenixConnection",
                  P + "query.ConnectionQueryServices",
                  "java.lang.String",
                  "java.util.Properties"),
              // EXPLAIN ANALYZE: the plan, as EXPLAIN shows it
              Member.method(P + "jdbc.PhoenixStatement", "optimizeQuery", "java.lang.String"),
              Member.method(P + "jdbc.PhoenixPreparedStatement", "optimizeQuery"),
              Member.method(P + "compile.StatementPlan", "getExplainPlan"),
              Member.method(P + "compile.ExplainPlan", "getPlanSteps")));

  /**
   * Phoenix's version for messages: its jar's Implementation-Version, else MetaDataProtocol's major
   * and minor (its patch number is 0 in both 5.2.1 and 5.3.1, so it is left out).
   */
  static String phoenixVersion(ClassLoader loader) {
    try {
      Package p = Class.forName(P + "jdbc.PhoenixDriver", false, loader).getPackage();
      if (p != null && p.getImplementationVersion() != null) {
        return p.getImplementationVersion();
      }
      Class<?> c = Class.forName(P + "coprocessorclient.MetaDataProtocol", false, loader);
      return c.getField("PHOENIX_MAJOR_VERSION").getInt(null)
          + "."
          + c.getField("PHOENIX_MINOR_VERSION").getInt(null)
          + ".x";
    } catch (ReflectiveOperationException | LinkageError e) {
      return "(version unknown)";
    }
  }

  /** Why this Phoenix cannot carry the hints, or empty if it can. */
  static Optional<String> refusal(List<Member> required, ClassLoader loader) {
    List<String> missing = new ArrayList<>();
    for (Member m : required) {
      if (!present(m, loader)) {
        missing.add(m.toString());
      }
    }
    if (missing.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "blockscope: the hints driver cannot run on Phoenix "
            + phoenixVersion(loader)
            + ": it relies on Phoenix internals this Phoenix does not have: "
            + missing
            + " (tested on Phoenix 5.2.1; docs/compatibility.md). Connect with jdbc:phoenix: "
            + "instead to run without blockscope's hints.");
  }

  private static boolean present(Member m, ClassLoader loader) {
    try {
      Class<?> type = Class.forName(m.type(), false, loader);
      if (m.valueType() != null) {
        Field f = type.getDeclaredField(m.name());
        return f.getType().getName().equals(m.valueType());
      }
      Class<?>[] params = new Class<?>[m.params().length];
      for (int i = 0; i < params.length; i++) {
        params[i] = Class.forName(m.params()[i], false, loader);
      }
      if (m.name().equals("<init>")) {
        Constructor<?> c = type.getDeclaredConstructor(params);
        return !Modifier.isPrivate(c.getModifiers());
      }
      Method method = type.getDeclaredMethod(m.name(), params);
      return !Modifier.isPrivate(method.getModifiers()) && !Modifier.isFinal(method.getModifiers());
    } catch (ReflectiveOperationException | LinkageError e) {
      return false;
    }
  }

  /** This JVM's answer, computed once. */
  private static final Optional<String> REFUSAL =
      refusal(REQUIRED, PhoenixSupport.class.getClassLoader());

  /** Throws the refusal if this JVM's Phoenix lacks something the hints rely on. */
  static void require() throws SQLException {
    if (REFUSAL.isPresent()) {
      throw new SQLException(REFUSAL.get(), "08001");
    }
  }
}
