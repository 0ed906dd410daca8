package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * What the command line will and will not do when it reads an info server, against a real HTTP
 * server on loopback: it follows a redirect on the same host and port, refuses one to another port,
 * bounds the size of a reply, and reports a refusal with the server's status. (HTTPS and SPNEGO run
 * against a Kerberos cluster in release-it.)
 */
public class InfoServerClientTest {
  private HttpServer server;
  private HttpServer other;
  private final AtomicInteger served = new AtomicInteger();

  @Before
  public void start() throws IOException {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    server = HttpServer.create(new InetSocketAddress(loopback, 0), 0);
    other = HttpServer.create(new InetSocketAddress(loopback, 0), 0);
    server.createContext("/jmx", x -> reply(x, 200, "{\"beans\":[]}"));
    server.createContext("/big", x -> reply(x, 200, "x".repeat(3 * 1024 * 1024)));
    server.createContext(
        "/moved", x -> redirect(x, "http://127.0.0.1:" + port(server) + "/jmx?qry=a"));
    server.createContext("/away", x -> redirect(x, "http://127.0.0.1:" + port(other) + "/jmx"));
    server.createContext("/loop", x -> redirect(x, "/loop"));
    server.createContext("/denied", x -> reply(x, 403, "not for you"));
    server.createContext(
        "/basic",
        x -> {
          x.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"hbase\"");
          reply(x, 401, "who are you");
        });
    server.createContext(
        "/trickle",
        x -> {
          x.sendResponseHeaders(200, 0); // chunked: a byte every 100 ms for as long as it may
          try (var body = x.getResponseBody()) {
            for (int i = 0; i < 600; i++) {
              body.write('x');
              body.flush();
              Thread.sleep(100);
            }
          } catch (IOException | InterruptedException gone) {
            // the client hung up
          }
        });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    other.createContext("/jmx", x -> reply(x, 200, "elsewhere"));
    server.start();
    other.start();
  }

  @After
  public void stop() {
    server.stop(0);
    other.stop(0);
  }

  private InfoServerClient client(long maxBytes) throws IOException {
    return new InfoServerClient(new Configuration(false), null, null, maxBytes);
  }

  @Test
  public void readsAReplyAndFollowsARedirectOnTheSameServer() throws IOException {
    InfoServerClient c = client(1 << 20);
    assertEquals("http", c.scheme());
    assertEquals("{\"beans\":[]}", c.get("127.0.0.1", port(server), "/jmx?qry=blockscope:*"));
    assertEquals("{\"beans\":[]}", c.get("127.0.0.1", port(server), "/moved"));
  }

  @Test
  public void refusesARedirectToAnotherPortAndEndlessRedirects() throws IOException {
    InfoServerClient c = client(1 << 20);
    IOException away =
        assertThrows(IOException.class, () -> c.get("127.0.0.1", port(server), "/away"));
    assertTrue(away.getMessage(), away.getMessage().contains("refusing a redirect"));
    assertEquals("the other server was never asked", 0, served.get());
    IOException loop =
        assertThrows(IOException.class, () -> c.get("127.0.0.1", port(server), "/loop"));
    assertTrue(loop.getMessage(), loop.getMessage().contains("no usable redirect"));
  }

  @Test
  public void aReplyOverTheLimitIsRefusedWithTheOptionToRaiseIt() throws IOException {
    IOException big =
        assertThrows(
            IOException.class, () -> client(2L << 20).get("127.0.0.1", port(server), "/big"));
    assertTrue(big.getMessage(), big.getMessage().contains("more than 2 MB; raise --max-reply-mb"));
    assertEquals(3 * 1024 * 1024, client(4L << 20).get("127.0.0.1", port(server), "/big").length());
  }

  /**
   * A server that keeps sending, a byte at a time, is cut off when the whole reply has taken longer
   * than its limit, though no single read waits long.
   */
  @Test(timeout = 60_000)
  public void aTricklingReplyIsCutOffAtTheReplyLimit() throws IOException {
    InfoServerClient c =
        new InfoServerClient(new Configuration(false), null, null, 1 << 20, Duration.ofSeconds(1));
    long start = System.nanoTime();
    IOException slow =
        assertThrows(IOException.class, () -> c.get("127.0.0.1", port(server), "/trickle"));
    assertTrue(slow.getMessage(), slow.getMessage().contains("took more than 1.0 s to send"));
    assertTrue(
        "cut off long before the server's 60 s", System.nanoTime() - start < 30_000_000_000L);
  }

  @Test
  public void aRefusalSaysWhatTheServerAnswered() throws IOException {
    InfoServerClient c = client(1 << 20);
    IOException denied =
        assertThrows(IOException.class, () -> c.get("127.0.0.1", port(server), "/denied"));
    assertTrue(denied.getMessage(), denied.getMessage().contains("HTTP 403: not for you"));
    IOException basic =
        assertThrows(IOException.class, () -> c.get("127.0.0.1", port(server), "/basic"));
    assertTrue(basic.getMessage(), basic.getMessage().contains("HTTP 401"));
  }

  private static int port(HttpServer s) {
    return s.getAddress().getPort();
  }

  private void redirect(HttpExchange x, String location) throws IOException {
    x.getResponseHeaders().add("Location", location);
    x.sendResponseHeaders(302, -1);
    x.close();
  }

  private void reply(HttpExchange x, int code, String body) throws IOException {
    if (x.getHttpContext().getServer() == other) {
      served.incrementAndGet();
    }
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    x.sendResponseHeaders(code, b.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(b);
    }
  }
}
