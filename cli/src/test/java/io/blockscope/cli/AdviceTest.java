package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.CostSnapshot;
import io.blockscope.workloads.TableConfig;
import io.blockscope.workloads.Workload;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.junit.Test;

public class AdviceTest {
  /** A replayed setting whose gets and scans took these runs' times. */
  private static Evaluation.ConfigResult config(
      String label, long bytes, List<Double> getRuns, List<Double> scanRuns) {
    Evaluation.ConfigResult c =
        new Evaluation.ConfigResult(TableConfig.parse(label), "T_" + label, "T_" + label);
    c.label = label;
    c.storeFileBytes = bytes;
    c.rawBytes = bytes;
    Evaluation.Measured get = new Evaluation.Measured();
    get.millis.addAll(getRuns);
    get.rows = 1000;
    c.workloads.put(Workload.RAW_GET, get);
    Evaluation.Measured scan = new Evaluation.Measured();
    scan.millis.addAll(scanRuns);
    c.workloads.put(Workload.RAW_SCAN, scan);
    return c;
  }

  /** {@link #config} whose 1,000-get runs spent these ms on the server (blockscope's TIME). */
  private static Evaluation.ConfigResult timed(
      String label, long bytes, List<Double> getRuns, List<Double> serverMillis) {
    Evaluation.ConfigResult c = config(label, bytes, getRuns, List.of(10.0, 10.0, 10.0));
    for (double ms : serverMillis) {
      c.workloads.get(Workload.RAW_GET).serverNanos.add(ms * 1e6);
    }
    return c;
  }

  /** {@link #config} with cold gets too, and {@code cacheBytes} through the cache for a scan. */
  private static Evaluation.ConfigResult withCold(
      String label, long cacheBytes, List<Double> getRuns, List<Double> coldRuns) {
    Evaluation.ConfigResult c = config(label, 1000, getRuns, List.of(10.0, 10.0, 10.0));
    c.rawBytes = cacheBytes;
    Evaluation.Measured coldScan = new Evaluation.Measured(); // rawBytes: its costs' figure
    coldScan.millis.addAll(List.of(20.0, 20.0, 20.0));
    coldScan.medianRunCosts = CostSnapshot.of(Map.of());
    c.workloads.put(Workload.RAW_SCAN_NO_CACHE, coldScan);
    Evaluation.Measured cold = new Evaluation.Measured();
    cold.millis.addAll(coldRuns);
    cold.rows = 1000;
    c.workloads.put(Workload.RAW_GET_COLD, cold);
    return c;
  }

  private static final Recommendation.Weights GETS = new Recommendation.Weights(0.1, 0.9, 0.25);
  private static final Recommendation.Weights SCANS = new Recommendation.Weights(0.9, 0.1, 0.25);

  @Test
  public void aWinnerBeyondTheSpreadIsAdvisedWithWhatItWinsOn() {
    Evaluation e = new Evaluation();
    e.configs.add(config("NONE", 1000, List.of(50.0, 52.0, 55.0), List.of(10.0, 11.0, 12.0)));
    e.configs.add(
        config("ROW_INDEX_V1", 1010, List.of(30.0, 31.0, 33.0), List.of(11.0, 12.0, 13.0)));
    Advice a = Advice.of(e, "NONE", GETS);
    assertFalse(a.keep);
    assertEquals("ROW_INDEX_V1", a.winner);
    assertEquals("get", a.figure);
    assertTrue(
        a.why,
        a.why.startsWith(
            "raw.get time 31.0 ms against 52.0 ms (40% less, the runs' spread is 5%)"));
    assertEquals(List.of("raw.get"), a.promised.stream().map(Advice.Figure::key).toList());
    assertEquals(0.6, a.ranked.get(0).getTime(), 0.01);
  }

  @Test
  public void runsThatOverlapKeepTheCurrentSetting() {
    Evaluation e = new Evaluation();
    // 40% faster in the median, but its runs spread over 48% of it (half of 30 ms around 31 ms)
    e.configs.add(config("NONE", 1000, List.of(50.0, 52.0, 55.0), List.of(10.0, 11.0, 12.0)));
    e.configs.add(config("PREFIX", 1000, List.of(30.0, 31.0, 60.0), List.of(10.0, 11.0, 12.0)));
    Advice a = Advice.of(e, "NONE", GETS);
    assertEquals("PREFIX", a.winner);
    assertTrue(a.keep);
    assertTrue(
        a.why,
        a.why.contains(
            "none of its figures (raw.get time, raw.scan time, store files) is better than the"
                + " current setting's by more than the runs' spread"));
    assertTrue(a.promised.isEmpty());
  }

  @Test
  public void theCurrentSettingFirstIsKept() {
    Evaluation e = new Evaluation();
    e.configs.add(config("FAST_DIFF", 1000, List.of(50.0, 52.0), List.of(5.0, 5.5)));
    e.configs.add(config("NONE", 3000, List.of(40.0, 41.0), List.of(10.0, 11.0)));
    Advice a = Advice.of(e, "FAST_DIFF", SCANS);
    assertTrue(a.keep);
    assertEquals("FAST_DIFF", a.winner);
    assertEquals("scan", a.figure);
  }

  @Test
  public void theMixDecidesTheWinner() {
    Evaluation e = new Evaluation();
    e.configs.add(config("NONE", 1000, List.of(50.0, 51.0), List.of(20.0, 21.0)));
    e.configs.add(config("ROW_INDEX_V1", 1000, List.of(30.0, 31.0), List.of(25.0, 26.0)));
    e.configs.add(config("FAST_DIFF", 1000, List.of(60.0, 61.0), List.of(10.0, 11.0)));
    assertEquals("ROW_INDEX_V1", Advice.of(e, "NONE", GETS).winner);
    assertEquals("FAST_DIFF", Advice.of(e, "NONE", SCANS).winner);
  }

  @Test
  public void sizeWinsOnlyByItsMargin() {
    Evaluation.ConfigResult base = config("NONE", 1000, List.of(1.0), List.of(1.0));
    Recommendation.Weights sizeOnly = new Recommendation.Weights(0, 0, 1);
    Advice.Figure same =
        Advice.figures(config("GZ", 910, List.of(1.0), List.of(1.0)), base, sizeOnly).get(0);
    assertFalse(same.better());
    Advice.Figure smaller =
        Advice.figures(config("GZ", 900, List.of(1.0), List.of(1.0)), base, sizeOnly).get(0);
    assertTrue(smaller.better());
    assertEquals(
        "store files 900 against 1,000 bytes (10% less, the margin is 10%)", smaller.text());
    assertEquals("size", Advice.figure(new Recommendation.Weights(0.1, 0.1, 1)));
  }

  @Test
  public void serverTimeIsPromisedWhenTheClientsTimesAreWithinTheirSpread() {
    Evaluation e = new Evaluation();
    // the clients' times overlap (spread 21% and 25%); the server's decoding is 10x apart
    e.configs.add(
        timed("FAST_DIFF", 1000, List.of(300.0, 280.0, 400.0), List.of(61.0, 60.0, 62.0)));
    e.configs.add(
        timed("ROW_INDEX_V1", 1100, List.of(270.0, 250.0, 380.0), List.of(6.0, 6.2, 5.9)));
    Advice a = Advice.of(e, "FAST_DIFF", GETS);
    assertFalse(a.why, a.keep);
    assertEquals("ROW_INDEX_V1", a.winner);
    assertEquals(List.of("server.raw.get"), a.promised.stream().map(Advice.Figure::key).toList());
    assertTrue(
        a.why,
        a.why.startsWith(
            "server time per get of raw.get 6.0 us against 61.0 us (90% less, 18% of the"
                + " current setting's raw.get time, where the least change counted is 1%); the"
                + " same"
                + " within the runs' spread: raw.get time, raw.scan time;"
                + " at the cost of store files 1,100 against 1,000 bytes (10% more"));
    assertEquals(0.098, a.ranked.get(0).serverNanosPerRead(), 0.001);
  }

  @Test
  public void theRankingTakesTheServersTimeOverTheClientsNoise() {
    Evaluation e = new Evaluation();
    // the client's median favours FAST_DIFF by luck; the server spent 10x more decoding it
    e.configs.add(
        timed("FAST_DIFF", 1000, List.of(250.0, 240.0, 390.0), List.of(61.0, 60.0, 62.0)));
    e.configs.add(
        timed("ROW_INDEX_V1", 1000, List.of(270.0, 250.0, 380.0), List.of(6.0, 6.2, 5.9)));
    Advice a = Advice.of(e, "FAST_DIFF", GETS);
    assertEquals("ROW_INDEX_V1", a.ranked.get(0).config());
    assertFalse(a.why, a.keep);
  }

  /**
   * A server time that is the same in every run (no spread) and a tiny part of the read: a change
   * of it under 1 % of the read's time is no change, and vetoes nothing.
   */
  @Test
  public void aServerTimeChangeUnderOnePercentOfTheReadIsNone() {
    Evaluation e = new Evaluation();
    e.configs.add(
        timed("FAST_DIFF", 1000, List.of(100.0, 101.0, 102.0), List.of(0.29, 0.29, 0.29)));
    e.configs.add(
        timed("FAST_DIFF+GZ", 800, List.of(100.0, 101.0, 102.0), List.of(0.58, 0.58, 0.58)));
    Advice a = Advice.of(e, "FAST_DIFF", GETS);
    assertFalse(a.why, a.keep);
    assertEquals("FAST_DIFF+GZ", a.winner);
    assertEquals(List.of("size"), a.promised.stream().map(Advice.Figure::key).toList());
    assertTrue(
        a.why,
        a.why.contains(
            "the same within the runs' spread: raw.get time, server time per get of raw.get,"));
    Advice.Figure server =
        Advice.figures(e.configs.get(1), e.configs.get(0), GETS).stream()
            .filter(f -> f.key().equals("server.raw.get"))
            .findFirst()
            .orElseThrow();
    assertEquals(
        "server time per get of raw.get 0.580 us against 0.290 us (100% more, 0% of the current"
            + " setting's raw.get time, where the least change counted is 1%)",
        server.text());
  }

  @Test
  public void aWorseClientTimeOfTheMainGroupVetoesWhatRanksFirst() {
    Evaluation e = new Evaluation();
    // FAST_DIFF+GZ ranks first on its smaller files, but its gets take 10% longer, beyond the
    // runs' 1% spread: gets are what this mix weighs most
    e.configs.add(
        timed("FAST_DIFF", 1000, List.of(100.0, 101.0, 102.0), List.of(61.0, 60.0, 62.0)));
    e.configs.add(
        timed("FAST_DIFF+GZ", 400, List.of(110.0, 111.0, 112.0), List.of(61.0, 60.0, 62.0)));
    Advice a = Advice.of(e, "FAST_DIFF", GETS);
    assertEquals("FAST_DIFF+GZ", a.winner);
    assertTrue(a.keep);
    assertTrue(a.why, a.why.contains("its raw.get time is worse than the current setting's"));
  }

  /**
   * Where a setting's client-side time (a run's time less its server time) differs from the
   * settings' common one by more than its runs' spread, it is ranked on its own: a setting 30%
   * faster for the client, with a server time 0.3 ms longer, ranks first and is advised.
   */
  @Test
  public void aClientSideDifferenceBeyondTheSpreadIsRanked() {
    Evaluation e = new Evaluation();
    e.configs.add(
        timed("FAST_DIFF", 1000, List.of(100.0, 101.0, 102.0), List.of(0.29, 0.29, 0.29)));
    e.configs.add(
        timed("ROW_INDEX_V1", 1000, List.of(70.0, 71.0, 72.0), List.of(0.58, 0.58, 0.58)));
    Advice a = Advice.of(e, "FAST_DIFF", GETS);
    assertEquals("ROW_INDEX_V1", a.ranked.get(0).config());
    assertFalse(a.why, a.keep);
    assertEquals(List.of("raw.get"), a.promised.stream().map(Advice.Figure::key).toList());
  }

  @Test
  public void anUnencodedSettingsZeroServerTimeIsShownNotPromised() {
    Evaluation e = new Evaluation();
    e.configs.add(
        timed("FAST_DIFF", 1000, List.of(100.0, 101.0, 102.0), List.of(61.0, 60.0, 62.0)));
    e.configs.add(timed("NONE", 1000, List.of(100.0, 100.5, 101.0), List.of(0.0, 0.0, 0.0)));
    Advice a = Advice.of(e, "FAST_DIFF", GETS);
    Advice.Candidate none =
        a.ranked.stream().filter(c -> c.config().equals("NONE")).findFirst().orElseThrow();
    assertEquals(0.0, none.serverNanosPerRead(), 0.0);
    assertTrue(a.promised.stream().noneMatch(f -> f.key().startsWith("server.")));
  }

  @Test
  public void anUnreplayedCurrentSettingIsAnError() {
    Evaluation e = new Evaluation();
    e.configs.add(config("NONE", 1000, List.of(1.0), List.of(1.0)));
    assertThrows(IllegalStateException.class, () -> Advice.of(e, "GZ", GETS));
  }

  @Test
  public void theAlterStatementsQuoteWhatTheyName() {
    assertEquals(
        "alter 'ns:it\\'s', {NAME => 'f', DATA_BLOCK_ENCODING => 'ROW_INDEX_V1', COMPRESSION =>"
            + " 'ZSTD'}, {NAME => 'g', DATA_BLOCK_ENCODING => 'ROW_INDEX_V1', COMPRESSION =>"
            + " 'ZSTD'}",
        Advice.hbaseAlter("ns:it's", List.of("f", "g"), TableConfig.parse("ROW_INDEX_V1+ZSTD")));
    assertEquals(
        "ALTER TABLE \"S\".\"T\"\"X\" SET DATA_BLOCK_ENCODING='FAST_DIFF', COMPRESSION='NONE'",
        Advice.phoenixAlter("S", "T\"X", TableConfig.parse("FAST_DIFF")));
    assertEquals(
        "ALTER TABLE \"T\" SET DATA_BLOCK_ENCODING='NONE', COMPRESSION='GZ'",
        Advice.phoenixAlter(null, "T", TableConfig.parse("GZ")));
  }

  @Test
  public void theDefaultCandidatesAreEveryEncodingWithTwoCompressionsThenBlockSizesAndBlooms() {
    List<TableConfig> c = Advise.defaultCandidates(TableConfig.parse("FAST_DIFF+GZ"), 65536, "ROW");
    assertEquals(c.toString(), 16, c.size());
    assertFalse(c.contains(TableConfig.parse("FAST_DIFF+GZ")));
    assertTrue(c.contains(TableConfig.parse("ROW_INDEX_V1+ZSTD")));
    assertTrue(c.contains(TableConfig.parse("BLOCKSCOPE_V1+GZ")));
    assertEquals(
        List.of(
            "FAST_DIFF+GZ@16K",
            "FAST_DIFF+GZ@32K",
            "FAST_DIFF+GZ@128K",
            "FAST_DIFF+GZ@NONE",
            "FAST_DIFF+GZ@ROWCOL"),
        c.subList(11, 16).stream().map(TableConfig::label).toList());
    // a table at 16 KB without blooms is not offered its own block size or bloom type again
    List<TableConfig> small = Advise.defaultCandidates(TableConfig.parse("ZSTD"), 16384, "NONE");
    assertEquals(small.toString(), 5 + 2 + 2, small.size());
    assertFalse(small.contains(TableConfig.parse("ZSTD@16K")));
    assertFalse(small.contains(TableConfig.parse("ZSTD@NONE")));
  }

  @Test
  public void theAlterStatementsCarryABlockSizeAndBloomTheSettingNames() {
    TableConfig c = TableConfig.parse("fast_diff@16k@rowcol");
    assertEquals(
        "alter 't', {NAME => 'f', DATA_BLOCK_ENCODING => 'FAST_DIFF', COMPRESSION => 'NONE',"
            + " BLOCKSIZE => '16384', BLOOMFILTER => 'ROWCOL'}",
        Advice.hbaseAlter("t", List.of("f"), c));
    assertEquals(
        "ALTER TABLE \"T\" SET DATA_BLOCK_ENCODING='FAST_DIFF', COMPRESSION='NONE',"
            + " BLOCKSIZE=16384, BLOOMFILTER='ROWCOL'",
        Advice.phoenixAlter(null, "T", c));
  }

  @Test
  public void windowsAreSecondsMinutesOrStart() {
    assertEquals(90, Advise.parseWindow("90s").toSeconds());
    assertEquals(180, Advise.parseWindow("3m").toSeconds());
    assertNull(Advise.parseWindow("START"));
    for (String bad : List.of("5", "5s", "61m", "-1m", "xm", "")) {
      assertThrows(bad, IllegalArgumentException.class, () -> Advise.parseWindow(bad));
    }
  }

  // the live mix

  private static LiveMix mix(Map<String, Long> series, long gets, long scans) {
    return LiveMix.between(
        List.of(new LiveMix.Reading("rs1", Map.of(), 0, 0, true)),
        List.of(new LiveMix.Reading("rs1", series, gets, scans, true)),
        60);
  }

  @Test
  public void theMixIsTheDifferenceAndACounterThatWentDownCountsFromZero() {
    LiveMix m =
        LiveMix.between(
            List.of(
                new LiveMix.Reading("rs1", Map.of("blockCache.hit.data", 100L), 10, 5, true),
                new LiveMix.Reading("rs2", Map.of("blockCache.hit.data", 500L), 50, 0, true)),
            List.of(
                new LiveMix.Reading("rs1", Map.of("blockCache.hit.data", 160L), 40, 5, true),
                new LiveMix.Reading("rs2", Map.of("blockCache.hit.data", 7L), 3, 1, true),
                new LiveMix.Reading("rs3", Map.of("blockCache.miss.data", 9L), 2, 0, true)),
            10);
    assertEquals(60 + 7, m.hits("data"));
    assertEquals(9, m.misses("data"));
    assertEquals(30 + 3 + 2, m.gets);
    assertEquals(1, m.scans);
    assertEquals(3, m.servers);
    assertEquals(35 / 36.0, m.getShare(), 1e-9);
    assertFalse(m.empty());
    assertTrue(mix(Map.of(), 0, 0).empty());
  }

  @Test
  public void scansThatEvictUnreadGetTheNoCacheAdviceWithItsFigures() {
    LiveMix m =
        mix(
            Map.of(
                "blockCache.inserted.data", 1000L,
                "blockCache.evictedUnread.data", 800L,
                "blockCache.hit.data", 10L,
                "blockCache.miss.data", 1000L),
            5,
            200);
    List<String> advice = m.cacheAdvice("t", List.of("f"), true);
    assertEquals(advice.toString(), 1, advice.size());
    assertTrue(advice.get(0), advice.get(0).contains("80% of the data blocks"));
    assertTrue(advice.get(0), advice.get(0).contains("(800 of 1,000 in the window"));
    assertTrue(advice.get(0), advice.get(0).contains("SELECT /*+ NO_CACHE */"));
    assertTrue(
        advice.get(0), advice.get(0).contains("alter 't', {NAME => 'f', BLOCKCACHE => false}"));
    // below the share, and below the least number of blocks: nothing
    assertEquals(
        List.of(),
        mix(Map.of("blockCache.inserted.data", 1000L, "blockCache.evictedUnread.data", 499L), 1, 1)
            .cacheAdvice("t", List.of("f"), false));
    assertEquals(
        List.of(),
        mix(Map.of("blockCache.inserted.data", 99L, "blockCache.evictedUnread.data", 99L), 1, 1)
            .cacheAdvice("t", List.of("f"), false));
  }

  @Test
  public void indexAndBloomMissesGetCacheOnWrite() {
    LiveMix m =
        mix(
            Map.of(
                "blockCache.hit.leafIndex", 80L,
                "blockCache.miss.leafIndex", 20L,
                "blockCache.hit.bloom", 950L,
                "blockCache.miss.bloom", 50L),
            100,
            0);
    List<String> advice = m.cacheAdvice("t", List.of("f"), false);
    assertEquals(advice.toString(), 1, advice.size());
    assertTrue(advice.get(0), advice.get(0).contains("20% of its index block lookups"));
    assertTrue(advice.get(0), advice.get(0).contains("CACHE_INDEX_ON_WRITE => true"));
  }

  @Test
  public void hbaseRequestCountsAreReadFromEitherVersionsBean() {
    TableName t = TableName.valueOf("ns:t1");
    String v26 =
        "{\"beans\":[{\"name\":\"Hadoop:service=HBase,name=RegionServer,sub=TableRequests_Namespace_ns_table_t1\","
            + "\"GetTime_num_ops\":12,\"GetTime_mean\":3.5,\"ScanTime_num_ops\":7}]}";
    String v25 =
        "{\"beans\":[{\"name\":\"Hadoop:service=HBase,name=RegionServer,sub=TableLatencies\","
            + "\"Namespace_ns_table_t0_metric_getTime_num_ops\":99,"
            + "\"Namespace_ns_table_t1_metric_getTime_num_ops\":12,"
            + "\"Namespace_ns_table_t1_metric_scanTime_num_ops\":7}]}";
    assertEquals(List.of(12L, 7L), List.of(box(LiveMix.requests(v26, t))));
    assertEquals(List.of(12L, 7L), List.of(box(LiveMix.requests(v25, t))));
    assertNull(LiveMix.requests("{\"beans\":[]}", t));
    assertNull(LiveMix.requests(v26, TableName.valueOf("ns:t2")));
  }

  @Test
  public void onlyTheMastersSanityCheckSkipsACandidate() {
    Exception check =
        new java.io.IOException(
            new org.apache.hadoop.hbase.DoNotRetryIOException(
                "java.lang.RuntimeException: native zStandard library not available\n\tat x"));
    assertEquals(
        "the master refused its table: java.lang.RuntimeException: native zStandard library not"
            + " available",
        EvaluationRunner.refusal(check));
    assertNull(
        EvaluationRunner.refusal(
            new org.apache.hadoop.hbase.security.AccessDeniedException("no CREATE")));
    assertNull(EvaluationRunner.refusal(new org.apache.hadoop.hbase.TableExistsException("t")));
    assertNull(EvaluationRunner.refusal(new java.io.IOException("connection reset")));
  }

  private static Long[] box(long[] a) {
    return new Long[] {a[0], a[1]};
  }

  @Test
  public void theExpectedHitRatioIsTheLiveOneOverTheCacheFootprint() {
    Evaluation.ConfigResult base = withCold("FAST_DIFF", 1000, List.of(1.0), List.of(1.0));
    double live = 0.4;
    assertEquals(0.4, Advice.expectedHitRatio(live, base, base), 1e-12);
    assertEquals(
        "twice the footprint: half the share",
        0.2,
        Advice.expectedHitRatio(live, withCold("NONE", 2000, List.of(1.0), List.of(1.0)), base),
        1e-12);
    assertEquals(
        0.8,
        Advice.expectedHitRatio(
            live, withCold("FAST_DIFF+GZ", 500, List.of(1.0), List.of(1.0)), base),
        1e-12);
    assertEquals(
        "never above every read",
        1.0,
        Advice.expectedHitRatio(
            live, withCold("ROW_INDEX_V1+GZ", 300, List.of(1.0), List.of(1.0)), base),
        1e-12);
    assertEquals(
        "no footprint measured: the live ratio",
        0.4,
        Advice.expectedHitRatio(live, withCold("PREFIX", 0, List.of(1.0), List.of(1.0)), base),
        1e-12);
    assertTrue(Double.isNaN(Advice.expectedHitRatio(Double.NaN, base, base)));
  }

  /**
   * A setting a little slower on cached blocks whose blocks take half the cache: at the window's 40
   * % hit ratio it would hit 80 %, and its expected get (0.8 x 12 + 0.2 x 100 ms = 29.6) beats the
   * current setting's (0.4 x 10 + 0.6 x 100 = 64); ranked on each variant alone, the current one is
   * first (as fast cold, faster warm).
   */
  @Test
  public void aSmallerCacheFootprintRanksAtTheHitRatioItWouldHave() {
    Evaluation e = new Evaluation();
    e.configs.add(
        withCold("FAST_DIFF", 1000, List.of(10.0, 10.0, 10.0), List.of(100.0, 100.0, 100.0)));
    e.configs.add(
        withCold("ROW_INDEX_V1+GZ", 500, List.of(12.0, 12.0, 12.0), List.of(100.0, 100.0, 100.0)));
    Recommendation.Weights gets = new Recommendation.Weights(0, 1, 0);
    Advice blended = Advice.of(e, "FAST_DIFF", gets, 0.4);
    assertEquals("ROW_INDEX_V1+GZ", blended.ranked.get(0).config());
    assertEquals(0.8, blended.ranked.get(0).expectedHitRatio(), 1e-12);
    assertEquals(0.4, blended.ranked.get(1).expectedHitRatio(), 1e-12);
    assertEquals(
        "the score: its expected time against the best's", 1.0, blended.ranked.get(0).score(), 0);
    assertEquals(64 / 29.6, blended.ranked.get(1).score(), 1e-9);
    assertEquals("FAST_DIFF", Advice.of(e, "FAST_DIFF", gets).ranked.get(0).config());
  }

  @Test
  public void aWarmOnlyReplayHasNoCacheFootprintOrExpectedHitRatio() {
    Evaluation e = new Evaluation();
    e.configs.add(config("NONE", 1000, List.of(50.0, 52.0, 55.0), List.of(10.0, 11.0, 12.0)));
    e.configs.add(
        config("ROW_INDEX_V1+GZ", 600, List.of(30.0, 31.0, 33.0), List.of(11.0, 12.0, 13.0)));
    Advice a = Advice.of(e, "NONE", GETS, 0.95);
    for (Advice.Candidate c : a.ranked) {
      assertTrue(c.toString(), Double.isNaN(c.cacheFootprint()));
      assertTrue(c.toString(), Double.isNaN(c.expectedHitRatio()));
      assertEquals(c.config().equals("NONE") ? 1.0 : 0.6, c.size(), 1e-12);
    }
  }
}
