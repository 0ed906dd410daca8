package io.blockscope.hints;

import io.blockscope.metrics.profile.KeyRanges;
import io.blockscope.metrics.profile.ProfileWire;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.jdbc.PhoenixConnection;

/**
 * Reads a query's profile back from the region servers through blockscope's coprocessor endpoint
 * ({@link ProfileEndpointClient}), asking only the regions that hold the rows the query's scans
 * covered: the regions are found with Phoenix's cached locations ({@code
 * ConnectionQueryServices.getTableRegionLocation}) and asked in runs of adjacent regions, one
 * {@code batchCoprocessorService} call per run ({@link KeyRanges#calls}). A refusal by HBase comes
 * back as SQLState 42501.
 */
final class ProfileClient {
  private ProfileClient() {}

  /**
   * Every region of each of {@code tables}: for a query whose executed plan is not known, the form
   * that asks each table whole.
   */
  static Map<String, KeyRanges> wholeTables(Iterable<String> tables) {
    Map<String, KeyRanges> all = new LinkedHashMap<>();
    for (String t : tables) {
      all.put(t, new KeyRanges().add(new byte[0], new byte[0]));
    }
    return all;
  }

  /**
   * The costs the region servers recorded for query {@code queryId} of {@code user} (null: the
   * connection's user's own), by table and region, asking the regions of each table in {@code
   * reads} (physical HBase table names) that hold its ranges.
   */
  static QueryProfile fetch(
      PhoenixConnection pc, Map<String, KeyRanges> reads, String queryId, String user)
      throws SQLException {
    long start = System.nanoTime();
    List<QueryProfile.Region> regions = new ArrayList<>();
    int asked = 0;
    int calls = 0;
    for (Map.Entry<String, KeyRanges> read : reads.entrySet()) {
      String table = read.getKey();
      if (read.getValue().isEmpty()) {
        continue; // the query read no row of it
      }
      byte[] name = Bytes.toBytes(table);
      try (Table t = pc.getQueryServices().getTable(name)) {
        List<KeyRanges.Call> runs =
            KeyRanges.calls(read.getValue().regions(row -> region(pc, name, row)));
        List<ProfileWire.Answer> answers = new ArrayList<>();
        for (KeyRanges.Call run : runs) {
          answers.addAll(ProfileEndpointClient.get().ask(t, run.start(), run.end(), queryId, user));
          asked += run.regions();
          calls++;
        }
        for (ProfileWire.Answer a : answers) {
          if (a.found) {
            Map<String, Long> costs = new LinkedHashMap<>(a.costs);
            Long level = costs.remove(ProfileWire.LEVEL_APPLIED);
            Long reason = costs.remove(ProfileWire.LEVEL_REASON);
            regions.add(
                new QueryProfile.Region(
                    table,
                    a.region,
                    a.rows,
                    Collections.unmodifiableMap(costs),
                    level == null ? -1 : level.intValue(),
                    reason == null ? -1 : reason.intValue()));
          }
        }
      } catch (SQLException e) {
        throw e;
      } catch (Throwable e) {
        String denied = accessDenied(e);
        if (denied != null) {
          throw new SQLException(
              "blockscope: HBase refused the profile of query "
                  + queryId
                  + " on "
                  + table
                  + ": "
                  + denied
                  + " (a profile is read through blockscope's coprocessor endpoint: with"
                  + " hbase.security.exec.permission.checks=true the user needs EXEC on the table,"
                  + " and only a superuser or global ADMIN may read another user's)",
              "42501",
              e);
        }
        throw new SQLException(
            "blockscope: cannot read the profile of query "
                + queryId
                + " from "
                + table
                + " (is the blockscope coprocessor deployed there?): "
                + e,
            e);
      }
    }
    regions.sort(
        Comparator.comparing(QueryProfile.Region::table)
            .thenComparing(QueryProfile.Region::region));
    return new QueryProfile(
        queryId, regions, new QueryProfile.Read(asked, calls, System.nanoTime() - start));
  }

  /** The start and end keys of the region of {@code table} holding {@code row}. */
  private static byte[][] region(PhoenixConnection pc, byte[] table, byte[] row)
      throws SQLException {
    RegionInfo r = pc.getQueryServices().getTableRegionLocation(table, row).getRegion();
    return new byte[][] {r.getStartKey(), r.getEndKey()};
  }

  /**
   * The message of HBase's {@code AccessDeniedException} in {@code e}'s causes (as the client
   * rethrows it, or named in a remote exception's message), or null if HBase did not refuse.
   */
  static String accessDenied(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof org.apache.hadoop.hbase.security.AccessDeniedException) {
        return t.getMessage();
      }
      String m = t.getMessage();
      if (m != null && m.contains("org.apache.hadoop.hbase.security.AccessDeniedException")) {
        return m;
      }
    }
    return null;
  }

  /**
   * The ranges each table was read over: those of {@code executed}, the plan Phoenix ran ({@code
   * PhoenixStatement.getQueryPlan()} after execution), or every region of {@code tables} when it is
   * not known.
   */
  static Map<String, KeyRanges> reads(QueryPlan executed, Set<String> tables) {
    return executed == null ? wholeTables(tables) : PlanScans.ranges(executed);
  }

  /**
   * Reads a profiled query's profile; once the result set is closed, the answer is kept (and the
   * plan it was read by let go).
   */
  static final class Profiler {
    private final PhoenixConnection connection;
    private final Set<String> tables;
    private final String queryId;
    private QueryPlan executed;
    private QueryProfile kept;

    Profiler(PhoenixConnection connection, QueryPlan executed, Set<String> tables, String queryId) {
      this.connection = connection;
      this.executed = executed;
      this.tables = tables;
      this.queryId = queryId;
    }

    synchronized QueryProfile read(boolean keep) throws SQLException {
      if (kept != null) {
        return kept;
      }
      QueryProfile p = fetch(connection, reads(executed, tables), queryId, null);
      if (keep) {
        kept = p;
        executed = null;
      }
      return p;
    }
  }
}
