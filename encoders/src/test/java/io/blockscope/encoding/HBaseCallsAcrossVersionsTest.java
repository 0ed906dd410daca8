package io.blockscope.encoding;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;
import org.junit.Test;

/**
 * Every call HBase's HFile reader and writer make on a data block encoder and its seeker, read from
 * each version's own hbase-server bytecode ({@code org.apache.hadoop.hbase.io.hfile}, with {@code
 * javap -c}), finds a method of BLOCKSCOPE_V1's encoder or seeker with exactly that name and
 * descriptor: on 2.5.13, 2.6.1 and 2.6.4, which take {@code Cell}, and on 3.0.0, whose calls take
 * and return {@code ExtendedCell} ({@code encode}, {@code getFirstKeyCellInBlock}, {@code
 * seekToKeyInBlock}, {@code compareKey}, {@code getCell}, {@code getKey}). The classes carry both
 * forms, so the same jar links on either. What this cannot check, and why the encoder still refuses
 * 3.0: 3.0.0's hbase-common (the interfaces themselves, and {@code DataBlockEncoding}, which
 * registration writes into) is not in the reachable repository.
 */
public class HBaseCallsAcrossVersionsTest {
  private static final List<String> VERSIONS =
      List.of("2.5.13-hadoop3", "2.6.1-hadoop3", "2.6.4", "3.0.0");

  /**
   * How many distinct calls each version's hbase-server makes into the encoder and seeker, and how
   * many of them take or return {@code ExtendedCell}: a version that calls one more (or one fewer)
   * fails here, naming the count, before anything else reads the list.
   */
  private static final Map<String, int[]> CALLS_AND_EXTENDED =
      Map.of(
          "2.5.13-hadoop3", new int[] {15, 0},
          "2.6.1-hadoop3", new int[] {15, 0},
          "2.6.4", new int[] {15, 0},
          "3.0.0", new int[] {15, 6});

  private static final String ENCODING = "org/apache/hadoop/hbase/io/encoding/";
  private static final Pattern CALL =
      Pattern.compile(
          "InterfaceMethod "
              + Pattern.quote(ENCODING)
              + "(DataBlockEncoder(?:\\$EncodedSeeker)?)\\.(\\w+):(\\S+)");

  @Test
  public void everyCallEachVersionMakesFindsItsMethod() throws Exception {
    List<String> report = new ArrayList<>();
    for (String version : VERSIONS) {
      Set<String> calls = calls(version);
      int[] expected = CALLS_AND_EXTENDED.get(version);
      assertEquals(version + ": calls into the encoder", expected[0], calls.size());
      List<String> missing = new ArrayList<>();
      int extended = 0;
      for (String call : calls) {
        String[] p = call.split(" ");
        Class<?> ours =
            p[0].endsWith("EncodedSeeker") ? BlockscopeV1Seeker.class : BlockscopeV1Encoder.class;
        if (!declares(ours, p[1], p[2])) {
          missing.add(ours.getSimpleName() + "." + p[1] + p[2]);
        }
        if (p[2].contains("ExtendedCell")) {
          extended++;
        }
      }
      assertEquals(version + ": calls without a method", Collections.emptyList(), missing);
      assertEquals(version + ": calls with ExtendedCell", expected[1], extended);
      report.add(
          String.format(
              "%-15s %d calls, %d of them with ExtendedCell: all found",
              version, calls.size(), extended));
    }
    report.forEach(System.out::println);
  }

  /** The check sees a missing method: a descriptor no class has. */
  @Test
  public void aDescriptorNoMethodHasIsMissing() {
    assertTrue(declares(BlockscopeV1Seeker.class, "next", "()Z"));
    assertTrue(!declares(BlockscopeV1Seeker.class, "next", "()I"));
    assertTrue(!declares(BlockscopeV1Encoder.class, "encode", "(Ljava/lang/String;)V"));
  }

  /** "owner name descriptor" of each call on DataBlockEncoder or EncodedSeeker in io.hfile. */
  private static Set<String> calls(String version) throws IOException {
    File server = HBaseJars.of(version, "hbase-server", 1)[0];
    List<String> args = new ArrayList<>(List.of("-c", "-p", "-classpath", server.getPath()));
    try (ZipFile jar = new ZipFile(server)) {
      jar.stream()
          .map(e -> e.getName())
          .filter(n -> n.startsWith("org/apache/hadoop/hbase/io/hfile/") && n.endsWith(".class"))
          .filter(n -> n.indexOf('/', "org/apache/hadoop/hbase/io/hfile/".length()) < 0)
          .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
          .forEach(args::add);
    }
    String code = HBaseJars.javap(args.toArray(new String[0]));
    Set<String> calls = new TreeSet<>();
    Matcher m = CALL.matcher(code);
    while (m.find()) {
      calls.add(m.group(1) + " " + m.group(2) + " " + m.group(3));
    }
    return calls;
  }

  /** Whether {@code type} has a public, non-abstract method {@code name} of {@code descriptor}. */
  private static boolean declares(Class<?> type, String name, String descriptor) {
    for (Method m : type.getMethods()) {
      if (m.getName().equals(name)
          && !Modifier.isAbstract(m.getModifiers())
          && descriptor(m).equals(descriptor)) {
        return true;
      }
    }
    return false;
  }

  private static String descriptor(Method m) {
    StringBuilder d = new StringBuilder("(");
    for (Class<?> p : m.getParameterTypes()) {
      d.append(descriptor(p));
    }
    return d.append(')').append(descriptor(m.getReturnType())).toString();
  }

  private static String descriptor(Class<?> c) {
    if (c.isArray()) {
      return c.getName().replace('.', '/');
    }
    if (!c.isPrimitive()) {
      return "L" + c.getName().replace('.', '/') + ";";
    }
    if (c == void.class) {
      return "V";
    }
    if (c == boolean.class) {
      return "Z";
    }
    if (c == long.class) {
      return "J";
    }
    return String.valueOf(Character.toUpperCase(c.getName().charAt(0)));
  }
}
