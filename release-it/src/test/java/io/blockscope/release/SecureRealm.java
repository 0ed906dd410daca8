package io.blockscope.release;

import io.blockscope.coprocessor.MiscountDrill;
import io.blockscope.harness.stock.StockCluster;
import io.blockscope.harness.stock.StockSecurity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * What a Kerberos, TLS and ACL cluster needs around it, as an operator sets it up: a KDC (a process
 * of its own, {@link KdcMain}) with a service principal per daemon and a keytab per user, a TLS key
 * store for the info servers with a trust store for clients (made with the JDK's {@code keytool}),
 * and the configuration each side reads.
 *
 * <p>Every host part is {@code localhost}: on a machine whose name resolves to 127.0.0.1 HBase's
 * {@code _HOST}, ZooKeeper's client and the JDK's Kerberos all canonicalize the host to what the
 * reverse lookup of 127.0.0.1 gives, which is {@code localhost} here (a cluster with DNS uses each
 * server's name).
 */
final class SecureRealm implements StockSecurity, AutoCloseable {
  static final String REALM = "EXAMPLE.COM";
  static final String HOST = "localhost";
  private static final String STORE_PASSWORD = "changeit";

  final Path dir;
  final Path krb5Conf;
  final Path keyStore;
  final Path trustStore;
  private final Process kdc;

  private SecureRealm(Path dir, Path krb5Conf, Process kdc) {
    this.dir = dir;
    this.krb5Conf = krb5Conf;
    this.kdc = kdc;
    this.keyStore = dir.resolve("tls/server.jks");
    this.trustStore = dir.resolve("tls/trust.jks");
  }

  /**
   * Starts the KDC with the services' principals (ZooKeeper, HBase, HTTP for SPNEGO) and one
   * principal and keytab per user, and makes the TLS stores; waits until the KDC is ready.
   */
  static SecureRealm start(Path dir, List<String> users) throws Exception {
    StockCluster.deleteTree(dir);
    Path keytabs = dir.resolve("keytabs");
    Files.createDirectories(keytabs);
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx128m");
    cmd.add("-cp");
    cmd.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    cmd.add(KdcMain.class.getName());
    cmd.add(dir.resolve("kdc").toString());
    cmd.add(keytabs.toString());
    cmd.add("zookeeper=zookeeper/" + HOST);
    cmd.add("hbase=hbase/" + HOST);
    cmd.add("http=HTTP/" + HOST);
    for (String u : users) {
      cmd.add(u + "=" + u);
    }
    Path log = dir.resolve("kdc.log");
    Process kdc =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    Runtime.getRuntime().addShutdownHook(new Thread(kdc::destroyForcibly, "kdc-kill"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.readString(log).contains("KDC ready")) {
      if (!kdc.isAlive() || System.nanoTime() > deadline) {
        kdc.destroyForcibly();
        throw new AssertionError("the KDC did not start:\n" + Files.readString(log));
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    SecureRealm realm = new SecureRealm(dir, keytabs.resolve("krb5.conf"), kdc);
    // this JVM is a Kerberos client of the realm too (the test's own connections)
    System.setProperty("java.security.krb5.conf", realm.krb5Conf.toString());
    Configuration login = new Configuration(false);
    coreSiteEntries().forEach(login::set);
    UserGroupInformation.setConfiguration(login);
    realm.makeTlsStores();
    return realm;
  }

  /** A TLS context that trusts the realm's servers (the trust store ssl-client.xml names). */
  javax.net.ssl.SSLContext sslContext() throws Exception {
    java.security.KeyStore trust = java.security.KeyStore.getInstance("JKS");
    try (var in = Files.newInputStream(trustStore)) {
      trust.load(in, STORE_PASSWORD.toCharArray());
    }
    javax.net.ssl.TrustManagerFactory tmf =
        javax.net.ssl.TrustManagerFactory.getInstance(
            javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    javax.net.ssl.SSLContext ssl = javax.net.ssl.SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    return ssl;
  }

  /** A user's or service's keytab ({@code zookeeper}, {@code hbase}, {@code http}, users). */
  Path keytab(String name) {
    return dir.resolve("keytabs").resolve(name + ".keytab");
  }

  static String principal(String user) {
    return user + "@" + REALM;
  }

  /** The HBase daemons' principal, as hbase-site.xml gives it. */
  static String hbasePrincipalName() {
    return "hbase/_HOST@" + REALM;
  }

  /**
   * The entries of a secured HBase's {@code hbase-site.xml} for the master and region servers:
   * Kerberos RPC, the AccessController (with EXEC checks on endpoint calls), ZooKeeper SASL as
   * HBase's own login makes it, TLS and SPNEGO on the info servers with {@code admin} and the
   * service user allowed to read their {@code /jmx}.
   */
  @Override
  public String host() {
    return HOST;
  }

  @Override
  public String hbasePrincipal() {
    return hbasePrincipalName();
  }

  @Override
  public Map<String, String> coreSite() {
    return coreSiteEntries();
  }

  @Override
  public Map<String, String> serverSite() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("hbase.security.authentication", "kerberos");
    s.put("hbase.security.authorization", "true");
    s.put("hbase.master.kerberos.principal", hbasePrincipalName());
    s.put("hbase.master.keytab.file", keytab("hbase").toString());
    s.put("hbase.regionserver.kerberos.principal", hbasePrincipalName());
    s.put("hbase.regionserver.keytab.file", keytab("hbase").toString());
    s.put("hbase.zookeeper.client.keytab.file", keytab("hbase").toString());
    s.put("hbase.zookeeper.client.kerberos.principal", hbasePrincipalName());
    String ac = "org.apache.hadoop.hbase.security.access.AccessController";
    s.put("hbase.coprocessor.master.classes", ac);
    s.put("hbase.coprocessor.region.classes", ac);
    s.put("hbase.coprocessor.regionserver.classes", ac);
    s.put("hbase.security.exec.permission.checks", "true");
    s.put("hbase.superuser", "hbase");
    s.put("hbase.ssl.enabled", "true");
    s.put("ssl.server.keystore.location", keyStore.toString());
    s.put("ssl.server.keystore.password", STORE_PASSWORD);
    s.put("ssl.server.keystore.keypassword", STORE_PASSWORD);
    s.put("hbase.security.authentication.ui", "kerberos");
    s.put("hbase.security.authentication.spnego.kerberos.principal", "HTTP/_HOST@" + REALM);
    s.put("hbase.security.authentication.spnego.kerberos.keytab", keytab("http").toString());
    s.put("hbase.security.authentication.spnego.admin.users", "admin,hbase");
    // SASL with integrity and encryption on every RPC: a client that asks less is refused
    s.put(StockCluster.RPC_PROTECTION, "privacy");
    // a part of the security switched off, to see the tests that prove it fail (SecureStockIT)
    if (switchedOff("spnego")) {
      s.remove("hbase.security.authentication.ui");
    }
    if (switchedOff("tls")) {
      s.put("hbase.ssl.enabled", "false");
    }
    if (switchedOff("privacy")) {
      s.remove(StockCluster.RPC_PROTECTION);
    }
    if (switchedOff("acl")) {
      for (String k :
          List.of(
              "hbase.security.authorization",
              "hbase.coprocessor.master.classes",
              "hbase.coprocessor.region.classes",
              "hbase.coprocessor.regionserver.classes",
              "hbase.security.exec.permission.checks")) {
        s.remove(k);
      }
    }
    return s;
  }

  /**
   * The system property naming parts of the security to leave out, for showing that the tests that
   * prove them fail (comma-separated): {@code spnego}, {@code tls}, {@code privacy} and {@code acl}
   * (the AccessController) of the servers' settings, and blockscope's own {@code cap} (the level
   * caps not applied) and {@code owner} (another user's profile answered), which start that drill
   * in each region server ({@link #drillOptions}). Unset in every build. (Kerberos RPC has no such
   * switch: the suite's own connections log in with Kerberos, so a cluster without it never comes
   * up for them.)
   */
  static final String SWITCHED_OFF = "blockscope.secure.off";

  static boolean switchedOff(String part) {
    return List.of(System.getProperty(SWITCHED_OFF, "").split(",")).contains(part);
  }

  /**
   * The JVM options that switch off blockscope's own guarantee for the region servers when {@link
   * #SWITCHED_OFF} names {@code cap} or {@code owner}: the drill property of blockscope's engine,
   * which the server's log then names at the engine's start.
   */
  static List<String> drillOptions() {
    List<String> o = new ArrayList<>();
    if (switchedOff("cap")) {
      o.add("-Dblockscope.drill.miscount=LEVEL_CAP_IGNORED");
    }
    if (switchedOff("owner")) {
      o.add("-Dblockscope.drill.miscount=PROFILE_OWNER_IGNORED");
    }
    return o;
  }

  /** The class files, by name without {@code .class}, of the test suite's drills. */
  static final List<String> DRILL_CLASSES =
      List.of(
          "io/blockscope/coprocessor/MiscountDrill",
          "io/blockscope/coprocessor/Miscount",
          "io/blockscope/coprocessor/probe/ProbeDrill",
          "io/blockscope/coprocessor/accounting/RollUpDrill");

  /**
   * What the region servers need in {@code lib/} beside the release jar for {@link #drillOptions}
   * to start a drill: a jar of the drill classes of the coprocessors' test jar (the release jar
   * carries none), or nothing when no drill is switched on.
   */
  static List<Path> drillJars() throws IOException {
    if (drillOptions().isEmpty()) {
      return List.of();
    }
    Path jar = Files.createTempFile("blockscope-drills", ".jar");
    jar.toFile().deleteOnExit();
    int written = 0;
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      for (Map.Entry<String, byte[]> c : TestJars.classFiles(MiscountDrill.class).entrySet()) {
        String name = c.getKey();
        if (DRILL_CLASSES.stream()
            .anyMatch(d -> name.equals(d + ".class") || name.startsWith(d + "$"))) {
          out.putNextEntry(new JarEntry(name));
          out.write(c.getValue());
          out.closeEntry();
          written++;
        }
      }
    }
    if (written < DRILL_CLASSES.size()) {
      throw new IOException("the coprocessors' test jar has " + written + " drill class files");
    }
    return List.of(jar);
  }

  /**
   * {@code core-site.xml} for every process: Hadoop's login reads only this file (HBase never hands
   * its own configuration to {@code UserGroupInformation}), and {@code
   * hadoop.security.authorization} turns on the info servers' admin list for {@code /jmx}.
   */
  static Map<String, String> coreSiteEntries() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("hadoop.security.authentication", "kerberos");
    s.put("hadoop.security.authorization", "true");
    return s;
  }

  /** The JVM options every Kerberos process here takes. */
  @Override
  public List<String> jvmOptions() {
    return List.of("-Djava.security.krb5.conf=" + krb5Conf);
  }

  /** ZooKeeper's: SASL authentication with its own keytab ({@code Server} JAAS section). */
  @Override
  public List<String> zooKeeperOptions() throws IOException {
    Path jaas = dir.resolve("zookeeper-jaas.conf");
    Files.writeString(
        jaas,
        "Server {\n"
            + "  com.sun.security.auth.module.Krb5LoginModule required\n"
            + "  useKeyTab=true storeKey=true useTicketCache=false\n"
            + "  keyTab=\""
            + keytab("zookeeper")
            + "\"\n"
            + "  principal=\"zookeeper/"
            + HOST
            + "@"
            + REALM
            + "\";\n};\n");
    return List.of(
        "-Djava.security.krb5.conf=" + krb5Conf,
        "-Djava.security.auth.login.config=" + jaas,
        "-Dzookeeper.authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider");
  }

  /**
   * A client's configuration directory for the cluster, as an operator hands it to users: {@code
   * hbase-site.xml} (quorum, Kerberos, the servers' principals, TLS on), {@code core-site.xml} and
   * {@code ssl-client.xml} (the trust store).
   */
  @Override
  public Path clientConfDir(Path where, String quorum, int zkPort) throws IOException {
    Files.createDirectories(where);
    Map<String, String> site = new LinkedHashMap<>();
    site.put("hbase.zookeeper.quorum", quorum);
    site.put("hbase.zookeeper.property.clientPort", Integer.toString(zkPort));
    site.put("hbase.security.authentication", "kerberos");
    site.put("hbase.master.kerberos.principal", hbasePrincipalName());
    site.put("hbase.regionserver.kerberos.principal", hbasePrincipalName());
    site.put("hbase.ssl.enabled", "true");
    String protection = serverSite().get(StockCluster.RPC_PROTECTION);
    if (protection != null) {
      site.put(StockCluster.RPC_PROTECTION, protection);
    }
    write(where.resolve("hbase-site.xml"), site);
    write(where.resolve("core-site.xml"), coreSiteEntries());
    write(
        where.resolve("ssl-client.xml"),
        Map.of(
            "ssl.client.truststore.location",
            trustStore.toString(),
            "ssl.client.truststore.password",
            STORE_PASSWORD,
            "ssl.client.truststore.type",
            "jks"));
    return where;
  }

  /** Applies a client configuration directory's files to {@code conf}. */
  static void addClientConf(Configuration conf, Path clientDir) {
    for (String f : List.of("core-site.xml", "hbase-site.xml")) {
      conf.addResource(new org.apache.hadoop.fs.Path(clientDir.resolve(f).toUri()));
    }
  }

  /**
   * Logs {@code user} (a user name, or {@code hbase} for the service) in from its keytab in this
   * JVM, without touching the JVM's login user.
   */
  @Override
  public UserGroupInformation login(String user) throws IOException {
    String principal = user.equals("hbase") ? "hbase/" + HOST + "@" + REALM : principal(user);
    return UserGroupInformation.loginUserFromKeytabAndReturnUGI(principal, keytab(user).toString());
  }

  static void write(Path file, Map<String, String> entries) throws IOException {
    StockCluster.writeSite(file, entries);
  }

  /**
   * A key pair for the info servers (its certificate names {@code localhost}, the machine's name
   * and 127.0.0.1), and a trust store holding that certificate: {@code keytool}, as an operator
   * without a CA of their own would make them.
   */
  private void makeTlsStores() throws Exception {
    Path tls = dir.resolve("tls");
    Files.createDirectories(tls);
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    String machine = java.net.InetAddress.getLocalHost().getHostName();
    run(
        keytool,
        "-genkeypair",
        "-alias",
        "server",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-dname",
        "CN=" + HOST,
        "-ext",
        "SAN=dns:" + HOST + ",dns:" + machine + ",ip:127.0.0.1",
        "-validity",
        "30",
        "-keystore",
        keyStore.toString(),
        "-storetype",
        "jks",
        "-storepass",
        STORE_PASSWORD,
        "-keypass",
        STORE_PASSWORD);
    Path cert = tls.resolve("server.crt");
    run(
        keytool,
        "-exportcert",
        "-alias",
        "server",
        "-keystore",
        keyStore.toString(),
        "-storepass",
        STORE_PASSWORD,
        "-file",
        cert.toString());
    run(
        keytool,
        "-importcert",
        "-noprompt",
        "-alias",
        "server",
        "-file",
        cert.toString(),
        "-keystore",
        trustStore.toString(),
        "-storetype",
        "jks",
        "-storepass",
        STORE_PASSWORD);
  }

  private void run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError(String.join(" ", cmd) + " failed:\n" + out);
    }
  }

  @Override
  public void close() {
    kdc.destroy();
    try {
      kdc.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
