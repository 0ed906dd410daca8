package io.blockscope.coprocessor;

import java.io.IOException;
import java.io.InputStream;
import java.util.function.Predicate;

/**
 * A second copy of some of blockscope's classes, as a table's coprocessor class loader makes one
 * (HBase's {@code CoprocessorClassLoader} loads {@code io.blockscope.*} child-first): the classes
 * {@code copied} names are defined again from the parent's bytes, everything else comes from the
 * parent.
 */
public final class OtherCopy extends ClassLoader {
  private final Predicate<String> copied;

  public OtherCopy(ClassLoader parent, Predicate<String> copied) {
    super(parent);
    this.copied = copied;
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    synchronized (getClassLoadingLock(name)) {
      if (!copied.test(name)) {
        return super.loadClass(name, resolve);
      }
      Class<?> c = findLoadedClass(name);
      if (c == null) {
        try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
          if (in == null) {
            throw new ClassNotFoundException(name);
          }
          byte[] bytes = in.readAllBytes();
          c = defineClass(name, bytes, 0, bytes.length);
        } catch (IOException e) {
          throw new ClassNotFoundException(name, e);
        }
      }
      return c;
    }
  }
}
