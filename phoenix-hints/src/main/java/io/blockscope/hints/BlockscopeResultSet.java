package io.blockscope.hints;

import java.sql.ResultSet;
import java.util.List;

/**
 * What a result set from a blockscope connection tells beyond JDBC. Every result set of a query
 * run through {@code jdbc:blockscope:phoenix:} or {@link BlockscopePhoenix#wrap} implements it:
 * cast it, or {@code rs.unwrap(BlockscopeResultSet.class)}.
 */
public interface BlockscopeResultSet extends ResultSet {
  /**
   * The unguessable id (32 hex digits) every scan of this query carried to the region servers;
   * null for a query with neither SERIAL nor PROFILE.
   */
  String queryId();

  /** Why SERIAL was not applied to parts of this query's plan; empty if it was, or not asked. */
  List<String> serialNotApplied();
}
