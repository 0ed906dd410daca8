package io.blockscope.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
    Files.writeString(script, String.join("\n",
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
    SqlLine.Status status = sqlline.begin(new String[] {
        "-d", "io.blockscope.hints.BlockscopeDriver", "-u", url, "-n", "", "-p", "",
        "--isolation=TRANSACTION_READ_COMMITTED", "--outputformat=csv", "--showHeader=false",
        "--force=true", "--silent=true", "--verbose=true",
        "-f", script.toString()}, new ByteArrayInputStream(new byte[0]), false);
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

  private static int count(String text, String word) {
    int n = 0;
    for (int i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) {
      n++;
    }
    return n;
  }
}
