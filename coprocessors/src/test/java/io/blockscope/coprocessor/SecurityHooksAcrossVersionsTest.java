package io.blockscope.coprocessor;

import static org.junit.Assert.assertEquals;

import io.blockscope.coprocessor.probe.HBaseVersions;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
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

  /**
   * Checks a member in the class file of its type as the version's jars hold it (read with ASM, so
   * that no other class of that version has to load: on a build against another HBase the
   * signatures of a type's other members may name classes this class path lacks).
   */
  private static String check(Member m, HBaseVersions.Loader loader) throws IOException {
    String resource = m.type().replace('.', '/') + ".class";
    URL url = loader.findResource(resource);
    if (url == null) {
      // a version whose hbase-common is not served (3.0.0) cannot say for hbase-common's classes
      boolean common = loader.findResource("org/apache/hadoop/hbase/HConstants.class") != null;
      return common ? "MISSING class" : "not checked (its hbase-common is not served)";
    }
    String descriptor = descriptor(m);
    boolean[] found = new boolean[2]; // present, static
    try (InputStream in = url.openStream()) {
      new ClassReader(in)
          .accept(
              new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(
                    int access, String name, String desc, String signature, String[] exceptions) {
                  if (name.equals(m.name())
                      && desc.equals(descriptor)
                      && (access & Opcodes.ACC_PUBLIC) != 0) {
                    found[0] = true;
                    found[1] = (access & Opcodes.ACC_STATIC) != 0;
                  }
                  return null;
                }
              },
              ClassReader.SKIP_CODE);
    }
    if (!found[0]) {
      return "MISSING: no public " + m.name() + descriptor;
    }
    boolean wantsStatic = m.type().endsWith("RpcServer") || m.type().endsWith("Superusers");
    return wantsStatic == found[1] ? "ok" : "MISSING: static changed";
  }

  /** The JVM descriptor of a member, e.g. {@code (Lorg/apache/.../User;)Z}. */
  private static String descriptor(Member m) {
    StringBuilder d = new StringBuilder("(");
    for (String p : m.params()) {
      d.append(type(p));
    }
    return d.append(')').append(type(m.returns())).toString();
  }

  private static String type(String name) {
    return name.equals("boolean") ? "Z" : "L" + name.replace('.', '/') + ";";
  }

  /**
   * A region server is the HBase {@code Server} that {@code getOnlineRegions()} returns: {@code
   * RegionServerServices} extends it in every version.
   */
  @Test
  public void theRegionServerIsAServerInEveryVersion() throws Exception {
    for (String version : HBaseVersions.VERSIONS) {
      try (HBaseVersions.Loader loader =
              HBaseVersions.loader(version, getClass().getClassLoader());
          InputStream in =
              loader
                  .findResource("org/apache/hadoop/hbase/regionserver/RegionServerServices.class")
                  .openStream()) {
        List<String> interfaces = List.of(new ClassReader(in).getInterfaces());
        assertEquals(
            version + " " + interfaces,
            true,
            interfaces.contains("org/apache/hadoop/hbase/Server"));
      }
    }
  }
}
