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
 * (docs/hints.md): every blockscope class a class in it refers to is in it. The tests' own class
 * path has every module, so a class left out of the jar fails only here, not in the driver's tests.
 * (A constant the compiler copies into the caller, such as {@code Attributes.QUERY}, is no
 * reference.)
 */
public class DriverJarIT {
  /** A class named in a class file's constant pool: as a class entry or inside a descriptor. */
  private static final Pattern CLASS_NAME = Pattern.compile("io/blockscope/[A-Za-z0-9_/$]+");

  @Test
  public void everyBlockscopeClassTheDriverUsesIsInItsJar() throws Exception {
    File jar = new File(System.getProperty("blockscope.hints.jar"));
    assertTrue(jar + " (built by the package phase)", jar.isFile());
    Set<String> inJar = new TreeSet<>();
    Set<String> referred = new TreeSet<>();
    try (ZipFile z = new ZipFile(jar)) {
      for (Enumeration<? extends ZipEntry> e = z.entries(); e.hasMoreElements(); ) {
        ZipEntry entry = e.nextElement();
        if (!entry.getName().endsWith(".class")) {
          continue;
        }
        inJar.add(entry.getName().substring(0, entry.getName().length() - ".class".length()));
        try (InputStream in = z.getInputStream(entry)) {
          // class names are modified UTF-8 in the constant pool: ASCII here
          Matcher m =
              CLASS_NAME.matcher(new String(in.readAllBytes(), StandardCharsets.ISO_8859_1));
          while (m.find()) {
            referred.add(m.group());
          }
        }
      }
    }
    assertTrue(inJar.toString(), inJar.contains("io/blockscope/hints/BlockscopeDriver"));
    assertTrue(inJar.toString(), inJar.contains("io/blockscope/metrics/Json"));
    Set<String> missing = new TreeSet<>(referred);
    missing.removeAll(inJar);
    assertTrue("referred to but not in " + jar.getName() + ": " + missing, missing.isEmpty());
  }
}
