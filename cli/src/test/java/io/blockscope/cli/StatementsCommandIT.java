package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.coprocessor.accounting.StatementStats;
import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.harness.StoreFiles;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CostLayout;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code blockscope statements} against the shared embedded cluster through ZooKeeper: scans that
 * name two statements, read back as the server keeps them, filtered by table, sorted, as JSON; a
 * request for everyone's statements by a user who is not a superuser is refused by name.
 */
public class StatementsCommandIT {
  private static final TableName TABLE = TableName.valueOf("statements_cli");
  private static final byte[] FAMILY = Bytes.toBytes("f");
  private static final String WHOLE = "5ca1ab1e00000001";
  private static final String SOME = "5ca1ab1e00000002";
  private static EmbeddedCluster cluster;
  private static String me;

  @BeforeClass
  public static void load() throws Exception {
    cluster = EmbeddedCluster.shared();
    me = User.getCurrent().getShortName();
    cluster
        .admin()
        .createTable(
            TableDescriptorBuilder.newBuilder(TABLE)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY))
                .build());
    try (Table t = cluster.connection().getTable(TABLE)) {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        puts.add(
            new Put(Bytes.toBytes(String.format("r%02d", i)))
                .addColumn(FAMILY, Bytes.toBytes("q"), Bytes.toBytes(i)));
      }
      t.put(puts);
    }
    cluster.admin().flush(TABLE);
    assertEquals(100, scan(WHOLE, "SELECT * FROM STATEMENTS_CLI", null, "00000000000e0001"));
    assertEquals(100, scan(WHOLE, null, null, "00000000000e0002"));
    assertEquals(10, scan(SOME, "SELECT * FROM OTHER_TABLE WHERE K < ?", "r10", null));
  }

  @AfterClass
  public static void drop() throws Exception {
    cluster.admin().disableTable(TABLE);
    cluster.admin().deleteTable(TABLE);
  }

  /**
   * A scan naming {@code fingerprint} (with {@code text} or none) in execution {@code execution}
   * (or none), stopping before {@code stop}.
   */
  private static int scan(String fingerprint, String text, String stop, String execution)
      throws Exception {
    Scan s = new Scan();
    if (stop != null) {
      s.withStopRow(Bytes.toBytes(stop));
    }
    s.setAttribute(Attributes.STATEMENT, fingerprint.getBytes(StandardCharsets.US_ASCII));
    if (text != null) {
      s.setAttribute(Attributes.STATEMENT_TEXT, text.getBytes(StandardCharsets.UTF_8));
    }
    if (execution != null) {
      s.setAttribute(Attributes.STATEMENT_EXECUTION, execution.getBytes(StandardCharsets.US_ASCII));
    }
    int rows = 0;
    try (Table t = cluster.connection().getTable(TABLE);
        ResultScanner r = t.getScanner(s)) {
      for (Result ignored : r) {
        rows++;
      }
    }
    return rows;
  }

  private record Run(int exit, String out, String err) {}

  private static Run statements(String... args) {
    List<String> line = new ArrayList<>(List.of("statements", "--zk", cluster.zkAddress()));
    line.addAll(List.of(args));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        BlockscopeCli.execute(
            line.toArray(new String[0]), new PrintWriter(out, true), new PrintWriter(err, true));
    System.out.println("blockscope " + String.join(" ", line) + " printed:\n" + out + err);
    return new Run(exit, out.toString(), err.toString());
  }

  private static StatementStats.Statement kept(String fingerprint) {
    StatementStats.User u = cluster.diagnostics().statements().user(me);
    assertNotNull("the server keeps " + me + "'s statements", u);
    StatementStats.Statement s = u.statements().account(fingerprint);
    assertNotNull(fingerprint, s);
    return s;
  }

  @Test(timeout = 180_000)
  public void jsonHasEveryFigureTheServerKeeps() throws Exception {
    Run r = statements("--json", "--limit", "0");
    assertEquals(r.err(), 0, r.exit());
    Matcher users = Pattern.compile("\"user\": \"([^\"]*)\"").matcher(r.out());
    int n = 0;
    while (users.find()) {
      n++;
      assertEquals("only the caller's own", me, users.group(1));
    }
    assertEquals(r.out(), 2, n);
    int at = r.out().indexOf("\"fingerprint\": \"" + WHOLE + "\"");
    assertTrue(r.out(), at >= 0);
    String row = r.out().substring(at);
    assertTrue(row, row.contains("\"text\": \"SELECT * FROM STATEMENTS_CLI\""));
    String figures = row.substring(row.indexOf("\"figures\""), row.indexOf('}'));
    Map<String, Long> printed = new HashMap<>();
    Matcher f = Pattern.compile("\"([^\"]+)\": (\\d+)").matcher(figures);
    while (f.find()) {
      printed.put(f.group(1), Long.parseLong(f.group(2)));
    }
    StatementStats.Statement s = kept(WHOLE);
    assertEquals(2L, (long) printed.get("scans"));
    assertEquals(200L, (long) printed.get("rows"));
    assertEquals("two execution ids", 2L, (long) printed.get("executions"));
    assertEquals("each of the one region", 2L, (long) printed.get("regions"));
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      assertEquals(
          CostLayout.name(i), s.get(i), (long) printed.getOrDefault(CostLayout.name(i), 0L));
    }
    long dataBlocks = StoreFiles.trailerDataBlocksAndCells(cluster.regions(TABLE))[0];
    assertEquals(
        "two whole scans look each data block of the store file up twice: " + figures,
        2 * dataBlocks,
        printed.getOrDefault("blockCache.hit.data", 0L)
            + printed.getOrDefault("blockCache.miss.data", 0L));
  }

  @Test(timeout = 180_000)
  public void aTableFilterKeepsTheStatementsWhoseTextNamesIt() {
    Run r = statements("--table", "statements_cli");
    assertEquals(r.err(), 0, r.exit());
    assertTrue(r.out(), r.out().contains(WHOLE));
    assertTrue(r.out(), r.out().contains("SELECT * FROM STATEMENTS_CLI"));
    assertFalse("its text names OTHER_TABLE: " + r.out(), r.out().contains(SOME));
    assertTrue(r.out(), r.out().startsWith("1 statement on 1 of 1 region servers, by misses"));
    Matcher row =
        Pattern.compile("(?m)^\\S+ +" + WHOLE + " +(\\d+) +(\\d+) +(\\d+) +(\\d+) ")
            .matcher(r.out());
    assertTrue(r.out(), row.find());
    assertEquals(
        "execs, regions, scans, rows: " + r.out(),
        "2 2 2 200",
        row.group(1) + " " + row.group(2) + " " + row.group(3) + " " + row.group(4));
  }

  @Test(timeout = 180_000)
  public void sortingByRowsPutsTheWholeTableScansFirst() {
    Run r = statements("--sort", "rows", "--limit", "1");
    assertEquals(r.err(), 0, r.exit());
    assertTrue(r.out(), r.out().contains("(first 1)"));
    assertTrue(r.out(), r.out().contains(WHOLE));
    assertFalse(r.out(), r.out().contains(SOME));
  }

  @Test(timeout = 180_000)
  public void everyonesStatementsAndAResetAreRefusedToAUserWhoIsNotASuperuser() throws Exception {
    long before = kept(WHOLE).scans();
    for (String option : new String[] {"--all", "--reset"}) {
      Run r = statements(option);
      assertEquals(r.err(), BlockscopeCli.BAD_INPUT, r.exit());
      assertTrue(r.err(), r.err().contains("AccessDeniedException"));
      assertTrue(r.err(), r.err().contains("need an HBase superuser or global ADMIN"));
      assertEquals("one line, no server stack: " + r.err(), 1, r.err().strip().split("\n").length);
    }
    assertEquals("nothing was reset", before, kept(WHOLE).scans());
  }

  @Test(timeout = 180_000)
  public void badInputIsRefusedBeforeAnyServerIsAsked() {
    Run sort = statements("--sort", "bogus");
    assertEquals(sort.err(), BlockscopeCli.BAD_INPUT, sort.exit());
    assertTrue(sort.err(), sort.err().contains("--sort bogus is not a figure the servers keep"));
    Run both = statements("--all", "--user", "x");
    assertEquals(both.err(), BlockscopeCli.BAD_INPUT, both.exit());
    assertTrue(both.err(), both.err().contains("give --user or --all, not both"));
    Run limit = statements("--limit", "-1");
    assertEquals(limit.err(), BlockscopeCli.BAD_INPUT, limit.exit());
  }
}
