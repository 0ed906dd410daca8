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
    String why = reason(a);
    assertTrue(why, why.contains("within 200 ms") && why.contains("-javaagent"));
    assertEquals("a later region open does not wait again", why, reason(a));
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
