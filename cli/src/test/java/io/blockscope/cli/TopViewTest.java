package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.Test;

public class TopViewTest {
  private static final String RS1 = "rs1.example.com,16020,1";
  private static final String RS2 = "rs2.example.com,16020,2";

  private static String region(String table, String region, String name) {
    return "blockscope:type=Region,table=" + table + ",region=" + region + ",name=" + name;
  }

  private static String table(String table, String name) {
    return "blockscope:type=Table,table=" + table + ",name=" + name;
  }

  private static String probe(String p, String name) {
    return "blockscope:type=Probe,probe=" + p + ",name=" + name;
  }

  @Test
  public void countsAreDifferencesAndACounterThatWentDownOrIsNewCountsFromZero() {
    assertEquals(5, TopView.delta(10L, 15));
    assertEquals(3, TopView.delta(10L, 3)); // restarted: counts from zero
    assertEquals(7, TopView.delta(null, 7)); // appeared in between
  }

  @Test
  public void tablesAddUpOverServersAndRegionsKeepTheirServer() {
    List<TopView.ServerReading> before =
        List.of(
            new TopView.ServerReading(
                RS1,
                null,
                Map.of(
                    table("t", "blockCache.miss.data"), 10L,
                    region("t", "a", "blockCache.miss.data"), 10L,
                    probe("decode", "failures"), 1L)),
            new TopView.ServerReading(RS2, null, Map.of()));
    List<TopView.ServerReading> after =
        List.of(
            new TopView.ServerReading(
                RS1,
                null,
                Map.of(
                    table("t", "blockCache.miss.data"),
                    30L,
                    table("t", "blockCache.miss.bloom"),
                    2L,
                    table("t", "fs.read.bytes.data"),
                    2L * 1024 * 1024,
                    region("t", "a", "blockCache.miss.data"),
                    30L,
                    probe("decode", "installed"),
                    1L,
                    probe("decode", "failures"),
                    4L,
                    probe("decompress", "installed"),
                    0L,
                    "blockscope:type=Server,name=regions.open",
                    3L)),
            new TopView.ServerReading(
                RS2,
                null,
                Map.of(
                    table("\"ns:t\"", "decode.FAST_DIFF.cells"), 500L,
                    table("\"ns:t\"", "decode.FAST_DIFF.nanos"), 4_000_000L,
                    table("t", "blockCache.miss.data"), 5L,
                    region("\"ns:t\"", "b", "decode.FAST_DIFF.cells"), 500L)),
            TopView.ServerReading.failed("rs3.example.com,16020,3", "no info port"));
    TopView v = TopView.between(before, after, 2_000_000_000L);
    assertEquals(2.0, v.seconds, 0);
    // t: 20 + 2 misses on rs1, 5 new on rs2
    TopView.Row t = v.tables.stream().filter(r -> r.table().equals("t")).findFirst().orElseThrow();
    assertEquals(27, t.count(TopView.Figure.MISSES));
    assertEquals(1.0, v.perSecond(t, TopView.Figure.FS_BYTES), 1e-9); // 2 MiB in 2 s
    TopView.Row ns =
        v.tables.stream().filter(r -> r.table().equals("ns:t")).findFirst().orElseThrow();
    assertEquals(500, ns.count(TopView.Figure.CELLS));
    assertEquals(2.0, v.perSecond(ns, TopView.Figure.DECODE), 1e-9); // 4 ms in 2 s
    assertEquals(2, v.regions.size());
    TopView.Row a = TopView.top(v.regions, TopView.Figure.MISSES, 1).get(0);
    assertEquals("a", a.region());
    assertEquals(RS1, a.server());
    assertEquals(20, a.count(TopView.Figure.MISSES));
    TopView.Server rs1 = v.servers.get(0);
    assertEquals(1, rs1.probesInstalled());
    assertEquals(2, rs1.probes());
    assertEquals(3, rs1.failures());
    assertEquals(3, rs1.regions());
    assertNull(rs1.error());
    assertEquals("no info port", v.servers.get(2).error());

    String text = v.text(TopView.Figure.MISSES, 10, "12:00:00");
    assertTrue(text, text.startsWith("blockscope top: 3 region servers, 2.0 s interval"));
    assertTrue(text, text.contains("unreadable: no info port"));
    assertTrue(text, text.contains("t/a (" + RS1 + ")"));
    String csv = v.csv(TopView.Figure.MISSES);
    assertTrue(csv, csv.startsWith("scope,table,region,server,seconds,hits,misses,"));
    assertTrue(csv, csv.contains("\ntable,t,,,2.000,0,27,"));
    assertTrue(csv, csv.contains("\nregion,t,a,\"" + RS1 + "\",2.000,0,20,"));
    String json = v.json(TopView.Figure.MISSES);
    assertTrue(json, json.contains("\"sortedBy\": \"misses\""));
    assertTrue(json, json.contains("\"probeFailures\": 3"));
  }

  private static String user(String user, String name) {
    return "blockscope:type=User,user=" + user + ",name=" + name;
  }

  /**
   * A user's row sums the user's accounts over the servers (a quoted name unquoted), and {@code
   * (other)} is a row like any user's; the users' rows are in the text, CSV and JSON views.
   */
  @Test
  public void usersAddUpOverServers() {
    List<TopView.ServerReading> before =
        List.of(
            new TopView.ServerReading(
                RS1, null, Map.of(user("alice", "blockCache.miss.data"), 10L)),
            new TopView.ServerReading(RS2, null, Map.of()));
    List<TopView.ServerReading> after =
        List.of(
            new TopView.ServerReading(
                RS1,
                null,
                Map.of(
                    user("alice", "blockCache.miss.data"), 16L,
                    user("alice", "blockCache.hit.data"), 40L,
                    user("(other)", "blockCache.hit.data"), 3L)),
            new TopView.ServerReading(
                RS2,
                null,
                Map.of(
                    user("alice", "blockCache.miss.leafIndex"), 1L,
                    user("\"bob,x\"", "decode.FAST_DIFF.cells"), 900L,
                    table("t", "blockCache.miss.data"), 99L)));
    TopView v = TopView.between(before, after, 1_000_000_000L);
    assertEquals(
        List.of("(other)", "alice", "bob,x"), v.users.stream().map(TopView.Row::table).toList());
    TopView.Row alice = v.users.get(1);
    assertEquals(7, alice.count(TopView.Figure.MISSES)); // 6 on rs1, 1 new on rs2
    assertEquals(40, alice.count(TopView.Figure.HITS));
    assertEquals(900, v.users.get(2).count(TopView.Figure.CELLS));
    TopView.Scope users = new TopView.Scope(TopView.Mode.parse("user"), null, null);
    assertEquals("users", users.describe());
    String text = v.text(TopView.Figure.HITS, 10, "12:00:00", users, -1);
    assertTrue(text, text.contains("users: 3 of 3"));
    assertTrue(text, text.indexOf("alice") < text.indexOf("(other)"));
    assertTrue(
        v.csv(TopView.Figure.HITS),
        v.csv(TopView.Figure.HITS).contains("\nuser,alice,,,1.000,40,7,"));
    String json = v.json(TopView.Figure.HITS);
    assertTrue(json, json.contains("\"user\": \"bob,x\""));
  }

  @Test
  public void blockCacheInsertsAndUnreadEvictionsAreTheTablesOfEveryKind() {
    assertEquals(TopView.Figure.CACHE_INSERTS, TopView.Figure.of("blockCache.inserted.data"));
    assertEquals(TopView.Figure.CACHE_INSERTS, TopView.Figure.of("blockCache.inserted.bloom"));
    assertEquals(
        TopView.Figure.CACHE_UNREAD, TopView.Figure.of("blockCache.evictedUnread.leafIndex"));
    assertNull(TopView.Figure.of("blockCache.evicted.data"));
    assertNull(TopView.Figure.of("blockCache.removed.data"));
    assertEquals(TopView.Figure.CACHE_UNREAD, TopView.Figure.parse("cache-unread"));
  }

  @Test
  public void sortKeysAreCheckedByName() {
    assertEquals(TopView.Figure.FS_BYTES, TopView.Figure.parse("fs-bytes"));
    assertEquals(TopView.Figure.MISSES, TopView.Figure.parse("MISSES"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> TopView.Figure.parse("speed"));
    assertTrue(e.getMessage(), e.getMessage().startsWith("bad --sort 'speed'"));
  }
}
