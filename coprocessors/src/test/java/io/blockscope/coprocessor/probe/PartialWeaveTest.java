package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.lang.instrument.Instrumentation;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import org.junit.Test;

/**
 * A probe whose weave fails for one of its classes leaves no transformer installed on the others,
 * so the next region open does not stack another one on top. And the probes woven together at a
 * server's first region open: one transformer, or one each when that fails.
 */
public class PartialWeaveTest {
  private static final ClassLoader LOADER = PartialWeaveTest.class.getClassLoader();

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

  public static final class Other {
    public int h() {
      return 2;
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

  /** The counting advice's calls while {@code calls} run. */
  private static int counted(Runnable... calls) {
    adviceCalls = 0;
    for (Runnable call : calls) {
      call.run();
    }
    return adviceCalls;
  }

  private static ProbeTargets.Target target(
      Class<?> type, String method, Class<?> advice, String... params) {
    return new ProbeTargets.Target(type.getName(), method, advice, params);
  }

  @Test
  public void aWeaveThatFailsForOneClassIsTakenOutOfTheOthers() {
    Instrumentation inst = ByteBuddyAgent.install();
    new Reached().f(); // both classes loaded, as HBase's are when a region opens
    new Refused().g(1);
    ProbeWeaver.Weave w =
        ProbeWeaver.weave(
            List.of(
                target(Reached.class, "f", Counting.class),
                target(Refused.class, "g", Impossible.class, "int")),
            inst,
            LOADER);
    assertNull(w.transformer());
    assertNotNull(w.failure());
    assertTrue(
        w.failure(),
        w.failure().startsWith("weaving failed: ")
            && w.failure().contains(Refused.class.getName()));
    assertEquals(
        "the class the weave did reach is back as it was", 0, counted(() -> new Reached().f()));
  }

  @Test
  public void aWeaveThatWorksStaysUntilReset() {
    Instrumentation inst = ByteBuddyAgent.install();
    new Reached().f();
    ProbeWeaver.Weave w =
        ProbeWeaver.weave(List.of(target(Reached.class, "f", Counting.class)), inst, LOADER);
    assertNull(w.failure());
    try {
      assertEquals(1, counted(() -> new Reached().f()));
    } finally {
      w.transformer().reset(inst, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
    }
    assertEquals(0, counted(() -> new Reached().f()));
  }

  @Test
  public void probesWovenTogetherShareOneTransformer() {
    Instrumentation inst = ByteBuddyAgent.install();
    new Reached().f();
    new Other().h();
    Map<Integer, ResettableClassFileTransformer> woven = new HashMap<>();
    Map<Integer, String> failed =
        ProbeWeaver.weaveProbes(
            Map.of(
                0, List.of(target(Reached.class, "f", Counting.class)),
                1, List.of(target(Other.class, "h", Counting.class))),
            inst,
            LOADER,
            woven::put);
    assertEquals(Map.of(), failed);
    assertEquals(Set.of(0, 1), woven.keySet());
    assertSame("one weave for both", woven.get(0), woven.get(1));
    try {
      assertEquals(2, counted(() -> new Reached().f(), () -> new Other().h()));
    } finally {
      woven.get(0).reset(inst, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
    }
    assertEquals(
        "one reset takes both out", 0, counted(() -> new Reached().f(), () -> new Other().h()));
  }

  @Test
  public void aProbeWhoseWeaveFailsTakesOutItsOwnProbeOnly() {
    Instrumentation inst = ByteBuddyAgent.install();
    new Reached().f();
    new Refused().g(1);
    new Other().h();
    Map<Integer, ResettableClassFileTransformer> woven = new HashMap<>();
    Map<Integer, String> failed =
        ProbeWeaver.weaveProbes(
            Map.of(
                0, List.of(target(Reached.class, "f", Counting.class)),
                1, List.of(target(Refused.class, "g", Impossible.class, "int")),
                2, List.of(target(Other.class, "h", Counting.class))),
            inst,
            LOADER,
            woven::put);
    assertEquals(Set.of(1), failed.keySet());
    assertTrue(failed.get(1), failed.get(1).contains(Refused.class.getName()));
    assertEquals(Set.of(0, 2), woven.keySet());
    assertNotSame("woven one by one after the weave together failed", woven.get(0), woven.get(2));
    try {
      assertEquals(
          "the two probes that wove count, the refused one does not",
          2,
          counted(() -> new Reached().f(), () -> new Refused().g(1), () -> new Other().h()));
    } finally {
      woven.get(0).reset(inst, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
      woven.get(2).reset(inst, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
    }
    assertEquals(0, counted(() -> new Reached().f(), () -> new Other().h()));
  }
}
