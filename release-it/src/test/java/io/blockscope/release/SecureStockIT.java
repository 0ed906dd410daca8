package io.blockscope.release;

import static io.blockscope.testsupport.ProfileCalls.askOneRegion;
import static io.blockscope.testsupport.ProfileCalls.scanRows;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.google.protobuf.Message;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.harness.BeanReader;
import io.blockscope.harness.stock.RegionServer;
import io.blockscope.harness.stock.StockCluster;
import io.blockscope.harness.stock.StockCluster.Deployment;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.metrics.ServerMetric;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authentication.client.AuthenticatedURL;
import org.apache.hadoop.security.authentication.client.KerberosAuthenticator;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonStreamParser;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

/**
 * The release on a secured stock HBase 2.6.1, every part a process of its own as an operator runs
 * it (docs/security.md): a KDC, ZooKeeper with SASL, a master and two region servers with Kerberos
 * RPC, the AccessController with EXEC checks on endpoint calls, and TLS and SPNEGO on the info
 * servers; blockscope installed from the release as docs/deploy.md says, for user tables ({@code
 * hbase.coprocessor.user.region.classes}), with its agent. The users: alice (READ and EXEC on the
 * table), carol (the same), bob (no rights on it) and admin (global ADMIN, EXEC and READ, not a
 * superuser); the test's own connection is the service user {@code hbase}, HBase's superuser.
 *
 * <ol>
 *   <li>query profiles belong to their user, on the wire, with HBase's ACLs around them, and so do
 *       statement statistics, read with {@code bin/blockscope statements};
 *   <li>alice's EXPLAIN ANALYZE through the release's driver in sqlline, logged in from her keytab;
 *   <li>a region server restarted with a tenant's table carrying blockscope's server keys in its
 *       METADATA opened first keeps the server's own settings;
 *   <li>{@code bin/blockscope top} and {@code evaluate} from the release with {@code --config} and
 *       a keytab, reading the servers' {@code /jmx} over HTTPS and SPNEGO.
 * </ol>
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class SecureStockIT {
  private static final byte[] F = Bytes.toBytes("f");
  private static final int ROWS = 2_000;
  private static final String ALICE_QUERY = "0123456789abcdef0123456789a11ce0";
  private static final TableName T = TableName.valueOf("secure_t");

  private static Path release;
  private static DeployPage page;
  private static SecureRealm realm;
  private static StockCluster cluster;
  private static Deployment blockscope;

  @BeforeClass
  public static void startCluster() throws Throwable {
    release = Path.of(System.getProperty("blockscope.release"));
    page = new DeployPage(release.resolve("docs"));
    Path work = Path.of(System.getProperty("blockscope.work") + "-secure");
    realm = SecureRealm.start(work.resolve("realm"), List.of("alice", "bob", "carol", "admin"));
    blockscope = userTables();
    cluster =
        StockCluster.start(
            work.resolve("cluster"),
            StockInstalls.hbase(),
            new Deployment(StockInstalls.phoenixServerJars(), Map.of(), List.of()),
            List.of(blockscope, blockscope),
            realm,
            0);
    new StockChecks(cluster).assertVersions(StockInstalls.HBASE_VERSION);
    try (Admin admin = cluster.admin()) {
      admin.balancerSwitch(false, true); // regions stay where the test puts them
    }
    Connection su = cluster.connection();
    grant(
        su,
        null,
        "admin",
        null,
        null,
        Permission.Action.ADMIN,
        Permission.Action.EXEC,
        Permission.Action.READ,
        Permission.Action.WRITE,
        Permission.Action.CREATE);
    load(T, null);
    for (String reader : List.of("alice", "carol")) {
      grant(su, T, reader, null, null, Permission.Action.READ, Permission.Action.EXEC);
    }
  }

  @AfterClass
  public static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    if (realm != null) {
      realm.close();
    }
  }

  /**
   * docs/deploy.md's way 1 for user tables only: the jar in lib/, {@code
   * hbase.coprocessor.user.region.classes}, the agent; exports every second (evaluate waits for
   * two).
   */
  private static Deployment userTables() throws Exception {
    List<Path> lib = new ArrayList<>(StockInstalls.phoenixServerJars());
    Path jar = release.resolve(page.libJar);
    assertTrue(jar + " in the release", Files.isRegularFile(jar));
    lib.add(page.libJarInstalled(release));
    lib.addAll(SecureRealm.drillJars());
    return new Deployment(
        lib,
        Map.of(
            "hbase.coprocessor.user.region.classes",
            page.siteValue,
            "blockscope.export.interval.ms",
            "1000"),
        Stream.concat(
                Stream.of("-javaagent:${lib}/" + page.agentJar),
                SecureRealm.drillOptions().stream())
            .toList());
  }

  @Test
  public void t1_aProfileIsItsUsersOnly() throws Throwable {
    // the operator lets queries ask TIME (the default cap is COUNT), for carol's profile below
    queryCap("TIME");
    try (Connection alice = connect("alice");
        Connection bob = connect("bob");
        Connection carol = connect("carol");
        Connection admin = connect("admin")) {
      assertEquals(ROWS, scanRows(alice, T, ALICE_QUERY, "COUNT"));
      Message hers = profile(alice, T, ALICE_QUERY, null);
      assertTrue(ProfileAnswers.found(hers));
      assertEquals(ROWS, ProfileAnswers.rows(hers));
      long blocks = cluster.dataBlocks(T, "f");
      Map<String, Long> costs = ProfileAnswers.costs(hers);
      assertEquals(
          costs.toString(),
          blocks,
          costs.getOrDefault("blockCache.miss.data", 0L)
              + costs.getOrDefault("blockCache.hit.data", 0L));

      // bob has no rights on T: HBase refuses his scan and his endpoint call (EXEC checks on)
      Throwable scanRefused =
          assertThrows(Throwable.class, () -> scanRows(bob, T, ALICE_QUERY, "TIME"));
      assertTrue(String.valueOf(scanRefused), deniedBy(scanRefused, "Insufficient permissions"));
      Throwable callRefused =
          assertThrows(Throwable.class, () -> profile(bob, T, ALICE_QUERY, "alice"));
      assertTrue(String.valueOf(callRefused), deniedBy(callRefused, "EXEC"));

      // carol reads T too: her scans tagged with alice's id are a query of her own, measured at
      // the TIME she asked, where alice's COUNT record has no time
      assertEquals(ROWS, scanRows(carol, T, ALICE_QUERY, "TIME"));
      Message carols = profile(carol, T, ALICE_QUERY, null);
      assertEquals(ROWS, ProfileAnswers.rows(carols));
      Map<String, Long> hersOwn = ProfileAnswers.costs(carols);
      assertEquals(hersOwn.toString(), 2L, (long) hersOwn.get(ProfileAnswers.LEVEL_APPLIED));
      assertEquals(1L, (long) costs.get(ProfileAnswers.LEVEL_APPLIED));
      assertTrue("carol's decoding timed", hersOwn.getOrDefault(DECODE_NANOS, 0L) > 0);
      assertEquals(
          hersOwn.toString(),
          blocks,
          hersOwn.getOrDefault("blockCache.miss.data", 0L)
              + hersOwn.getOrDefault("blockCache.hit.data", 0L));
      assertEquals(ROWS, (long) hersOwn.get("decode.FAST_DIFF.cells"));
      assertEquals("alice's not", 0L, (long) costs.getOrDefault(DECODE_NANOS, 0L));
      assertEquals(
          "rows of alice's profile carol read by naming her",
          0,
          rowsNamed(
              carol,
              T,
              ALICE_QUERY,
              "alice",
              "only an HBase superuser or a user with global ADMIN"));
      assertEquals(
          "alice's as it was", costs, ProfileAnswers.costs(profile(alice, T, ALICE_QUERY, null)));
      assertEquals(ROWS, ProfileAnswers.rows(profile(alice, T, ALICE_QUERY, null)));

      // the server's accounts by user name the Kerberos users by their short names: alice's and
      // carol's one full scan each decoded every cell of T, bob's refused scan decoded none
      RegionServer host = cluster.hosting(T);
      BeanReader beans = securedBeans(host, "admin");
      beans.awaitExport(60_000);
      CostSnapshot alicesAccount = beans.user("alice");
      // each read T once, whole: the ROWS cells her profile counts (asserted above for carol's)
      assertEquals(
          "alice's account: " + alicesAccount, ROWS, alicesAccount.get("decode.FAST_DIFF.cells"));
      assertEquals(
          "carol's account: " + beans.user("carol"),
          ROWS,
          beans.user("carol").get("decode.FAST_DIFF.cells"));
      assertEquals(
          "bob's account: " + beans.user("bob"),
          0,
          beans.user("bob").get("decode.FAST_DIFF.cells"));
      for (String u : beans.users()) {
        assertFalse("a short name, not a principal: " + u, u.contains("@") || u.contains("/"));
      }
      System.out.println("secure: accounts by user on " + host.infoUrl() + ": " + beans.users());

      // admin holds global ADMIN (not a superuser): reads alice's by naming her
      Message byAdmin = profile(admin, T, ALICE_QUERY, "alice");
      assertEquals(costs, ProfileAnswers.costs(byAdmin));
      System.out.println(
          "secure: alice's profile "
              + costs
              + " (store file: "
              + blocks
              + " data blocks); bob refused by HBase, carol's tag her own, admin read alice's");
      assertFalse(
          "admin ran no query of that id",
          ProfileAnswers.found(profile(admin, T, ALICE_QUERY, null)));
    } finally {
      queryCap("COUNT");
    }
  }

  /**
   * {@code bin/blockscope statements} from the release, logged in from each user's keytab: alice
   * reads her own statement (its scan's data blocks, exactly); carol, who may call the endpoint on
   * T, is refused alice's by blockscope; bob, who may call it nowhere, is answered by no server;
   * admin (global ADMIN) reads everyone's, alice's among them with the same figures.
   */
  @Test
  public void t1b_statementsAreTheirUsersOnly() throws Throwable {
    String fp = "5ec0de0000000a11";
    try (Connection alice = connect("alice")) {
      Scan s = new Scan();
      s.setAttribute("blockscope.statement", fp.getBytes(StandardCharsets.US_ASCII));
      s.setAttribute(
          "blockscope.statement.text", "SELECT * FROM SECURE_T".getBytes(StandardCharsets.UTF_8));
      assertEquals(ROWS, scanRows(alice, T, s));
    }
    long blocks = cluster.dataBlocks(T, "f");

    JsonObject hers = statementRow(statements("alice", "--json"), "alice", fp);
    JsonObject figures = hers.getAsJsonObject("figures");
    assertEquals(hers.toString(), 1, figures.get("scans").getAsLong());
    assertEquals(hers.toString(), ROWS, figures.get("rows").getAsLong());
    assertEquals(
        hers.toString(),
        blocks,
        longOf(figures, "blockCache.hit.data") + longOf(figures, "blockCache.miss.data"));
    assertEquals("SELECT * FROM SECURE_T", hers.get("text").getAsString());

    AssertionError carols =
        assertThrows(AssertionError.class, () -> statements("carol", "--user", "alice"));
    assertTrue(carols.getMessage(), carols.getMessage().contains("exited 2"));
    assertTrue(
        carols.getMessage(),
        carols
            .getMessage()
            .contains(
                "only an HBase superuser or a user with global ADMIN may read another user's"
                    + " statements"));
    AssertionError bobs = assertThrows(AssertionError.class, () -> statements("bob"));
    assertTrue(bobs.getMessage(), bobs.getMessage().contains("no region server answered"));
    assertTrue(bobs.getMessage(), bobs.getMessage().contains("Insufficient permissions"));

    JsonObject everyone = firstView(statements("admin", "--all", "--json", "--limit", "0"));
    assertEquals(everyone.toString(), figures, statementRow(everyone, "alice", fp).get("figures"));
    System.out.println(
        "secure: statements: alice's "
            + fp
            + " "
            + figures
            + " (store file: "
            + blocks
            + " data blocks); carol refused by blockscope, bob by HBase, admin read everyone's");
  }

  /**
   * {@code bin/blockscope advise} from the release, logged in from each user's keytab: bob, with no
   * rights on T, and alice, who may read its rows but not its settings (HBase asks ADMIN or CREATE
   * for a table's descriptor), are refused with advise's own exit code before anything is read;
   * admin reads T's settings and the mix since its series appeared (alice's and carol's reads of
   * the tests before) over Kerberos RPC and TLS with SPNEGO on the info servers.
   */
  @Test
  public void t1c_adviseRefusesWhomHBaseRefuses() throws Throwable {
    try (Connection alice = connect("alice")) {
      assertEquals(ROWS, scanRows(alice, T, new Scan())); // reads for the mix, whatever ran before
    }
    AssertionError bobs = assertThrows(AssertionError.class, () -> advise("bob"));
    assertTrue(bobs.getMessage(), bobs.getMessage().contains("exited 4"));
    assertTrue(bobs.getMessage(), bobs.getMessage().contains("may not read the settings of"));
    AssertionError alices = assertThrows(AssertionError.class, () -> advise("alice"));
    assertTrue(alices.getMessage(), alices.getMessage().contains("exited 4"));
    String admins = advise("admin");
    assertTrue(admins, admins.contains("== " + T.getNameAsString()));
    assertTrue(admins, admins.contains("Reads since the series appeared on "));
    System.out.println("secure: advise: bob and alice refused (exit 4), admin advised");
  }

  /**
   * {@code bin/blockscope advise T --window start --no-replay} from the release as {@code user}.
   */
  private static String advise(String user) throws Exception {
    return ReleaseClients.blockscope(
        cluster,
        release,
        "advise-" + user,
        List.of(
            "advise",
            "--config",
            cluster.clientConfDir().toString(),
            "--principal",
            SecureRealm.principal(user),
            "--keytab",
            realm.keytab(user).toString(),
            T.getNameAsString(),
            "--window",
            "start",
            "--no-replay",
            "--out",
            Files.createTempDirectory("advise-" + user).toString()),
        Map.of("KRB5_CONFIG", realm.krb5Conf.toString()));
  }

  /** {@code bin/blockscope statements args...} from the release as {@code user}; its output. */
  private static String statements(String user, String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "statements",
                "--config",
                cluster.clientConfDir().toString(),
                "--principal",
                SecureRealm.principal(user),
                "--keytab",
                realm.keytab(user).toString()));
    cmd.addAll(List.of(args));
    return ReleaseClients.blockscope(
        cluster,
        release,
        "statements-" + user,
        cmd,
        Map.of("KRB5_CONFIG", realm.krb5Conf.toString()));
  }

  /** The row of {@code user}'s statement {@code fp} in the JSON {@code statements} printed. */
  private static JsonObject statementRow(String printed, String user, String fp) {
    return statementRow(firstView(printed), user, fp);
  }

  private static JsonObject statementRow(JsonObject doc, String user, String fp) {
    for (var r : doc.getAsJsonArray("statements")) {
      JsonObject row = r.getAsJsonObject();
      if (row.get("user").getAsString().equals(user)
          && row.get("fingerprint").getAsString().equals(fp)) {
        return row;
      }
    }
    throw new AssertionError("no statement " + fp + " of " + user + " in " + doc);
  }

  private static long longOf(JsonObject o, String name) {
    return o.has(name) ? o.get(name).getAsLong() : 0;
  }

  /**
   * HBase's {@code AccessControlClient.grant} of {@code actions} to {@code user}, on {@code table}
   * (null: global); nothing when the AccessController is switched off ({@code
   * -Dblockscope.secure.off=acl}), where there is none to grant with and the tests that prove it
   * fail by name instead.
   */
  private static void grant(
      Connection c,
      TableName table,
      String user,
      byte[] family,
      byte[] qualifier,
      Permission.Action... actions)
      throws Throwable {
    if (SecureRealm.switchedOff("acl")) {
      return;
    }
    if (table == null) {
      AccessControlClient.grant(c, user, actions);
    } else {
      AccessControlClient.grant(c, table, user, family, qualifier, actions);
    }
  }

  /** Sets {@code blockscope.query.max.level} on every region server by {@code update_config}. */
  private static void queryCap(String level) throws Exception {
    for (RegionServer rs : cluster.regionServers()) {
      cluster.reconfigure(rs, Map.of("blockscope.query.max.level", level));
    }
  }

  @Test
  public void t2_explainAnalyzeWithAKerberosLogin() throws Throwable {
    String url = "jdbc:phoenix:127.0.0.1:" + cluster.zkPort + ":/hbase";
    Properties props = new Properties();
    for (Map.Entry<String, String> e : cluster.clientConf()) {
      if (e.getKey().startsWith("hbase.") || e.getKey().startsWith("hadoop.security.")) {
        props.setProperty(e.getKey(), e.getValue());
      }
    }
    // Phoenix's SYSTEM tables and the table, made by the superuser; alice may read them
    cluster.asSuperuser(
        () -> {
          try (java.sql.Connection c = java.sql.DriverManager.getConnection(url, props)) {
            c.createStatement()
                .execute(
                    "CREATE TABLE SECURE_P (PK INTEGER PRIMARY KEY, V1 VARCHAR, V2 DOUBLE)"
                        + " DATA_BLOCK_ENCODING='FAST_DIFF', BLOCKSIZE=4096");
            try (var ps = c.prepareStatement("UPSERT INTO SECURE_P VALUES (?, ?, ?)")) {
              for (int i = 0; i < ROWS; i++) {
                ps.setInt(1, i);
                ps.setString(2, "value-" + i);
                ps.setDouble(3, i / 7.0);
                ps.executeUpdate();
              }
            }
            c.commit();
          }
          return null;
        });
    TableName p = TableName.valueOf("SECURE_P");
    try (Admin admin = cluster.admin()) {
      admin.flush(p);
      for (TableName t : admin.listTableNames()) {
        if (t.getNameAsString().startsWith("SYSTEM") || t.equals(p)) {
          grant(
              cluster.connection(),
              t,
              "alice",
              null,
              null,
              Permission.Action.READ,
              Permission.Action.EXEC);
        }
      }
    }
    long blocks = cluster.dataBlocks(p, "0");
    String printed =
        ReleaseClients.sqlline(
            cluster,
            release,
            "alice",
            "jdbc:blockscope:phoenix:127.0.0.1:"
                + cluster.zkPort
                + ":/hbase:"
                + SecureRealm.principal("alice")
                + ":"
                + realm.keytab("alice"),
            realm.jvmOptions(),
            cluster.clientConfDir(),
            "EXPLAIN ANALYZE (FORMAT JSON) SELECT COUNT(*) FROM SECURE_P;\n"
                + "SHOW BLOCKSCOPE STATEMENTS;");
    assertTrue(printed, Pattern.compile("\"version\"\\s*:\\s*1\\b").matcher(printed).find());
    // her profile: the table's one store file read cold, every data block missed once
    assertTrue(
        printed,
        Pattern.compile("\"blockCache.miss.data\"\\s*:\\s*" + blocks + "\\b")
            .matcher(printed)
            .find());
    assertTrue(printed, Pattern.compile("\"rowsReturned\"\\s*:\\s*1\\b").matcher(printed).find());
    // the statement the EXPLAIN ANALYZE ran, kept by the region servers as hers, read back
    // through the driver over Kerberos
    assertTrue(
        printed,
        Pattern.compile("\\balice\\b.*SELECT COUNT \\(\\*\\) FROM SECURE_P")
            .matcher(printed)
            .find());
    System.out.println(
        "secure: alice's EXPLAIN ANALYZE over Kerberos: blockCache.miss.data "
            + blocks
            + " of "
            + blocks);
  }

  /**
   * A tenant's table whose METADATA holds blockscope's server keys is the first region the
   * restarted server opens (blockscope loads for user tables only, and it is moved back first): the
   * server keeps its own settings, and a plain table's cold scan is counted exactly.
   */
  @Test
  public void t3_aRestartedServerKeepsItsOwnSettings() throws Exception {
    TableName hostile = TableName.valueOf("secure_tenant");
    TableName plain = TableName.valueOf("secure_plain");
    load(
        hostile,
        Map.of(
            "blockscope.level", "OFF",
            "blockscope.query.max.level", "TIME",
            "blockscope.table.max.level", "TIME",
            "blockscope.export.regions", "none",
            "blockscope.jmx.enabled", "false"));
    load(plain, null);
    RegionServer rs = cluster.regionServers().get(0);
    try (Admin admin = cluster.admin()) {
      for (TableName t : List.of(hostile, plain)) {
        admin.move(cluster.regionOf(t).getEncodedNameAsBytes(), rs.serverName());
      }
    }
    cluster.restart(rs, blockscope, hostile);
    String log = Files.readString(rs.log());
    // HBase logs each region it opened by encoded name ("Opened <encoded>"); hbase:meta's is fixed
    Matcher opened = Pattern.compile("Opened (?!1588230740\\b)(\\w+)").matcher(log);
    assertTrue(log, opened.find());
    assertEquals(
        "the tenant's region is the first the new process opened",
        cluster.regionOf(hostile).getEncodedName(),
        opened.group(1));

    long blocks = cluster.dataBlocks(plain, "f");
    assertEquals(ROWS, scanRows(cluster.connection(), plain, null, null));
    assertEquals(ROWS, scanRows(cluster.connection(), hostile, null, null));
    String region = cluster.regionOf(plain).getEncodedName();
    // the server's beans through its secured /jmx, as admin (one of spnego.admin.users)
    BeanReader beans = securedBeans(rs, "admin");
    assertEquals(1, beans.serverValue(ServerMetric.SETTINGS_LEVEL).getAsLong());
    assertEquals(1, beans.serverValue(ServerMetric.SETTINGS_QUERY_MAX_LEVEL).getAsLong());
    assertEquals(1, beans.serverValue(ServerMetric.SETTINGS_TABLE_MAX_LEVEL).getAsLong());
    // exported, and past the refresh after its registration (a new series reads 0 until then)
    cluster.await(
        plain + " blockCache.miss.data = " + blocks,
        30,
        () -> {
          try {
            return beans.region(plain.getNameAsString(), region).get("blockCache.miss.data")
                == blocks;
          } catch (java.io.IOException e) {
            return false;
          }
        });
    System.out.println(
        "secure: restarted with the tenant's region first: settings 1/1/1, "
            + plain
            + " cold scan misses "
            + blocks
            + " = trailer");
    assertTrue(
        "the tenant's table at OFF has no series",
        beans
            .read(
                new ObjectName("blockscope:type=Region,table=" + hostile.getNameAsString() + ",*"))
            .isEmpty());
  }

  /**
   * {@code bin/blockscope top} from the release with the cluster's client configuration and admin's
   * keytab: both servers read over HTTPS with SPNEGO, and a cold scan of a fresh table between its
   * readings shows as exactly that table's data blocks.
   */
  @Test
  public void t4_topAndEvaluateFromTheRelease() throws Exception {
    TableName t = TableName.valueOf("secure_top");
    load(t, null);
    long blocks = cluster.dataBlocks(t, "f");
    List<String> login =
        List.of(
            "--config",
            cluster.clientConfDir().toString(),
            "--principal",
            SecureRealm.principal("admin"),
            "--keytab",
            realm.keytab("admin").toString());
    // one view, as an operator's script takes it
    List<String> once =
        new ArrayList<>(List.of("top", "--once", "--interval", "1", "--format", "json"));
    once.addAll(login);
    String onceView =
        ReleaseClients.blockscope(
            cluster, release, "top-once", once, Map.of("KRB5_CONFIG", realm.krb5Conf.toString()));
    JsonObject single = firstView(onceView);
    assertEquals(onceView, 2, single.getAsJsonArray("servers").size());
    for (var s : single.getAsJsonArray("servers")) {
      assertTrue(s.toString(), s.getAsJsonObject().get("error").isJsonNull());
    }

    List<String> args =
        new ArrayList<>(List.of("top", "--interval", "5", "--iterations", "3", "--format", "json"));
    args.addAll(login);
    Path log = cluster.home.resolve("logs/top.log");
    List<String> cmd = new ArrayList<>();
    cmd.add(release.resolve("bin/blockscope").toString());
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(log.toFile());
    pb.redirectError(cluster.home.resolve("logs/top.err").toFile());
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().put("KRB5_CONFIG", realm.krb5Conf.toString()); // as MIT Kerberos names it
    Process top = pb.start();
    try {
      // the first view is printed after the second reading: scan after it, so the scan's
      // costs fall in the second and third views
      cluster.await(
          "top's first view",
          120,
          () -> {
            try {
              return Files.readString(log).contains("\"servers\"") || !top.isAlive();
            } catch (java.io.IOException e) {
              return false;
            }
          });
      assertEquals(ROWS, scanRows(cluster.connection(), t, null, null));
      assertTrue(top.waitFor(2, TimeUnit.MINUTES));
    } finally {
      top.destroyForcibly();
    }
    String printed = Files.readString(log);
    assertEquals(
        printed + Files.readString(cluster.home.resolve("logs/top.err")), 0, top.exitValue());
    List<JsonObject> views = new ArrayList<>();
    new JsonStreamParser(printed).forEachRemaining(v -> views.add(v.getAsJsonObject()));
    assertEquals(printed, 3, views.size());
    long misses = 0;
    for (JsonObject v : views) {
      for (var s : v.getAsJsonArray("servers")) {
        assertTrue(s.toString(), s.getAsJsonObject().get("error").isJsonNull());
        assertEquals(
            s.toString(),
            ProbeBridge.N_PROBES,
            s.getAsJsonObject().get("probesInstalled").getAsInt());
      }
      for (var row : v.getAsJsonArray("tables")) {
        JsonObject r = row.getAsJsonObject();
        if (r.get("table").getAsString().equals(t.getNameAsString())) {
          misses += r.getAsJsonObject("counts").get("misses").getAsLong();
        }
      }
    }
    assertEquals(printed, blocks, misses);
    System.out.println(
        "secure: top over HTTPS/SPNEGO, 3 views: " + t + " misses " + misses + " = " + blocks);

    // evaluate on scratch tables, as admin (it creates its namespace): the figures the open
    // cluster's run checks
    // the quorum given with --zk, the rest of the client configuration from --config
    List<String> target = new ArrayList<>(List.of("--zk", cluster.zkQuorum()));
    target.addAll(login);
    var pe =
        ReleaseClients.evaluate(
            cluster,
            release,
            "secure",
            target,
            Map.of("BLOCKSCOPE_OPTS", String.join(" ", realm.jvmOptions())),
            ReleaseClients.PE_RUN);
    assertEquals(2, pe.size());
    ReleaseClients.assertColdScansCounted(cluster, pe);
  }

  // ---- what the secured cluster refuses: each guarantee by its refusal. Run with
  // -Dblockscope.secure.off=spnego or tls (SecureRealm.serverSite), the cluster is
  // made without that part of its security, and the tests that prove it fail by name. ----------

  @Test
  public void t5a_aClientWithoutKerberosIsRefused() throws Exception {
    // a client that says it is alice, with SIMPLE authentication: the region server closes its
    // connection at the connection header (HBase's ServerRpcConnection: "Authentication is
    // required"; the client sees only the close), where alice's Kerberos login reads T (t1)
    Configuration simple = failingFast(1);
    simple.set("hbase.security.authentication", "simple");
    User claimed = User.create(UserGroupInformation.createRemoteUser("alice"));
    try (Connection c = ConnectionFactory.createConnection(simple, claimed)) {
      Throwable scanRefused =
          assertThrows(Throwable.class, () -> scanRows(c, T, ALICE_QUERY, "COUNT"));
      assertTrue(causes(scanRefused), causes(scanRefused).contains(CLOSED));
      Throwable callRefused = assertThrows(Throwable.class, () -> profile(c, T, ALICE_QUERY, null));
      assertTrue(causes(callRefused), causes(callRefused).contains(CLOSED));
    }

    System.out.println("secure: a SIMPLE client claiming alice refused on scan and profile");
  }

  @Test
  public void t5g_aClientAskingLessThanPrivacyIsRefused() throws Exception {
    // alice's own Kerberos login, with SASL authentication only: the servers ask privacy
    // (hbase.rpc.protection), the negotiation finds no protection both accept, and nothing is read
    Configuration weak = failingFast(0); // the first attempt's failure, not a relogin's
    weak.set(StockCluster.RPC_PROTECTION, "authentication");
    weak.setInt("hbase.ipc.client.failed.servers.expiry", 0); // each attempt says why it failed
    UserGroupInformation alice = realm.login("alice");
    try (Connection c =
        alice.doAs(
            (PrivilegedExceptionAction<Connection>)
                () -> ConnectionFactory.createConnection(weak))) {
      Throwable refused = assertThrows(Throwable.class, () -> scanRows(c, T, ALICE_QUERY, "COUNT"));
      System.out.println("secure: a client asking SASL authentication only: " + causes(refused));
      assertTrue(causes(refused), causes(refused).contains(NO_COMMON_PROTECTION));
    }
  }

  @Test
  public void t5b_jmxWithoutATokenIsAskedForOne() throws Exception {
    RegionServer rs = cluster.regionServers().get(0);
    String jmx = rs.infoUrl() + "/jmx?qry=blockscope:type=Server,*";
    // HTTPS with no token: SPNEGO asks for one
    javax.net.ssl.HttpsURLConnection https =
        (javax.net.ssl.HttpsURLConnection) new java.net.URL(jmx).openConnection();
    https.setSSLSocketFactory(realm.sslContext().getSocketFactory());
    https.setConnectTimeout(10_000);
    https.setReadTimeout(10_000);
    assertEquals(401, https.getResponseCode());
    assertEquals("Negotiate", https.getHeaderField("WWW-Authenticate"));
    https.disconnect();
  }

  @Test
  public void t5c_plainHttpOnTheInfoPortIsNotServed() throws Exception {
    RegionServer rs = cluster.regionServers().get(0);
    // plain HTTP on the TLS port: no answer from HBase's servlets, not even SPNEGO's 401
    java.net.HttpURLConnection plain =
        (java.net.HttpURLConnection)
            new java.net.URL("http://" + realm.host() + ":" + rs.infoPort + "/jmx")
                .openConnection();
    plain.setConnectTimeout(10_000);
    plain.setReadTimeout(10_000);
    int plainCode;
    try {
      plainCode = plain.getResponseCode();
    } catch (java.io.IOException noHttp) {
      plainCode = -1; // the TLS connector hung up
    } finally {
      plain.disconnect();
    }
    assertTrue("plain HTTP answered " + plainCode, plainCode != 200 && plainCode != 401);

    System.out.println("secure: plain HTTP on the TLS info port: " + plainCode);
  }

  @Test
  public void t5d_aUserWhoIsNotAnInfoServerAdminGets403() throws Exception {
    // top as alice: authenticated, but not one of the info servers' admins
    String asAlice =
        ReleaseClients.blockscope(
            cluster,
            release,
            "top-alice",
            List.of(
                "top",
                "--once",
                "--interval",
                "1",
                "--format",
                "json",
                "--config",
                cluster.clientConfDir().toString(),
                "--principal",
                SecureRealm.principal("alice"),
                "--keytab",
                realm.keytab("alice").toString()),
            Map.of("KRB5_CONFIG", realm.krb5Conf.toString()));
    JsonObject view = firstView(asAlice);
    assertEquals(asAlice, 2, view.getAsJsonArray("servers").size());
    for (var server : view.getAsJsonArray("servers")) {
      var reason = server.getAsJsonObject().get("error");
      assertFalse(server + ": read by alice", reason.isJsonNull());
      String error = reason.getAsString();
      assertTrue(error, error.contains("/jmx") && error.contains("answered HTTP 403"));
    }
  }

  @Test
  public void t5e_aSecuredServerHasNoRemoteJmx() throws Exception {
    RegionServer rs = cluster.regionServers().get(0);
    // no remote JMX on a secured server: its beans are read through /jmx alone
    java.io.IOException noJmx = assertThrows(java.io.IOException.class, () -> jmx(rs).close());
    assertTrue(String.valueOf(noJmx), causes(noJmx).contains("Connection refused"));
  }

  @Test
  public void t5f_zooKeeperRefusesAnUnauthenticatedWrite() throws Exception {
    // ZooKeeper without SASL: HBase's znodes are not the world's to write
    org.apache.zookeeper.client.ZKClientConfig noSasl =
        new org.apache.zookeeper.client.ZKClientConfig();
    noSasl.setProperty(org.apache.zookeeper.client.ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "false");
    java.util.concurrent.CountDownLatch connected = new java.util.concurrent.CountDownLatch(1);
    org.apache.zookeeper.ZooKeeper zk =
        new org.apache.zookeeper.ZooKeeper(
            cluster.zkQuorum(),
            30_000,
            e -> {
              if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            },
            noSasl);
    try {
      assertTrue("connected to ZooKeeper", connected.await(30, TimeUnit.SECONDS));
      assertThrows(
          org.apache.zookeeper.KeeperException.NoAuthException.class,
          () ->
              zk.create(
                  "/hbase/blockscope-refused",
                  new byte[0],
                  org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
                  org.apache.zookeeper.CreateMode.PERSISTENT));
    } finally {
      zk.close();
    }
  }

  /**
   * A region server's blockscope beans through its {@code /jmx} as an operator's client reads them:
   * HTTPS with the realm's trust store, and SPNEGO as {@code user} (Hadoop's KerberosAuthenticator
   * under the user's keytab login).
   */
  private static BeanReader securedBeans(RegionServer rs, String user) throws Exception {
    UserGroupInformation login = realm.login(user);
    javax.net.ssl.SSLSocketFactory tls = realm.sslContext().getSocketFactory();
    AuthenticatedURL.Token token = new AuthenticatedURL.Token();
    AuthenticatedURL client =
        new AuthenticatedURL(
            new KerberosAuthenticator(),
            c -> {
              if (c instanceof javax.net.ssl.HttpsURLConnection h) {
                h.setSSLSocketFactory(tls);
              }
              c.setConnectTimeout(10_000);
              c.setReadTimeout(10_000);
              return c;
            });
    return BeanReader.of(
        pathAndQuery -> {
          try {
            return login.doAs(
                (PrivilegedExceptionAction<String>)
                    () -> {
                      java.net.HttpURLConnection c =
                          client.openConnection(
                              new java.net.URL(rs.infoUrl() + pathAndQuery), token);
                      if (c.getResponseCode() != 200) {
                        throw new java.io.IOException(
                            rs.infoUrl() + pathAndQuery + " answered " + c.getResponseCode());
                      }
                      try (var in = c.getInputStream()) {
                        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                      }
                    });
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted reading " + rs.infoUrl());
          }
        },
        rs.infoUrl());
  }

  /**
   * The document {@code top --format json} or {@code statements --json} printed: the JSON that
   * starts a line (the output holds the log's lines too).
   */
  private static JsonObject firstView(String printed) {
    Matcher doc = Pattern.compile("(?m)^\\{").matcher(printed);
    assertTrue(printed, doc.find());
    return new JsonStreamParser(printed.substring(doc.start())).next().getAsJsonObject();
  }

  /**
   * The cluster's client configuration for a client the servers refuse: {@code retries} retries,
   * and timeouts short enough that the refusal comes back in seconds.
   */
  private static Configuration failingFast(int retries) {
    Configuration conf = new Configuration(cluster.clientConf());
    conf.setInt("hbase.client.retries.number", retries);
    conf.setInt("hbase.rpc.timeout", 10_000);
    conf.setInt("hbase.client.operation.timeout", 20_000);
    conf.setInt("hbase.client.meta.operation.timeout", 20_000);
    return conf;
  }

  /** What the JDK's SASL client says when the server offers no protection the client accepts. */
  private static final String NO_COMMON_PROTECTION = "No common protection layer";

  private static final String DECODE_NANOS = "decode.FAST_DIFF.nanos";

  /**
   * The caps hold by what is measured, on the secured servers at their default caps ({@code
   * blockscope.table.max.level} and {@code blockscope.query.max.level} COUNT): a table whose
   * METADATA asks TIME records its cold scan's blocks and cells exactly and no time, in its
   * region's series read through the secured {@code /jmx}; alice's scan asking PROFILE=TIME records
   * its blocks exactly and no time, its profile saying COUNT, capped. When the operator raises the
   * table cap ({@code update_config}), the same scan is timed.
   */
  @Test
  public void t6_theCapsHoldByWhatIsMeasured() throws Throwable {
    TableName timed = TableName.valueOf("secure_time");
    load(timed, Map.of("blockscope.level", "TIME"));
    long blocks = cluster.dataBlocks(timed, "f");
    RegionServer host = cluster.hosting(timed);
    BeanReader beans = securedBeans(host, "admin");
    assertEquals(1, beans.serverValue(ServerMetric.SETTINGS_TABLE_MAX_LEVEL).getAsLong());
    assertEquals(1, beans.serverValue(ServerMetric.SETTINGS_QUERY_MAX_LEVEL).getAsLong());
    var capped = coldScanSeries(timed, beans, blocks);
    assertEquals("a table asking TIME under a COUNT cap: no time", 0, capped.get(DECODE_NANOS));
    assertEquals(capped.toString(), ROWS, capped.get("decode.FAST_DIFF.cells"));

    String id = "0123456789abcdef0123456789ca9ed0";
    try (Connection alice = connect("alice");
        Admin admin = cluster.admin()) {
      admin.clearBlockCache(T);
      assertEquals(ROWS, scanRows(alice, T, id, "TIME"));
      Map<String, Long> record = ProfileAnswers.costs(profile(alice, T, id, null));
      assertEquals(
          "a PROFILE=TIME scan under a COUNT query cap: no time",
          0L,
          (long) record.getOrDefault(DECODE_NANOS, 0L));
      assertEquals(
          record.toString(), cluster.dataBlocks(T, "f"), (long) record.get("blockCache.miss.data"));
      assertEquals(1L, (long) record.get(ProfileAnswers.LEVEL_APPLIED));
      assertEquals(ProfileAnswers.CAPPED, (long) record.get(ProfileAnswers.LEVEL_REASON));
    }

    cluster.reconfigure(host, Map.of("blockscope.table.max.level", "TIME"));
    try {
      var before = beans.region(timed.getNameAsString(), cluster.regionOf(timed).getEncodedName());
      var raised = coldScanSeries(timed, beans, 2 * blocks);
      assertTrue(
          "timed once the operator raised the cap: " + raised,
          raised.get(DECODE_NANOS) > before.get(DECODE_NANOS));
    } finally {
      cluster.reconfigure(host, Map.of("blockscope.table.max.level", "COUNT"));
    }
    System.out.println(
        "secure: under the default COUNT caps, "
            + timed
            + " (asks TIME) cold scan: "
            + blocks
            + " blocks, "
            + ROWS
            + " cells, 0 nanos; alice's PROFILE=TIME: COUNT, capped, 0 nanos;"
            + " timed at the raised cap");
  }

  /**
   * Scans one-region table {@code t} from an empty block cache and returns its region's series as
   * the secured {@code /jmx} shows them after the export has registered and refreshed them (a
   * series new since the scan reads 0 until then), their data block misses at {@code misses}.
   */
  private static io.blockscope.metrics.CostSnapshot coldScanSeries(
      TableName t, BeanReader beans, long misses) throws Exception {
    String region = cluster.regionOf(t).getEncodedName();
    try (Admin admin = cluster.admin()) {
      admin.clearBlockCache(t);
    }
    assertEquals(ROWS, scanRows(cluster.connection(), t, null, null));
    beans.awaitExport(30_000);
    var series = beans.region(t.getNameAsString(), region);
    assertEquals(series.toString(), misses, series.get("blockCache.miss.data"));
    return series;
  }

  /**
   * The rows of {@code user}'s profile that {@code c}'s user reads by naming them: 0 when HBase
   * refuses the call with an AccessDeniedException holding {@code refusal} (any other failure is
   * thrown).
   */
  private static long rowsNamed(Connection c, TableName t, String id, String user, String refusal)
      throws Throwable {
    Message answer;
    try {
      answer = profile(c, t, id, user);
    } catch (Throwable refused) {
      if (!deniedBy(refused, refusal)) {
        throw refused;
      }
      return 0;
    }
    return ProfileAnswers.found(answer) ? ProfileAnswers.rows(answer) : 0;
  }

  /** What a client refused at its connection header sees. */
  private static final String CLOSED = "ConnectionClosedException: Connection closed";

  /** Every message in a failure's chain, for finding HBase's refusal in it. */
  private static String causes(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = e; c != null; c = c.getCause()) {
      b.append(c).append(" | ");
    }
    return b.toString();
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** A one-region table of {@link #ROWS} rows in one store file, with table values if given. */
  private static void load(TableName t, Map<String, String> values) throws Exception {
    TableDescriptorBuilder td =
        TableDescriptorBuilder.newBuilder(t)
            .setColumnFamily(
                ColumnFamilyDescriptorBuilder.newBuilder(F)
                    .setBlocksize(4096)
                    .setDataBlockEncoding(DataBlockEncoding.FAST_DIFF)
                    .build());
    if (values != null) {
      values.forEach(td::setValue);
    }
    try (Admin admin = cluster.admin()) {
      admin.createTable(td.build());
      try (Table table = cluster.connection().getTable(t)) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
          puts.add(
              new Put(Bytes.toBytes(String.format("row-%08d", i)))
                  .addColumn(F, Bytes.toBytes("a"), Bytes.toBytes("value-" + i + "-xxxxxxxxxx")));
        }
        table.put(puts);
      }
      admin.flush(t);
    }
  }

  /** A connection as {@code user}, logged in from the user's own keytab. */
  private static Connection connect(String user) throws Exception {
    UserGroupInformation ugi = realm.login(user);
    Configuration conf = cluster.clientConf();
    return ugi.doAs(
        (PrivilegedExceptionAction<Connection>) () -> ConnectionFactory.createConnection(conf));
  }

  /** The one region's answer of blockscope's profile endpoint, asked as {@code c}'s user. */
  private static Message profile(Connection c, TableName t, String id, String user)
      throws Throwable {
    return askOneRegion(
        c,
        t,
        ProfileAnswers.GET_PROFILE,
        ProfileAnswers.request(id, user),
        ProfileAnswers.RESPONSE);
  }

  /** Whether HBase refused with an AccessDeniedException whose message holds {@code what}. */
  private static boolean deniedBy(Throwable e, String what) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      String m = String.valueOf(c.getMessage());
      if (m.contains("AccessDeniedException") && m.contains(what)) {
        return true;
      }
    }
    return false;
  }

  @SuppressWarnings("BanJNDI") // a JMX client of the test's own region server, on loopback
  private static JMXConnector jmx(RegionServer rs) throws Exception {
    return JMXConnectorFactory.connect(
        new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + rs.jmxPort + "/jmxrmi"));
  }
}
