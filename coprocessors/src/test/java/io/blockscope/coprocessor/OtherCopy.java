package io.blockscope.coprocessor;

import io.blockscope.coprocessor.probe.ProbeBridge;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

  /**
   * A copy of every class whose name starts with {@code prefix} but the read-path bridge, which
   * HBase's classes resolve from their own loader whichever copy asks, and the tests.
   */
  public static OtherCopy ofPackage(ClassLoader parent, String prefix) {
    return new OtherCopy(
        parent,
        name ->
            name.startsWith(prefix)
                && !name.startsWith(ProbeBridge.class.getName())
                && !name.contains("Test"));
  }

  /** Runs both calls on threads of their own, released at the same moment; waits for both. */
  public static void atOnce(Callable<?> first, Callable<?> second) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService two = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (Callable<?> c : List.of(first, second)) {
        running.add(
            two.submit(
                () -> {
                  go.await();
                  return c.call();
                }));
      }
      go.countDown();
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      two.shutdownNow();
    }
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
