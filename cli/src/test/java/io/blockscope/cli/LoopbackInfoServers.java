package io.blockscope.cli;

import com.sun.net.httpserver.HttpServer;
import io.blockscope.metrics.MetricKeys;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.apache.hadoop.conf.Configuration;

/**
 * Region servers' info servers on loopback, for {@code top}'s refresh path without a cluster: each
 * one a JDK HTTP server on 127.0.0.1 answering as the recorded stock region server answered (its
 * answer to {@code top}'s query for {@code /jmx?qry=blockscope:*}, its whole {@code /jmx} for
 * {@code /jmx}), except the stalled ones, which take connections (the kernel completes the
 * handshake) and never answer. Public for the benchmarks module ({@code TopRefresh}), which times
 * the same refresh.
 */
public final class LoopbackInfoServers implements AutoCloseable {
  /**
   * What a server answers: {@code query} to {@code top}'s query, {@code whole} to {@code /jmx};
   * with {@code query} null, {@code whole} to every request (a server that ignores the query).
   */
  public static final class Replies {
    private final byte[] whole;
    private final byte[] query;

    private Replies(byte[] whole, byte[] query) {
      this.whole = whole;
      this.query = query;
    }

    /** The whole {@code /jmx}'s length in bytes. */
    public int wholeBytes() {
      return whole.length;
    }

    /** The length in bytes of the answer to {@code top}'s query. */
    public int queryBytes() {
      return query.length;
    }

    /**
     * The replies of a stock region server with blockscope and 1,000 regions, recorded by
     * release-it's {@code JmxRecorder} (this module's test resources, {@code jmx/}).
     */
    public static Replies recorded() throws IOException {
      return new Replies(
          unzipped("jmx-1000-regions.json.gz"), unzipped("jmx-1000-regions-blockscope.json.gz"));
    }

    /** The whole {@code /jmx} alone, to every request. */
    public Replies wholeOnly() {
      return new Replies(whole, null);
    }

    /** What a server answers to {@code pathAndQuery}, or null for a request not recorded. */
    byte[] to(String pathAndQuery) {
      if (query == null || pathAndQuery.equals("/jmx")) {
        return whole;
      }
      return pathAndQuery.equals(TOP_QUERY) ? query : null;
    }
  }

  /** The request {@code top} sends, as {@code BeanReader} sends it. */
  private static final String TOP_QUERY =
      "/jmx?qry=" + URLEncoder.encode(MetricKeys.allBeans().toString(), StandardCharsets.UTF_8);

  private final List<HttpServer> answering = new ArrayList<>();
  private final List<ServerSocket> stalled = new ArrayList<>();
  private final List<Top.InfoServer> servers = new ArrayList<>();

  private static byte[] unzipped(String name) throws IOException {
    try (InputStream in = LoopbackInfoServers.class.getResourceAsStream("/jmx/" + name)) {
      if (in == null) {
        throw new IOException("no test resource jmx/" + name);
      }
      try (InputStream unzipped = new GZIPInputStream(in)) {
        return unzipped.readAllBytes();
      }
    }
  }

  /**
   * {@code count} servers answering with {@code replies}, the first {@code stalls} of them stalled,
   * named {@code loopback-<i>} in the order they are read.
   */
  public static LoopbackInfoServers start(Replies replies, int count, int stalls)
      throws IOException {
    LoopbackInfoServers s = new LoopbackInfoServers();
    InetAddress loopback = InetAddress.getLoopbackAddress();
    try {
      for (int i = 0; i < count; i++) {
        int port;
        if (i < stalls) {
          ServerSocket never = new ServerSocket(0, 50, loopback);
          s.stalled.add(never);
          port = never.getLocalPort();
        } else {
          HttpServer http = HttpServer.create(new InetSocketAddress(loopback, 0), 50);
          http.createContext(
              "/",
              exchange -> {
                byte[] body = replies.to(exchange.getRequestURI().toString());
                if (body == null) {
                  exchange.sendResponseHeaders(404, -1);
                  exchange.close();
                  return;
                }
                exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf8");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                  out.write(body);
                }
              });
          http.start();
          s.answering.add(http);
          port = http.getAddress().getPort();
        }
        s.servers.add(new Top.InfoServer("loopback-" + i, loopback.getHostAddress(), port));
      }
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  /** The servers, as {@code top} lists the live region servers and their info ports. */
  List<Top.InfoServer> servers() {
    return servers;
  }

  /** {@code top}'s refreshes of these servers over plain HTTP, on {@code readers} threads. */
  public Refreshes refreshes(int readers) throws IOException {
    return new Refreshes(readers);
  }

  /** What one refresh gave: the servers read and their values in all, and the others' reasons. */
  public record Result(int read, long values, List<String> unreadable) {}

  /** Refreshes of these servers as {@code top} makes them, one {@link ServerReads} throughout. */
  public final class Refreshes implements AutoCloseable {
    private final InfoServerClient http;
    private final ServerReads reads;

    private Refreshes(int readers) throws IOException {
      this.http = new InfoServerClient(new Configuration(false), null, null, 1L << 30);
      this.reads = new ServerReads(readers);
    }

    /** One refresh's readings, in the servers' order. */
    List<TopView.ServerReading> read(Duration deadline) throws InterruptedException {
      return Top.http(http, servers, reads, deadline);
    }

    /** One refresh, summed. */
    public Result refresh(Duration deadline) throws InterruptedException {
      int read = 0;
      long values = 0;
      List<String> unreadable = new ArrayList<>();
      for (TopView.ServerReading r : read(deadline)) {
        if (r.error() == null) {
          read++;
          values += r.values().size();
        } else {
          unreadable.add(r.server() + ": " + r.error());
        }
      }
      return new Result(read, values, unreadable);
    }

    @Override
    public void close() {
      reads.close();
    }
  }

  @Override
  public void close() {
    answering.forEach(h -> h.stop(0));
    for (ServerSocket s : stalled) {
      try {
        s.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
