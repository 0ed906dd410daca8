package io.blockscope.harness.stock;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Hands out listening ports from {@code [low, high)}, each at most once per JVM, skipping any a
 * socket cannot bind to now. The walk starts at a random offset so that JVMs run one after another
 * do not all try the ports the previous one left in TIME_WAIT.
 */
final class PortRange {
  /** Linux's ephemeral range when {@code ip_local_port_range} cannot be read: 32768 to 60999. */
  static final int DEFAULT_EPHEMERAL_LOW = 32768;

  /** Ports under this are left alone: well-known services and what operators configure by hand. */
  static final int LOWEST = 10000;

  private final int low;
  private final int size;
  private int offset;
  private int handedOut;

  PortRange(int low, int high, int start) {
    if (low < 1 || high > 65536 || high <= low) {
      throw new IllegalArgumentException("bad port range [" + low + ", " + high + ")");
    }
    this.low = low;
    this.size = high - low;
    this.offset = Math.floorMod(start - low, size);
  }

  /** The system property that gives a JVM its slice of the ports: {@code k/n}. */
  static final String SLICE = "blockscope.ports.slice";

  /**
   * The ports from {@link #LOWEST} up to the first port of this machine's ephemeral range; with
   * {@value #SLICE} set to {@code k/n} (a test fork's number and a count of slices), one of n equal
   * slices of them, so that JVMs starting stock clusters at once never hand out one port twice
   * between them.
   */
  static PortRange belowEphemeral() {
    int high =
        Math.max(LOWEST + 1024, ephemeralLow(Path.of("/proc/sys/net/ipv4/ip_local_port_range")));
    int[] range = slice(System.getProperty(SLICE), LOWEST, high);
    return new PortRange(
        range[0], range[1], ThreadLocalRandom.current().nextInt(range[0], range[1]));
  }

  /**
   * {@code [low, high)}'s k-th of n equal slices for {@code k/n}, the whole range for null or
   * empty; a clear error for anything else. A k past n wraps round ({@code n+1} takes the first
   * slice): surefire numbers forks on from 1 without end when it does not reuse them, so n is
   * chosen larger than the forks that ever run at once.
   */
  static int[] slice(String text, int low, int high) {
    if (text == null || text.isBlank()) {
      return new int[] {low, high};
    }
    String[] kn = text.trim().split("/");
    int k;
    int n;
    try {
      if (kn.length != 2) {
        throw new NumberFormatException();
      }
      k = Integer.parseInt(kn[0].trim());
      n = Integer.parseInt(kn[1].trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(SLICE + " '" + text + "': expected k/n, e.g. 1/2");
    }
    int width = (high - low) / Math.max(n, 1);
    if (n < 1 || k < 1 || width < 64) {
      throw new IllegalArgumentException(
          SLICE + " '" + text + "': k and n at least 1, and slices of at least 64 ports");
    }
    int i = (k - 1) % n;
    return new int[] {low + i * width, i == n - 1 ? high : low + (i + 1) * width};
  }

  /** The first line's first number of {@code rangeFile}, or the Linux default if unreadable. */
  static int ephemeralLow(Path rangeFile) {
    try {
      String[] fields = Files.readString(rangeFile, StandardCharsets.US_ASCII).trim().split("\\s+");
      int low = Integer.parseInt(fields[0]);
      return low > LOWEST && low <= 65535 ? low : DEFAULT_EPHEMERAL_LOW;
    } catch (IOException | RuntimeException e) {
      return DEFAULT_EPHEMERAL_LOW;
    }
  }

  /** The next port of the range that binds now; every port is handed out at most once. */
  synchronized int next() {
    while (handedOut < size) {
      int port = low + offset;
      offset = (offset + 1) % size;
      handedOut++;
      if (bindable(port)) {
        return port;
      }
    }
    throw new IllegalStateException(
        "every port of [" + low + ", " + (low + size) + ") has been handed out or is in use");
  }

  /** Whether a listener can bind {@code port} on every address now (no reuse of TIME_WAIT). */
  static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
