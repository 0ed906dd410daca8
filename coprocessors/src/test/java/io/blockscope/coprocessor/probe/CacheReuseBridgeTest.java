package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.CacheReuse;
import io.blockscope.metrics.CostLayout;
import java.lang.reflect.Proxy;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.junit.BeforeClass;
import org.junit.Test;

/** The bridge's map from HFile names to tables, which the block cache counters go by. */
public class CacheReuseBridgeTest {
  private static final String REGION = "0123456789abcdef0123456789abcdef";

  /** The block kinds by HBase's block types, as the installer sets them before weaving. */
  @BeforeClass
  public static void maps() {
    ProbeBridge.maps(
        ProbeInstaller.blockTypeMap(),
        ProbeInstaller.algorithmMap(),
        ProbeTargets::encodingOfSeekerType);
  }

  @Test
  public void aStoreFilesPathNamesItsTable() {
    String root = "hdfs://nn:8020/hbase";
    assertEquals("T", ProbeBridge.tableOfPath(root + "/data/default/T/" + REGION + "/f/abc"));
    assertEquals("ns:T", ProbeBridge.tableOfPath(root + "/data/ns/T/" + REGION + "/f/abc"));
    assertEquals(
        "a flush's or compaction's output before it moves",
        "T",
        ProbeBridge.tableOfPath(root + "/data/default/T/" + REGION + "/.tmp/f/abc"));
    assertEquals(
        "an archived file",
        "T",
        ProbeBridge.tableOfPath(root + "/archive/data/default/T/" + REGION + "/f/abc"));
    assertEquals(
        "a MOB file",
        "ns:T",
        ProbeBridge.tableOfPath(root + "/mobdir/data/ns/T/" + REGION + "/f/abc"));
    assertEquals(
        "hbase:meta", ProbeBridge.tableOfPath("file:/tmp/x/data/hbase/meta/1588230740/info/abc"));
    assertEquals(
        "an old region's decimal name",
        "t",
        ProbeBridge.tableOfPath(root + "/data/default/t/12345/f/abc"));
    assertNull("not a region directory", ProbeBridge.tableOfPath(root + "/data/default/T/r/f/abc"));
    assertNull(
        "not under data", ProbeBridge.tableOfPath(root + "/tmp/default/T/" + REGION + "/f/x"));
    assertNull("a bare file", ProbeBridge.tableOfPath("/abc"));
    assertNull("nothing", ProbeBridge.tableOfPath(""));
  }

  private static Cacheable dataBlock() {
    return (Cacheable)
        Proxy.newProxyInstance(
            Cacheable.class.getClassLoader(),
            new Class<?>[] {Cacheable.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getBlockType")) {
                return BlockType.DATA;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  private static long inserted(String table) {
    return ProbeBridge.cacheReuse(
        table, CacheReuse.slot(CostLayout.KIND_DATA, CacheReuse.INSERTED));
  }

  private static long insertedAt(int slot) {
    return ProbeBridge.CACHE_REUSE_COUNTS.get(
        slot * CacheReuse.WIDTH + CacheReuse.slot(CostLayout.KIND_DATA, CacheReuse.INSERTED));
  }

  /**
   * The map keeps at most {@link ProbeBridge#CACHE_FILES} names, the ones used last: a name that
   * blocks keep using stays; a block of a file whose name fell out counts under (unknown), never
   * under another table.
   */
  @Test
  public void theFileMapKeepsTheNamesUsedLastAndNoMore() {
    String table = "CAP_" + System.nanoTime();
    Path dir = new Path("hdfs://nn/hbase/data/default/" + table + "/" + REGION + "/f");
    ProbeBridge.hfileOpened("first", new Path(dir, "first"));
    ProbeBridge.hfileOpened("used", new Path(dir, "used"));
    ProbeBridge.cacheInserted(new BlockCacheKey("first", 0), dataBlock());
    assertEquals(1, inserted(table));

    int lookups = 0;
    for (int i = 0; i < 2 * ProbeBridge.CACHE_FILES; i++) {
      ProbeBridge.hfileOpened("file" + i, new Path(dir, "file" + i));
      if (i % 1_000 == 0) {
        ProbeBridge.cacheInserted(new BlockCacheKey("used", i), dataBlock());
        lookups++;
      }
      assertTrue("names kept", ProbeBridge.cacheFiles() <= ProbeBridge.CACHE_FILES);
    }
    assertEquals("a name in use stays", 1 + lookups, inserted(table));
    long unknown = insertedAt(0);
    ProbeBridge.cacheInserted(new BlockCacheKey("first", 0), dataBlock());
    assertEquals("a name unused since two turns is gone", 1 + lookups, inserted(table));
    assertEquals("its block counts as (unknown)", unknown + 1, insertedAt(0));
    ProbeBridge.cacheInserted(
        new BlockCacheKey("file" + (2 * ProbeBridge.CACHE_FILES - 1), 0), dataBlock());
    assertEquals("the last name opened is kept", 2 + lookups, inserted(table));
  }
}
