package io.blockscope.workloads;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.phoenix.schema.types.PInteger;

/**
 * One read the seeds timed, runnable against any cluster that holds a {@link SeedTable}.
 *
 * <p>The {@link Cache} says in which block cache state it is measured: WARM runs once untimed
 * first; COLD drops the table's cached blocks before every run (where the runner can); BYPASS reads
 * without caching (Phoenix's NO_CACHE) after dropping the table's blocks where the runner can, so
 * every block comes from the file system.
 */
public enum Workload {
  SCAN_PARALLEL(
      Group.SCAN,
      Cache.WARM,
      Api.PHOENIX,
      "SELECT COUNT(*): Phoenix's parallel full scan, warm cache",
      t -> count(t, "SELECT COUNT(*) FROM " + t.table())),
  SCAN_PARALLEL_COLD(
      Group.SCAN,
      Cache.COLD,
      Api.PHOENIX,
      "the same full scan with the table's blocks dropped",
      t -> count(t, "SELECT COUNT(*) FROM " + t.table())),
  SCAN_SERIAL(
      Group.SCAN,
      Cache.WARM,
      Api.PHOENIX,
      "SELECT /*+ SERIAL */ COUNT(*): one thread",
      t -> count(t, "SELECT /*+ SERIAL */ COUNT(*) FROM " + t.table())),
  SCAN_NO_CACHE(
      Group.SCAN,
      Cache.BYPASS,
      Api.PHOENIX,
      "SELECT /*+ NO_CACHE */ COUNT(*) with nothing cached: every block from the file system",
      t -> count(t, "SELECT /*+ NO_CACHE */ COUNT(*) FROM " + t.table())),
  SCAN_REVERSE(
      Group.SCAN,
      Cache.WARM,
      Api.PHOENIX,
      "SELECT pk FROM t ORDER BY pk DESC LIMIT 10000: a reverse scan",
      t -> rows(t, "SELECT pk FROM " + t.table() + " ORDER BY pk DESC LIMIT 10000")),
  SCAN_CACHING_1(
      Group.SCAN,
      Cache.WARM,
      Api.HBASE,
      "HBase scan of 2,000 rows with scanner caching 1",
      t -> hbaseScan(t, new Scan().setCaching(1).setLimit(2000))),
  SCAN_CACHING_1000(
      Group.SCAN,
      Cache.WARM,
      Api.HBASE,
      "HBase scan of 2,000 rows with scanner caching 1000",
      t -> hbaseScan(t, new Scan().setCaching(1000).setLimit(2000))),
  RAW_SCAN(
      Group.SCAN,
      Cache.WARM,
      Api.HBASE,
      "HBase full scan, scanner caching 1000",
      t -> hbaseScan(t, new Scan().setCaching(1000))),
  RAW_SCAN_NO_CACHE(
      Group.SCAN,
      Cache.BYPASS,
      Api.HBASE,
      "HBase full scan with cacheBlocks=false and nothing cached: every block from the file system",
      t -> hbaseScan(t, new Scan().setCaching(1000).setCacheBlocks(false))),
  POINT_SELECT(
      Group.GET,
      Cache.WARM,
      Api.PHOENIX,
      "1,000 x SELECT pk FROM t WHERE pk = ?, random pk",
      Workload::pointSelects),
  RAW_GET(
      Group.GET,
      Cache.WARM,
      Api.HBASE,
      "1,000 HBase gets of random rows",
      t -> gets(t, Workload.POINT_READS)),
  RAW_GET_COLD(
      Group.GET,
      Cache.COLD,
      Api.HBASE,
      "the same gets with the table's blocks dropped first",
      t -> gets(t, Workload.POINT_READS)),
  RAW_GET_10K(
      Group.GET,
      Cache.WARM,
      Api.HBASE,
      "10,000 HBase gets of random rows after a full scan warmed the cache (seed 004)",
      t -> gets(t, 10 * Workload.POINT_READS)),
  INDEX_FILTERED_COUNT(
      Group.GET,
      Cache.WARM,
      Api.PHOENIX,
      "SELECT /*+ SERIAL */ COUNT(v1) WHERE v2 < 0.01 through an uncovered local index on v2",
      t -> count(t, "SELECT /*+ SERIAL */ COUNT(v1) FROM " + t.table() + " WHERE v2 < 0.01")),
  DELETED_SCAN(
      Group.SCAN,
      Cache.WARM,
      Api.PHOENIX,
      "SELECT /*+ SERIAL */ COUNT(*) after deleting 99.9% of rows",
      t -> count(t, "SELECT /*+ SERIAL */ COUNT(*) FROM " + t.table())),
  DELETED_REVERSE(
      Group.SCAN,
      Cache.WARM,
      Api.PHOENIX,
      "SELECT pk ORDER BY pk DESC LIMIT 10 after deleting 99.9% of rows",
      t -> rows(t, "SELECT pk FROM " + t.table() + " ORDER BY pk DESC LIMIT 10")),
  COMPACTION(
      Group.COMPACTION,
      Cache.BYPASS,
      Api.HBASE,
      "a major compaction of the table, timed until it finishes (seed 001)",
      Workload::compact);

  /** Block cache state a workload is measured in. */
  public enum Cache {
    WARM,
    COLD,
    BYPASS
  }

  /** Which weight of {@code --weights} a workload counts under; a compaction counts under none. */
  public enum Group {
    SCAN,
    GET,
    COMPACTION;

    /** The name {@code --weights} and the reports use: {@code scan}, {@code get}, ... */
    public String key() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The client a workload reads through: Phoenix SQL, or HBase's own API. */
  public enum Api {
    PHOENIX,
    HBASE
  }

  /** One run of a workload against its target. */
  @FunctionalInterface
  private interface Step {
    Run run(Target t) throws Exception;
  }

  /** How many point reads a get workload makes per run. */
  public static final int POINT_READS = 1000;

  private final Group group;
  private final Cache cache;
  private final Api api;
  private final String description;

  @SuppressWarnings("ImmutableEnumChecker") // each step is a lambda that captures nothing
  private final Step step;

  Workload(Group group, Cache cache, Api api, String description, Step step) {
    this.group = group;
    this.cache = cache;
    this.api = api;
    this.description = description;
    this.step = step;
  }

  /** Workloads of {@code --suite blockcache}: random gets on a warmed cache (seed 004). */
  public static final List<Workload> BLOCKCACHE_SUITE = List.of(RAW_GET_10K);

  /** Workloads of {@code --suite checksum}: cold scans and a compaction (seed 001). */
  public static final List<Workload> CHECKSUM_SUITE = List.of(RAW_SCAN_NO_CACHE, COMPACTION);

  /**
   * What runs when {@code --workloads} is not given: one workload per cost an encoding or a
   * compression changes, so that the default run stays short. A warm and a file-system full scan
   * (decoding; reading, checksums, decompression), warm and cold random gets (a seek into a block,
   * and a block read for one row), and for the seeds' Phoenix table its point selects and a reverse
   * scan (seed 002's ROW_INDEX_V1 against FAST_DIFF).
   */
  public static List<Workload> defaults(DataShape shape) {
    return shape.phoenix()
        ? List.of(SCAN_PARALLEL, SCAN_NO_CACHE, SCAN_REVERSE, POINT_SELECT, RAW_GET, RAW_GET_COLD)
        : List.of(RAW_SCAN, RAW_SCAN_NO_CACHE, RAW_GET, RAW_GET_COLD);
  }

  /**
   * Every workload of this shape's table ({@code --workloads all}): on the seeds' Phoenix table
   * every workload the seeds timed; on a plain HBase table the plain HBase ones. The suites'
   * compaction and 10,000 gets run only when named.
   */
  public static List<Workload> all(DataShape shape) {
    List<Workload> list = new ArrayList<>();
    for (Workload w : values()) {
      boolean extra =
          w == RAW_SCAN || w == RAW_SCAN_NO_CACHE || w == COMPACTION || w == RAW_GET_10K;
      if (shape.phoenix() ? !extra : !w.phoenixOnly() && w != COMPACTION && w != RAW_GET_10K) {
        list.add(w);
      }
    }
    return list;
  }

  /** Whether the workload reads through Phoenix, so runs only on a Phoenix {@link DataShape}. */
  public boolean phoenixOnly() {
    return api == Api.PHOENIX;
  }

  public Api api() {
    return api;
  }

  public Group group() {
    return group;
  }

  public Cache cache() {
    return cache;
  }

  public String description() {
    return description;
  }

  /** A name for reports: lower case, dotted. */
  public String key() {
    return name().toLowerCase(Locale.ROOT).replace('_', '.');
  }

  /** Needs {@link #prepareIndex} first. */
  public boolean needsIndex() {
    return this == INDEX_FILTERED_COUNT;
  }

  /** Needs {@link #deleteMost} first; runs after every other workload of a table. */
  public boolean afterDeletes() {
    return this == DELETED_SCAN || this == DELETED_REVERSE;
  }

  /** What one run did: rows it returned or counted, and per-operation latencies if any. */
  public record Run(long rows, List<Double> latenciesMicros) {}

  /** Where a workload runs; {@code keys} draws an existing row key for point reads. */
  public record Target(
      Connection phoenix,
      org.apache.hadoop.hbase.client.Connection hbase,
      String table,
      String hbaseTable,
      int rows,
      long seed,
      KeySource keys) {}

  /** Draws an existing row key. */
  @FunctionalInterface
  public interface KeySource {
    byte[] draw(Random r);
  }

  /** Keys of the seeds' table: Phoenix's INTEGER encoding of 0..rows-1. */
  public static KeySource seedKeys(int rows) {
    return r -> PInteger.INSTANCE.toBytes(r.nextInt(rows));
  }

  /** The untimed run before a WARM workload: itself, or a full scan that fills the cache. */
  public void warmUp(Target t) throws Exception {
    if (this == RAW_GET_10K) {
      hbaseScan(t, new Scan().setCaching(1000));
    } else {
      run(t);
    }
  }

  /** Runs the workload once. */
  public Run run(Target t) throws Exception {
    return step.run(t);
  }

  /** Builds the uncovered local index {@link #INDEX_FILTERED_COUNT} reads through. */
  public static void prepareIndex(Connection c, String table) throws SQLException {
    try (Statement s = c.createStatement()) {
      // An index is named without a schema: it lives in its table's.
      String simple = table.substring(table.lastIndexOf('.') + 1);
      s.execute("CREATE LOCAL INDEX IF NOT EXISTS " + simple + "_V2 ON " + table + " (v2)");
    }
  }

  /** Deletes 99.9% of the rows as seed 002 did ({@code DELETE ... WHERE v1 < 0.999}). */
  public static long deleteMost(Connection c, String table) throws SQLException {
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(true);
    try (Statement s = c.createStatement()) {
      return s.executeUpdate("DELETE FROM " + table + " WHERE v1 < 0.999");
    } finally {
      c.setAutoCommit(auto);
    }
  }

  private static Run count(Target t, String sql) throws SQLException {
    try (Statement s = t.phoenix().createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return new Run(rs.getLong(1), List.of());
    }
  }

  private static Run rows(Target t, String sql) throws SQLException {
    long n = 0;
    try (Statement s = t.phoenix().createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        n++;
      }
    }
    return new Run(n, List.of());
  }

  private static Run pointSelects(Target t) throws SQLException {
    Random r = new Random(t.seed());
    List<Double> lat = new ArrayList<>(POINT_READS);
    long found = 0;
    try (PreparedStatement p =
        t.phoenix().prepareStatement("SELECT pk FROM " + t.table() + " WHERE pk = ?")) {
      for (int i = 0; i < POINT_READS; i++) {
        p.setInt(1, r.nextInt(t.rows()));
        long start = System.nanoTime();
        try (ResultSet rs = p.executeQuery()) {
          if (rs.next()) {
            found++;
          }
        }
        lat.add((System.nanoTime() - start) / 1e3);
      }
    }
    return new Run(found, lat);
  }

  private static Run gets(Target t, int n) throws Exception {
    Random r = new Random(t.seed());
    List<Double> lat = new ArrayList<>(n);
    long found = 0;
    try (Table table = t.hbase().getTable(TableName.valueOf(t.hbaseTable()))) {
      for (int i = 0; i < n; i++) {
        Get g = new Get(t.keys().draw(r));
        long start = System.nanoTime();
        Result res = table.get(g);
        lat.add((System.nanoTime() - start) / 1e3);
        if (!res.isEmpty()) {
          found++;
        }
      }
    }
    return new Run(found, lat);
  }

  private static Run compact(Target t) throws Exception {
    TableName tn = TableName.valueOf(t.hbaseTable());
    Admin admin = t.hbase().getAdmin();
    admin.majorCompact(tn);
    awaitCompaction(admin, tn);
    return new Run(0, List.of());
  }

  /** Waits until a requested compaction of {@code t} has run (5 minutes at most). */
  public static void awaitCompaction(Admin admin, TableName t) throws Exception {
    long deadline = System.currentTimeMillis() + 300_000;
    Thread.sleep(300); // the request is queued; give the compaction a moment to register
    while (admin.getCompactionState(t) != CompactionState.NONE) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("major compaction of " + t + " did not finish in 5 min");
      }
      Thread.sleep(100);
    }
  }

  private static Run hbaseScan(Target t, Scan scan) throws Exception {
    long n = 0;
    try (Table table = t.hbase().getTable(TableName.valueOf(t.hbaseTable()));
        ResultScanner rs = table.getScanner(scan)) {
      while (rs.next() != null) {
        n++;
      }
    }
    return new Run(n, List.of());
  }
}
