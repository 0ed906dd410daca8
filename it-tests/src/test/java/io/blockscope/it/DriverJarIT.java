package io.blockscope.it;

import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.Test;

/**
 * The hints driver's jar is all of blockscope a client needs next to Phoenix's client jar
 * (docs/hints.md): every blockscope class a class in it refers to is in it, and it names no class
 * that Phoenix's shaded client jar relocates (protobuf, Guava, Netty, ...). The tests' own class
 * path has every module, so a class left out of the jar fails only here, not in the driver's tests.
 * (A constant the compiler copies into the caller, such as {@code Attributes.QUERY}, is no
 * reference.)
 */
public class DriverJarIT {
  /** A class named in a class file's constant pool: as a class entry or inside a descriptor. */
  private static final Pattern CLASS_NAME = Pattern.compile("io/blockscope/[A-Za-z0-9_/$]+");

  /**
   * The packages Phoenix 5.2.1's client jars move under {@code org.apache.phoenix.shaded} (its
   * {@code phoenix-client-parent} pom's relocations, less their exclusions): a class beside that
   * jar that names one of them finds it absent, or finds a different copy than Phoenix's classes
   * take.
   */
  private static final Pattern RELOCATED_BY_PHOENIX =
      Pattern.compile(
          "(?<![A-Za-z0-9_/$])(?:com/(?!sun/(?:tools|javadoc|security|jndi|management)/)"
              + "|io/(?!blockscope/)"
              + "|org/(?!apache/(?:hadoop|htrace|commons/logging|log4j|logging/log4j|hbase|phoenix"
              + "|omid)/|slf4j/|ietf/jgss/|omg/|w3c/dom/|xml/sax/|eclipse/jetty/)"
              + "|net/|okio/|javassist/|jersey/|jline/|mozilla/"
              + "|javax/(?:el|cache|servlet/jsp|ws|annotation|inject|validation|xml/bind"
              + "|activation)/)"
              + "[A-Za-z0-9_$]+/[A-Za-z0-9_/$]+");

  @Test
  public void everyBlockscopeClassTheDriverUsesIsInItsJar() throws Exception {
    File jar = new File(System.getProperty("blockscope.hints.jar"));
    assertTrue(jar + " (built by the package phase)", jar.isFile());
    Set<String> inJar = new TreeSet<>();
    Set<String> referred = new TreeSet<>();
    Set<String> relocated = new TreeSet<>();
    try (ZipFile z = new ZipFile(jar)) {
      for (Enumeration<? extends ZipEntry> e = z.entries(); e.hasMoreElements(); ) {
        ZipEntry entry = e.nextElement();
        if (!entry.getName().endsWith(".class")) {
          continue;
        }
        inJar.add(entry.getName().substring(0, entry.getName().length() - ".class".length()));
        try (InputStream in = z.getInputStream(entry)) {
          // class names are modified UTF-8 in the constant pool: ASCII here
          String pool = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
          Matcher m = CLASS_NAME.matcher(pool);
          while (m.find()) {
            referred.add(m.group());
          }
          Matcher r = RELOCATED_BY_PHOENIX.matcher(pool);
          while (r.find()) {
            relocated.add(entry.getName() + " -> " + r.group());
          }
        }
      }
    }
    assertTrue(inJar.toString(), inJar.contains("io/blockscope/hints/BlockscopeDriver"));
    assertTrue(inJar.toString(), inJar.contains("io/blockscope/metrics/Json"));
    Set<String> missing = new TreeSet<>(referred);
    missing.removeAll(inJar);
    assertTrue("referred to but not in " + jar.getName() + ": " + missing, missing.isEmpty());
    // beside Phoenix's shaded client jar these do not exist under their own names
    assertTrue(
        "classes Phoenix's client jar relocates, named by the driver: " + relocated,
        relocated.isEmpty());
  }
}
