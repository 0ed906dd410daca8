package io.blockscope.coprocessor;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/**
 * Hooks bound to another class loader's copy of blockscope: every method of the {@link Hooks}
 * interface reaches that copy's engine with its arguments and brings back its result; a call that
 * throws there returns a default here.
 */
public class OtherCopyHooksTest {
  private static final String[] COPIED = {Hooks.class.getName(), RecordingHooks.class.getName()};

  private static Object otherEngine() throws Exception {
    Class<?> c =
        Class.forName(
            RecordingHooks.class.getName(),
            true,
            new OtherCopy(OtherCopyHooksTest.class.getClassLoader(), List.of(COPIED)::contains));
    assertNotSame(RecordingHooks.class, c);
    return c.getConstructor().newInstance();
  }

  @SuppressWarnings("unchecked")
  private static List<String> calls(Object engine) throws Exception {
    return (List<String>) engine.getClass().getField("calls").get(engine);
  }

  @Test
  public void everyMethodOfTheInterfaceReachesTheOtherCopy() throws Throwable {
    Object engine = otherEngine();
    Hooks h = OtherCopyHooks.of(engine);
    assertFalse("not this copy's engine type", engine instanceof Hooks);
    assertTrue(h.measures(null));
    assertEquals("handle", h.queryScan(new byte[] {1}, "alice", "scan", null, 2));
    h.queryActive("handle", 5);
    assertArrayEquals(new long[] {7}, h.queryCosts("q", "alice", "r"));
    h.exit(null);
    assertEquals(
        List.of(
            "measures[null]",
            "queryScan[[1], alice, scan, null, 2]",
            "queryActive[handle, 5]",
            "queryCosts[q, alice, r]",
            "exit[null]"),
        calls(engine));

    // each method of the contract, called through the binding, arrives once
    calls(engine).clear();
    List<String> names = new ArrayList<>();
    for (Method m : Hooks.class.getMethods()) {
      m.invoke(h, defaults(m.getParameterTypes()));
      names.add(m.getName());
    }
    assertEquals(names.size(), calls(engine).size());
    for (int i = 0; i < names.size(); i++) {
      assertTrue(calls(engine).get(i), calls(engine).get(i).startsWith(names.get(i) + "["));
    }
  }

  @Test
  public void aCallThatThrowsInTheOtherCopyReturnsADefault() throws Exception {
    Object engine = otherEngine();
    engine.getClass().getField("fail").setBoolean(engine, true);
    Hooks h = OtherCopyHooks.of(engine);
    assertFalse(h.measures(null));
    assertNull(h.queryScan(new byte[0], null, null, null, 0));
    assertNull(h.queryCosts("q", "alice", "r"));
    h.enter(null);
    h.exit(null);
    assertEquals(5, calls(engine).size());
  }

  @Test
  public void theNoneHooksDoNothingAndAnObjectWithoutTheContractIsRefused() {
    assertFalse(OtherCopyHooks.NONE.measures(null));
    assertNull(OtherCopyHooks.NONE.queryCosts("q", "alice", "r"));
    OtherCopyHooks.NONE.exit(null);
    assertTrue(OtherCopyHooks.NONE.toString().contains("passive"));
    // a JDK object: its loader has no blockscope copy at all
    assertThrows(ClassNotFoundException.class, () -> OtherCopyHooks.of("not an engine"));
  }

  private static Object[] defaults(Class<?>[] types) {
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      args[i] = types[i] == int.class ? 0 : types[i] == boolean.class ? false : null;
    }
    return args;
  }
}
