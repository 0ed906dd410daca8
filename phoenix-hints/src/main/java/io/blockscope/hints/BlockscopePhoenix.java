package io.blockscope.hints;

import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import io.blockscope.metrics.profile.ProfileProtocol;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
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
    return proxy(Connection.class, new ConnectionHandler(extended));
  }

  /**
   * The costs the region servers recorded for query {@code queryId} in table {@code table} (a
   * physical HBase table name), asked of every region of the table through blockscope's coprocessor
   * endpoint. An id nobody knows gives an empty profile.
   */
  public static QueryProfile fetchProfile(Connection connection, String table, String queryId)
      throws SQLException {
    return fetchProfile(connection.unwrap(PhoenixConnection.class), List.of(table), queryId);
  }

  static QueryProfile fetchProfile(PhoenixConnection pc, Iterable<String> tables, String queryId)
      throws SQLException {
    List<QueryProfile.Region> regions = new ArrayList<>();
    for (String table : tables) {
      try (Table t = pc.getQueryServices().getTable(Bytes.toBytes(table))) {
        Map<byte[], Message> answers =
            t.batchCoprocessorService(
                ProfileProtocol.GET_PROFILE,
                ProfileProtocol.request(queryId),
                null,
                null,
                DynamicMessage.getDefaultInstance(ProfileProtocol.RESPONSE));
        for (Message m : answers.values()) {
          if (ProfileProtocol.found(m)) {
            regions.add(
                new QueryProfile.Region(
                    table,
                    ProfileProtocol.region(m),
                    ProfileProtocol.rows(m),
                    ProfileProtocol.costs(m)));
          }
        }
      } catch (SQLException e) {
        throw e;
      } catch (Throwable e) {
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

  @SuppressWarnings("unchecked")
  private static <T> T proxy(Class<T> type, InvocationHandler h) {
    return (T)
        Proxy.newProxyInstance(BlockscopePhoenix.class.getClassLoader(), new Class<?>[] {type}, h);
  }

  /** Calls {@code m} on {@code target}, unwrapping what reflection wraps. */
  private static Object call(Object target, Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static final SecureRandom IDS = new SecureRandom();

  /** A new query id: 128 random bits as 32 hex digits. */
  static String newQueryId() {
    byte[] b = new byte[16];
    IDS.nextBytes(b);
    StringBuilder s = new StringBuilder(32);
    for (byte x : b) {
      s.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
    }
    return s.toString();
  }

  /**
   * Runs {@code m} with {@code e} as this thread's extensions (and, for SERIAL and PROFILE, a new
   * query id); a result set it returns comes back as a {@link BlockscopeResultSet}.
   */
  private static Object callWith(
      QueryExtensions e,
      Statement target,
      Method m,
      Object[] args,
      PhoenixConnection connection,
      AtomicReference<ResultSet> last)
      throws Throwable {
    QueryExtensions outerExtensions = ExtendingOptimizer.CURRENT.get();
    String outerId = ExtendingOptimizer.QUERY_ID.get();
    String id = e.serial() || e.profile() != QueryExtensions.Profile.NONE ? newQueryId() : null;
    ExtendingOptimizer.CURRENT.set(e);
    ExtendingOptimizer.QUERY_ID.set(id);
    ExtendingOptimizer.REFUSED.remove();
    Set<String> outerTables = ExtendingOptimizer.TABLES.get();
    Set<String> tables = new LinkedHashSet<>();
    ExtendingOptimizer.TABLES.set(tables);
    try {
      last.set(null);
      Object r = call(target, m, args);
      List<String> refused = ExtendingOptimizer.REFUSED.get();
      refused = refused == null ? List.of() : List.copyOf(refused);
      // execute(...) leaves a query's result set for getResultSet(), as SQL tools read it.
      ResultSet rs =
          r instanceof ResultSet direct
              ? direct
              : Boolean.TRUE.equals(r) && m.getName().equals("execute")
                  ? target.getResultSet()
                  : null;
      if (rs == null) {
        return r;
      }
      if (e.explain()) {
        rs = ExplainResults.withExtensions(rs, e, refused);
      }
      boolean profiled = e.profile() != QueryExtensions.Profile.NONE && !e.explain();
      ResultSet wrapped =
          proxy(
              BlockscopeResultSet.class,
              new ResultSetHandler(
                  rs,
                  id,
                  refused,
                  profiled ? new Profiler(connection, Set.copyOf(tables), id) : null));
      last.set(wrapped);
      return r instanceof ResultSet ? wrapped : r;
    } finally {
      ExtendingOptimizer.CURRENT.set(outerExtensions);
      ExtendingOptimizer.QUERY_ID.set(outerId);
      ExtendingOptimizer.REFUSED.remove();
      ExtendingOptimizer.TABLES.set(outerTables);
    }
  }

  /** Reads a profiled query's profile; once the result set is closed, the answer is kept. */
  private static final class Profiler {
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
      QueryProfile p = fetchProfile(connection, tables, queryId);
      if (keep) {
        kept = p;
      }
      return p;
    }
  }

  private record ResultSetHandler(
      ResultSet target, String queryId, List<String> refused, Profiler profiler)
      implements InvocationHandler {
    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      switch (m.getName()) {
        case "queryId":
          return queryId;
        case "serialNotApplied":
          return refused;
        case "profile":
          if (profiler == null) {
            throw new SQLException("blockscope: this query has no PROFILE hint");
          }
          return profiler.read(target.isClosed());
        case "close":
          Object r = call(target, m, args);
          if (profiler != null) {
            try {
              profiler.read(true); // what the query cost, read once it is over
            } catch (SQLException unreadable) {
              // closing must not fail for it: profile() asks again and reports why
            }
          }
          return r;
        case "unwrap":
          if (((Class<?>) args[0]).isInstance(proxy)) {
            return proxy;
          }
          break;
        case "isWrapperFor":
          if (((Class<?>) args[0]).isInstance(proxy)) {
            return true;
          }
          break;
        default:
          break;
      }
      return call(target, m, args);
    }
  }

  /**
   * The statement without one trailing {@code ;} (and the white space around it), which Phoenix's
   * JDBC parser rejects and SQL tools and scripts, the seeds included, write.
   */
  static String withoutTerminator(String sql) {
    String t = sql.stripTrailing();
    return t.endsWith(";") ? t.substring(0, t.length() - 1).stripTrailing() : sql;
  }

  private static boolean unwrapping(Method m) {
    return m.getName().equals("unwrap") || m.getName().equals("isWrapperFor");
  }

  private record ConnectionHandler(PhoenixConnection target) implements InvocationHandler {
    // statements and result sets below get the connection to read profiles with
    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      if (unwrapping(m)) {
        return call(target, m, args);
      }
      if (m.getName().startsWith("prepare") && args != null && args[0] instanceof String sql) {
        args[0] = withoutTerminator(sql);
      }
      Object r = call(target, m, args);
      if (r instanceof PreparedStatement ps && args != null && args[0] instanceof String sql) {
        QueryExtensions e = QueryExtensions.parse(sql);
        return proxy(PreparedStatement.class, new PreparedHandler(ps, e, target));
      }
      if (r instanceof Statement s && !(r instanceof PreparedStatement)) {
        return proxy(Statement.class, new StatementHandler(s, target));
      }
      return r;
    }
  }

  /**
   * The blockscope result set of the statement's last {@code execute}, for getResultSet() (every
   * execute starts by forgetting the one before); Phoenix's when the last execute made none.
   */
  private static Object lastResultSet(Statement target, AtomicReference<ResultSet> last)
      throws SQLException {
    ResultSet kept = last.get();
    return kept != null ? kept : target.getResultSet();
  }

  private record StatementHandler(
      Statement target, PhoenixConnection connection, AtomicReference<ResultSet> last)
      implements InvocationHandler {
    StatementHandler(Statement target, PhoenixConnection connection) {
      this(target, connection, new AtomicReference<>());
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      if (args != null
          && args.length > 0
          && args[0] instanceof String sql
          && m.getName().startsWith("execute")) {
        args[0] = withoutTerminator(sql);
        return callWith(QueryExtensions.parse(sql), target, m, args, connection, last);
      }
      if (m.getName().equals("getResultSet") && (args == null || args.length == 0)) {
        return lastResultSet(target, last);
      }
      return call(target, m, args);
    }
  }

  private record PreparedHandler(
      PreparedStatement target,
      QueryExtensions extensions,
      PhoenixConnection connection,
      AtomicReference<ResultSet> last)
      implements InvocationHandler {
    PreparedHandler(
        PreparedStatement target, QueryExtensions extensions, PhoenixConnection connection) {
      this(target, extensions, connection, new AtomicReference<>());
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      if (m.getName().startsWith("execute")) {
        if (args != null && args.length > 0 && args[0] instanceof String sql) {
          args[0] = withoutTerminator(sql);
          return callWith(QueryExtensions.parse(sql), target, m, args, connection, last);
        }
        return callWith(extensions, target, m, args, connection, last);
      }
      if (m.getName().equals("getResultSet") && (args == null || args.length == 0)) {
        return lastResultSet(target, last);
      }
      return call(target, m, args);
    }
  }
}
