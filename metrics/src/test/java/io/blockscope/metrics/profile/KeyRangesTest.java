package io.blockscope.metrics.profile;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.Test;

/**
 * Key ranges and the endpoint calls made from them, checked against a model of how HBase's {@code
 * HTable.batchCoprocessorService} picks regions ({@code getKeysAndRegionsInRange} with its end key
 * inclusive): the calls must ask exactly the regions the ranges touch, each once.
 */
public class KeyRangesTest {

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  @Test
  public void aScansBoundsBecomeAHalfOpenRange() {
    assertRange("k", "k\0", new KeyRanges().addScan(b("k"), true, b("k"), true, false));
    assertRange("a", "m", new KeyRanges().addScan(b("a"), true, b("m"), false, false));
    assertRange("a\0", "m\0", new KeyRanges().addScan(b("a"), false, b("m"), true, false));
    // reversed: HBase's reversed scan starts at its larger row, and its stop row is left out
    assertRange("c\0", "x\0", new KeyRanges().addScan(b("x"), true, b("c"), false, true));
    assertRange("c", "x", new KeyRanges().addScan(b("x"), false, b("c"), true, true));
    assertRange("", "", new KeyRanges().addScan(b(""), true, b(""), false, false));
    assertRange("q", "", new KeyRanges().addScan(b("q"), true, b(""), true, false));
    assertTrue(new KeyRanges().addScan(b("m"), true, b("a"), false, false).isEmpty());
    assertTrue(new KeyRanges().addScan(b("k"), false, b("k"), true, false).merged().isEmpty());
  }

  @Test
  public void rangesThatOverlapOrTouchAreMerged() {
    KeyRanges r = new KeyRanges().add(b("m"), b("p")).add(b("a"), b("c")).add(b("c"), b("d"));
    r.add(b("n"), b("o")).add(b("x"), b(""));
    r.add(b("z"), b("zz"));
    List<byte[][]> m = r.merged();
    assertEquals(3, m.size());
    assertPair("a", "d", m.get(0));
    assertPair("m", "p", m.get(1));
    assertPair("x", "", m.get(2));
  }

  @Test
  public void aRunOfTheFirstRegionAloneEndsAtTheSmallestRowNotAtTheTablesEnd() {
    List<byte[][]> regions = new ArrayList<>();
    regions.add(new byte[][] {b(""), b("b")});
    List<KeyRanges.Call> calls = KeyRanges.calls(regions);
    assertEquals(1, calls.size());
    assertArrayEquals(b(""), calls.get(0).start());
    assertArrayEquals(new byte[] {0}, calls.get(0).end());
  }

  /** Random split points and random scans: the calls ask the touched regions, each once. */
  @Test
  public void theCallsAskExactlyTheRegionsTheRangesTouch() {
    Random random = new Random(55);
    for (int round = 0; round < 3000; round++) {
      List<byte[][]> table = table(random, random.nextInt(12));
      KeyRanges ranges = new KeyRanges();
      int scans = random.nextInt(5);
      for (int i = 0; i < scans; i++) {
        ranges.addScan(
            row(random),
            random.nextInt(4) != 0,
            random.nextInt(6) == 0 ? b("") : row(random),
            random.nextBoolean(),
            random.nextInt(5) == 0);
      }
      Set<Integer> touched = new TreeSet<>();
      for (byte[][] r : ranges.merged()) {
        for (int i = 0; i < table.size(); i++) {
          byte[][] region = table.get(i);
          boolean beforeEnd = region[1].length == 0 || KeyRanges.compare(r[0], region[1]) < 0;
          boolean afterStart = r[1].length == 0 || KeyRanges.compare(region[0], r[1]) < 0;
          if (beforeEnd && afterStart) {
            touched.add(i);
          }
        }
      }
      List<byte[][]> found = ranges.regions(row -> table.get(holding(table, row)));
      List<Integer> asked = new ArrayList<>();
      int counted = 0;
      for (KeyRanges.Call c : KeyRanges.calls(found)) {
        List<Integer> byCall = hbaseWalk(table, c.start(), c.end());
        assertEquals(c.toString(), c.regions(), byCall.size());
        asked.addAll(byCall);
        counted += c.regions();
      }
      String what = "round " + round + ": " + describe(table) + " ranges " + describe(ranges);
      assertEquals(what, touched.size(), found.size());
      assertEquals(what, new ArrayList<>(touched), asked);
      assertEquals(what, asked.size(), new LinkedHashSet<>(asked).size());
      assertEquals(what, touched.size(), counted);
    }
  }

  @Test
  public void aRegionThatDoesNotHoldTheRowIsRefused() {
    KeyRanges r = new KeyRanges().add(b("m"), b("z"));
    try {
      r.regions(row -> new byte[][] {b("a"), b("c")});
      throw new AssertionError("a location ending before the row was taken");
    } catch (IllegalStateException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("ends at 'c'"));
    }
  }

  /** A model of {@code HTable.getKeysAndRegionsInRange(start, end, true)}: the regions asked. */
  private static List<Integer> hbaseWalk(List<byte[][]> table, byte[] start, byte[] end) {
    boolean toEnd = end.length == 0;
    assertTrue(toEnd || KeyRanges.compare(start, end) <= 0);
    List<Integer> asked = new ArrayList<>();
    byte[] cur = start;
    while (true) {
      int i = holding(table, cur);
      asked.add(i);
      cur = table.get(i)[1];
      if (cur.length == 0 || !(toEnd || KeyRanges.compare(cur, end) <= 0)) {
        return asked;
      }
    }
  }

  private static int holding(List<byte[][]> table, byte[] row) {
    for (int i = 0; i < table.size(); i++) {
      byte[][] r = table.get(i);
      if (KeyRanges.compare(r[0], row) <= 0
          && (r[1].length == 0 || KeyRanges.compare(row, r[1]) < 0)) {
        return i;
      }
    }
    throw new AssertionError("no region holds " + s(row));
  }

  /** A table of {@code splits + 1} regions (split points never the zero row). */
  private static List<byte[][]> table(Random random, int splits) {
    TreeSet<byte[]> points = new TreeSet<>(KeyRanges::compare);
    while (points.size() < splits) {
      byte[] p = row(random);
      if (p.length > 0 && !(p.length == 1 && p[0] == 0)) {
        points.add(p);
      }
    }
    List<byte[][]> regions = new ArrayList<>();
    byte[] start = b("");
    for (byte[] p : points) {
      regions.add(new byte[][] {start, p});
      start = p;
    }
    regions.add(new byte[][] {start, b("")});
    return regions;
  }

  /** A short row over a small alphabet (with the zero byte), so bounds often coincide. */
  private static byte[] row(Random random) {
    byte[] r = new byte[random.nextInt(3)];
    for (int i = 0; i < r.length; i++) {
      r[i] = (byte) "\0abc".charAt(random.nextInt(4));
    }
    return r;
  }

  private static String describe(List<byte[][]> table) {
    StringBuilder b = new StringBuilder();
    for (byte[][] r : table) {
      b.append('[').append(s(r[0]).replace("\0", "0")).append(',');
      b.append(s(r[1]).replace("\0", "0")).append(')');
    }
    return b.toString();
  }

  private static String describe(KeyRanges ranges) {
    return describe(ranges.merged());
  }

  private static void assertRange(String start, String stop, KeyRanges r) {
    List<byte[][]> m = r.merged();
    assertEquals(1, m.size());
    assertPair(start, stop, m.get(0));
  }

  private static void assertPair(String start, String stop, byte[][] r) {
    assertEquals(start, s(r[0]));
    assertEquals(stop, s(r[1]));
  }
}
