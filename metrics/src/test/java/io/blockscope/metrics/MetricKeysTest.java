package io.blockscope.metrics;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import javax.management.ObjectName;
import org.junit.Test;

public class MetricKeysTest {
  @Test
  public void plainNamesStayUnquoted() throws Exception {
    ObjectName n =
        MetricKeys.objectName(MetricKeys.region("usertable", "5f2c1a", "fs.read.bytes.data"));
    assertEquals(
        "blockscope:type=Region,table=usertable,region=5f2c1a,name=fs.read.bytes.data",
        n.toString());
  }

  @Test
  public void namespacedTablesAreQuotedAndRoundTrip() throws Exception {
    ObjectName n = MetricKeys.objectName(MetricKeys.table("ns:odd.name-1", "blockCache.hit.data"));
    assertEquals("\"ns:odd.name-1\"", n.getKeyProperty("table"));
    assertEquals("ns:odd.name-1", ObjectName.unquote(n.getKeyProperty("table")));
  }

  @Test
  public void hostileValuesCannotAddKeysOrBreakTheName() throws Exception {
    String hostile = "t,type=Server,name=x*?\"\\\n";
    ObjectName n = MetricKeys.objectName(MetricKeys.region(hostile, "r|1", "m=1"));
    assertEquals(4, n.getKeyPropertyList().size());
    assertEquals("Region", n.getKeyProperty("type"));
    assertEquals(hostile, ObjectName.unquote(n.getKeyProperty("table")));
    assertEquals("r_1", n.getKeyProperty("region")); // the key separator is replaced, not trusted
    assertEquals("m=1", ObjectName.unquote(n.getKeyProperty("name")));
    assertEquals(false, n.isPattern());
  }

  @Test
  public void thePatternsMatchTheirScopeOnlyAndPropertiesReadBackTheNames() throws Exception {
    ObjectName table = MetricKeys.objectName(MetricKeys.table("ns:t", "blockCache.hit.data"));
    ObjectName region = MetricKeys.objectName(MetricKeys.region("ns:t", "ab12", "decode.seeks"));
    ObjectName probe = MetricKeys.objectName(MetricKeys.probe("decode", "installed"));
    ObjectName server = MetricKeys.serverBean("export.refreshes");
    assertEquals("blockscope:type=Server,name=export.refreshes", server.toString());
    for (ObjectName n : new ObjectName[] {table, region, probe, server}) {
      assertTrue(n + "", MetricKeys.allBeans().apply(n));
    }
    assertTrue(MetricKeys.tableBeans().apply(table));
    assertFalse(MetricKeys.tableBeans().apply(region));
    assertTrue(MetricKeys.regionBeans().apply(region));
    assertFalse(MetricKeys.regionBeans().apply(table));
    assertTrue(MetricKeys.probeBeans().apply(probe));
    assertFalse(MetricKeys.probeBeans().apply(server));
    assertEquals("ns:t", MetricKeys.property(region, "table"));
    assertEquals("ab12", MetricKeys.property(region, "region"));
    assertEquals("decode.seeks", MetricKeys.property(region, "name"));
    assertNull(MetricKeys.property(table, "region"));
  }
}
