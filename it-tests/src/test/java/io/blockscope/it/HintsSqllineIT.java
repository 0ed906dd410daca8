package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.blockscope.harness.JvmFlags;
import io.blockscope.testsupport.SqllineCommand;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.BeforeClass;
import org.junit.Test;
import sqlline.SqlLine;

/**
 * blockscope's driver from sqlline, the JDBC shell Phoenix ships: the URL and driver class
 * docs/hints.md gives, a script of the seeds' statements, and what sqlline prints.
 */
public class HintsSqllineIT extends ClusterTestBase {
  private static final String TABLE = "HINTS_SQLLINE";
  private static final int ROWS = 2_000;

  @BeforeClass
  public static void load() throws Exception {
    SeedTables.createSplit(cluster, TABLE, ROWS, 12, "");
  }

  @Test
  public void theSeedsStatementsRunFromSqlline() throws Exception {
    Path script = Files.createTempFile("blockscope-sqlline", ".sql");
    Files.writeString(
        script,
        String.join(
            "\n",
            "select /*+ NO_CACHE */ count(*) from " + TABLE + ";",
            "SELECT /*+ SERIAL */ COUNT(*) FROM " + TABLE + ";",
            "EXPLAIN SELECT /*+ SERIAL NO_CACHE */ pk FROM " + TABLE + " WHERE v2 < 0.5;",
            "SELECT /*+ PROFILE(BAD) */ COUNT(*) FROM " + TABLE + ";",
            ""));
    String url = cluster.phoenixUrl().replace("jdbc:phoenix:", "jdbc:blockscope:phoenix:");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SqlLine sqlline = new SqlLine();
    PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
    sqlline.setOutputStream(print);
    sqlline.setErrorStream(print);
    SqlLine.Status status =
        sqlline.begin(
            new String[] {
              "-d",
              "io.blockscope.hints.BlockscopeDriver",
              "-u",
              url,
              "-n",
              "",
              "-p",
              "",
              "--isolation=TRANSACTION_READ_COMMITTED",
              "--outputformat=csv",
              "--showHeader=false",
              "--force=true",
              "--silent=true",
              "--verbose=true",
              "-f",
              script.toString()
            },
            new ByteArrayInputStream(new byte[0]),
            false);
    Files.delete(script);
    String printed = out.toString(StandardCharsets.UTF_8);
    System.out.println("sqlline printed:\n" + printed);

    // Both counts, the plan with blockscope's lines, and the bad hint's error; --force ran on.
    assertEquals(printed, 2, count(printed, "'" + ROWS + "'"));
    assertTrue(printed, printed.contains("BLOCKSCOPE SERIAL: region scans run one at a time"));
    assertTrue(printed, printed.contains("BLOCKSCOPE NO_CACHE: every scan of this query"));
    assertTrue(printed, printed.contains("unknown PROFILE argument 'BAD': use COUNT or TIME"));
    // sqlline reports the failed statement in its exit status.
    assertEquals(SqlLine.Status.OTHER, status);
  }

  /**
   * sqlline run as a process of its own with blockscope's driver must end promptly after {@code
   * !quit}, with exit code 0. sqlline's {@code main} ends with {@code System.exit}, which waits for
   * the shutdown hooks (Phoenix's closes its query services, for 5 s at most).
   */
  @Test
  public void issue14SqllineProcessExitsAfterQuit() throws Exception {
    Child c = sqllineProcess();
    System.out.println("sqlline process (System.exit): " + c);
    assertEquals(c.toString(), 0, c.exitCode());
    assertTrue(c.toString(), c.millisAfterQuit() < QUIT_BOUND_MS);
  }

  /**
   * The same without sqlline's {@code System.exit} ({@code -Dsqlline.system.exit=true}, as when
   * sqlline is embedded): the JVM ends when {@code main} returns only if no non-daemon thread is
   * left, so this fails if the driver, or anything it starts, leaves one behind.
   */
  @Test
  public void issue14SqllineProcessLeavesNoThreadAliveAfterQuit() throws Exception {
    Child c = sqllineProcess("-Dsqlline.system.exit=true");
    System.out.println("sqlline process (main returns): " + c);
    assertEquals(c.toString(), 0, c.exitCode());
    assertTrue(c.toString(), c.millisAfterQuit() < QUIT_BOUND_MS);
  }

  /**
   * The command line of sqlline's {@code main} in a new JVM on this class path, connected to the
   * cluster through blockscope's driver as docs/hints.md shows.
   */
  private static List<String> sqllineCommand(
      Path home, List<String> jvmArgs, List<String> sqllineArgs) {
    String url = cluster.phoenixUrl().replace("jdbc:phoenix:", "jdbc:blockscope:phoenix:");
    List<String> jvm = new ArrayList<>(JvmFlags.opens());
    jvm.addAll(jvmArgs);
    List<String> args = new ArrayList<>(List.of("--silent=true"));
    args.addAll(sqllineArgs);
    return SqllineCommand.of(
        home,
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
        url,
        jvm,
        args);
  }

  /**
   * EXPLAIN ANALYZE from sqlline as a process of its own, on the seeds' statements (docs/hints.md
   * shows what it printed): the text form of each, the JSON form, and a bad option's error.
   */
  @Test
  public void explainAnalyzeFromSqllineAsItsOwnProcess() throws Exception {
    Path home = Files.createTempDirectory("blockscope-sqlline-home");
    Path script = home.resolve("explain-analyze.sql");
    Files.writeString(
        script,
        String.join(
            "\n",
            "EXPLAIN ANALYZE SELECT /*+ SERIAL */ COUNT(*) FROM " + TABLE + ";",
            "EXPLAIN ANALYZE (TIME) SELECT /*+ SERIAL */ COUNT(v1) FROM "
                + TABLE
                + " WHERE v2 < 0.5;",
            "EXPLAIN ANALYZE SELECT pk FROM " + TABLE + " WHERE pk = 1234;",
            "!set outputformat vertical",
            "EXPLAIN ANALYZE (FORMAT JSON) select /*+ NO_CACHE */ count(*) from " + TABLE + ";",
            "EXPLAIN ANALYZE (FORMAT YAML) SELECT COUNT(*) FROM " + TABLE + ";",
            ""));
    List<String> cmd =
        sqllineCommand(
            home,
            List.of(),
            List.of(
                "--outputformat=table",
                "--maxWidth=400",
                "--maxColumnWidth=400",
                "--force=true",
                "--verbose=false",
                "-f",
                script.toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] printed;
    try (var out = p.getInputStream()) {
      printed = out.readAllBytes(); // until the child closes it: it exits after the script
    }
    boolean ended = p.waitFor(180, TimeUnit.SECONDS);
    String output = new String(printed, StandardCharsets.UTF_8);
    try (var files = Files.walk(home)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
    System.out.println("sqlline (own process) printed:\n" + output);
    assertTrue(output, ended);
    // three text forms and one JSON document (whose regions carry a level of their own)
    assertEquals(
        output,
        4,
        count(output, "BLOCKSCOPE ANALYZE (COUNT)")
            + count(output, "BLOCKSCOPE ANALYZE (TIME)")
            + count(output, "\"rowsReturned\": "));
    // each region says the level it measured the query at: the COUNT scan's four regions and the
    // point lookup's one, the TIME scan's four, and the JSON document's four
    assertEquals(output, 5, count(output, "; measured at COUNT (as the query asked)"));
    assertEquals(output, 4, count(output, "; measured at TIME (as the query asked)"));
    assertEquals(output, 4, count(output, "\"levelReason\": \"as the query asked\""));
    // each asked the regions its scans read: the table's four for a scan, one for the lookup
    assertEquals(output, 2, count(output, "  profile read: 4 regions asked in 1 call, "));
    assertEquals(output, 1, count(output, "  profile read: 1 region asked in 1 call, "));
    assertEquals(output, 1, count(output, "\"regionsAsked\": 4,"));
    assertTrue(output, output.contains("BLOCKSCOPE ANALYZE (COUNT): 1 row returned in "));
    assertTrue(output, output.contains("BLOCKSCOPE ANALYZE (TIME): 1 row returned in "));
    assertTrue(output, output.contains("BLOCKSCOPE SERIAL: region scans run one at a time"));
    assertTrue(output, output.contains("\"version\": 1,"));
    assertTrue(output, output.contains("\"rowsReturned\": 1,"));
    assertTrue(output, output.contains("unknown FORMAT 'YAML': use TEXT or JSON"));
    // the failed statement is in the exit code (sqlline's Status.OTHER); the others ran (--force)
    assertEquals(output, 2, p.exitValue());
  }

  /** Long enough for Phoenix's 5 s shutdown hook on a loaded 2-core machine. */
  private static final long QUIT_BOUND_MS = 30_000;

  private record Child(int exitCode, long millisAfterQuit, String output, String threads) {
    @Override
    public String toString() {
      return "exit "
          + exitCode
          + " "
          + millisAfterQuit
          + " ms after !quit; printed:\n"
          + output
          + (threads.isEmpty() ? "" : "\nthreads left:\n" + threads);
    }
  }

  /**
   * sqlline's {@code main} in a new JVM on this class path, connected to the cluster with the
   * blockscope driver; three SERIAL queries, then {@code !quit} once their answers are printed.
   */
  private static Child sqllineProcess(String... jvmArgs) throws Exception {
    Path home = Files.createTempDirectory("blockscope-sqlline-home");
    List<String> cmd =
        sqllineCommand(home, List.of(jvmArgs), List.of("--outputformat=csv", "--showHeader=false"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    @SuppressWarnings("JdkObsolete") // appended by the reader thread, read by this one
    StringBuffer output = new StringBuffer();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  output.append(line).append('\n');
                  lines.add(line);
                }
              } catch (IOException gone) {
                // the process ended
              }
            },
            "sqlline-child-output");
    reader.setDaemon(true);
    reader.start();
    try (Writer in = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8)) {
      // The shapes that use threads: a plain SERIAL scan, a GROUP BY on other columns (its region
      // tasks on Phoenix's pool), a sort-merge join (Phoenix's own two-thread pool).
      in.write(
          "SELECT /*+ SERIAL */ COUNT(*) FROM "
              + TABLE
              + ";\n"
              + "SELECT /*+ SERIAL */ ROUND(v1, 1), COUNT(*) FROM "
              + TABLE
              + " GROUP BY ROUND(v1, 1);\n"
              + "SELECT /*+ USE_SORT_MERGE_JOIN SERIAL */ COUNT(*) FROM "
              + TABLE
              + " a JOIN "
              + TABLE
              + " b ON a.pk = b.pk;\n");
      in.flush();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      for (int counts = 0; counts < 2; ) {
        // in one-second steps, so that a child that died (a broken class path) fails at once
        String line = lines.poll(1, TimeUnit.SECONDS);
        if (line == null && (!p.isAlive() || System.nanoTime() > deadline)) {
          p.destroyForcibly();
          throw new AssertionError("sqlline did not answer; printed:\n" + output);
        }
        counts += "'%d'".formatted(ROWS).equals(line) ? 1 : 0;
      }
      in.write("!quit\n");
    }
    long quit = System.nanoTime();
    boolean ended = p.waitFor(QUIT_BOUND_MS * 2, TimeUnit.MILLISECONDS);
    long after = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - quit);
    String threads = "";
    if (!ended) {
      threads = threadDump(p.pid());
      p.destroyForcibly().waitFor();
    }
    reader.join(10_000);
    try (var files = Files.walk(home)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
    return new Child(ended ? p.exitValue() : -1, after, output.toString(), threads);
  }

  /** The non-daemon threads of a running JVM, from jstack. */
  private static String threadDump(long pid) throws Exception {
    Process j =
        new ProcessBuilder(System.getProperty("java.home") + "/bin/jstack", String.valueOf(pid))
            .redirectErrorStream(true)
            .start();
    String dump = new String(j.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    j.waitFor(30, TimeUnit.SECONDS);
    StringBuilder alive = new StringBuilder();
    for (String thread : dump.split("\n\n")) {
      if (thread.startsWith("\"") && !thread.lines().findFirst().orElse("").contains(" daemon ")) {
        alive.append(thread).append("\n\n");
      }
    }
    return alive.toString();
  }

  private static int count(String text, String word) {
    int n = 0;
    for (int i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) {
      n++;
    }
    return n;
  }
}
