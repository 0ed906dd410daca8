package io.blockscope.release;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** The class files of a test jar this suite depends on, wherever Maven resolved it from. */
final class TestJars {
  private TestJars() {}

  /**
   * Every class file of the jar (or class directory, in a reactor that did not package it) that
   * {@code from} was loaded from: its path inside ({@code io/blockscope/...Name.class}) and bytes.
   */
  static Map<String, byte[]> classFiles(Class<?> from) throws IOException {
    Path source;
    try {
      source = Path.of(from.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    Map<String, byte[]> classes = new TreeMap<>();
    try (FileSystem fs = Files.isDirectory(source) ? null : FileSystems.newFileSystem(source)) {
      Path root = fs == null ? source : fs.getPath("/");
      try (Stream<Path> all = Files.walk(root)) {
        for (Path p : (Iterable<Path>) all::iterator) {
          String name = root.relativize(p).toString().replace('\\', '/');
          if (name.endsWith(".class")) {
            classes.put(name, Files.readAllBytes(p));
          }
        }
      }
    }
    return classes;
  }
}
