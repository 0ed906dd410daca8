package io.blockscope.coprocessor.accounting;

import static org.junit.Assert.assertEquals;

import javax.management.ObjectName;
import org.junit.Test;

public class ObjectNamesTest {
  @Test
  public void foreignNamesGetASafeName() throws Exception {
    ObjectName n = ObjectNames.FACTORY.createName("counters", "blockscope", "not,a=key");
    assertEquals("Other", n.getKeyProperty("type"));
    assertEquals("not,a=key", ObjectName.unquote(n.getKeyProperty("name")));
  }

  @Test
  public void blockscopesOwnKeysGetTheirMetricKeysName() throws Exception {
    String key = io.blockscope.metrics.MetricKeys.table("ns:t", "blockCache.hit.data");
    assertEquals(
        io.blockscope.metrics.MetricKeys.objectName(key),
        ObjectNames.FACTORY.createName("counters", "blockscope", key));
  }
}
