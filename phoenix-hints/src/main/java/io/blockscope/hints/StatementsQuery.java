package io.blockscope.hints;

import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.profile.StatementTotals;
import io.blockscope.metrics.profile.StatementsWire;
import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.jdbc.PhoenixConnection;

/**
 * The driver's own statements about statement statistics, answered from every region server through
 * blockscope's endpoint ({@link StatementTotals}) as a result set, without Phoenix:
 *
 * <pre>
 * SHOW BLOCKSCOPE STATEMENTS                          the connection's user's own
 * SHOW BLOCKSCOPE STATEMENTS FOR USER 'alice'         alice's (superuser or global ADMIN)
 * SHOW BLOCKSCOPE STATEMENTS FOR ALL USERS            everyone's (superuser or global ADMIN)
 * RESET BLOCKSCOPE STATEMENTS                         everyone's, then cleared (the same)
 * </pre>
 *
 * Keywords in any case; the user quoted ({@code 'alice'}) or a bare name. One row per user and
 * statement, summed over the servers, the most block cache misses first.
 */
final class StatementsQuery {
  private static final Pattern OURS =
      Pattern.compile("\\s*(SHOW|RESET)\\s+BLOCKSCOPE(\\s.*|)", Pattern.CASE_INSENSITIVE);
  private static final Pattern SHOW =
      Pattern.compile(
          "\\s*SHOW\\s+BLOCKSCOPE\\s+STATEMENTS"
              + "(?:\\s+FOR\\s+(?:(ALL)\\s+USERS|USER\\s+(?:'([^']+)'|([A-Za-z0-9_.@/-]+))))?\\s*",
          Pattern.CASE_INSENSITIVE);
  private static final Pattern RESET =
      Pattern.compile("\\s*RESET\\s+BLOCKSCOPE\\s+STATEMENTS\\s*", Pattern.CASE_INSENSITIVE);

  /** The columns before the costs: name and JDBC type. */
  private static final String[] FIRST = {
    "USER",
    "STATEMENT",
    "TEXT",
    "SERVERS",
    "SCANS",
    "ROWS",
    "EXECUTIONS",
    "REGIONS",
    "HITS",
    "MISSES",
    "FS_BLOCKS",
    "FS_BYTES",
    "CELLS",
    "FIRST_SEEN_MS",
    "LAST_SEEN_MS",
    "UNCOUNTED_MAX"
  };

  /** What {@link #FIRST}'s numeric columns hold, in {@code StatementTotals.Summed#figure} terms. */
  private static final String[] FIGURES = {
    StatementsWire.SCANS,
    StatementsWire.ROWS,
    StatementsWire.EXECUTIONS,
    StatementsWire.REGIONS,
    "hits",
    "misses",
    "fs.blocks",
    "fs.bytes",
    StatementTotals.CELLS,
    StatementsWire.FIRST_SEEN,
    StatementsWire.LAST_SEEN,
    StatementsWire.UNCOUNTED_MAX
  };

  final String user;
  final boolean all;
  final boolean reset;

  private StatementsQuery(String user, boolean all, boolean reset) {
    this.user = user;
    this.all = all;
    this.reset = reset;
  }

  /**
   * The statement {@code sql} asks for, or null when it is not one of the driver's ({@code SHOW} or
   * {@code RESET} followed by {@code BLOCKSCOPE}).
   *
   * @throws SQLException (SQLState 42601) for {@code SHOW BLOCKSCOPE} or {@code RESET BLOCKSCOPE}
   *     not in one of the forms above
   */
  static StatementsQuery parse(String sql) throws SQLException {
    if (!OURS.matcher(sql).matches()) {
      return null;
    }
    if (RESET.matcher(sql).matches()) {
      return new StatementsQuery(null, true, true);
    }
    Matcher m = SHOW.matcher(sql);
    if (!m.matches()) {
      throw new SQLException(
          "blockscope: not a statement of blockscope's: '"
              + sql.trim()
              + "' (SHOW BLOCKSCOPE STATEMENTS [FOR USER 'name' | FOR ALL USERS], or RESET"
              + " BLOCKSCOPE STATEMENTS)",
          "42601");
    }
    String named = m.group(2) != null ? m.group(2) : m.group(3);
    return new StatementsQuery(named, m.group(1) != null, false);
  }

  /** Runs it for {@code executeMethod} ({@code execute} or {@code executeQuery}). */
  Object run(PhoenixConnection pc, String executeMethod, AtomicReference<ResultSet> last)
      throws SQLException {
    if (!executeMethod.equals("execute") && !executeMethod.equals("executeQuery")) {
      throw new SQLException(
          "blockscope: SHOW and RESET BLOCKSCOPE STATEMENTS return rows: run them with"
              + " executeQuery or execute, not "
              + executeMethod,
          ExplainAnalyze.NOT_SUPPORTED);
    }
    last.set(null);
    List<StatementsWire.Response> answers = new ArrayList<>();
    List<String> silent = new ArrayList<>();
    try (Admin admin = pc.getQueryServices().getAdmin()) {
      for (ServerName server : admin.getRegionServers()) {
        StringBuilder why = new StringBuilder();
        StatementsWire.Response r = ask(pc, admin, server, why);
        if (r == null) {
          silent.add(server + " (" + why + ")");
        } else {
          answers.add(r);
        }
      }
    } catch (IOException e) {
      throw new SQLException("blockscope: cannot list the region servers: " + e, e);
    }
    if (answers.isEmpty()) {
      throw new SQLException(
          "blockscope: no region server answered (blockscope's endpoint is not loaded where you"
              + " may call it): "
              + silent);
    }
    ResultSet result = rows(StatementTotals.sum(answers, null, "misses"));
    last.set(result);
    return executeMethod.equals("execute") ? (Object) true : result;
  }

  private StatementsWire.Response ask(
      PhoenixConnection pc, Admin admin, ServerName server, StringBuilder why)
      throws SQLException, IOException {
    List<StatementTotals.Region> regions = new ArrayList<>();
    for (RegionInfo r : admin.getRegions(server)) {
      regions.add(
          new StatementTotals.Region(
              r.getTable().getNameAsString(), r.getTable().isSystemTable(), r.getStartKey()));
    }
    try {
      return StatementTotals.askServer(
          server.toString(),
          regions,
          (table, row) -> {
            try (Table t = pc.getQueryServices().getTable(Bytes.toBytes(table))) {
              return ProfileEndpointClient.get().askStatements(t, row, user, all, reset);
            }
          },
          why);
    } catch (StatementTotals.Refused e) {
      throw new SQLException(
          "blockscope: refused by "
              + server
              + ": "
              + e.getMessage()
              + " (FOR USER naming another user, FOR ALL USERS and RESET need an HBase superuser or"
              + " global ADMIN)",
          "42501",
          e);
    }
  }

  /** The result: {@link #FIRST}'s columns, then every cost by its name in upper case. */
  static ResultSet rows(List<StatementTotals.Summed> summed) {
    List<String> names = new ArrayList<>(Arrays.asList(FIRST));
    List<Integer> types = new ArrayList<>();
    for (int i = 0; i < FIRST.length; i++) {
      types.add(i < 3 ? Types.VARCHAR : Types.BIGINT);
    }
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      names.add(column(CostLayout.name(i)));
      types.add(Types.BIGINT);
    }
    List<Object[]> rows = new ArrayList<>();
    for (StatementTotals.Summed s : summed) {
      Object[] r = new Object[names.size()];
      r[0] = s.user;
      r[1] = s.fingerprint;
      r[2] = s.text.isEmpty() ? null : s.text;
      r[3] = (long) s.servers;
      for (int i = 0; i < FIGURES.length; i++) {
        r[4 + i] = s.figure(FIGURES[i]);
      }
      for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
        r[FIRST.length + i - CostLayout.FIRST_COST] = s.figure(CostLayout.name(i));
      }
      rows.add(r);
    }
    return ExplainResults.table("SHOW BLOCKSCOPE STATEMENTS", names, types, rows);
  }

  /** A cost's name as a column: {@code blockCache.miss.data} is {@code BLOCKCACHE_MISS_DATA}. */
  static String column(String cost) {
    return cost.replace('.', '_').toUpperCase(Locale.ROOT);
  }
}
