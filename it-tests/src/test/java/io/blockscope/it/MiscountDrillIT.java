package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.Diagnostics;
import io.blockscope.coprocessor.Diagnostics.Miscount;
import io.blockscope.coprocessor.probe.ProbeBridge;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.Test;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;

/**
 * The suite's sensitivity drill: blockscope is made to miscount on purpose, one way at a time (each
 * probe doubling or dropping every other event, costs attributed to the wrong region or the wrong
 * query), and the exact-count tests must then fail. A miscount that no test catches is a missing
 * test.
 *
 * <p>The short form (the default, in CI) runs, for each miscount, the tests {@link #CATCHERS}
 * names, and checks that each of them passes without the miscount and fails with it. The long form
 * ({@code -Dblockscope.drill=full}) runs every test of {@link #SUITES} under every miscount and
 * prints the table of docs/relationships.md, miscount by the tests that caught it.
 */
public class MiscountDrillIT extends ClusterTestBase {

  /** One way of miscounting: a probe (-1 for the wrong attributions) and what it does. */
  record Drill(String name, Miscount how, int probe) {
    @Override
    public String toString() {
      return name;
    }
  }

  static final List<Drill> DRILLS = drills();

  private static List<Drill> drills() {
    List<Drill> d = new ArrayList<>();
    for (int p = 0; p < ProbeBridge.N_PROBES; p++) {
      if (p == ProbeBridge.RPC_CALL) {
        continue; // counts nothing
      }
      d.add(new Drill(ProbeBridge.PROBE_NAMES[p] + " doubled", Miscount.DOUBLE, p));
      d.add(new Drill(ProbeBridge.PROBE_NAMES[p] + " halved", Miscount.DROP_EVERY_OTHER, p));
    }
    d.add(new Drill("wrong region", Miscount.WRONG_REGION, -1));
    d.add(new Drill("wrong query", Miscount.WRONG_QUERY, -1));
    return d;
  }

  /** The relationship, profile and JMX suites: what the long form runs under every miscount. */
  static final List<Class<?>> SUITES =
      List.of(
          DecodeWorkRelationsIT.class,
          ReadCostIT.class,
          ChecksumRelationsIT.class,
          SeekRelationsIT.class,
          PhoenixNoCacheIT.class,
          HintsProfileIT.class,
          JmxScrapeIT.class,
          LevelsAndLifecycleIT.class,
          BlockCacheRelationsIT.class,
          MemstoreReadsIT.class);

  private static final String DECODE_WORK =
      "DecodeWorkRelationsIT#decompressionFollowsBlocksReadAndDecodingIsZeroWithoutEncoding";
  private static final String DECODE_CELLS =
      "DecodeWorkRelationsIT#decodingFollowsCellsVisitedEvenWhenEveryBlockIsACacheHit";
  private static final String CHECKSUM =
      "ChecksumRelationsIT#hbaseVerifiesEveryByteItReadsAndNoneWhenVerificationIsOff";
  private static final String COLD_SCAN =
      "ReadCostIT#coldScanMissesMatchCacheStatsAndTheBlocksItCached";
  private static final String GZ_SCAN =
      "ReadCostIT#gzTableDecompressesEveryBlockItReadsFromTheFileSystem";
  private static final String PROFILE = "HintsProfileIT#aScansProfileIsWhatEachRegionSpentOnIt";
  private static final String MEMSTORE =
      "MemstoreReadsIT#everyCellAReadLandsOnInTheMemstoreCountsWithItsBytes";
  private static final String MEMSTORE_PROFILE =
      "MemstoreReadsIT#explainAnalyzeShowsEachRegionsMemstoreReads";
  private static final String FAST_DIFF_CELLS =
      "ReadCostIT#fastDiffDecodesEveryCellTheScanVisitsAndNoneDecodesNothing";

  /**
   * For each miscount, the tests that must catch it (the short form): the cheapest exact-count
   * tests that did in the long form.
   */
  static final Map<String, List<String>> CATCHERS = new LinkedHashMap<>();

  static {
    CATCHERS.put("blockCache doubled", List.of(COLD_SCAN, DECODE_CELLS));
    CATCHERS.put("blockCache halved", List.of(COLD_SCAN, DECODE_CELLS));
    CATCHERS.put("fsRead doubled", List.of(DECODE_WORK, CHECKSUM));
    CATCHERS.put("fsRead halved", List.of(DECODE_WORK, CHECKSUM));
    CATCHERS.put("checksum doubled", List.of(CHECKSUM, COLD_SCAN));
    CATCHERS.put("checksum halved", List.of(CHECKSUM, COLD_SCAN));
    CATCHERS.put("decompress doubled", List.of(DECODE_WORK, GZ_SCAN));
    CATCHERS.put("decompress halved", List.of(DECODE_WORK, GZ_SCAN));
    CATCHERS.put("decode doubled", List.of(DECODE_CELLS, FAST_DIFF_CELLS));
    CATCHERS.put("decode halved", List.of(DECODE_CELLS, FAST_DIFF_CELLS));
    CATCHERS.put("memstore doubled", List.of(MEMSTORE, MEMSTORE_PROFILE));
    CATCHERS.put("memstore halved", List.of(MEMSTORE, MEMSTORE_PROFILE));
    CATCHERS.put("wrong region", List.of(COLD_SCAN, PROFILE));
    CATCHERS.put("wrong query", List.of(PROFILE));
  }

  private static Request request(String test) {
    int hash = test.indexOf('#');
    try {
      Class<?> c =
          Class.forName(MiscountDrillIT.class.getPackageName() + "." + test.substring(0, hash));
      return Request.method(c, test.substring(hash + 1));
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("no test class for " + test, e);
    }
  }

  /** Runs {@code request} under {@code drill} (null: none) and returns the tests that failed. */
  private static List<String> failed(Request request, Drill drill) {
    Diagnostics d = cluster.diagnostics();
    if (drill != null) {
      d.miscount(drill.how(), drill.probe());
    }
    Result r;
    try {
      r = new JUnitCore().run(request);
    } finally {
      d.miscount(Miscount.NONE, -1);
    }
    List<String> failed = new ArrayList<>();
    for (Failure f : r.getFailures()) {
      Description t = f.getDescription();
      String test = t.getTestClass().getSimpleName() + "#" + t.getMethodName();
      System.out.println(
          "  "
              + (drill == null ? "no miscount" : drill)
              + ": "
              + test
              + ": "
              + firstLine(f.getMessage()));
      // only a failed assertion is a catch; an error (a table left over, a timeout) proves nothing
      // and fails the drill itself
      assertTrue(
          test + " under " + drill + " broke instead of failing an assertion: " + f.getTrace(),
          f.getException() instanceof AssertionError);
      failed.add(test);
    }
    assertTrue(drill + " ran no test", r.getRunCount() > 0);
    return failed;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "(no message)";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  @Test
  public void everyMiscountFailsTheTestsNamedToCatchIt() {
    assertEquals("a catcher for every drill", DRILLS.size(), CATCHERS.size());
    if (Boolean.parseBoolean(System.getProperty("blockscope.drill.full", "false"))
        || "full".equals(System.getProperty("blockscope.drill"))) {
      longForm();
      return;
    }
    TreeSet<String> all = new TreeSet<>();
    CATCHERS.values().forEach(all::addAll);
    for (String test : all) {
      assertEquals(test + " fails without a miscount", List.of(), failed(request(test), null));
    }
    List<String> missed = new ArrayList<>();
    for (Drill drill : DRILLS) {
      List<String> catchers = CATCHERS.get(drill.name());
      assertTrue("no catcher named for " + drill, catchers != null && !catchers.isEmpty());
      for (String test : catchers) {
        if (failed(request(test), drill).isEmpty()) {
          missed.add(drill + " passed " + test);
        }
      }
    }
    assertEquals("miscounts a test named to catch them let pass", List.of(), missed);
  }

  /** Every suite under every miscount; prints the table and fails on a miscount nothing caught. */
  private static void longForm() {
    Request suites = Request.classes(SUITES.toArray(new Class<?>[0]));
    List<String> baseline = failed(suites, null);
    assertEquals("the suites fail without a miscount", List.of(), baseline);
    Map<Drill, List<String>> caught = new LinkedHashMap<>();
    for (Drill drill : DRILLS) {
      caught.put(drill, failed(Request.classes(SUITES.toArray(new Class<?>[0])), drill));
    }
    StringBuilder table = new StringBuilder("| miscount | tests that failed |\n|---|---|\n");
    List<String> uncaught = new ArrayList<>();
    caught.forEach(
        (drill, failed) -> {
          table.append("| ").append(drill).append(" | ");
          table.append(failed.isEmpty() ? "**none**" : String.join(", ", failed)).append(" |\n");
          if (failed.isEmpty()) {
            uncaught.add(drill.name());
          }
        });
    System.out.println("miscount drill, long form:\n" + table);
    assertEquals("miscounts no test caught", List.of(), uncaught);
  }
}
