package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.MetricKeys;
import io.blockscope.metrics.ServerMetric;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code blockscope profile} against the shared embedded cluster through ZooKeeper, as a plain
 * HBase client uses it: a scan tagged with a query id, then its profile read back from only the
 * regions holding the key range given, counted by the server's {@code profile.requests}.
 */
public class ProfileCommandIT {
  private static final TableName TABLE = TableName.valueOf("profile_cli");
  private static final byte[] FAMILY = Bytes.toBytes("f");
  private static EmbeddedCluster cluster;

  /** Rows r00 to r99 in ten regions, split at r10, r20, ..., r90. */
  @BeforeClass
  public static void load() throws Exception {
    cluster = EmbeddedCluster.shared();
    byte[][] splits = new byte[9][];
    for (int i = 1; i <= 9; i++) {
      splits[i - 1] = Bytes.toBytes("r" + i + "0");
    }
    cluster
        .admin()
        .createTable(
            TableDescriptorBuilder.newBuilder(TABLE)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY))
                .build(),
            splits);
    try (Table t = cluster.connection().getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        puts.add(
            new Put(Bytes.toBytes(String.format("r%02d", i)))
                .addColumn(FAMILY, Bytes.toBytes("q"), Bytes.toBytes(i)));
      }
      t.put(puts);
    }
  }

  @AfterClass
  public static void drop() throws Exception {
    cluster.admin().disableTable(TABLE);
    cluster.admin().deleteTable(TABLE);
  }

  /** A scan of {@code [start, stop)} tagged as query {@code id}; returns its rows. */
  private static int taggedScan(String id, String start, String stop) throws Exception {
    Scan s = new Scan().withStartRow(Bytes.toBytes(start)).withStopRow(Bytes.toBytes(stop));
    s.setAttribute(Attributes.QUERY, id.getBytes(StandardCharsets.US_ASCII));
    s.setAttribute(Attributes.PROFILE, "COUNT".getBytes(StandardCharsets.US_ASCII));
    int rows = 0;
    try (Table t = cluster.connection().getTable(TABLE);
        ResultScanner r = t.getScanner(s)) {
      for (Result ignored : r) {
        rows++;
      }
    }
    return rows;
  }

  private static long profileRequests() {
    return cluster
        .diagnostics()
        .registry()
        .metrics()
        .getCounters()
        .get(MetricKeys.server(ServerMetric.PROFILE_REQUESTS.metric()))
        .getCount();
  }

  private record Run(int exit, String out, String err, long asked) {}

  private static Run profile(String... args) {
    List<String> line =
        new ArrayList<>(List.of("profile", "--zk", cluster.zkAddress(), "--table", "profile_cli"));
    line.addAll(List.of(args));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    long before = profileRequests();
    int exit =
        BlockscopeCli.execute(
            line.toArray(new String[0]), new PrintWriter(out, true), new PrintWriter(err, true));
    System.out.println("blockscope " + String.join(" ", line) + " printed:\n" + out + err);
    return new Run(exit, out.toString(), err.toString(), profileRequests() - before);
  }

  @Test(timeout = 180_000)
  public void aKeyRangeAsksOnlyTheRegionsHoldingIt() throws Exception {
    String id = "0123456789abcdef0123456789abcd20";
    assertEquals(20, taggedScan(id, "r20", "r40"));

    Run range = profile("--query", id, "--start-row", "r20", "--stop-row", "r40", "--format=json");
    assertEquals(range.err(), 0, range.exit());
    assertEquals(range.out(), 2, range.asked());
    assertTrue(range.out(), range.out().contains("\"regionsAsked\": 2,"));
    assertTrue(range.out(), range.out().contains("\"calls\": 1,"));
    assertEquals(range.out(), 2, count(range.out(), "\"rows\": 10,"));

    Run row = profile("--query", id, "--row", "r25");
    assertEquals(row.err(), 0, row.exit());
    assertEquals(row.out(), 1, row.asked());
    assertTrue(row.out(), row.out().contains(" 1 of 1 regions asked recorded it (1 call, "));
    assertTrue(row.out(), row.out().contains("; measured at COUNT (as the query asked)"));

    Run whole = profile("--query", id);
    assertEquals(whole.err(), 0, whole.exit());
    assertEquals(whole.out(), 10, whole.asked());
    assertTrue(whole.out(), whole.out().contains(" 2 of 10 regions asked recorded it (1 call, "));
  }

  /** The table's first region has an empty start key; a range in it asks it alone. */
  @Test(timeout = 180_000)
  public void aRangeInTheFirstRegionAsksItAlone() throws Exception {
    String id = "0123456789abcdef0123456789abcd00";
    assertEquals(5, taggedScan(id, "r00", "r05"));
    Run first = profile("--query", id, "--stop-row", "r05");
    assertEquals(first.err(), 0, first.exit());
    assertEquals(first.out(), 1, first.asked());
    assertTrue(first.out(), first.out().contains(" 1 of 1 regions asked recorded it (1 call, "));
  }

  @Test(timeout = 180_000)
  public void badInputIsRefusedBeforeAnyRegionIsAsked() {
    Run id = profile("--query", "not-an-id");
    assertEquals(id.err(), BlockscopeCli.BAD_INPUT, id.exit());
    assertTrue(id.err(), id.err().contains("--query must be a query id of 32 lower-case hex"));
    Run both =
        profile("--query", "0123456789abcdef0123456789abcdef", "--row", "a", "--stop-row", "b");
    assertEquals(both.err(), BlockscopeCli.BAD_INPUT, both.exit());
    assertTrue(both.err(), both.err().contains("give --row, or --start-row and --stop-row"));
    Run empty =
        profile(
            "--query", "0123456789abcdef0123456789abcdef", "--start-row", "r5", "--stop-row", "r1");
    assertEquals(empty.err(), BlockscopeCli.BAD_INPUT, empty.exit());
    assertTrue(empty.err(), empty.err().contains("is not after --start-row"));
    assertEquals(0, id.asked() + both.asked() + empty.asked());
  }

  private static int count(String s, String part) {
    return s.split(java.util.regex.Pattern.quote(part), -1).length - 1;
  }
}
