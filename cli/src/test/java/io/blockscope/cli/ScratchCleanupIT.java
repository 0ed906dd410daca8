package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.harness.StoreFiles;
import io.blockscope.workloads.RawTable;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Waiter;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * evaluate against a running cluster ({@code --zk}), here the embedded one: it creates only scratch
 * tables, removes them when interrupted, and leaves the cluster's other tables alone.
 */
public class ScratchCleanupIT {
  private static EmbeddedCluster cluster;
  private static final Pattern SCRATCH = EvaluationRunner.SCRATCH_TABLES;

  @BeforeClass
  public static void start() throws Exception {
    cluster = EmbeddedCluster.shared();
    cluster.phoenix().close(); // Phoenix's SYSTEM tables exist before the test starts
  }

  private String zk() {
    return "localhost:" + cluster.util().getZkCluster().getClientPort() + ":/hbase";
  }

  private List<TableName> scratchTables() throws Exception {
    return List.of(cluster.admin().listTableNames(SCRATCH));
  }

  @Test
  public void anInterruptedRunDropsItsScratchTablesAndTouchesNothingElse() throws Exception {
    TableName bystander = TableName.valueOf("not_blockscopes");
    RawTable.create(cluster.admin(), new RawTable.Spec(bystander));
    Path out = Files.createTempDirectory("evaluate-interrupted");
    AtomicInteger code = new AtomicInteger(-1);
    StringWriter err = new StringWriter();
    Thread run =
        new Thread(
            () ->
                code.set(
                    BlockscopeCli.execute(
                        new String[] {
                          "evaluate",
                          "--zk",
                          zk(),
                          "--rows",
                          "2^10",
                          "--runs",
                          "1",
                          "--configs",
                          "FAST_DIFF,PREFIX,GZ",
                          "--out",
                          out.toString()
                        },
                        new PrintWriter(new StringWriter(), true),
                        new PrintWriter(err, true))));
    run.start();
    cluster
        .util()
        .waitFor(
            120_000,
            (Waiter.Predicate<Exception>)
                () ->
                    scratchTables().stream()
                        .anyMatch(t -> t.getNameAsString().contains("T_FAST_DIFF_NONE_")));
    // interrupted again every 200 ms until it stops: an interrupt that lands while HBase's client
    // checks its master connection is lost there (ConnectionImplementation's
    // masterConnectionStateSupplier catches the InterruptedIOException of isMasterRunning, logs
    // "Checking master connection" and goes on), and the run cannot see it. The interrupts that
    // land while the run drops its tables must not cost a drop (EvaluationRunner.cleanUp).
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (run.isAlive() && System.nanoTime() < deadline) {
      run.interrupt();
      run.join(200);
    }
    assertFalse("evaluate stopped", run.isAlive());
    assertTrue(err.toString(), code.get() != 0);
    assertEquals(List.of(), scratchTables());
    assertTrue(cluster.admin().tableExists(bystander));
    assertFalse("no report for an interrupted run", Files.exists(out.resolve("results.json")));
  }

  @Test
  public void sampleComparesOnTheUsersOwnRowsAndOnlyReadsTheSource() throws Exception {
    TableName users = TableName.valueOf("users_own_table");
    Admin admin = cluster.admin();
    admin.createTable(
        TableDescriptorBuilder.newBuilder(users)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of("a"))
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of("b"))
            .build());
    try (Table t = cluster.connection().getTable(users)) {
      for (int i = 0; i < 3000; i++) {
        t.put(
            new Put(Bytes.toBytes("user" + i))
                .addColumn(Bytes.toBytes("a"), Bytes.toBytes("q"), Bytes.toBytes("value-" + i))
                .addColumn(Bytes.toBytes("b"), Bytes.toBytes("r"), Bytes.toBytes(i)));
      }
    }
    long before = admin.getDescriptor(users).hashCode();
    Path out = Files.createTempDirectory("evaluate-sample");
    StringWriter err = new StringWriter();
    int code =
        BlockscopeCli.execute(
            new String[] {
              "evaluate",
              "--zk",
              zk(),
              "--sample",
              users.getNameAsString(),
              "--rows",
              "2048",
              "--runs",
              "1",
              "--configs",
              "FAST_DIFF,ROW_INDEX_V1+GZ",
              "--out",
              out.toString()
            },
            new PrintWriter(new StringWriter(), true),
            new PrintWriter(err, true));
    assertEquals(err.toString(), 0, code);
    assertEquals(List.of(), scratchTables());
    assertFalse(
        "the namespace it made is gone again",
        List.of(admin.listNamespaces()).contains(EvaluationRunner.SCHEMA));
    assertEquals(before, admin.getDescriptor(users).hashCode());
    assertEquals(
        "the source is unchanged: 3,000 rows of two cells",
        6000,
        RawTable.scanCells(cluster.connection(), users, new Scan()));
    String json = Files.readString(out.resolve("results.json"));
    assertTrue(json, json.contains("\"shape\": \"sample\""));
    assertTrue(json, json.contains("\"raw.get\": {"));
    // every sampled key was found: 1000 rows, not a number that merely starts with it
    assertTrue(json, Pattern.compile("\"rows\": 1000[,}\\s]").matcher(json).find());
    assertFalse("only plain-HBase workloads run on a sample", json.contains("a Phoenix workload"));
  }

  private static final String[] KEEP_ONE = {
    "evaluate",
    "--zk",
    "",
    "--shape",
    "pe",
    "--rows",
    "2^10",
    "--runs",
    "1",
    "--configs",
    "FAST_DIFF",
    "--workloads",
    "raw.scan.no.cache",
    "--keep-tables",
    "--out",
    ""
  };

  /** Runs evaluate with {@code args} (--zk and --out filled in); its results.json's run id. */
  private String evaluate(String[] args) throws Exception {
    String[] a = args.clone();
    a[2] = zk();
    Path out = Files.createTempDirectory("evaluate-run");
    a[a.length - 1] = out.toString();
    StringWriter err = new StringWriter();
    int code =
        BlockscopeCli.execute(
            a, new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
    assertEquals(err.toString(), 0, code);
    String json = Files.readString(out.resolve("results.json"));
    Matcher id = Pattern.compile("\"runId\": \"([0-9A-Z]{6})\"").matcher(json);
    assertTrue(json, id.find());
    return id.group(1);
  }

  private void dropAll(List<TableName> tables) throws Exception {
    for (TableName t : tables) {
      if (cluster.admin().tableExists(t)) {
        cluster.admin().disableTable(t);
        cluster.admin().deleteTable(t);
      }
    }
  }

  /**
   * {@code --keep-tables}: each configuration's table stays after the run, named and marked with
   * the run's id and holding the run's rows (its store file's trailer says so); a second run keeps
   * its own beside it and leaves the first one's alone.
   */
  @Test
  public void keptTablesStayWithTheirRowsAndNoLaterRunDropsThem() throws Exception {
    List<TableName> kept = new ArrayList<>();
    try {
      for (int run = 1; run <= 2; run++) {
        String id = evaluate(KEEP_ONE);
        TableName mine = TableName.valueOf(EvaluationRunner.SCHEMA, "T_FAST_DIFF_NONE_" + id);
        kept.add(mine);
        assertEquals(
            "run " + run,
            kept,
            scratchTables().stream().sorted(Comparator.comparing(t -> kept.indexOf(t))).toList());
        assertEquals(
            id, cluster.admin().getDescriptor(mine).getValue(EvaluationRunner.RUN_ATTRIBUTE));
        for (TableName t : kept) {
          assertEquals(
              "run " + run + ": " + t + "'s cells, as its store file's trailer counts them",
              1024,
              StoreFiles.trailerDataBlocksAndCells(cluster.regions(t))[1]);
        }
      }
      assertTrue("two runs, two ids", !kept.get(0).equals(kept.get(1)));
    } finally {
      dropAll(kept);
      cluster.admin().deleteNamespace(EvaluationRunner.SCHEMA);
    }
  }

  /**
   * Two runs at once on one cluster, with the same configuration, beside a table an earlier build
   * kept under the name it then used and one that another run marked: both runs finish, each with
   * its own tables, and the other two tables keep their rows.
   */
  @Test
  public void runsBesideEachOtherDropOnlyTheirOwnTables() throws Exception {
    Admin admin = cluster.admin();
    admin.createNamespace(NamespaceDescriptor.create(EvaluationRunner.SCHEMA).build());
    TableName earlier = TableName.valueOf(EvaluationRunner.SCHEMA, "T_FAST_DIFF_NONE");
    TableName marked = TableName.valueOf(EvaluationRunner.SCHEMA, "T_FAST_DIFF_NONE_ZZZZZZ");
    List<TableName> others = List.of(earlier, marked);
    try {
      for (TableName t : others) {
        admin.createTable(
            TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f"))
                .setValue(EvaluationRunner.RUN_ATTRIBUTE, t.equals(marked) ? "ZZZZZZ" : null)
                .build());
        try (Table table = cluster.connection().getTable(t)) {
          table.put(
              new Put(Bytes.toBytes("row"))
                  .addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"), Bytes.toBytes("v")));
        }
      }
      String[] drop = Arrays.copyOf(KEEP_ONE, KEEP_ONE.length);
      List<String> args = new ArrayList<>(List.of(drop));
      args.remove("--keep-tables");
      String[] plain = args.toArray(new String[0]);
      ExecutorService two = Executors.newFixedThreadPool(2);
      try {
        var a = two.submit(() -> evaluate(plain));
        var b = two.submit(() -> evaluate(plain));
        assertTrue("two runs, two ids", !a.get().equals(b.get()));
      } finally {
        two.shutdownNow();
      }
      assertEquals(others, scratchTables().stream().sorted().toList());
      for (TableName t : others) {
        assertEquals(
            t + " keeps its row", 1, RawTable.scanCells(cluster.connection(), t, new Scan()));
      }
    } finally {
      dropAll(others);
      admin.deleteNamespace(EvaluationRunner.SCHEMA);
    }
  }

  /** Which tables a run may drop: its own name and mark, or its own name and no mark yet. */
  @Test
  public void aRunOwnsOnlyTablesOfItsNameAndMark() throws Exception {
    Admin admin = cluster.admin();
    admin.createNamespace(NamespaceDescriptor.create(EvaluationRunner.SCHEMA).build());
    EvaluationRunner run =
        new EvaluationRunner(null, null, null, List.of(), List.of(), 0, 1, null).runId("ABC123");
    String[][] cases = {
      // name's end, mark, owned
      {"_ABC123", null, "true"},
      {"_ABC123", "ABC123", "true"},
      {"_ABC123", "ZZZZZZ", "false"},
      {"_ZZZZZZ", "ABC123", "false"},
      {"", null, "false"},
    };
    List<TableName> made = new ArrayList<>();
    try {
      for (int i = 0; i < cases.length; i++) {
        TableName t = TableName.valueOf(EvaluationRunner.SCHEMA, "T_" + i + cases[i][0]);
        admin.createTable(
            TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f"))
                .setValue(EvaluationRunner.RUN_ATTRIBUTE, cases[i][1])
                .build());
        made.add(t);
        assertEquals(
            t + " marked " + cases[i][1], Boolean.parseBoolean(cases[i][2]), run.owns(admin, t));
      }
    } finally {
      dropAll(made);
      admin.deleteNamespace(EvaluationRunner.SCHEMA);
    }
  }

  /**
   * A client drops a table's cached blocks on a running cluster (the embedded one, reached through
   * ZooKeeper as a real one is), so evaluate's cold runs are cold there too.
   */
  @Test
  public void aClientDropsATablesCachedBlocks() throws Exception {
    TableName t = TableName.valueOf("cold_through_admin");
    RawTable.create(cluster.admin(), new RawTable.Spec(t).blockSize(4096));
    RawTable.loadSeed(cluster.connection(), cluster.admin(), t, 2_000, 5);
    try (RemoteEvalCluster remote = RemoteEvalCluster.connectZk(zk())) {
      RawTable.scanCells(cluster.connection(), t, new Scan());
      long cached = StoreFiles.cachedDataBlocks(cluster.blockCache(), cluster.regions(t));
      assertTrue("a scan cached the table's blocks: " + cached, cached > 0);
      assertEquals(null, remote.whyNoColdCache());
      remote.dropCache(t.getNameAsString());
      assertEquals(0, StoreFiles.cachedDataBlocks(cluster.blockCache(), cluster.regions(t)));
    } finally {
      cluster.admin().disableTable(t);
      cluster.admin().deleteTable(t);
    }
  }

  @Test
  public void aCompleteRunAgainstARealClusterReportsWhyCostsAreMissing() throws Exception {
    Path out = Files.createTempDirectory("evaluate-remote");
    StringWriter stdout = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        BlockscopeCli.execute(
            new String[] {
              "evaluate",
              "--zk",
              zk(),
              "--rows",
              "2^10",
              "--runs",
              "1",
              "--configs",
              "ROW_INDEX_V1",
              "--workloads",
              "scan.serial,raw.get,raw.get.cold,index.filtered.count,deleted.reverse",
              "--out",
              out.toString()
            },
            new PrintWriter(stdout, true),
            new PrintWriter(err, true));
    assertEquals(err.toString(), 0, code);
    assertEquals(List.of(), scratchTables());
    String json = Files.readString(out.resolve("results.json"));
    // This cluster's region server has no info port, so /jmx cannot be read: the report says so.
    assertTrue(
        json, json.contains("\"costsUnavailable\": \"no region server publishes an info port"));
    // cold runs ran: the client dropped the table's blocks through Admin.clearBlockCache
    assertFalse(json, json.contains("\"skipped\""));
    assertTrue(json.contains("\"mode\": \"remote\""));
    assertTrue(Files.readString(out.resolve("report.html")).contains("ROW_INDEX_V1"));
    assertTrue(stdout.toString(), stdout.toString().contains("Cost columns empty"));
  }
}
