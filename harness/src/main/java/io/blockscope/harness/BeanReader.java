package io.blockscope.harness;

import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.ServerMetric;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import javax.management.AttributeNotFoundException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.apache.hbase.thirdparty.com.google.gson.stream.JsonReader;
import org.apache.hbase.thirdparty.com.google.gson.stream.JsonToken;

/**
 * blockscope's beans in one JVM, read as an operator's tools read them: through a JMX connection
 * (this JVM's platform MBean server for the embedded cluster) or through a region server's {@code
 * /jmx} servlet, whose HTTP GET the caller supplies (plain, TLS or SPNEGO, as the cluster serves
 * it). Every name and pattern comes from {@link MetricKeys}. {@code top}, {@code evaluate}, the
 * demo, the stock suites and the benchmarks read blockscope's beans through this class only.
 */
public abstract class BeanReader {
  /** A bean with a numeric reading: a counter's {@code Count} or a gauge's {@code Value}. */
  public record Reading(ObjectName name, long value) {}

  /** An HTTP GET of a path and query on one info server, returning the body. */
  @FunctionalInterface
  public interface Get {
    String get(String pathAndQuery) throws IOException;
  }

  /** The beans matching {@code pattern} that hold a number (none: an empty list). */
  public abstract List<Reading> read(ObjectName pattern) throws IOException;

  private final String where;

  private BeanReader(String where) {
    this.where = where;
  }

  /** Where the beans are read from, for messages. */
  public final String where() {
    return where;
  }

  /** Beans through a JMX connection. */
  public static BeanReader of(MBeanServerConnection jmx, String where) {
    return new Jmx(jmx, where);
  }

  /** Beans through an info server's {@code /jmx} servlet, {@code get} reaching that server. */
  public static BeanReader of(Get get, String where) {
    return new Servlet(get, where);
  }

  /**
   * The server's {@code export.refreshes}: how many times its export has registered new series.
   *
   * @throws IOException when the server has no such bean (blockscope not deployed, or its export
   *     off)
   */
  public long exportRefreshes() throws IOException {
    OptionalLong v = serverValue(ServerMetric.EXPORT_REFRESHES);
    if (v.isEmpty()) {
      throw new IOException(
          where()
              + " has no "
              + ServerMetric.EXPORT_REFRESHES.bean()
              + ": the blockscope coprocessor is not deployed there, or its JMX is off");
    }
    return v.getAsLong();
  }

  /**
   * Waits until the export has refreshed three times more: the refresh in progress may have missed
   * the last reads, the second registers their series, which read 0 until the third.
   *
   * @throws IOException when that takes longer than {@code timeoutMs}
   */
  public void awaitExport(long timeoutMs) throws IOException, InterruptedException {
    long seen = exportRefreshes();
    long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
    while (exportRefreshes() < seen + 3) {
      if (System.nanoTime() > deadline) {
        throw new IOException(
            where()
                + ": blockscope's export did not refresh three times within "
                + timeoutMs
                + " ms (blockscope.export.interval.ms too long?)");
      }
      Thread.sleep(Math.max(1, Math.min(200, timeoutMs / 100)));
    }
  }

  /** A server-scope series' reading, e.g. {@code settings.table.max.level}; empty if absent. */
  public OptionalLong serverValue(ServerMetric metric) throws IOException {
    List<Reading> r = read(metric.bean());
    return r.isEmpty() ? OptionalLong.empty() : OptionalLong.of(r.get(0).value());
  }

  /**
   * A table's costs over its regions, open and closed, as its series show them (zeros where none is
   * exported). All table beans are read and matched here: HBase's servlet answered a pattern with a
   * quoted (namespaced) table name without a bean list.
   */
  public CostSnapshot table(String table) throws IOException {
    return costsOf(MetricKeys.tableBeans(), "table", table);
  }

  /** The costs of the beans of {@code pattern} whose {@code key} property names {@code value}. */
  private CostSnapshot costsOf(ObjectName pattern, String key, String value) throws IOException {
    List<Reading> mine = new ArrayList<>();
    for (Reading r : read(pattern)) {
      if (value.equals(MetricKeys.property(r.name(), key))) {
        mine.add(r);
      }
    }
    return costs(mine);
  }

  /**
   * A user's account on this server, as its series show it (zeros where none is exported; a user
   * without an account reads all zeros).
   */
  public CostSnapshot user(String user) throws IOException {
    return costsOf(MetricKeys.userBeans(), "user", user);
  }

  /** The users with an account's series on this server, and {@code (other)} once it has any. */
  public java.util.Set<String> users() throws IOException {
    java.util.Set<String> names = new java.util.TreeSet<>();
    for (Reading r : read(MetricKeys.userBeans())) {
      names.add(MetricKeys.property(r.name(), "user"));
    }
    return names;
  }

  /** A region's costs since it opened, as its series show them (zeros where none is exported). */
  public CostSnapshot region(String table, String encodedRegion) throws IOException {
    List<Reading> mine = new ArrayList<>();
    for (Reading r : read(MetricKeys.regionBeans())) {
      if (table.equals(MetricKeys.property(r.name(), "table"))
          && encodedRegion.equals(MetricKeys.property(r.name(), "region"))) {
        mine.add(r);
      }
    }
    return costs(mine);
  }

  /** Whether a probe is woven into HBase here (its {@code installed} gauge reads 1). */
  public boolean probeInstalled(String probe) throws IOException {
    for (Reading r : read(MetricKeys.probeBeans())) {
      if (probe.equals(MetricKeys.property(r.name(), "probe"))
          && "installed".equals(MetricKeys.property(r.name(), "name"))) {
        return r.value() == 1;
      }
    }
    return false;
  }

  /** Whether blockscope runs here at all: it registers its probe beans when its engine starts. */
  public boolean deployed() throws IOException {
    return !read(MetricKeys.probeBeans()).isEmpty();
  }

  /** Every blockscope bean's reading, by canonical ObjectName. */
  public Map<String, Long> all() throws IOException {
    Map<String, Long> values = new LinkedHashMap<>();
    for (Reading r : read(MetricKeys.allBeans())) {
      values.put(r.name().getCanonicalName(), r.value());
    }
    return values;
  }

  /** Cost series as a snapshot, summed by cost name; series that are not costs are ignored. */
  public static CostSnapshot costs(List<Reading> readings) {
    long[] slots = new long[CostLayout.SIZE];
    for (Reading r : readings) {
      int slot = CostLayout.slotOf(MetricKeys.property(r.name(), "name"));
      if (slot >= CostLayout.FIRST_COST) {
        slots[slot] += r.value();
      }
    }
    return CostSnapshot.ofSlots(slots);
  }

  private static final class Jmx extends BeanReader {
    private final MBeanServerConnection jmx;

    Jmx(MBeanServerConnection jmx, String where) {
      super(where);
      this.jmx = jmx;
    }

    @Override
    public List<Reading> read(ObjectName pattern) throws IOException {
      List<Reading> readings = new ArrayList<>();
      for (ObjectName n : jmx.queryNames(pattern, null)) {
        Object v = attribute(n);
        if (v instanceof Number num) {
          readings.add(new Reading(n, num.longValue()));
        }
      }
      return readings;
    }

    private Object attribute(ObjectName n) throws IOException {
      try {
        try {
          return jmx.getAttribute(n, "Count");
        } catch (AttributeNotFoundException gauge) {
          return jmx.getAttribute(n, "Value");
        }
      } catch (InstanceNotFoundException closed) {
        return null; // unregistered since the query: a region that just closed
      } catch (JMException e) {
        return null; // neither a counter nor a gauge
      }
    }
  }

  private static final class Servlet extends BeanReader {
    private final Get get;

    Servlet(Get get, String where) {
      super(where);
      this.get = get;
    }

    @Override
    public List<Reading> read(ObjectName pattern) throws IOException {
      String body =
          get.get("/jmx?qry=" + URLEncoder.encode(pattern.toString(), StandardCharsets.UTF_8));
      try {
        return beans(body, pattern);
      } catch (IOException | IllegalStateException | NumberFormatException notJson) {
        throw new IOException(where() + "/jmx answered without a bean list: " + head(body));
      }
    }

    /*
     * The servlet's answer is read as a stream, not as a tree: a region server's whole /jmx holds
     * HBase's per-region metrics in one bean of tens of thousands of attributes (30,170 for 1,000
     * regions), and building that bean's JSON object (gson's JsonParser, a LinkedTreeMap keyed by
     * attribute name) costs many times what skipping it does. Only a bean's "name", "Count" and
     * "Value" are read, every other value is skipped unread, and a bean whose name the pattern
     * does not match is skipped from its name on (HBase's JSONBean writes the name first): the
     * servlet answers only the beans the query matches, and a server that ignores the query is
     * read as if it had not. Lenient, as JsonParser reads, since JSONBean writes NaN and Infinity
     * for such doubles.
     */

    /**
     * Each bean's counter ({@code Count}) or gauge ({@code Value}), when it is a number and the
     * bean's name matches {@code pattern}.
     */
    private static List<Reading> beans(String body, ObjectName pattern) throws IOException {
      List<Reading> readings = new ArrayList<>();
      boolean sawBeans = false;
      try (JsonReader in = new JsonReader(new StringReader(body))) {
        in.setLenient(true);
        in.beginObject();
        while (in.hasNext()) {
          if (!in.nextName().equals("beans")) {
            in.skipValue();
            continue;
          }
          sawBeans = true;
          in.beginArray();
          while (in.hasNext()) {
            Reading r = bean(in, pattern);
            if (r != null) {
              readings.add(r);
            }
          }
          in.endArray();
        }
        in.endObject();
        if (in.peek() != JsonToken.END_DOCUMENT || !sawBeans) {
          throw new IOException("not one object with a bean list");
        }
      }
      return readings;
    }

    /**
     * One bean's reading: its {@code Count} if it has one, else its {@code Value}, when that is a
     * number (a fraction is taken as its whole part); null for a bean without a number there, or
     * without an ObjectName that {@code pattern} matches.
     */
    private static Reading bean(JsonReader in, ObjectName pattern) throws IOException {
      ObjectName name = null;
      String count = null;
      String value = null;
      boolean hasCount = false;
      in.beginObject();
      while (in.hasNext()) {
        String key = in.nextName();
        if (key.equals("name") && in.peek() == JsonToken.STRING) {
          name = objectName(in.nextString());
          if (name == null || !pattern.apply(name)) {
            while (in.hasNext()) {
              in.skipValue(); // the rest of the bean's names and values, unread
            }
          }
        } else if (key.equals("Count")) {
          hasCount = true;
          count = number(in);
        } else if (key.equals("Value")) {
          value = number(in);
        } else {
          in.skipValue();
        }
      }
      in.endObject();
      String v = hasCount ? count : value;
      return name == null || v == null || !pattern.apply(name)
          ? null
          : new Reading(name, longOf(v));
    }

    /** The servlet names every bean by its ObjectName; null for anything else. */
    private static ObjectName objectName(String name) {
      try {
        return new ObjectName(name);
      } catch (MalformedObjectNameException notABean) {
        return null;
      }
    }

    /** A number's text, or null (the value skipped) for anything else. */
    private static String number(JsonReader in) throws IOException {
      if (in.peek() == JsonToken.NUMBER) {
        return in.nextString();
      }
      in.skipValue();
      return null;
    }

    private static long longOf(String number) {
      try {
        return Long.parseLong(number);
      } catch (NumberFormatException notALong) {
        return new BigDecimal(number).longValue();
      }
    }

    private static String head(String body) {
      return body.length() <= 200 ? body : body.substring(0, 200) + "...";
    }
  }
}
