package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.lang.instrument.Instrumentation;
import java.util.List;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import org.junit.Test;

/**
 * Issue 14, defect 4: a probe whose weave failed for one of its classes left its transformer
 * installed on the others, and the next region open stacked another one on top.
 */
public class PartialWeaveTest {
  /** Calls of the counting advice; read and written by the test thread only. */
  public static int adviceCalls;

  public static final class Reached {
    public int f() {
      return 1;
    }
  }

  public static final class Refused {
    public int g(int x) {
      return x;
    }
  }

  static final class Counting {
    @Advice.OnMethodExit
    static void exit() {
      PartialWeaveTest.adviceCalls++;
    }
  }

  /** Binds an argument the target method does not have: Byte Buddy refuses to weave it. */
  static final class Impossible {
    @Advice.OnMethodEnter
    static void enter(@Advice.Argument(3) int none) {}
  }

  private static ProbeInstaller.Target target(
      Class<?> type, String method, Class<?> advice, String... params) {
    return new ProbeInstaller.Target(type.getName(), method, advice, params);
  }

  @Test
  public void aWeaveThatFailsForOneClassIsTakenOutOfTheOthers() {
    Instrumentation inst = ByteBuddyAgent.install();
    new Reached().f(); // both classes loaded, as HBase's are when a region opens
    new Refused().g(1);
    ProbeInstaller.Weave w =
        ProbeInstaller.weave(
            List.of(
                target(Reached.class, "f", Counting.class),
                target(Refused.class, "g", Impossible.class, "int")),
            inst);
    assertNull(w.transformer());
    assertNotNull(w.failure());
    assertTrue(
        w.failure(),
        w.failure().startsWith("weaving failed: ")
            && w.failure().contains(Refused.class.getName()));
    adviceCalls = 0;
    new Reached().f();
    assertEquals("the class the weave did reach is back as it was", 0, adviceCalls);
  }

  @Test
  public void aWeaveThatWorksStaysUntilReset() {
    Instrumentation inst = ByteBuddyAgent.install();
    new Reached().f();
    ProbeInstaller.Weave w =
        ProbeInstaller.weave(List.of(target(Reached.class, "f", Counting.class)), inst);
    assertNull(w.failure());
    try {
      adviceCalls = 0;
      new Reached().f();
      assertEquals(1, adviceCalls);
    } finally {
      w.transformer().reset(inst, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
    }
    adviceCalls = 0;
    new Reached().f();
    assertEquals(0, adviceCalls);
  }
}
