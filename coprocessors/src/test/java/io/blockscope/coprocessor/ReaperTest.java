package io.blockscope.coprocessor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.After;
import org.junit.Test;

public class ReaperTest {
  @After
  public void restore() {
    Reaper.idleMillis = 60_000;
  }

  private static boolean within(long millis, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long end = System.nanoTime() + millis * 1_000_000;
    while (System.nanoTime() < end) {
      if (condition.getAsBoolean()) {
        return true;
      }
      System.gc();
      Thread.sleep(20);
    }
    return condition.getAsBoolean();
  }

  /**
   * With nothing registered the cleaning thread ends (a copy of blockscope nobody uses keeps no
   * thread); the next registration starts it again, and an object dropped unclosed is still cleaned
   * once it has been collected.
   */
  @Test(timeout = 60_000)
  public void theThreadEndsWhenIdleAndComesBackForTheNextRegistration() throws Exception {
    Reaper.idleMillis = 100;
    AtomicInteger ran = new AtomicInteger();
    Reaper.register(new Object(), ran::incrementAndGet).clean();
    assertEquals(1, ran.get());
    assertTrue(
        "the thread ended, idle; registrations waiting: " + Reaper.waiting(),
        within(20_000, () -> !Reaper.draining()));

    Reaper.register(new Object(), ran::incrementAndGet); // dropped at once, never closed
    assertTrue("cleaned after collection", within(20_000, () -> ran.get() == 2));
    assertTrue("and the thread ended again", within(20_000, () -> !Reaper.draining()));
    assertFalse(Reaper.draining());
  }
}
