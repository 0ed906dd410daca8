package io.blockscope.encoding;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.Test;

/**
 * What registration relies on in HBase's own classes, checked in their bytecode rather than
 * assumed: no class switches on {@code DataBlockEncoding} (a switch compiles to a {@code
 * $SwitchMap$...DataBlockEncoding} array sized when the class loads, which an added ordinal would
 * overrun), and the only classes that put the enum in an EnumMap or EnumSet (whose key universe is
 * fixed at creation) are the two block caches' test-only counters ({@code
 * getEncodingCountsForTest}). Reads every hbase-*.jar on the test class path but HBase's test jars;
 * fails, naming the class, when an HBase version adds such a use.
 */
public class EnumUsesTest {
  private static final byte[] ENUM = bytes("org/apache/hadoop/hbase/io/encoding/DataBlockEncoding");
  private static final byte[] SWITCH =
      bytes("$SwitchMap$org$apache$hadoop$hbase$io$encoding$DataBlockEncoding");
  private static final byte[] ENUM_MAP = bytes("java/util/EnumMap");
  private static final byte[] ENUM_SET = bytes("java/util/EnumSet");

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  public void hbaseNeitherSwitchesOnTheEnumNorKeysMapsByIt() throws IOException {
    String path =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> jars = new ArrayList<>();
    Set<String> switches = new TreeSet<>();
    Set<String> enumCollections = new TreeSet<>();
    int classes = 0;
    for (String entry : path.split(File.pathSeparator)) {
      String name = new File(entry).getName();
      // HBase's test jars are not in a region server (hbase-server's is on this class path for
      // DataBlockEncodingToolTest; its TestCacheOnWrite and TestMiniClusterLoadSequential use
      // EnumSets of the enum)
      if (!name.startsWith("hbase-") || !name.endsWith(".jar") || name.endsWith("-tests.jar")) {
        continue;
      }
      jars.add(name);
      try (JarFile jar = new JarFile(entry)) {
        for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
          JarEntry c = e.nextElement();
          if (!c.getName().endsWith(".class")
              || c.getName().contains("/shaded/")
              || c.getName().startsWith("org/apache/hbase/thirdparty/")) {
            continue;
          }
          byte[] b;
          try (InputStream in = jar.getInputStream(c)) {
            b = in.readAllBytes();
          }
          classes++;
          if (contains(b, SWITCH)) {
            switches.add(c.getName());
          }
          if (contains(b, ENUM) && (contains(b, ENUM_MAP) || contains(b, ENUM_SET))) {
            enumCollections.add(c.getName());
          }
        }
      }
    }
    System.out.println(classes + " classes in " + jars);
    assertTrue("no HBase jar on the class path: " + path, jars.size() >= 3);
    assertEquals("classes that switch on DataBlockEncoding", Set.of(), switches);
    assertEquals(
        "classes that may key an EnumMap/EnumSet by DataBlockEncoding",
        Set.of(
            "org/apache/hadoop/hbase/io/hfile/LruAdaptiveBlockCache.class",
            "org/apache/hadoop/hbase/io/hfile/LruBlockCache.class"),
        enumCollections);
  }

  private static boolean contains(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
