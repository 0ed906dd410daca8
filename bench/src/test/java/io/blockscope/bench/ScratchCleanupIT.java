package io.blockscope.bench;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.blockscope.it.EmbeddedCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Waiter;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * evaluate against a running cluster ({@code --zk}), here the embedded one: it creates only
 * scratch tables, removes them when interrupted, and leaves the cluster's other tables alone.
 */
public class ScratchCleanupIT {
  private static EmbeddedCluster cluster;
  private static final Pattern SCRATCH = Pattern.compile(EvaluationRunner.PREFIX + ".*");

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
    io.blockscope.it.Tables.create(cluster.admin(), new io.blockscope.it.Tables.Spec(bystander));
    Path out = Files.createTempDirectory("evaluate-interrupted");
    AtomicInteger code = new AtomicInteger(-1);
    StringWriter err = new StringWriter();
    Thread run = new Thread(() -> code.set(BlockscopeCli.execute(new String[] {
        "evaluate", "--zk", zk(), "--rows", "2^10", "--runs", "1",
        "--configs", "FAST_DIFF,PREFIX,GZ", "--out", out.toString()},
        new PrintWriter(new StringWriter(), true), new PrintWriter(err, true))));
    run.start();
    cluster.util().waitFor(120_000, (Waiter.Predicate<Exception>) () ->
        scratchTables().stream().anyMatch(t -> t.getNameAsString().endsWith("FAST_DIFF_NONE")));
    run.interrupt();
    run.join(120_000);
    assertFalse("evaluate stopped", run.isAlive());
    assertTrue(err.toString(), code.get() != 0);
    assertEquals(List.of(), scratchTables());
    assertTrue(cluster.admin().tableExists(bystander));
    assertFalse("no report for an interrupted run", Files.exists(out.resolve("results.json")));
  }

  @Test
  public void aCompleteRunAgainstARealClusterReportsWhyCostsAreMissing() throws Exception {
    Path out = Files.createTempDirectory("evaluate-remote");
    StringWriter stdout = new StringWriter();
    StringWriter err = new StringWriter();
    int code = BlockscopeCli.execute(new String[] {
        "evaluate", "--zk", zk(), "--rows", "2^10", "--runs", "1", "--configs", "ROW_INDEX_V1",
        "--workloads", "scan.serial,raw.get,raw.get.cold", "--out", out.toString()},
        new PrintWriter(stdout, true), new PrintWriter(err, true));
    assertEquals(err.toString(), 0, code);
    assertEquals(List.of(), scratchTables());
    String json = Files.readString(out.resolve("results.json"));
    // This cluster's region server has no info port, so /jmx cannot be read: the report says so.
    assertTrue(json, json.contains("\"costsUnavailable\": \"no region server publishes an info port"));
    assertTrue(json, json.contains("\"skipped\": \"a client cannot drop a real cluster's block cache"));
    assertTrue(json.contains("\"mode\": \"remote\""));
    assertTrue(Files.readString(out.resolve("report.html")).contains("ROW_INDEX_V1"));
    assertTrue(stdout.toString(), stdout.toString().contains("Cost columns empty"));
  }
}
