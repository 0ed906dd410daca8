package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;

/**
 * A failed self-attach is not retried at every region open, under JVM-wide locks, and the wait on
 * its helper JVM has a timeout.
 */
public class AttacherTest {

  @Test
  public void aFailedAttachIsTriedOnceAndItsReasonKept() {
    AtomicInteger attempts = new AtomicInteger();
    Attacher a =
        new Attacher(
            () -> {
              attempts.incrementAndGet();
              throw new IllegalStateException("no tools.jar");
            },
            10_000);
    String first = reason(a);
    String second = reason(a);
    assertEquals(1, attempts.get());
    assertEquals(first, second);
    assertTrue(first, first.contains("no tools.jar"));
  }

  @Test(timeout = 60_000)
  public void anAttachThatHangsBlocksTheRegionOpenForTheTimeoutOnly() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    CountDownLatch never = new CountDownLatch(1);
    Attacher a =
        new Attacher(
            () -> {
              attempts.incrementAndGet();
              never.await();
              return null;
            },
            200);
    long start = System.nanoTime();
    String why = reason(a);
    long firstMillis = (System.nanoTime() - start) / 1_000_000;
    assertTrue(why, why.contains("within 200 ms") && why.contains("-javaagent"));
    // the attach never returns: the open waits its 200 ms, and not for ever (the test's own
    // timeout only guards against a hang)
    assertTrue("the first open waited " + firstMillis + " ms", firstMillis >= 200);
    assertTrue("the first open waited " + firstMillis + " ms", firstMillis < 10_000);
    start = System.nanoTime();
    assertEquals("a later region open does not wait again", why, reason(a));
    long laterMillis = (System.nanoTime() - start) / 1_000_000;
    assertTrue("a later open waited " + laterMillis + " ms", laterMillis < 200);
    assertEquals(1, attempts.get());
  }

  @Test
  public void aSuccessfulAttachIsReused() {
    AtomicInteger attempts = new AtomicInteger();
    Instrumentation inst =
        (Instrumentation)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {Instrumentation.class},
                (p, m, args) ->
                    m.getName().equals("hashCode")
                        ? 0
                        : m.getName().equals("equals") ? p == args[0] : null);
    Attacher a =
        new Attacher(
            () -> {
              attempts.incrementAndGet();
              return inst;
            },
            10_000);
    assertTrue(inst == a.get());
    assertTrue(inst == a.get());
    assertEquals(1, attempts.get());
  }

  private static String reason(Attacher a) {
    try {
      a.get();
      fail("no instrumentation expected");
      return null;
    } catch (IllegalStateException e) {
      return e.getMessage();
    }
  }
}
