package io.blockscope.coprocessor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Waiter;
import org.junit.After;
import org.junit.Test;

public class ReaperTest {
  @After
  public void restore() {
    Reaper.idleMillis = 60_000;
  }

  /** Waits until {@code condition} holds, collecting garbage between looks. */
  private static void await(String what, Waiter.Predicate<RuntimeException> condition) {
    Waiter.waitFor(
        new Configuration(false),
        20_000,
        20,
        () -> {
          System.gc();
          return condition.evaluate();
        });
    assertTrue(what, condition.evaluate());
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
    await("the thread ended, idle", () -> !Reaper.draining());

    Reaper.register(new Object(), ran::incrementAndGet); // dropped at once, never closed
    await("cleaned after collection", () -> ran.get() == 2);
    await("and the thread ended again", () -> !Reaper.draining());
    assertFalse(Reaper.draining());
  }
}
