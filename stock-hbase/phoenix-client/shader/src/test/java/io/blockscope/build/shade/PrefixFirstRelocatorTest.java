package io.blockscope.build.shade;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import org.apache.maven.plugins.shade.relocation.Relocator;
import org.apache.maven.plugins.shade.relocation.SimpleRelocator;
import org.junit.Test;

/**
 * The prefix-first relocator gives SimpleRelocator's own answer for every path and class name, and
 * does not ask it about a path outside its pattern.
 */
public class PrefixFirstRelocatorTest {
  /**
   * Relocations of the kinds Phoenix's client rules use: prefixes with '**', '*' and exact
   * excludes.
   */
  private static List<SimpleRelocator> rules() {
    return List.of(
        new SimpleRelocator(
            "org/",
            "org.apache.phoenix.shaded.org.",
            null,
            List.of(
                "org/apache/hadoop/**",
                "org/slf4j/**",
                "org/w3c/dom/**",
                "org/junit/**",
                "org/apache/phoenix/**")),
        new SimpleRelocator(
            "io/",
            "org.apache.phoenix.shaded.io.",
            null,
            List.of("io/compression/**", "io/map/index/*", "io/file/buffer/size", "io/sort/*")),
        new SimpleRelocator("com/", "org.apache.phoenix.shaded.com.", null, List.of("com/sun/**")),
        new SimpleRelocator("javax/inject/", "org.apache.phoenix.shaded.javax.inject.", null, null),
        new SimpleRelocator(
            "org.apache.maven", "shaded.maven", List.of("org.apache.maven.plugins.**"), null));
  }

  /**
   * Every entry of the jars on this test's class path, as a path and as a class name, and odd ones.
   */
  private static List<String> corpus() throws Exception {
    List<String> names = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!e.endsWith(".jar")) {
        continue;
      }
      try (JarFile jar = new JarFile(e)) {
        for (var entry : Collections.list(jar.entries())) {
          String n = entry.getName();
          names.add(n);
          names.add("/" + n);
          if (n.endsWith(".class")) {
            String c = n.substring(0, n.length() - ".class".length());
            names.add(c);
            names.add(c.replace('/', '.'));
          }
        }
      }
    }
    names.addAll(
        List.of(
            "",
            "/",
            ".class",
            "/.class",
            "org",
            "org/",
            "/org/",
            "org/.class",
            "org.class",
            "io/compression/codecs",
            "io/map/index/interval",
            "io/map/index/interval/x",
            "io/file/buffer/size",
            "io/file/buffer/size/more",
            "/io/sort/mb",
            "com/sun/tools/Main",
            "org.apache.hadoop.conf.Configuration",
            "Lorg/apache/Foo;",
            "META-INF/services/org.apache.Foo"));
    return names;
  }

  @Test
  public void everyAnswerIsSimpleRelocatorsOwn() throws Exception {
    List<String> corpus = corpus();
    assertTrue("a corpus of class path entries: " + corpus.size(), corpus.size() > 10_000);
    int relocatable = 0;
    for (SimpleRelocator r : rules()) {
      Relocator fast = PrefixFirstRelocator.of(r);
      assertTrue(fast instanceof PrefixFirstRelocator);
      for (String name : corpus) {
        boolean path = r.canRelocatePath(name);
        assertEquals(name, path, fast.canRelocatePath(name));
        assertEquals(name, r.canRelocateClass(name), fast.canRelocateClass(name));
        if (path) {
          relocatable++;
          assertEquals(name, r.relocatePath(name), fast.relocatePath(name));
        }
      }
    }
    assertTrue("some names are relocated: " + relocatable, relocatable > 1_000);
  }

  @Test
  public void aPathOutsideThePatternIsRefusedWithoutAskingTheRelocator() {
    List<String> asked = new ArrayList<>();
    Relocator counting =
        new Relocator() {
          @Override
          public boolean canRelocatePath(String path) {
            asked.add(path);
            return true;
          }

          @Override
          public String relocatePath(String path) {
            return path;
          }

          @Override
          public boolean canRelocateClass(String className) {
            asked.add(className);
            return true;
          }

          @Override
          public String relocateClass(String className) {
            return className;
          }

          @Override
          public String applyToSourceContent(String sourceContent) {
            return sourceContent;
          }
        };
    Relocator fast = new PrefixFirstRelocator(counting, "org/");
    assertEquals(false, fast.canRelocatePath("com/google/Foo.class"));
    assertEquals(false, fast.canRelocateClass("com.google.Foo"));
    assertEquals(false, fast.canRelocateClass("org/apache/Foo")); // a class name has no '/'
    assertEquals(List.of(), asked);
    assertEquals(true, fast.canRelocatePath("/org/apache/Foo.class"));
    assertEquals(true, fast.canRelocateClass("org.apache.Foo"));
    assertEquals(List.of("/org/apache/Foo.class", "org.apache.Foo"), asked);
  }

  @Test
  public void rawStringRelocationsAreLeftAsTheyAre() {
    SimpleRelocator raw = new SimpleRelocator("^META-INF/x", "META-INF/y", null, null, true);
    assertSame(raw, PrefixFirstRelocator.of(raw));
  }
}
