package io.blockscope.hints;

import io.blockscope.metrics.profile.ProfileWire;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.jdbc.PhoenixConnection;

/**
 * Reads a query's profile back from the region servers: every region of each table the query
 * scanned is asked through blockscope's coprocessor endpoint ({@link ProfileEndpointClient}); a
 * refusal by HBase comes back as SQLState 42501.
 */
final class ProfileClient {
  private ProfileClient() {}

  /**
   * The costs the region servers recorded for query {@code queryId} in {@code tables} (physical
   * HBase table names) of {@code user}'s query (null: the connection's user's own), by table and
   * region.
   */
  static QueryProfile fetch(
      PhoenixConnection pc, Iterable<String> tables, String queryId, String user)
      throws SQLException {
    List<QueryProfile.Region> regions = new ArrayList<>();
    for (String table : tables) {
      try (Table t = pc.getQueryServices().getTable(Bytes.toBytes(table))) {
        for (ProfileWire.Answer a : ProfileEndpointClient.get().ask(t, queryId, user)) {
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
    return new QueryProfile(queryId, regions);
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

  /** Reads a profiled query's profile; once the result set is closed, the answer is kept. */
  static final class Profiler {
    private final PhoenixConnection connection;
    private final Set<String> tables;
    private final String queryId;
    private QueryProfile kept;

    Profiler(PhoenixConnection connection, Set<String> tables, String queryId) {
      this.connection = connection;
      this.tables = tables;
      this.queryId = queryId;
    }

    synchronized QueryProfile read(boolean keep) throws SQLException {
      if (kept != null) {
        return kept;
      }
      QueryProfile p = fetch(connection, tables, queryId, null);
      if (keep) {
        kept = p;
      }
      return p;
    }
  }
}
