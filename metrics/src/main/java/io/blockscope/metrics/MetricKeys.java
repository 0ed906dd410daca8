package io.blockscope.metrics;

import java.util.regex.Pattern;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Every metric blockscope registers is named here, and turned into a JMX ObjectName here.
 *
 * <p>Inside the region server's registry a metric is keyed {@code scope|table|region|metric};
 * {@link #objectName} turns that into
 *
 * <pre>
 * blockscope:type=Server,name=&lt;metric&gt;
 * blockscope:type=Table,table=&lt;table&gt;,name=&lt;metric&gt;
 * blockscope:type=Region,table=&lt;table&gt;,region=&lt;encoded region&gt;,name=&lt;metric&gt;
 * blockscope:type=User,user=&lt;user&gt;,name=&lt;metric&gt;
 * blockscope:type=Probe,probe=&lt;probe&gt;,name=&lt;installed|failures&gt;
 * </pre>
 *
 * A value holding any character that ObjectName syntax gives a meaning to ({@code , = : " * ?}, a
 * newline or a backslash) is written as a quoted value, so no table name can break a name or add a
 * key property to it. HBase table names with a namespace ({@code ns:table}) are quoted for their
 * colon.
 */
public final class MetricKeys {
  private MetricKeys() {}

  /**
   * The table name of the roll-up of every table without series of its own ({@code
   * blockscope.export.tables}) and of the tables no longer on the server. Never an HBase table's
   * name: those allow only {@code [a-zA-Z_0-9-.]} and the namespace's {@code :}. It needs no
   * quoting in an ObjectName: {@code blockscope:type=Table,table=(other),name=...}.
   */
  public static final String OTHER_TABLE = "(other)";

  /**
   * The user name of the roll-up of every user without an account of their own ({@code
   * blockscope.users.max}); a client that calls itself so (simple authentication) is counted in it,
   * never given an account of that name. It needs no quoting: {@code
   * blockscope:type=User,user=(other),name=...}.
   */
  public static final String OTHER_USER = "(other)";

  /** The JMX domain of every blockscope bean. */
  public static final String DOMAIN = "blockscope";

  static final String SERVER = "Server";
  static final String TABLE = "Table";
  static final String REGION = "Region";
  static final String PROBE = "Probe";
  static final String USER = "User";

  private static final char SEP = '|';
  private static final Pattern NEEDS_QUOTE = Pattern.compile("[,=:\"*?\\\\\\n]|^$");

  public static String server(String metric) {
    return key(SERVER, "", "", metric);
  }

  public static String table(String table, String metric) {
    return key(TABLE, table, "", metric);
  }

  public static String region(String table, String region, String metric) {
    return key(REGION, table, region, metric);
  }

  public static String user(String user, String metric) {
    return key(USER, user, "", metric);
  }

  public static String probe(String probe, String metric) {
    return key(PROBE, probe, "", metric);
  }

  private static String key(String scope, String a, String b, String metric) {
    return scope + SEP + clean(a) + SEP + clean(b) + SEP + clean(metric);
  }

  /** The separator cannot occur in HBase names; should it ever, it is replaced, not trusted. */
  private static String clean(String s) {
    return s.indexOf(SEP) < 0 ? s : s.replace(SEP, '_');
  }

  /** Quotes an ObjectName value when it holds a character with a meaning in the syntax. */
  public static String value(String v) {
    return NEEDS_QUOTE.matcher(v).find() ? ObjectName.quote(v) : v;
  }

  /** The ObjectName of a key made by this class. */
  public static ObjectName objectName(String key) throws MalformedObjectNameException {
    String[] p = key.split("\\|", -1);
    if (p.length != 4) {
      throw new MalformedObjectNameException("not a blockscope metric key: " + key);
    }
    StringBuilder sb = new StringBuilder(DOMAIN).append(":type=").append(p[0]);
    switch (p[0]) {
      case TABLE:
        sb.append(",table=").append(value(p[1]));
        break;
      case REGION:
        sb.append(",table=").append(value(p[1])).append(",region=").append(value(p[2]));
        break;
      case PROBE:
        sb.append(",probe=").append(value(p[1]));
        break;
      case USER:
        sb.append(",user=").append(value(p[1]));
        break;
      default:
        break;
    }
    sb.append(",name=").append(value(p[3]));
    return new ObjectName(sb.toString());
  }

  /** Every blockscope bean. */
  public static ObjectName allBeans() {
    return pattern(DOMAIN + ":*");
  }

  /** Every table-scope bean, of every table. */
  public static ObjectName tableBeans() {
    return pattern(DOMAIN + ":type=" + TABLE + ",*");
  }

  /** Every region-scope bean, of every region. */
  public static ObjectName regionBeans() {
    return pattern(DOMAIN + ":type=" + REGION + ",*");
  }

  /** Every user-scope bean, of every user account and (other). */
  public static ObjectName userBeans() {
    return pattern(DOMAIN + ":type=" + USER + ",*");
  }

  /** Every probe bean (installed, failures) of every probe. */
  public static ObjectName probeBeans() {
    return pattern(DOMAIN + ":type=" + PROBE + ",*");
  }

  /** The ObjectName of a server-scope metric, e.g. {@code export.refreshes}. */
  public static ObjectName serverBean(String metric) {
    try {
      return objectName(server(metric));
    } catch (MalformedObjectNameException e) {
      throw new IllegalArgumentException("not a metric name: " + metric, e);
    }
  }

  /**
   * A key property of a blockscope ObjectName as the name it stands for ({@code table}, {@code
   * region}, {@code probe}, {@code name}), unquoted where {@link #value} quoted it; null if absent.
   */
  public static String property(ObjectName name, String key) {
    String v = name.getKeyProperty(key);
    return v != null && v.startsWith("\"") ? ObjectName.unquote(v) : v;
  }

  private static ObjectName pattern(String text) {
    try {
      return new ObjectName(text);
    } catch (MalformedObjectNameException e) {
      throw new IllegalStateException(e);
    }
  }
}
