package io.blockscope.coprocessor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.junit.Test;

/**
 * The first region a region server opens makes the engine, which may wait for instrumentation up to
 * the attach timeout (30 s by default) under a lock of the JVM. That region is usually {@code
 * hbase:meta}: every region open behind it waited, and the cluster's catalog with it. A system
 * table's region now opens at once while the engine is being made; user regions still wait, so that
 * their reads are measured from their first.
 */
public class SystemRegionsDoNotWaitTest {

  private static RegionCoprocessorEnvironment env(RegionInfo region) {
    return (RegionCoprocessorEnvironment)
        Proxy.newProxyInstance(
            RegionCoprocessorEnvironment.class.getClassLoader(),
            new Class<?>[] {RegionCoprocessorEnvironment.class},
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "getRegionInfo":
                  return region;
                case "toString":
                  return "env(" + region.getEncodedName() + ")";
                case "hashCode":
                  return System.identityHashCode(proxy);
                case "equals":
                  return proxy == args[0];
                default:
                  return null;
              }
            });
  }

  private static final RegionInfo META = RegionInfoBuilder.FIRST_META_REGIONINFO;
  private static final RegionInfo USER =
      RegionInfoBuilder.newBuilder(TableName.valueOf("usertable")).build();

  /** An engine being made: blocks until released, and says which thread made it. */
  private static final class SlowEngine {
    final CountDownLatch release = new CountDownLatch(1);
    final List<String> threads = new CopyOnWriteArrayList<>();
    final RecordingHooks hooks = new RecordingHooks();

    Hooks make(RegionCoprocessorEnvironment e) {
      threads.add(Thread.currentThread().getName());
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException x) {
        Thread.currentThread().interrupt();
      }
      return hooks;
    }
  }

  /** Waits for the observer's starter threads to end: their last step is the region's tracking. */
  private static void joinStarters() throws InterruptedException {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals("blockscope-start")) {
        t.join();
      }
    }
  }

  @Test(timeout = 20_000)
  public void metaOpensWhileTheEngineIsBeingMadeAndIsTrackedOnceItIs() throws Exception {
    SlowEngine engine = new SlowEngine();
    BlockscopeRegionObserver observer = new BlockscopeRegionObserver(engine::make, () -> false);
    RegionCoprocessorEnvironment meta = env(META);
    observer.start(meta); // returns with the engine still held back
    assertEquals(List.of(), engine.hooks.calls);
    engine.release.countDown();
    joinStarters();
    assertEquals(List.of("regionOpened[" + meta + "]"), engine.hooks.calls);
    assertEquals(List.of("blockscope-start"), engine.threads);
    observer.stop(meta);
    assertEquals(2, engine.hooks.calls.size());
  }

  @Test(timeout = 20_000)
  public void aSystemRegionClosedBeforeTheEngineIsReadyIsNeverTracked() throws Exception {
    SlowEngine engine = new SlowEngine();
    BlockscopeRegionObserver observer = new BlockscopeRegionObserver(engine::make, () -> false);
    RegionCoprocessorEnvironment meta = env(META);
    observer.start(meta);
    observer.stop(meta);
    engine.release.countDown();
    joinStarters();
    assertEquals(List.of("blockscope-start"), engine.threads);
    assertEquals(List.of(), engine.hooks.calls);
  }

  @Test(timeout = 20_000)
  public void userRegionsAndRegionsOpenedOnceTheEngineIsThereAreTrackedAtOpen() throws Exception {
    SlowEngine engine = new SlowEngine();
    engine.release.countDown();
    new BlockscopeRegionObserver(engine::make, () -> false).start(env(USER));
    new BlockscopeRegionObserver(engine::make, () -> true).start(env(META));
    assertEquals(2, engine.hooks.calls.size());
    String me = Thread.currentThread().getName();
    assertEquals(List.of(me, me), engine.threads);
    assertTrue(engine.hooks.calls.get(0).startsWith("regionOpened"));
  }
}
