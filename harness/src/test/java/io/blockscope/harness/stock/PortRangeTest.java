package io.blockscope.harness.stock;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.Test;

public class PortRangeTest {
  @Test
  public void handsOutEachPortOnceFromTheStartAndWrapsAround() {
    PortRange r = new PortRange(21000, 21003, 21001);
    Set<Integer> seen = new HashSet<>();
    int first = r.next();
    seen.add(first);
    seen.add(r.next());
    seen.add(r.next());
    assertEquals(21001, first);
    assertEquals(Set.of(21000, 21001, 21002), seen);
    IllegalStateException e = assertThrows(IllegalStateException.class, r::next);
    assertTrue(e.getMessage(), e.getMessage().contains("[21000, 21003)"));
  }

  @Test
  public void skipsAPortSomeoneListensOn() throws IOException {
    try (ServerSocket held = new ServerSocket()) {
      held.bind(new InetSocketAddress(0));
      int port = held.getLocalPort();
      assertFalse(PortRange.bindable(port));
      PortRange r = new PortRange(port, port + 2, port);
      assertEquals(port + 1, r.next());
    }
  }

  @Test
  public void staysBelowTheEphemeralRange() throws IOException {
    Path f = Files.createTempFile("ip_local_port_range", "");
    try {
      Files.writeString(f, "32768\t60999\n", StandardCharsets.US_ASCII);
      assertEquals(32768, PortRange.ephemeralLow(f));
      Files.writeString(f, "50000 65000", StandardCharsets.US_ASCII);
      assertEquals(50000, PortRange.ephemeralLow(f));
      Files.writeString(f, "junk", StandardCharsets.US_ASCII);
      assertEquals(PortRange.DEFAULT_EPHEMERAL_LOW, PortRange.ephemeralLow(f));
      Files.writeString(f, "1024 65000", StandardCharsets.US_ASCII);
      assertEquals(PortRange.DEFAULT_EPHEMERAL_LOW, PortRange.ephemeralLow(f));
    } finally {
      Files.delete(f);
    }
    assertEquals(PortRange.DEFAULT_EPHEMERAL_LOW, PortRange.ephemeralLow(Path.of("/no/such/file")));
    int ephemeralLow = PortRange.ephemeralLow(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
    Set<Integer> handedOut = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      int p = StockCluster.freePort();
      assertTrue(p + " not below " + ephemeralLow, p >= PortRange.LOWEST && p < ephemeralLow);
      assertTrue(p + " handed out twice", handedOut.add(p));
    }
  }

  @Test
  public void refusesAnEmptyRange() {
    assertThrows(IllegalArgumentException.class, () -> new PortRange(5000, 5000, 5000));
  }

  @Test
  public void slicesAreDisjointAndCoverTheRange() {
    int[] first = PortRange.slice("1/2", 10000, 32768);
    int[] second = PortRange.slice("2/2", 10000, 32768);
    assertEquals(10000, first[0]);
    assertEquals(first[1], second[0]);
    assertEquals(32768, second[1]);
    assertEquals(21384, first[1]);
    assertArrayEquals(new int[] {10000, 32768}, PortRange.slice(null, 10000, 32768));
    assertArrayEquals(new int[] {10000, 32768}, PortRange.slice(" ", 10000, 32768));
    for (String bad : List.of("2", "0/2", "-1/2", "1/0", "a/b", "1/2/3", "1/1000")) {
      IllegalArgumentException e =
          assertThrows(
              bad, IllegalArgumentException.class, () -> PortRange.slice(bad, 10000, 32768));
      assertTrue(e.getMessage(), e.getMessage().contains(PortRange.SLICE));
    }
  }

  @Test
  public void forkNumbersPastTheCountWrapRound() {
    // surefire without reused forks numbers them 1, 2, 3, ... however many run at once
    assertArrayEquals(PortRange.slice("1/8", 10000, 32768), PortRange.slice("9/8", 10000, 32768));
    assertArrayEquals(PortRange.slice("8/8", 10000, 32768), PortRange.slice("16/8", 10000, 32768));
    assertArrayEquals(PortRange.slice("3/8", 10000, 32768), PortRange.slice("3/8", 10000, 32768));
    assertEquals(32768, PortRange.slice("16/8", 10000, 32768)[1]);
    int[] third = PortRange.slice("3/8", 10000, 32768);
    int[] fourth = PortRange.slice("4/8", 10000, 32768);
    assertEquals(third[1], fourth[0]);
  }
}
