package io.blockscope.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.GSSName;
import org.ietf.jgss.Oid;

/**
 * Reads HBase info servers ({@code /jmx}, {@code /conf}) the way the cluster serves them: over
 * HTTPS when the cluster's configuration says {@code hbase.ssl.enabled=true}, trusting the trust
 * store its {@code ssl-client.xml} names ({@code ssl.client.truststore.location}, {@code
 * .password}, {@code .type}, as Hadoop's clients read it), and with SPNEGO when a server answers
 * 401 {@code WWW-Authenticate: Negotiate} ({@code hbase.security.authentication.ui=kerberos}), as
 * the logged-in Kerberos user of the command.
 *
 * <p>What it will not do: read a reply larger than its limit (a region server with thousands of
 * regions serves a large {@code /jmx}; the limit keeps the command's memory bounded), or follow a
 * redirect to another scheme, host or port (a compromised or misconfigured server could otherwise
 * send the command's Kerberos ticket or requests elsewhere). A refused or failed read is an {@link
 * IOException} that says which and why.
 */
final class InfoServerClient {
  private static final int MAX_REDIRECTS = 3;
  private static final String SPNEGO_OID = "1.3.6.1.5.5.2";

  private final boolean https;
  private final SSLSocketFactory ssl;
  private final UserGroupInformation user;
  private final long maxReplyBytes;
  private final long replyNanos;

  /**
   * How long one reply may take from its first byte to its last, unless a caller says otherwise.
   */
  static final Duration REPLY_LIMIT = Duration.ofSeconds(30);

  /** The authentication cookie each server set after a SPNEGO exchange, by scheme://host:port. */
  private final Map<String, String> cookies = new ConcurrentHashMap<>();

  /**
   * @param conf the cluster's client configuration ({@code hbase.ssl.enabled})
   * @param configDir the cluster's configuration directory, where {@code ssl-client.xml} is looked
   *     for first (else on the class path, as Hadoop looks for it); null for none
   * @param user who authenticates to SPNEGO servers (null: the process's login user)
   */
  InfoServerClient(
      Configuration conf, Path configDir, UserGroupInformation user, long maxReplyBytes)
      throws IOException {
    this(conf, configDir, user, maxReplyBytes, REPLY_LIMIT);
  }

  /**
   * As above, with {@code replyLimit} the longest a reply may take to arrive whole: a server that
   * trickles its bytes is cut off then, where the 10 s limit on each read alone would wait on it
   * for as long as it keeps sending.
   */
  InfoServerClient(
      Configuration conf,
      Path configDir,
      UserGroupInformation user,
      long maxReplyBytes,
      Duration replyLimit)
      throws IOException {
    this.https = conf.getBoolean("hbase.ssl.enabled", false);
    this.ssl = https ? sslFactory(conf, configDir) : null;
    this.user = user;
    this.maxReplyBytes = maxReplyBytes;
    this.replyNanos = replyLimit.toNanos();
  }

  /** "https" or "http": what the cluster's info servers speak. */
  String scheme() {
    return https ? "https" : "http";
  }

  /** The body of {@code GET pathAndQuery} on {@code host:port}, as text. */
  String get(String host, int port, String pathAndQuery) throws IOException {
    URL url = new URL(scheme() + "://" + host + ":" + port + pathAndQuery);
    String origin = origin(url);
    for (int hop = 0; ; hop++) {
      HttpURLConnection c = open(url, cookies.get(origin), null);
      int code = c.getResponseCode();
      if (code == HttpURLConnection.HTTP_UNAUTHORIZED && negotiates(c)) {
        c.disconnect();
        c = open(url, null, "Negotiate " + spnegoToken(url.getHost()));
        code = c.getResponseCode();
      }
      if (code >= 300 && code < 400) {
        String location = c.getHeaderField("Location");
        c.disconnect();
        if (location == null || hop == MAX_REDIRECTS) {
          throw new IOException(url + " answered " + code + " with no usable redirect");
        }
        URL next = resolve(url, location);
        if (!origin(next).equals(origin)) {
          throw new IOException(
              url + " redirects to " + next + ": refusing a redirect to another host or port");
        }
        url = next;
        continue;
      }
      try {
        if (code != HttpURLConnection.HTTP_OK) {
          throw new IOException(url + " answered HTTP " + code + ": " + excerpt(c));
        }
        keepCookie(origin, c);
        return new String(bounded(c.getInputStream(), url), StandardCharsets.UTF_8);
      } finally {
        c.disconnect();
      }
    }
  }

  private HttpURLConnection open(URL url, String cookie, String authorization) throws IOException {
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    if (c instanceof HttpsURLConnection s) {
      s.setSSLSocketFactory(ssl);
    }
    c.setInstanceFollowRedirects(false);
    c.setConnectTimeout(3_000);
    c.setReadTimeout((int) Math.min(10_000, Math.max(1, replyNanos / 1_000_000)));
    if (cookie != null) {
      c.setRequestProperty("Cookie", cookie);
    }
    if (authorization != null) {
      c.setRequestProperty("Authorization", authorization);
    }
    return c;
  }

  private static boolean negotiates(HttpURLConnection c) {
    List<String> challenges = c.getHeaderFields().get("WWW-Authenticate");
    if (challenges != null) {
      for (String h : challenges) {
        if (h != null && h.trim().regionMatches(true, 0, "Negotiate", 0, 9)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Keeps the {@code hadoop.auth} cookie a server sets, so later reads skip the SPNEGO exchange.
   */
  private void keepCookie(String origin, HttpURLConnection c) {
    List<String> set = c.getHeaderFields().get("Set-Cookie");
    if (set == null) {
      return;
    }
    for (String h : set) {
      if (h != null && h.startsWith("hadoop.auth=")) {
        int end = h.indexOf(';');
        cookies.put(origin, end < 0 ? h : h.substring(0, end));
      }
    }
  }

  /**
   * A SPNEGO token for the server's {@code HTTP/<host>} principal, made with the JDK's GSS-API from
   * the Kerberos credentials of {@link #user} (its {@code Subject}, entered through {@code doAs}).
   */
  private String spnegoToken(String host) throws IOException {
    try {
      UserGroupInformation u = user != null ? user : UserGroupInformation.getLoginUser();
      return u.doAs(
          (PrivilegedExceptionAction<String>)
              () -> {
                GSSManager m = GSSManager.getInstance();
                GSSName server = m.createName("HTTP@" + host, GSSName.NT_HOSTBASED_SERVICE);
                GSSContext ctx =
                    m.createContext(server, new Oid(SPNEGO_OID), null, GSSContext.DEFAULT_LIFETIME);
                try {
                  byte[] token = ctx.initSecContext(new byte[0], 0, 0);
                  return Base64.getEncoder().encodeToString(token);
                } finally {
                  ctx.dispose();
                }
              });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted during SPNEGO with " + host, e);
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      Throwable why = e.getCause() instanceof GSSException ? e.getCause() : e;
      throw new IOException(
          "SPNEGO to HTTP/"
              + host
              + " failed ("
              + why
              + "); is the command logged in to Kerberos (--principal and --keytab, or kinit)?",
          e);
    }
  }

  private byte[] bounded(InputStream in, URL url) throws IOException {
    try (in) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buf = new byte[64 * 1024];
      long total = 0;
      long start = System.nanoTime();
      for (int n; (n = in.read(buf)) > 0; ) {
        total += n;
        if (System.nanoTime() - start > replyNanos) {
          throw new IOException(
              url
                  + " took more than "
                  + String.format(java.util.Locale.ROOT, "%.1f", replyNanos / 1e9)
                  + " s to send its reply ("
                  + total
                  + " bytes by then)");
        }
        if (total > maxReplyBytes) {
          throw new IOException(
              url
                  + " sent more than "
                  + maxReplyBytes / (1024 * 1024)
                  + " MB; raise --max-reply-mb to read it");
        }
        out.write(buf, 0, n);
      }
      return out.toByteArray();
    }
  }

  private static String excerpt(HttpURLConnection c) {
    try (InputStream err = c.getErrorStream()) {
      if (err == null) {
        return String.valueOf(c.getResponseMessage());
      }
      byte[] b = err.readNBytes(300);
      return new String(b, StandardCharsets.UTF_8).replaceAll("\\s+", " ").trim();
    } catch (IOException e) {
      return e.toString();
    }
  }

  private static URL resolve(URL base, String location) throws IOException {
    try {
      return base.toURI().resolve(new URI(location)).toURL();
    } catch (URISyntaxException | IllegalArgumentException e) {
      throw new IOException(base + " redirects to a bad location '" + location + "'", e);
    }
  }

  private static String origin(URL u) {
    int port = u.getPort() < 0 ? u.getDefaultPort() : u.getPort();
    return u.getProtocol().toLowerCase(java.util.Locale.ROOT)
        + "://"
        + u.getHost().toLowerCase(java.util.Locale.ROOT)
        + ":"
        + port;
  }

  /**
   * The trust the cluster's {@code ssl-client.xml} gives: its trust store, or the JDK's own trust
   * store when it names none (a certificate from a public authority).
   */
  private static SSLSocketFactory sslFactory(Configuration conf, Path configDir)
      throws IOException {
    Configuration sslConf = new Configuration(false);
    Path file = configDir == null ? null : configDir.resolve("ssl-client.xml");
    if (file != null && Files.isRegularFile(file)) {
      sslConf.addResource(new org.apache.hadoop.fs.Path(file.toUri()));
    } else {
      sslConf.addResource(conf.get("hadoop.ssl.client.conf", "ssl-client.xml"));
    }
    String location = sslConf.get("ssl.client.truststore.location");
    try {
      if (location == null || location.isBlank()) {
        return SSLContext.getDefault().getSocketFactory();
      }
      char[] password = sslConf.getPassword("ssl.client.truststore.password");
      KeyStore trust = KeyStore.getInstance(sslConf.get("ssl.client.truststore.type", "jks"));
      try (InputStream in = Files.newInputStream(Path.of(location))) {
        trust.load(in, password);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx.getSocketFactory();
    } catch (GeneralSecurityException | IOException e) {
      throw new IOException(
          "cannot load the trust store "
              + location
              + " (ssl.client.truststore.location in ssl-client.xml): "
              + e.getMessage(),
          e);
    }
  }
}
