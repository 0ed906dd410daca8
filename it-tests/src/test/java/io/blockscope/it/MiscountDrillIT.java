package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.Diagnostics;
import io.blockscope.coprocessor.Miscount;
import io.blockscope.coprocessor.MiscountDrill;
import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.RawTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.junit.Test;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;

/**
 * The suite's sensitivity drill: blockscope is made to miscount on purpose, one way at a time (each
 * probe doubling or dropping every other event; costs attributed to the wrong region, query, block
 * kind, encoding or algorithm; file-system bytes doubled with the blocks right; a region left out
 * of its table's roll-up; times 16 times over; the level caps not applied; another user's profile
 * answered), and the exact-count tests must then fail, the right way: the failed assertion compares
 * an exact count (or a bound) and what it observed moved the way the miscount moves it ({@link
 * Move}), read from the assertion's own words. Any other failure (a row count, a relation the
 * miscount nudges by 0.1%, a timeout) is not a catch. A miscount that no test catches the right way
 * is a missing test.
 *
 * <p>The short form (the default, in CI) runs, for each miscount, the tests {@link #CATCHERS}
 * names, and checks that each of them passes without the miscount and catches it. The long form
 * ({@code -Dblockscope.drill=full}) runs every test of {@link #SUITES} under every miscount, prints
 * the table of docs/relationships.md (miscount by the tests that failed, with what each observed),
 * and also requires each named catcher to catch its miscount.
 */
public class MiscountDrillIT extends ClusterTestBase {

  /**
   * How a catching assertion's observed value must move from what it expected, for the catch to be
   * the miscount's and not another failure: about twice (a doubled count), about half (every other
   * event dropped), anywhere else (costs under another region, query, table, kind or name), or past
   * a bound it must stay within (times scaled up).
   */
  enum Move {
    DOUBLED(1.6, 2.4),
    HALVED(0.3, 0.7),
    MOVED(Double.NaN, Double.NaN),
    PAST_BOUND(Double.NaN, Double.NaN),
    /**
     * Above a figure the guarantee holds it to exactly: time recorded where a cap allows none, rows
     * of another user's profile read where HBase must refuse them.
     */
    ABOVE(Double.NaN, Double.NaN);

    final double low;
    final double high;

    Move(double low, double high) {
      this.low = low;
      this.high = high;
    }
  }

  /** One way of miscounting: a probe (-1 for the others), what it does, how a catch moves. */
  record Drill(String name, Miscount how, int probe, Move move) {
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
      d.add(new Drill(ProbeBridge.PROBE_NAMES[p] + " doubled", Miscount.DOUBLE, p, Move.DOUBLED));
      d.add(
          new Drill(
              ProbeBridge.PROBE_NAMES[p] + " halved", Miscount.DROP_EVERY_OTHER, p, Move.HALVED));
    }
    d.add(new Drill("wrong region", Miscount.WRONG_REGION, -1, Move.MOVED));
    d.add(new Drill("wrong query", Miscount.WRONG_QUERY, -1, Move.MOVED));
    d.add(new Drill("wrong block kind", Miscount.WRONG_KIND, -1, Move.MOVED));
    d.add(new Drill("wrong encoding", Miscount.WRONG_ENCODING, -1, Move.MOVED));
    d.add(new Drill("wrong compression", Miscount.WRONG_COMPRESSION, -1, Move.MOVED));
    d.add(new Drill("fs bytes doubled", Miscount.FS_BYTES_DOUBLED, -1, Move.DOUBLED));
    d.add(new Drill("region lost from table", Miscount.LOST_FROM_TABLE, -1, Move.MOVED));
    d.add(new Drill("time 16x", Miscount.TIME_16X, -1, Move.PAST_BOUND));
    d.add(new Drill("level cap ignored", Miscount.LEVEL_CAP_IGNORED, -1, Move.ABOVE));
    d.add(new Drill("profile owner ignored", Miscount.PROFILE_OWNER_IGNORED, -1, Move.ABOVE));
    return d;
  }

  /** How a failed assertion compared: an exact count, or a value past one side of a range. */
  enum Form {
    EXACT,
    AT_MOST,
    AT_LEAST
  }

  /**
   * A failed test under a drill: its first failed assertion's message, and the values it compared
   * when that was an exact count ({@code expected:<x> but was:<y>}, as JUnit words it) or a bound
   * ({@code expected at most:<x> but was:<y>} or {@code at least}, {@link
   * ClusterTestBase#assertAtMost}, {@link ClusterTestBase#assertBetween}); null where the message
   * compares no numbers.
   */
  record Catch(String test, String message, Double expected, Double was, Form form) {
    /** The observed value over the expected one (NaN where there is none). */
    double ratio() {
      if (expected == null) {
        return Double.NaN;
      }
      return expected == 0 ? (was == 0 ? 1 : Double.POSITIVE_INFINITY) : was / expected;
    }

    /**
     * Whether this failure is the one {@code move} makes: a doubled or halved count is judged by
     * its ratio to the value it was held to (exact, or the side of the range it left); costs put
     * elsewhere must miss an exact count; a scaled-up time must pass its upper bound.
     */
    boolean is(Move move) {
      if (expected == null || expected.equals(was)) {
        return false;
      }
      switch (move) {
        case PAST_BOUND:
          return form == Form.AT_MOST && was > expected;
        case MOVED:
          return form == Form.EXACT;
        case ABOVE:
          return form == Form.EXACT && was > expected;
        default:
          return ratio() >= move.low && ratio() <= move.high;
      }
    }

    String observed() {
      if (expected == null) {
        return "no count compared";
      }
      String past =
          form == Form.AT_MOST
              ? "past its upper bound "
              : form == Form.AT_LEAST ? "below its lower bound " : "";
      return past
          + number(was)
          + " for "
          + number(expected)
          + String.format(Locale.ROOT, ", x%.2f", ratio());
    }

    private static String number(double v) {
      return v == Math.rint(v) && Math.abs(v) < 1e15
          ? Long.toString((long) v)
          : String.format(Locale.ROOT, "%.2f", v);
    }
  }

  private static final String NUMBER = "(-?[0-9]+(?:\\.[0-9]+)?(?:E-?[0-9]+)?)";

  private static final Pattern COMPARED =
      Pattern.compile(
          "expected( at most| at least)?:<\\[?"
              + NUMBER
              + "\\]?> but was:<\\[?"
              + NUMBER
              + "\\]?>");

  static Catch parse(String test, String message) {
    Matcher m = COMPARED.matcher(message == null ? "" : message);
    if (!m.find()) {
      return new Catch(test, message, null, null, Form.EXACT);
    }
    Form form =
        m.group(1) == null
            ? Form.EXACT
            : m.group(1).equals(" at most") ? Form.AT_MOST : Form.AT_LEAST;
    return new Catch(
        test, message, Double.parseDouble(m.group(2)), Double.parseDouble(m.group(3)), form);
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
          MemstoreReadsIT.class,
          TenantIsolationIT.class,
          CacheReuseIT.class);

  private static final String DECODE_WORK =
      "DecodeWorkRelationsIT#decompressionFollowsBlocksReadAndDecodingIsZeroWithoutEncoding";
  private static final String DECODE_CELLS =
      "DecodeWorkRelationsIT#decodingFollowsCellsVisitedEvenWhenEveryBlockIsACacheHit";
  private static final String CHECKSUM =
      "ChecksumRelationsIT#hbaseVerifiesEveryByteItReadsAndNoneWhenVerificationIsOff";
  private static final String COLD_SCAN =
      "ReadCostIT#coldScanMissesMatchCacheStatsAndTheBlocksItCached";
  private static final String GZ_SCAN =
      "ReadCostIT#everyAlgorithmDecompressesEveryBlockItReadsFromTheFileSystem";
  private static final String PROFILE = "HintsProfileIT#aScansProfileIsWhatEachRegionSpentOnIt";
  private static final String TWO_QUERIES = "HintsProfileIT#twoQueriesAtOnceGetTheirOwnCosts";
  private static final String MEMSTORE =
      "MemstoreReadsIT#everyCellAReadLandsOnInTheMemstoreCountsWithItsBytes";
  private static final String MEMSTORE_PROFILE =
      "MemstoreReadsIT#explainAnalyzeShowsEachRegionsMemstoreReads";
  private static final String NO_CACHE_VERIFIED =
      "PhoenixNoCacheIT#noCacheScansMissEveryTimeWhileCachedScansHitTheSecondTime";
  private static final String TIME_LEVEL =
      "LevelsAndLifecycleIT#timesAreWithinTheWallTimeOfTheScanThatSpentThem";
  private static final String TABLE_CAP =
      "TenantIsolationIT#aTableAskingTimeAboveTheCapIsMeasuredAtTheCap";
  private static final String QUERY_CAP =
      "TenantIsolationIT#aProfileAskingTimeUnderACountQueryCapRecordsNoTime";
  private static final String OWNER = "TenantIsolationIT#aQueryProfileBelongsToTheUserWhoRanIt";
  private static final String STATEMENTS_OWNER =
      "StatementStatsIT#theEndpointShowsEachUserTheirOwnAndASuperuserEveryones";
  private static final String FAST_DIFF_CELLS =
      "ReadCostIT#fastDiffDecodesEveryCellTheScanVisitsAndNoneDecodesNothing";
  private static final String CACHE_IN_OUT =
      "CacheReuseIT#theServersCacheCountsEachBlockOfTheTableInAndOut";
  private static final String CACHE_UNREAD =
      "CacheReuseIT#evictionsOfUnreadBlocksAreExactAgainstTheCachesOwnPriorities";

  /**
   * For each miscount, the tests that must catch it (the short form): the cheapest exact-count
   * tests that did in the long form.
   */
  static final Map<String, List<String>> CATCHERS = new LinkedHashMap<>();

  static {
    doubledAndHalved("blockCache", COLD_SCAN, DECODE_CELLS);
    doubledAndHalved("fsRead", DECODE_WORK, CHECKSUM);
    doubledAndHalved("checksum", CHECKSUM, NO_CACHE_VERIFIED);
    doubledAndHalved("decompress", DECODE_WORK, GZ_SCAN);
    doubledAndHalved("decode", DECODE_CELLS, FAST_DIFF_CELLS);
    doubledAndHalved("memstore", MEMSTORE, MEMSTORE_PROFILE);
    doubledAndHalved("cacheReuse", CACHE_UNREAD, CACHE_IN_OUT);
    // a move, not a loss: caught where a scan reads several regions
    CATCHERS.put("wrong region", List.of(PROFILE, TWO_QUERIES));
    CATCHERS.put("wrong query", List.of(PROFILE));
    CATCHERS.put("wrong block kind", List.of(COLD_SCAN, DECODE_WORK));
    CATCHERS.put("wrong encoding", List.of(DECODE_CELLS, FAST_DIFF_CELLS));
    CATCHERS.put("wrong compression", List.of(GZ_SCAN, DECODE_WORK));
    CATCHERS.put("fs bytes doubled", List.of(CHECKSUM, COLD_SCAN));
    CATCHERS.put("region lost from table", List.of(COLD_SCAN, DECODE_CELLS));
    CATCHERS.put("time 16x", List.of(TIME_LEVEL));
    CATCHERS.put("level cap ignored", List.of(TABLE_CAP, QUERY_CAP));
    CATCHERS.put("profile owner ignored", List.of(OWNER, STATEMENTS_OWNER));
  }

  /** The same catchers for a probe's doubled and its halved counts. */
  private static void doubledAndHalved(String probe, String... tests) {
    CATCHERS.put(probe + " doubled", List.of(tests));
    CATCHERS.put(probe + " halved", List.of(tests));
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

  /** Tests that broke (threw something other than an assertion) under a drill, with the trace. */
  private static final List<String> BROKE = new ArrayList<>();

  /** Runs {@code request} under {@code drill} (null: none) and returns the tests that failed. */
  private static List<Catch> failed(Request request, Drill drill) {
    Diagnostics d = cluster.diagnostics();
    if (drill != null) {
      MiscountDrill.miscount(d, drill.how(), drill.probe());
    }
    Result r;
    try {
      r = new JUnitCore().run(request);
    } finally {
      MiscountDrill.miscount(d, Miscount.NONE, -1);
    }
    List<Catch> failed = new ArrayList<>();
    for (Failure f : r.getFailures()) {
      Description t = f.getDescription();
      Catch c = parse(t.getTestClass().getSimpleName() + "#" + t.getMethodName(), f.getMessage());
      System.out.println(
          "  "
              + (drill == null ? "no miscount" : drill)
              + ": "
              + c.test()
              + ": "
              + c.observed()
              + ": "
              + firstLine(f.getMessage()));
      // only a failed assertion is a catch; an error (a table left over, a missing bean) proves
      // nothing: it is kept, and fails the drill once every miscount has run
      if (!(f.getException() instanceof AssertionError)) {
        BROKE.add(c.test() + " under " + drill + ": " + f.getTrace());
        continue;
      }
      failed.add(c);
    }
    assertTrue(drill + " ran no test", r.getRunCount() > 0);
    return failed;
  }

  /** Why {@code test} did not catch {@code drill} the way it must, or null when it did. */
  private static String wrongCatch(Drill drill, String test, List<Catch> failed) {
    for (Catch c : failed) {
      if (c.test().equals(test)) {
        return c.is(drill.move())
            ? null
            : drill
                + " failed "
                + test
                + " the wrong way ("
                + c.observed()
                + ", must be "
                + drill.move()
                + "): "
                + firstLine(c.message());
      }
    }
    return drill + " passed " + test;
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
        String wrong = wrongCatch(drill, test, failed(request(test), drill));
        if (wrong != null) {
          missed.add(wrong);
        }
      }
    }
    assertEquals("tests that broke instead of failing an assertion", List.of(), BROKE);
    assertEquals("miscounts a test named to catch them did not catch", List.of(), missed);
  }

  /**
   * The wrong-place miscounts move costs where they send them, and lose none: on a table of three
   * regions (FAST_DIFF, GZ, one store file each), a cold scan under each must show the costs that
   * left their right place arrived in full at the wrong one, as the files' trailers count them, so
   * that a catch of one of them is a catch of costs moved, not lost.
   */
  @Test
  public void wrongPlaceMiscountsMoveCostsWhereTheySendThem() throws Exception {
    TableName t = newTable("drill_moved");
    RawTable.create(
        cluster.admin(),
        new RawTable.Spec(t)
            .blockSize(4096)
            .encoding(DataBlockEncoding.FAST_DIFF)
            .compression(Compression.Algorithm.GZ)
            .splits(RawTable.seedRow(1_000), RawTable.seedRow(2_000)));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, 3_000, 3);
    List<HRegion> regions = new ArrayList<>(cluster.regions(t));
    regions.sort(Comparator.comparing(r -> r.getRegionInfo().getEncodedName()));
    assertEquals(3, regions.size());
    RawTable.scanCells(cluster.connection(), t, new Scan()); // the client knows the regions
    Map<String, long[]> files = new LinkedHashMap<>();
    for (HRegion r : regions) {
      long[] file = StoreFiles.trailerDataBlocksAndCells(List.of(r));
      assertTrue(r + " holds data blocks", file[0] > 0);
      files.put(r.getRegionInfo().getEncodedName(), file);
    }
    long blocks = files.values().stream().mapToLong(f -> f[0]).sum();
    long cells = files.values().stream().mapToLong(f -> f[1]).sum();
    assertEquals(6_000, cells);
    String nextEncoding = next(CostLayout.ENCODINGS, "FAST_DIFF");
    String nextAlgorithm = next(CostLayout.ALGORITHMS, "GZ");

    for (Drill drill : DRILLS) {
      if (drill.move() != Move.MOVED) {
        continue;
      }
      StoreFiles.evict(cluster.blockCache(), regions);
      String query =
          String.format("%032x", ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
      Scan scan = new Scan();
      scan.setAttribute(Attributes.QUERY, query.getBytes(StandardCharsets.US_ASCII));
      scan.setAttribute(Attributes.PROFILE, "COUNT".getBytes(StandardCharsets.US_ASCII));
      Map<String, CostSnapshot> before = regionSnapshots(files.keySet());
      CostSnapshot table;
      MiscountDrill.miscount(cluster.diagnostics(), drill.how(), drill.probe());
      try {
        assertEquals(cells, RawTable.scanCells(cluster.connection(), t, scan));
        table = tableCosts(t); // a lost roll-up shows in the table's figures while it runs
      } finally {
        MiscountDrill.miscount(cluster.diagnostics(), Miscount.NONE, -1);
      }
      Map<String, CostSnapshot> totals = regionSnapshots(files.keySet());
      Map<String, CostSnapshot> cold = minus(totals, before);
      String what = drill + ": " + cold;
      switch (drill.how()) {
        case WRONG_REGION:
          // one region (the first the scan settled) holds every region's misses; the others none
          long sinks = 0;
          for (Map.Entry<String, CostSnapshot> e : cold.entrySet()) {
            long misses = e.getValue().get("blockCache.miss.data");
            if (misses != 0) {
              sinks++;
              assertEquals(what, blocks, misses);
              assertEquals(what, cells, e.getValue().get("decode.FAST_DIFF.cells"));
            }
          }
          assertEquals(what + ": regions that took the misses", 1, sinks);
          break;
        case WRONG_QUERY:
          // one (query, region) record holds the query's misses; each region's own stay right
          long recorded = 0;
          long records = 0;
          for (Map.Entry<String, long[]> e : files.entrySet()) {
            assertEquals(what, e.getValue()[0], cold.get(e.getKey()).get("blockCache.miss.data"));
            long[] q = cluster.diagnostics().queryCosts(query, me(), e.getKey());
            long misses = q == null ? 0 : q[CostLayout.CACHE_MISS + CostLayout.KIND_DATA];
            if (misses != 0) {
              records++;
              recorded = misses;
            }
          }
          assertEquals(what + ": records that took the query's misses", 1, records);
          assertEquals(what, blocks, recorded);
          break;
        case WRONG_KIND:
          for (Map.Entry<String, long[]> e : files.entrySet()) {
            CostSnapshot c = cold.get(e.getKey());
            assertEquals(what, 0, c.get("blockCache.miss.data"));
            assertEquals(what, e.getValue()[0], c.get("blockCache.miss.leafIndex"));
            assertEquals(what, e.getValue()[0], c.get("fs.read.blocks.leafIndex"));
          }
          break;
        case WRONG_ENCODING:
          for (Map.Entry<String, long[]> e : files.entrySet()) {
            CostSnapshot c = cold.get(e.getKey());
            assertEquals(what, 0, c.get("decode.FAST_DIFF.cells"));
            assertEquals(what, e.getValue()[1], c.get("decode." + nextEncoding + ".cells"));
          }
          break;
        case WRONG_COMPRESSION:
          for (Map.Entry<String, long[]> e : files.entrySet()) {
            CostSnapshot c = cold.get(e.getKey());
            assertEquals(what, 0, c.get("decompress.GZ.blocks"));
            assertEquals(what, e.getValue()[0], c.get("decompress." + nextAlgorithm + ".blocks"));
          }
          break;
        case LOST_FROM_TABLE:
          // each region right; the table short of exactly the first region's whole figure
          String lost = files.keySet().iterator().next();
          long all = 0;
          for (Map.Entry<String, long[]> e : files.entrySet()) {
            assertEquals(what, e.getValue()[0], cold.get(e.getKey()).get("blockCache.miss.data"));
            all += totals.get(e.getKey()).get("blockCache.miss.data");
          }
          assertEquals(
              what + ", table " + table,
              all - totals.get(lost).get("blockCache.miss.data"),
              table.get("blockCache.miss.data"));
          break;
        default:
          throw new AssertionError("a wrong-place drill with no check here: " + drill);
      }
    }
  }

  /** The name after {@code name} in a cost layout's list (where a rotating drill sends it). */
  private static String next(List<String> names, String name) {
    return names.get((names.indexOf(name) + 1) % names.size());
  }

  private static Map<String, CostSnapshot> regionSnapshots(Iterable<String> regions) {
    Map<String, CostSnapshot> m = new LinkedHashMap<>();
    for (String r : regions) {
      m.put(r, cluster.diagnostics().registry().regionSnapshot(r));
    }
    return m;
  }

  private static Map<String, CostSnapshot> minus(
      Map<String, CostSnapshot> after, Map<String, CostSnapshot> before) {
    Map<String, CostSnapshot> m = new LinkedHashMap<>();
    after.forEach((r, c) -> m.put(r, c.minus(before.get(r))));
    return m;
  }

  /**
   * Every suite under every miscount; prints the table, each catch with what it observed, and fails
   * on a miscount nothing caught the way it must, or one a named catcher did not.
   */
  /**
   * {@code all}, or those of them whose name the comma-separated {@code property} lists: the long
   * form's suites ({@code -Dblockscope.drill.suites}, simple class names) and miscounts ({@code
   * -Dblockscope.drill.only}), to rerun a few after a change.
   */
  private static <T> List<T> selected(String property, List<T> all, Function<T, String> name) {
    String only = System.getProperty(property, "").trim();
    if (only.isEmpty()) {
      return all;
    }
    List<String> names = List.of(only.split("\\s*,\\s*"));
    List<T> chosen = new ArrayList<>();
    for (T t : all) {
      if (names.contains(name.apply(t))) {
        chosen.add(t);
      }
    }
    assertEquals(property + " names " + names, names.size(), chosen.size());
    return chosen;
  }

  private static void longForm() {
    List<Class<?>> selected = selected("blockscope.drill.suites", SUITES, Class::getSimpleName);
    boolean everySuite = selected.size() == SUITES.size();
    Request suites = Request.classes(selected.toArray(new Class<?>[0]));
    assertEquals("the suites fail without a miscount", List.of(), failed(suites, null));
    StringBuilder table = new StringBuilder("| miscount | tests that caught it |\n|---|---|\n");
    List<String> wrong = new ArrayList<>();
    for (Drill drill : selected("blockscope.drill.only", DRILLS, Drill::name)) {
      List<Catch> failed = failed(Request.classes(selected.toArray(new Class<?>[0])), drill);
      List<String> right = new ArrayList<>();
      for (Catch c : failed) {
        if (c.is(drill.move())) {
          right.add(c.test() + " (" + c.observed() + ")");
        } else {
          right.add(c.test() + " (failed otherwise: " + c.observed() + ")");
        }
      }
      table.append("| ").append(drill).append(" | ");
      table.append(right.isEmpty() ? "**none**" : String.join("<br>", right)).append(" |\n");
      if (everySuite && failed.stream().noneMatch(c -> c.is(drill.move()))) {
        wrong.add(drill + ": no test caught it the way it must");
      }
      for (String test : CATCHERS.get(drill.name())) {
        if (selected.stream().noneMatch(c -> test.startsWith(c.getSimpleName() + "#"))) {
          continue; // its suite was not run
        }
        String w = wrongCatch(drill, test, failed);
        if (w != null) {
          wrong.add(w);
        }
      }
    }
    System.out.println("miscount drill, long form:\n" + table);
    assertEquals("tests that broke instead of failing an assertion", List.of(), BROKE);
    assertEquals("miscounts not caught the way they must be", List.of(), wrong);
  }
}
