package io.blockscope.hints;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collections;
import java.util.Objects;
import org.apache.phoenix.jdbc.PhoenixConnection;

/**
 * The Java API: a Phoenix connection on which blockscope's hints hold. For code that already holds
 * a Phoenix connection; the JDBC driver ({@code jdbc:blockscope:phoenix:...}) returns the same kind
 * of connection.
 *
 * <pre>{@code
 * try (Connection c = BlockscopePhoenix.wrap(DriverManager.getConnection("jdbc:phoenix:zk"))) {
 *   c.createStatement().executeQuery("SELECT /*+ NO_CACHE *\/ COUNT(*) FROM t");
 * }
 * }</pre>
 */
public final class BlockscopePhoenix {
  private BlockscopePhoenix() {}

  /**
   * A new connection to the same cluster, with the same properties, sharing the cluster's query
   * services with {@code phoenix}; the caller closes both. Statements, prepared statements and
   * result sets from it are Phoenix's own behind a thin proxy ({@code unwrap} reaches them).
   */
  public static Connection wrap(Connection phoenix) throws SQLException {
    PhoenixSupport.require();
    PhoenixConnection pc = phoenix.unwrap(PhoenixConnection.class);
    PhoenixConnection extended =
        new PhoenixConnection(
            new ExtendingQueryServices(pc.getQueryServices()), pc.getURL(), pc.getClientInfo());
    StatementTextPlacer.install(extended, StatementShape.SENT);
    return JdbcProxies.proxy(Connection.class, new JdbcProxies.ConnectionHandler(extended));
  }

  /**
   * The costs the region servers recorded for query {@code queryId} in table {@code table} (a
   * physical HBase table name), asked of every region of the table through blockscope's coprocessor
   * endpoint. A query belongs to the user who ran it: this reads the connection's user's own. An id
   * this user never ran gives an empty profile.
   */
  public static QueryProfile fetchProfile(Connection connection, String table, String queryId)
      throws SQLException {
    return ProfileClient.fetch(
        connection.unwrap(PhoenixConnection.class),
        ProfileClient.wholeTables(Collections.singletonList(Objects.requireNonNull(table))),
        queryId,
        null);
  }

  /**
   * As {@link #fetchProfile(Connection, String, String)}, for the query that user {@code user} (an
   * HBase short user name) ran: only an HBase superuser or a user with global ADMIN may read
   * another user's; anyone else gets SQLState 42501 with HBase's {@code AccessDeniedException}.
   */
  public static QueryProfile fetchProfile(
      Connection connection, String table, String queryId, String user) throws SQLException {
    return ProfileClient.fetch(
        connection.unwrap(PhoenixConnection.class),
        ProfileClient.wholeTables(Collections.singletonList(Objects.requireNonNull(table))),
        queryId,
        user);
  }
}
