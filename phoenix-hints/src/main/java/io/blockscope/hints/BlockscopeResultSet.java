package io.blockscope.hints;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * What a result set from a blockscope connection tells beyond JDBC. Every result set of a query run
 * through {@code jdbc:blockscope:phoenix:} or {@link BlockscopePhoenix#wrap} implements it: cast
 * it, or {@code rs.unwrap(BlockscopeResultSet.class)}.
 */
public interface BlockscopeResultSet extends ResultSet {
  /**
   * The unguessable id (32 hex digits) every scan of this query carried to the region servers; null
   * for a query with neither SERIAL nor PROFILE.
   */
  String queryId();

  /** Why SERIAL was not applied to parts of this query's plan; empty if it was, or not asked. */
  List<String> serialNotApplied();

  /**
   * The query's server-side costs, per region and in total, for a query with the PROFILE hint. Read
   * from the region servers when called (a query still running shows what it cost so far) and, for
   * good, when the result set is closed: after {@code close()} this returns the final profile
   * without asking the servers again.
   *
   * @throws java.sql.SQLException if the query has no PROFILE hint, or the servers cannot be asked
   *     (the message says which table)
   */
  QueryProfile profile() throws SQLException;
}
