package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.Test;

public class TopSessionTest {
  private static final String RS = "rs1.example.com,16020,1";

  private static String region(String table, String region, String name) {
    return "blockscope:type=Region,table=" + table + ",region=" + region + ",name=" + name;
  }

  private static String table(String table, String name) {
    return "blockscope:type=Table,table=" + table + ",name=" + name;
  }

  /**
   * Two namespaces, three tables, four regions, one user; ns1:big reads the most, from the
   * memstore.
   */
  private static TopView view() {
    Map<String, Long> after =
        Map.ofEntries(
            Map.entry(table("\"ns1:big\"", "blockCache.miss.data"), 30L),
            Map.entry(table("\"ns1:big\"", "memstore.cells"), 900L),
            Map.entry(table("\"ns1:big\"", "memstore.bytes"), 2L * 1024 * 1024),
            Map.entry(region("\"ns1:big\"", "r1", "blockCache.miss.data"), 20L),
            Map.entry(region("\"ns1:big\"", "r2", "blockCache.miss.data"), 10L),
            Map.entry(table("\"ns1:small\"", "blockCache.miss.data"), 5L),
            Map.entry(region("\"ns1:small\"", "r3", "blockCache.miss.data"), 5L),
            Map.entry(table("plain", "blockCache.miss.data"), 50L),
            Map.entry(region("plain", "r4", "blockCache.miss.data"), 50L),
            Map.entry("blockscope:type=User,user=alice,name=blockCache.miss.data", 85L));
    return TopView.between(
        List.of(new TopView.ServerReading(RS, null, Map.of())),
        List.of(new TopView.ServerReading(RS, null, after)),
        1_000_000_000L);
  }

  @Test
  public void namespacesAddUpTheirTablesAndMemstoreReadsAreFigures() {
    TopView v = view();
    TopView.Row ns1 =
        v.namespaces.stream().filter(r -> r.table().equals("ns1")).findFirst().orElseThrow();
    assertEquals(35, ns1.count(TopView.Figure.MISSES));
    assertEquals(900, ns1.count(TopView.Figure.MEMSTORE_CELLS));
    assertEquals(2.0, v.perSecond(ns1, TopView.Figure.MEMSTORE_BYTES), 1e-9);
    assertEquals(
        List.of("default", "ns1"), v.namespaces.stream().map(TopView.Row::table).sorted().toList());
    assertEquals(TopView.Figure.MEMSTORE_CELLS, TopView.Figure.parse("memstore-cells"));
    assertEquals("memstore-bytes", TopView.Figure.MEMSTORE_BYTES.option());
  }

  @Test
  public void scopesShowAModeWithinAParentAndMatchingAFilter() {
    TopView v = view();
    TopView.Scope tablesOfNs1 = new TopView.Scope(TopView.Mode.TABLE, "ns1", null);
    assertEquals(
        List.of("ns1:big", "ns1:small"),
        v.shown(tablesOfNs1, TopView.Figure.MISSES).stream().map(TopView.Row::table).toList());
    TopView.Scope regionsOfBig = new TopView.Scope(TopView.Mode.REGION, "ns1:big", null);
    assertEquals(
        List.of("r1", "r2"),
        v.shown(regionsOfBig, TopView.Figure.MISSES).stream().map(TopView.Row::region).toList());
    TopView.Scope filtered = new TopView.Scope(TopView.Mode.TABLE, null, "SMALL");
    assertEquals(
        List.of("ns1:small"),
        v.shown(filtered, TopView.Figure.MISSES).stream().map(TopView.Row::table).toList());
    assertEquals(
        "tables in namespace ns1 matching 'x'",
        new TopView.Scope(TopView.Mode.TABLE, "ns1", "x").describe());
    String text = v.text(TopView.Figure.MISSES, 10, "12:00:00", regionsOfBig, 1);
    assertTrue(text, text.contains("regions of table ns1:big: 2 of 4\n"));
    assertTrue(text, text.contains("\n  ns1:big/r1 (" + RS + ")"));
    assertTrue(text, text.contains("\n> ns1:big/r2 (" + RS + ")"));
    String csv = v.csv(TopView.Figure.MISSES, "ns1");
    assertTrue(csv, csv.contains("\nnamespace,ns1,,,1.000,0,35,"));
    assertFalse(csv, csv.contains("plain"));
    assertTrue(v.json(TopView.Figure.MISSES).contains("\"namespace\": \"default\""));
  }

  @Test
  public void keysChangeModeSortFilterAndDrillDownAndBackUp() {
    TopView v = view();
    TopSession s = new TopSession(TopView.Mode.TABLE, null, TopView.Figure.MISSES);
    assertTrue(s.key('n', v));
    assertEquals(TopView.Mode.NAMESPACE, s.scope().mode());
    // namespaces by misses: ns1 (35), default (50): default first, ns1 second
    assertTrue(s.key(TopSession.DOWN, v));
    assertEquals(1, s.selected());
    assertTrue(s.key(TopSession.DOWN, v));
    assertEquals("the selection stops at the last row", 1, s.selected());
    assertTrue(s.key(TopSession.ENTER, v));
    assertEquals(new TopView.Scope(TopView.Mode.TABLE, "ns1", null), s.scope());
    assertEquals(0, s.selected());
    assertTrue(s.key(TopSession.ENTER, v)); // ns1:big, the busier
    assertEquals(new TopView.Scope(TopView.Mode.REGION, "ns1:big", null), s.scope());
    assertTrue(s.key(TopSession.ENTER, v));
    assertTrue(s.screen(v, 10, "t", 1).endsWith("a region is the finest level; u goes back up\n"));
    assertTrue(s.key('u', v));
    assertEquals(new TopView.Scope(TopView.Mode.TABLE, "ns1", null), s.scope());
    assertTrue(s.key('u', v));
    assertEquals(new TopView.Scope(TopView.Mode.NAMESPACE, null, null), s.scope());

    for (int k : "/SM".chars().toArray()) {
      assertTrue(s.key(k, v));
    }
    assertTrue(s.screen(v, 10, "t", 1).endsWith("filter: SM_\n"));
    assertTrue(s.key(TopSession.BACKSPACE, v));
    assertTrue(s.key('m', v));
    assertTrue(s.key(TopSession.ENTER, v));
    assertEquals("Sm", s.scope().filter());
    assertTrue(s.key('t', v));
    assertNull("a new mode starts unfiltered", s.scope().filter());
    assertTrue(s.key('/', v));
    assertTrue(s.key('x', v));
    assertTrue(s.key(TopSession.ESCAPE, v));
    assertNull("Escape drops what was typed", s.scope().filter());

    assertTrue(s.key('<', v));
    assertEquals(TopView.Figure.HITS, s.sort());
    assertTrue(s.key('<', v));
    assertEquals("the sort wraps", TopView.Figure.MEMSTORE_BYTES, s.sort());
    assertTrue(s.key('>', v));
    assertEquals(TopView.Figure.HITS, s.sort());

    assertTrue(s.key('w', v));
    assertEquals(new TopView.Scope(TopView.Mode.USER, null, null), s.scope());
    assertTrue(s.key(TopSession.ENTER, v));
    assertTrue(
        s.screen(v, 10, "t", 1)
            .endsWith("a user's reads are summed over every table; t shows the tables\n"));
    assertTrue(s.key('u', v));
    assertEquals(TopView.Mode.USER, s.scope().mode());
    assertTrue(s.key('t', v));

    assertTrue(s.key('h', v));
    assertTrue(s.screen(v, 10, "t", 1).startsWith("blockscope top: keys"));
    assertTrue(s.key('z', v)); // any key leaves the help
    assertTrue(s.key('z', v));
    assertTrue(s.screen(v, 10, "t", 1).endsWith("no key 'z': h for help\n"));
    assertFalse(s.key('q', v));
  }

  @Test
  public void beforeTheFirstViewKeysChangeTheStateAndDrillFindsNothing() {
    TopSession s = new TopSession(TopView.Mode.TABLE, "x", TopView.Figure.MISSES);
    assertTrue(s.screen(null, 10, null, 5).startsWith("blockscope top: first view in 5 s"));
    assertTrue(s.key(TopSession.ENTER, null));
    assertTrue(s.screen(null, 10, null, 5).endsWith("no row to drill into\n"));
    assertTrue(s.key(TopSession.DOWN, null));
    assertEquals(0, s.selected());
  }

  @Test
  public void theTerminalsBytesBecomeKeys() throws Exception {
    LinkedBlockingQueue<Integer> keys = new LinkedBlockingQueue<>();
    byte[] typed = {'n', 27, '[', 'A', 27, '[', 'B', '\r', 127, 8, 'q'};
    Terminal.readKeys(new ByteArrayInputStream(typed), keys);
    assertEquals(
        List.of(
            (int) 'n',
            TopSession.UP,
            TopSession.DOWN,
            TopSession.ENTER,
            TopSession.BACKSPACE,
            TopSession.BACKSPACE,
            (int) 'q'),
        List.copyOf(keys));
    keys.clear();
    Terminal.readKeys(new ByteArrayInputStream(new byte[] {27}), keys);
    assertEquals("Escape alone", List.of(TopSession.ESCAPE), List.copyOf(keys));
  }
}
