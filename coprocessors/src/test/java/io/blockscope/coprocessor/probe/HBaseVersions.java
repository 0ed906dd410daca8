package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;

/**
 * The HBase versions blockscope is checked against, each as a class loader over that version's
 * hbase-server and hbase-common jars (copied by the build into {@code target/hbase-versions/
 * <version>}), taking HBase's classes from them first and everything else from the test's class
 * path. A class not in a version's jars falls through to the HBase this build compiles against:
 * callers check {@code getClassLoader()} to tell.
 */
public final class HBaseVersions {
  private static final Path JARS = Path.of("target", "hbase-versions");

  public static final List<String> VERSIONS =
      List.of("2.5.13-hadoop3", "2.6.1-hadoop3", "2.6.4", "3.0.0-beta-1", "3.0.0");

  private HBaseVersions() {}

  /** HBase's classes from one version's jars; everything else from the parent. */
  public static final class Loader extends URLClassLoader {
    Loader(URL[] jars, ClassLoader parent) {
      super(jars, parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (name.startsWith("io.blockscope.encoding.")) {
        // BLOCKSCOPE_V1's seeker is built against HBase 2.6 and registers there only
        throw new ClassNotFoundException(name);
      }
      if (!name.startsWith("org.apache.hadoop.hbase.")) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          try {
            c = findClass(name);
          } catch (ClassNotFoundException notInThisVersion) {
            c = super.loadClass(name, false);
          }
        }
        return c;
      }
    }
  }

  public static Loader loader(String version, ClassLoader parent) throws IOException {
    File[] jars = JARS.resolve(version).toFile().listFiles((d, n) -> n.endsWith(".jar"));
    assertTrue(
        "the build copies HBase " + version + "'s jars into " + JARS,
        jars != null && jars.length > 0);
    URL[] urls = new URL[jars.length];
    for (int i = 0; i < jars.length; i++) {
      urls[i] = jars[i].toURI().toURL();
    }
    return new Loader(urls, parent);
  }
}
