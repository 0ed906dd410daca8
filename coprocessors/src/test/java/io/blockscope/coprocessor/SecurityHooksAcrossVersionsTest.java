package io.blockscope.coprocessor;

import static org.junit.Assert.assertEquals;

import io.blockscope.coprocessor.probe.HBaseVersions;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/**
 * The HBase members blockscope's tenant rules stand on, checked in the jars of every HBase version
 * it is built for (docs/security.md): where the server's own configuration comes from ({@code
 * RegionCoprocessorEnvironment.getOnlineRegions()}, an HBase {@code Server}), who calls ({@code
 * ObserverContext.getCaller()}, {@code RpcServer.getRequestUser()}), and who may read another
 * user's profile ({@code RegionServerServices.getAccessChecker()}, {@code
 * AccessChecker.getAuthManager()}, {@code AuthManager.authorizeUserGlobal}, {@code
 * Superusers.isSuperUser}). A member gone or changed in a version fails here by name; a class not
 * in a version's jars (3.0.0's hbase-common is not served) is reported as not checked.
 */
public class SecurityHooksAcrossVersionsTest {
  /** A member: its class, name, parameter type names and return type name. */
  private record Member(String type, String name, List<String> params, String returns) {}

  private static final String USER = "org.apache.hadoop.hbase.security.User";

  private static final List<Member> MEMBERS =
      List.of(
          new Member(
              "org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment",
              "getOnlineRegions",
              List.of(),
              "org.apache.hadoop.hbase.regionserver.OnlineRegions"),
          new Member(
              "org.apache.hadoop.hbase.Server",
              "getConfiguration",
              List.of(),
              "org.apache.hadoop.conf.Configuration"),
          new Member(
              "org.apache.hadoop.hbase.coprocessor.ObserverContext",
              "getCaller",
              List.of(),
              "java.util.Optional"),
          new Member(
              "org.apache.hadoop.hbase.ipc.RpcServer",
              "getRequestUser",
              List.of(),
              "java.util.Optional"),
          new Member(
              "org.apache.hadoop.hbase.regionserver.RegionServerServices",
              "getAccessChecker",
              List.of(),
              "org.apache.hadoop.hbase.security.access.AccessChecker"),
          new Member(
              "org.apache.hadoop.hbase.security.access.AccessChecker",
              "getAuthManager",
              List.of(),
              "org.apache.hadoop.hbase.security.access.AuthManager"),
          new Member(
              "org.apache.hadoop.hbase.security.access.AuthManager",
              "authorizeUserGlobal",
              List.of(USER, "org.apache.hadoop.hbase.security.access.Permission$Action"),
              "boolean"),
          new Member(
              "org.apache.hadoop.hbase.security.Superusers",
              "isSuperUser",
              List.of(USER),
              "boolean"));

  @Test
  public void everyMemberTheTenantRulesUseIsInEveryVersion() throws Exception {
    List<String> table = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (String version : HBaseVersions.VERSIONS) {
      try (HBaseVersions.Loader loader =
          HBaseVersions.loader(version, getClass().getClassLoader())) {
        for (Member m : MEMBERS) {
          String result = check(m, loader);
          table.add(version + "  " + m.type() + "." + m.name() + ": " + result);
          if (result.startsWith("MISSING")) {
            missing.add(version + " " + m.type() + "." + m.name() + ": " + result);
          }
        }
      }
    }
    table.forEach(System.out::println);
    assertEquals("members missing or changed", List.of(), missing);
  }

  private static String check(Member m, ClassLoader loader) {
    Class<?> type;
    try {
      type = Class.forName(m.type(), false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      return "MISSING class " + e;
    }
    if (type.getClassLoader() != loader) {
      return "not checked (not in this version's jars)";
    }
    for (Method method : type.getMethods()) {
      if (!method.getName().equals(m.name()) || method.getParameterCount() != m.params().size()) {
        continue;
      }
      List<String> params = new ArrayList<>();
      for (Class<?> p : method.getParameterTypes()) {
        params.add(p.getName());
      }
      if (!params.equals(m.params())) {
        continue;
      }
      if (!method.getReturnType().getName().equals(m.returns())) {
        return "MISSING: returns " + method.getReturnType().getName();
      }
      boolean wantsStatic = m.type().endsWith("RpcServer") || m.type().endsWith("Superusers");
      if (wantsStatic != Modifier.isStatic(method.getModifiers())) {
        return "MISSING: static changed";
      }
      return "ok";
    }
    return "MISSING: no public " + m.name() + m.params();
  }
}
