package io.blockscope.harness;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.ServerMetric;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.Test;

public class BeanReaderTest {
  /** A /jmx servlet's answer as HBase's JSON writer gives it, for the beans a query matches. */
  private static BeanReader servlet(List<String> asked, String... beans) {
    return BeanReader.of(
        pathAndQuery -> {
          String q =
              URLDecoder.decode(
                  pathAndQuery.substring(pathAndQuery.indexOf("qry=") + 4), StandardCharsets.UTF_8);
          asked.add(q);
          ObjectName pattern;
          try {
            pattern = new ObjectName(q);
          } catch (javax.management.MalformedObjectNameException e) {
            throw new IOException(e);
          }
          StringBuilder sb = new StringBuilder("{\"beans\":[");
          String sep = "";
          for (String b : beans) {
            String name = b.substring(0, b.indexOf('|'));
            try {
              if (!pattern.apply(new ObjectName(name))) {
                continue;
              }
            } catch (javax.management.MalformedObjectNameException e) {
              throw new IOException(e);
            }
            sb.append(sep)
                .append("{\"name\":")
                .append(
                    org.apache.hbase.thirdparty.com.google.gson.JsonParser.parseString(
                        "\"" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "\""))
                .append(",\"modelerType\":\"x\",")
                .append(b.substring(b.indexOf('|') + 1))
                .append('}');
            sep = ",";
          }
          return sb.append("]}").toString();
        },
        "rs1:16030");
  }

  private static String bean(String key, String attributes) throws Exception {
    return MetricKeys.objectName(key) + "|" + attributes;
  }

  @Test
  public void aTablesCostsAreItsOwnSeriesSummedNamespacedOrNot() throws Exception {
    List<String> asked = new ArrayList<>();
    BeanReader r =
        servlet(
            asked,
            bean(MetricKeys.table("ns:t", "blockCache.hit.data"), "\"Count\":7"),
            bean(MetricKeys.table("ns:t", "fs.read.blocks.data"), "\"Count\":3"),
            bean(MetricKeys.table("t", "blockCache.hit.data"), "\"Count\":100"),
            bean(MetricKeys.region("ns:t", "ab", "blockCache.hit.data"), "\"Count\":7"),
            bean(MetricKeys.table("ns:t", "not.a.cost"), "\"Count\":5"),
            bean(MetricKeys.server("export.refreshes"), "\"Count\":12"),
            bean(MetricKeys.server("settings.table.max.level"), "\"Value\":1"),
            bean(MetricKeys.probe("decode", "installed"), "\"Value\":1"),
            bean(MetricKeys.probe("memstore", "installed"), "\"Value\":0"));
    assertEquals(7, r.table("ns:t").get("blockCache.hit.data"));
    assertEquals(3, r.table("ns:t").get("fs.read.blocks.data"));
    assertEquals(100, r.table("t").get("blockCache.hit.data"));
    assertEquals(7, r.region("ns:t", "ab").get("blockCache.hit.data"));
    assertEquals(0, r.region("ns:t", "cd").get("blockCache.hit.data"));
    assertEquals(12, r.exportRefreshes());
    assertEquals(1, r.serverValue(ServerMetric.SETTINGS_TABLE_MAX_LEVEL).getAsLong());
    assertTrue(r.serverValue(ServerMetric.REGIONS_OPEN).isEmpty());
    assertTrue(r.probeInstalled("decode"));
    assertFalse(r.probeInstalled("memstore"));
    assertFalse(r.probeInstalled("nope"));
    assertTrue(r.deployed());
    assertEquals(9, r.all().size());
    // the table's beans are matched here, never by a quoted table name in the query
    assertTrue(asked.toString(), asked.stream().noneMatch(q -> q.contains("ns:t")));
  }

  @Test
  public void aServerWithoutBlockscopeSaysSoAndABadAnswerIsAnError() {
    BeanReader none = servlet(new ArrayList<>());
    IOException e = assertThrows(IOException.class, none::exportRefreshes);
    assertTrue(e.getMessage(), e.getMessage().contains("rs1:16030 has no blockscope:type=Server"));
    try {
      assertFalse(none.deployed());
      assertEquals(0, none.table("t").nonZero().size());
    } catch (IOException unexpected) {
      throw new AssertionError(unexpected);
    }
    BeanReader html = BeanReader.of(pathAndQuery -> "<html>login</html>", "rs2:16030");
    IOException bad = assertThrows(IOException.class, () -> html.table("t"));
    assertTrue(
        bad.getMessage(), bad.getMessage().contains("rs2:16030/jmx answered without a bean list"));
  }

  /** A counter as Dropwizard's JMX reporter registers one. */
  public interface CounterMBean {
    long getCount();
  }

  public static final class Counter implements CounterMBean {
    private final long count;

    Counter(long count) {
      this.count = count;
    }

    @Override
    public long getCount() {
      return count;
    }
  }

  @Test
  public void overJmxTheSameNamesReadTheSame() throws Exception {
    MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
    ObjectName a = MetricKeys.objectName(MetricKeys.table("ns:jmx", "decode.FAST_DIFF.cells"));
    ObjectName b =
        MetricKeys.objectName(MetricKeys.region("ns:jmx", "r1", "decode.FAST_DIFF.cells"));
    mbs.registerMBean(new Counter(40), a);
    mbs.registerMBean(new Counter(40), b);
    try {
      BeanReader r = BeanReader.of(mbs, "this JVM");
      assertEquals(40, r.table("ns:jmx").get("decode.FAST_DIFF.cells"));
      assertEquals(40, r.region("ns:jmx", "r1").get("decode.FAST_DIFF.cells"));
      assertEquals(Long.valueOf(40), r.all().get(a.getCanonicalName()));
    } finally {
      mbs.unregisterMBean(a);
      mbs.unregisterMBean(b);
    }
  }

  /**
   * What the servlet's reader takes from a bean and what it skips unread: values of every kind
   * around the number (strings, nested objects and arrays, HBase's NaN), a Count that is not a
   * number (the bean is skipped, not read by its Value), a fraction (its whole part), a bean
   * without a name, a bean the query does not match (as a server that ignores the query sends it),
   * and a key beside the bean list; a truncated answer is an error.
   */
  @Test
  public void theServletsAnswerIsReadForEachBeansNumberAndTheRestSkipped() throws Exception {
    String a = MetricKeys.objectName(MetricKeys.server("export.refreshes")).toString();
    String b = MetricKeys.objectName(MetricKeys.probe("decode", "installed")).toString();
    String c = MetricKeys.objectName(MetricKeys.table("t", "blockCache.hit.data")).toString();
    String body =
        "{\"beans\":[{\"name\":\""
            + a
            + "\",\"tags\":[1,{\"x\":[2,\"Count\"]}],\"mean\":NaN,\"Count\":12},"
            + "{\"name\":\""
            + b
            + "\",\"Value\":2.75},"
            + "{\"name\":\""
            + c
            + "\",\"Count\":\"7\",\"Value\":7},"
            + "{\"modelerType\":\"x\",\"Count\":3},"
            + "{\"name\":\"java.nio:type=BufferPool,name=direct\",\"Count\":4,\"x\":[5]}],"
            + "\"after\":{\"beans\":[]}}";
    BeanReader r = BeanReader.of(pathAndQuery -> body, "rs1:16030");
    String ca = new ObjectName(a).getCanonicalName();
    String cb = new ObjectName(b).getCanonicalName();
    assertEquals(List.of(ca, cb), r.all().keySet().stream().toList());
    assertEquals(Long.valueOf(12), r.all().get(ca));
    assertEquals(Long.valueOf(2), r.all().get(cb));
    BeanReader cut =
        BeanReader.of(pathAndQuery -> body.substring(0, body.length() / 2), "rs1:16030");
    IOException e = assertThrows(IOException.class, cut::all);
    assertTrue(
        e.getMessage(), e.getMessage().startsWith("rs1:16030/jmx answered without a bean list"));
  }
}
