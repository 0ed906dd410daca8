package io.blockscope.coprocessor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;

import io.blockscope.coprocessor.accounting.CostRegistry;
import io.blockscope.coprocessor.accounting.ExportLimit;
import io.blockscope.coprocessor.accounting.QueryTracker;
import io.blockscope.coprocessor.accounting.UserAccounts;
import java.lang.ref.WeakReference;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Waiter;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.junit.Test;

/** Query tagging on a region server where the probes are not there (no bridge). */
public class QueryTaggingTest {
  private static final RegionInfo REGION =
      RegionInfoBuilder.newBuilder(TableName.valueOf("usertable")).build();

  private static RegionCoprocessorEnvironment env() {
    return (RegionCoprocessorEnvironment)
        Proxy.newProxyInstance(
            RegionCoprocessorEnvironment.class.getClassLoader(),
            new Class<?>[] {RegionCoprocessorEnvironment.class},
            (proxy, method, args) -> method.getName().equals("getRegionInfo") ? REGION : null);
  }

  /**
   * A tagged scan is not kept by the handler thread that tagged it: with no probes, no frame end
   * clears the thread's record of it, and it must still be collected once HBase is done with it;
   * while it lives, a second tagging of it (a second copy of blockscope) is still refused.
   */
  @Test(timeout = 60_000)
  public void aTaggedScanIsNotKeptByItsThread() throws Exception {
    AtomicLong failures = new AtomicLong();
    try (CostRegistry registry = new CostRegistry(ExportLimit.ALL)) {
      Levels levels =
          new Levels(
              new BlockscopeConfig(new Configuration(false), new ArrayList<>()), new Problems());
      Attribution attribution = new Attribution(registry, new UserAccounts(1), null, failures);
      QueryTagging tagging =
          new QueryTagging(
              registry, attribution, levels, null, failures, QueryTracker.Limits.DEFAULT);
      byte[] id = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
      Object scan = new Object();
      assertNotNull(tagging.queryScan(id, "alice", scan, env(), 2));
      assertNull(
          "the same scan again: tagged already", tagging.queryScan(id, "alice", scan, env(), 2));
      WeakReference<Object> held = new WeakReference<>(scan);
      scan = null;
      Waiter.waitFor(
          new Configuration(false),
          10_000,
          20,
          () -> {
            System.gc();
            return held.get() == null;
          });
      assertNull("collected: the thread keeps no tagged scan", held.get());
      assertNotNull("a new scan is tagged", tagging.queryScan(id, "alice", new Object(), env(), 2));
      assertEquals(0, failures.get());
      assertEquals("alice's one query", 1, tagging.queries().trackedQueries());
    }
  }
}
