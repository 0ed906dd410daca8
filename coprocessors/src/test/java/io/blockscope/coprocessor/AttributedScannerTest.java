package io.blockscope.coprocessor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;
import org.apache.hadoop.hbase.regionserver.Shipper;
import org.apache.hadoop.hbase.regionserver.StoreScanner;
import org.junit.Test;

/**
 * The compaction wrapper is everything the wrapped scanner is: as a mere {@code InternalScanner},
 * HBase's {@code Compactor.performCompaction} would never call {@code shipped()} on the store
 * scanner while blockscope measured a compaction.
 */
public class AttributedScannerTest {

  /** A compaction scanner as HBase's StoreScanner is: an InternalScanner and a Shipper. */
  static final class ShippingScanner implements InternalScanner, Shipper {
    final List<String> calls;
    IOException failNext;

    ShippingScanner(List<String> calls) {
      this.calls = calls;
    }

    @Override
    public boolean next(List<Cell> result, ScannerContext scannerContext) throws IOException {
      calls.add("next");
      if (failNext != null) {
        throw failNext;
      }
      return false;
    }

    @Override
    public void close() {
      calls.add("close");
    }

    @Override
    public void shipped() {
      calls.add("shipped");
    }
  }

  @Test
  public void shippedReachesTheStoreScanner() throws IOException {
    RecordingHooks hooks = new RecordingHooks();
    ShippingScanner store = new ShippingScanner(hooks.calls);
    InternalScanner wrapped = AttributedScanner.wrap(store, hooks, null);
    assertTrue("the wrapper must stay a Shipper", wrapped instanceof Shipper);
    wrapped.next(new ArrayList<>());
    ((Shipper) wrapped).shipped();
    wrapped.close();
    assertEquals(List.of("enter[null]", "next", "exit[null]", "shipped", "close"), hooks.calls);
  }

  @Test
  public void aBatchThatThrowsClosesItsFrameAndKeepsItsException() {
    RecordingHooks hooks = new RecordingHooks();
    ShippingScanner store = new ShippingScanner(hooks.calls);
    IOException boom = new IOException("disk gone");
    store.failNext = boom;
    InternalScanner wrapped = AttributedScanner.wrap(store, hooks, null);
    try {
      wrapped.next(new ArrayList<>(), null);
      fail("the store scanner's exception must come through");
    } catch (IOException e) {
      assertSame(boom, e);
    }
    assertEquals(List.of("enter[null]", "next", "exit[null]"), hooks.calls);
  }

  /**
   * Every interface HBase's own StoreScanner implements (in the HBase version on the classpath) is
   * implemented by a wrapper of a scanner that has them: a new HBase interface fails here, not in a
   * production compaction.
   */
  @Test
  public void theWrapperOfAStoreScannerIsEverythingAStoreScannerIs() throws IOException {
    Set<Class<?>> storeInterfaces = new LinkedHashSet<>();
    collect(StoreScanner.class, storeInterfaces);
    assertTrue(storeInterfaces.toString(), storeInterfaces.contains(Shipper.class));
    List<String> calls = new ArrayList<>();
    Object fakeStore =
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            storeInterfaces.toArray(new Class<?>[0]),
            (proxy, m, args) -> {
              calls.add(m.getName());
              return m.getReturnType() == boolean.class ? Boolean.FALSE : null;
            });
    InternalScanner wrapped =
        AttributedScanner.wrap((InternalScanner) fakeStore, new RecordingHooks(), null);
    for (Class<?> i : storeInterfaces) {
      assertTrue("wrapper lacks " + i.getName(), i.isInstance(wrapped));
    }
    ((Shipper) wrapped).shipped();
    assertEquals(List.of("shipped"), calls);
    // equals is the wrapper's own identity, not forwarded (the scanner would answer false)
    assertTrue(wrapped.equals(wrapped));
    assertFalse(wrapped.equals(fakeStore));
  }

  private static void collect(Class<?> type, Set<Class<?>> out) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      for (Class<?> i : c.getInterfaces()) {
        out.add(i);
        collect(i, out);
      }
    }
  }
}
