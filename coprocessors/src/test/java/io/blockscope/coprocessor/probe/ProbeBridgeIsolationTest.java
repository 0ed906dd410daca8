package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.Handle;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.junit.Test;

/**
 * The bridge is injected alone into HBase's class loader when blockscope is deployed per table; it
 * must work with no other blockscope class in sight.
 */
public class ProbeBridgeIsolationTest {
  private static final String NAME = ProbeBridge.class.getName();

  private static byte[] bytes() throws Exception {
    try (InputStream in = ProbeBridge.class.getResourceAsStream("ProbeBridge.class")) {
      return in.readAllBytes();
    }
  }

  /** Sees HBase and the JDK, and only the bridge of blockscope. */
  private static final class IsolatingLoader extends ClassLoader {
    private final byte[] bridge;

    IsolatingLoader(byte[] bridge) {
      super(ProbeBridgeIsolationTest.class.getClassLoader());
      this.bridge = bridge;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      synchronized (getClassLoadingLock(name)) {
        if (name.equals(NAME)) {
          Class<?> c = findLoadedClass(name);
          return c != null ? c : defineClass(name, bridge, 0, bridge.length);
        }
        if (name.startsWith("io.blockscope.")) {
          throw new ClassNotFoundException("hidden from the bridge: " + name);
        }
        return super.loadClass(name, resolve);
      }
    }
  }

  @Test
  public void codeReferencesNoOtherBlockscopeClass() throws Exception {
    // javac may leave an unused class constant for CostLayout (whose int constants it inlined);
    // what matters is that no instruction names another blockscope class.
    String own = NAME.replace('.', '/');
    List<String> foreign = new ArrayList<>();
    new ClassReader(bytes())
        .accept(
            new ClassVisitor(Opcodes.ASM9) {
              @Override
              public MethodVisitor visitMethod(
                  int access, String name, String desc, String sig, String[] exceptions) {
                String where = name + desc;
                check(where, desc);
                return new MethodVisitor(Opcodes.ASM9) {
                  @Override
                  public void visitFieldInsn(int op, String owner, String field, String d) {
                    check(where, owner);
                    check(where, d);
                  }

                  @Override
                  public void visitMethodInsn(
                      int op, String owner, String m, String d, boolean itf) {
                    check(where, owner);
                    check(where, d);
                  }

                  @Override
                  public void visitTypeInsn(int op, String type) {
                    check(where, type);
                  }

                  @Override
                  public void visitInvokeDynamicInsn(
                      String n, String d, Handle bsm, Object... args) {
                    check(where, d);
                    for (Object a : args) {
                      check(where, String.valueOf(a));
                    }
                  }

                  @Override
                  public void visitLdcInsn(Object value) {
                    check(where, String.valueOf(value));
                  }
                };
              }

              private void check(String where, String text) {
                if (text != null && text.replace(own, "").contains("io/blockscope/")) {
                  foreign.add(where + " -> " + text);
                }
              }
            },
            0);
    assertTrue(foreign.toString(), foreign.isEmpty());
  }

  @Test
  public void worksWhenLoadedAlone() throws Exception {
    Class<?> bridge = new IsolatingLoader(bytes()).loadClass(NAME);
    long[] costs = (long[]) bridge.getMethod("costs").invoke(null);
    assertEquals(io.blockscope.metrics.CostLayout.SIZE, costs.length);

    ToIntFunction<Class<?>> fastDiff = c -> 3;
    bridge
        .getMethod("maps", int[].class, int[].class, ToIntFunction.class)
        .invoke(null, new int[0], new int[0], fastDiff);
    costs[io.blockscope.metrics.CostLayout.LEVEL] = 1;
    bridge.getMethod("cell", int.class).invoke(null, 3);
    bridge
        .getMethod("seekerCall", Object.class, boolean.class, long.class)
        .invoke(null, "a seeker", true, 0L);
    bridge
        .getMethod("fsRead", Class.forName("org.apache.hadoop.hbase.io.hfile.HFileBlock"))
        .invoke(null, (Object) null);

    long[] expected = new long[costs.length];
    expected[io.blockscope.metrics.CostLayout.LEVEL] = 1;
    expected[
            io.blockscope.metrics.CostLayout.decode(
                3, io.blockscope.metrics.CostLayout.DECODE_CELLS)] =
        1;
    expected[
            io.blockscope.metrics.CostLayout.decode(
                3, io.blockscope.metrics.CostLayout.DECODE_SEEKS)] =
        1;
    assertArrayEquals(expected, costs);
    assertEquals(
        "the isolated copy is a different class from the one compiled against",
        false,
        bridge == ProbeBridge.class);
  }
}
