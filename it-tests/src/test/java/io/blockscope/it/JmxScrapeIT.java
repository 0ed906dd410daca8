package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.accounting.ExportLimit;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.CacheReuse;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.RawTable;
import java.util.List;
import java.util.Set;
import javax.management.AttributeNotFoundException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Waiter;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Reads blockscope's figures the way a scraper (the Prometheus JMX exporter, jconsole) does: over a
 * JMX connector on localhost, by ObjectName.
 */
public class JmxScrapeIT extends ClusterTestBase {
  /** A namespaced table: the colon must be quoted in every ObjectName. */
  private static final TableName ODD = TableName.valueOf("bs_ns", "odd.name-1");

  private static LocalJmxConnector connector;
  private static JMXConnector client;
  private static MBeanServerConnection jmx;

  @BeforeClass
  @SuppressWarnings("BanJNDI") // a JMX client of this JVM's own connector, as a scraper connects
  public static void connect() throws Exception {
    connector = new LocalJmxConnector();
    client = JMXConnectorFactory.connect(connector.url);
    jmx = client.getMBeanServerConnection();

    cluster.admin().createNamespace(NamespaceDescriptor.create("bs_ns").build());
    RawTable.create(cluster.admin(), new RawTable.Spec(ODD).blockSize(4096));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), ODD, 5_000, 3);
    StoreFiles.evict(cluster.blockCache(), cluster.regions(ODD));
    RawTable.scanCells(cluster.connection(), ODD, new Scan());
    assertEquals(
        "the cold scan missed each data block of the store files once",
        SeedTables.dataBlocksAndCells(cluster.regions(ODD))[0],
        tableCosts(ODD).get("blockCache.miss.data"));
    cluster.diagnostics().refreshExport();
  }

  @AfterClass
  public static void disconnect() throws Exception {
    client.close();
    connector.close();
    cluster.diagnostics().registry().export(ExportLimit.ALL);
    // gone again, so that a second run in this JVM (the miscount drill's long form) starts afresh
    cluster.admin().disableTable(ODD);
    cluster.admin().deleteTable(ODD);
    cluster.admin().deleteNamespace(ODD.getNamespaceAsString());
  }

  private static long count(String objectName) throws Exception {
    ObjectName name = new ObjectName(objectName);
    // a bean that is not there is a failed expectation (of its name, or of the costs it shows)
    assertTrue("a bean " + objectName, jmx.isRegistered(name));
    return (Long) jmx.getAttribute(name, "Count");
  }

  @Test
  public void tableRegionServerAndProbeBeansHaveTheirDocumentedNames() throws Exception {
    CostSnapshot table = tableCosts(ODD);
    HRegion region = onlyRegion(ODD);
    String enc = region.getRegionInfo().getEncodedName();

    assertEquals(
        table.get("blockCache.miss.data"),
        count("blockscope:type=Table,table=\"bs_ns:odd.name-1\",name=blockCache.miss.data"));
    assertEquals(
        regionCosts(region).get("fs.read.bytes.data"),
        count(
            "blockscope:type=Region,table=\"bs_ns:odd.name-1\",region="
                + enc
                + ",name=fs.read.bytes.data"));
    assertEquals(
        serverCosts().get("checksum.bytes"), count("blockscope:type=Server,name=checksum.bytes"));
    assertEquals(
        1,
        jmx.getAttribute(
            new ObjectName("blockscope:type=Probe,probe=decode,name=installed"), "Value"));
    assertEquals(
        cluster.diagnostics().probeFailures(ProbeBridge.CHECKSUM),
        count("blockscope:type=Probe,probe=checksum,name=failures"));

    Set<ObjectName> tableBeans =
        jmx.queryNames(new ObjectName("blockscope:type=Table,table=\"bs_ns:odd.name-1\",*"), null);
    long cacheReuse =
        tableBeans.stream().filter(n -> CacheReuse.slotOf(n.getKeyProperty("name")) >= 0).count();
    assertEquals(
        "a bean for each cost of the table that is not 0",
        tableCosts(ODD).nonZero().size(),
        tableBeans.size() - cacheReuse);
    assertTrue(
        "and for the blocks its cold scan put into the cache",
        count("blockscope:type=Table,table=\"bs_ns:odd.name-1\",name=blockCache.inserted.data")
            >= table.get("blockCache.miss.data"));
    for (ObjectName n : tableBeans) {
      assertEquals("bs_ns:odd.name-1", ObjectName.unquote(n.getKeyProperty("table")));
      assertEquals(3, n.getKeyPropertyList().size()); // type, table, name: nothing injected
    }
  }

  /** Slots whose server totals the coprocessor registry must show as the engine holds them. */
  private static final List<String> SERVER_TOTALS =
      List.of(
          "blockCache.miss.data",
          "blockCache.hit.data",
          "fs.read.blocks.data",
          "fs.read.bytes.data",
          "checksum.bytes",
          "decode.FAST_DIFF.cells");

  /**
   * Whether the coprocessor registry in the region server's JMX shows, for every slot of {@link
   * #SERVER_TOTALS}, exactly the server's costs now (with metrics2's first letter capitalized).
   */
  private static boolean serverTotalsShown(ObjectName cp) throws Exception {
    CostSnapshot server = serverCosts();
    for (String slot : SERVER_TOTALS) {
      String attribute = Character.toUpperCase(slot.charAt(0)) + slot.substring(1);
      try {
        if (((Number) jmx.getAttribute(cp, attribute)).longValue() != server.get(slot)) {
          return false;
        }
      } catch (AttributeNotFoundException notYet) {
        return false; // the bean is there before metrics2's first copy of the registry (a fresh
        // JVM)
      } catch (InstanceNotFoundException replaced) {
        return false; // the bean went between isRegistered and this read, and HBase's metrics2
        // adapter registers it again (seen once in CI, in this test, which runs after
        // PerTableDeployIT)
      }
    }
    return server.get("blockCache.miss.data") > 0;
  }

  /**
   * The fsRead probe's installed and failures attributes into {@code out}; false if the bean went.
   */
  private static boolean probeRead(ObjectName cp, long[] out) throws Exception {
    try {
      out[0] = ((Number) jmx.getAttribute(cp, "Probe.fsRead.installed")).longValue();
      out[1] = ((Number) jmx.getAttribute(cp, "Probe.fsRead.failures")).longValue();
      return true;
    } catch (InstanceNotFoundException replaced) {
      return false;
    }
  }

  @Test
  public void hbaseCoprocessorRegistryShowsTheServerTotalsInTheRegionServersJmx() throws Exception {
    ObjectName cp =
        new ObjectName(
            "Hadoop:service=HBase,name=RegionServer,"
                + "sub=Coprocessor.Region.CP_io.blockscope.coprocessor.BlockscopeRegionObserver");
    // HBase copies coprocessor registries into Hadoop metrics2 on a 10 s period; metrics2
    // capitalizes the first letter of each name.
    long[] probe = new long[2];
    cluster
        .util()
        .waitFor(
            60_000,
            (Waiter.Predicate<Exception>)
                () -> jmx.isRegistered(cp) && serverTotalsShown(cp) && probeRead(cp, probe));
    assertEquals(1, probe[0]);
    assertEquals(cluster.diagnostics().probeFailures(ProbeBridge.FS_READ), probe[1]);
  }

  @Test
  public void regionSeriesFollowTheExportPolicy() throws Exception {
    ObjectName anyRegion = new ObjectName("blockscope:type=Region,*");
    ObjectName oddRegion = new ObjectName("blockscope:type=Region,table=\"bs_ns:odd.name-1\",*");
    try {
      cluster.diagnostics().registry().export(ExportLimit.NONE);
      cluster.diagnostics().refreshExport();
      assertTrue(jmx.queryNames(anyRegion, null).isEmpty());
      assertEquals(
          0,
          jmx.getAttribute(
              new ObjectName("blockscope:type=Server,name=regions.exported"), "Value"));
      assertTrue(
          "table series stay",
          !jmx.queryNames(
                  new ObjectName("blockscope:type=Table,table=\"bs_ns:odd.name-1\",*"), null)
              .isEmpty());

      // The region read most since the last refresh is the one exported by top:1.
      cluster.diagnostics().registry().export(ExportLimit.top(1));
      StoreFiles.evict(cluster.blockCache(), cluster.regions(ODD));
      RawTable.scanCells(cluster.connection(), ODD, new Scan());
      cluster.diagnostics().refreshExport();
      Set<ObjectName> exported = jmx.queryNames(anyRegion, null);
      assertEquals(exported, jmx.queryNames(oddRegion, null));
      assertEquals(
          1,
          jmx.getAttribute(
              new ObjectName("blockscope:type=Server,name=regions.exported"), "Value"));
    } finally {
      cluster.diagnostics().registry().export(ExportLimit.ALL);
      cluster.diagnostics().refreshExport();
    }
  }
}
