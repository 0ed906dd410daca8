package io.blockscope.hints;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.jdbc.PhoenixPreparedStatement;
import org.apache.phoenix.jdbc.PhoenixStatement;

/**
 * The JDBC proxies of a blockscope connection: the connection, its statements, prepared statements
 * and result sets are Phoenix's own behind a thin proxy that sets this thread's extensions around
 * each execute ({@link QueryContext}), runs EXPLAIN ANALYZE ({@link ExplainAnalyzeRun}), and gives
 * a result set the {@link BlockscopeResultSet} methods.
 */
final class JdbcProxies {
  private JdbcProxies() {}

  @SuppressWarnings("unchecked")
  static <T> T proxy(Class<T> type, InvocationHandler h) {
    return (T) Proxy.newProxyInstance(JdbcProxies.class.getClassLoader(), new Class<?>[] {type}, h);
  }

  /** Calls {@code m} on {@code target}, unwrapping what reflection wraps. */
  private static Object call(Object target, Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * Runs {@code m} with {@code e} as this thread's extensions (and, for SERIAL and PROFILE, a new
   * query id); a result set it returns comes back as a {@link BlockscopeResultSet}.
   */
  private static Object callWith(
      QueryExtensions e,
      StatementShape shape,
      Statement target,
      Method m,
      Object[] args,
      PhoenixConnection connection,
      AtomicReference<ResultSet> last)
      throws Throwable {
    try (QueryContext context = new QueryContext(e, shape)) {
      last.set(null);
      Object r = call(target, m, args);
      List<String> refused = context.refused();
      // execute(...) leaves a query's result set for getResultSet(), as SQL tools read it.
      ResultSet rs =
          r instanceof ResultSet
              ? (ResultSet) r
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
                  context.id,
                  refused,
                  profiled
                      ? new ProfileClient.Profiler(
                          connection, executedPlan(target), context.tables(), context.id)
                      : null));
      last.set(wrapped);
      return r instanceof ResultSet ? wrapped : r;
    }
  }

  /**
   * The plan Phoenix ran for {@code statement}'s last query ({@code PhoenixStatement.getQueryPlan},
   * set by {@code executeQuery} once the plan's iterators are built), or null if it has none.
   */
  static QueryPlan executedPlan(Statement statement) throws SQLException {
    return statement.isWrapperFor(PhoenixStatement.class)
        ? statement.unwrap(PhoenixStatement.class).getQueryPlan()
        : null;
  }

  private static final class ResultSetHandler implements InvocationHandler {
    private final ResultSet target;
    private final String queryId;
    private final List<String> refused;
    private final ProfileClient.Profiler profiler;

    ResultSetHandler(
        ResultSet target, String queryId, List<String> refused, ProfileClient.Profiler profiler) {
      this.target = target;
      this.queryId = queryId;
      this.refused = refused;
      this.profiler = profiler;
    }

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

  private static boolean unwrapping(Method m) {
    return m.getName().equals("unwrap") || m.getName().equals("isWrapperFor");
  }

  static final class ConnectionHandler implements InvocationHandler {
    // statements and result sets below get the connection to read profiles with
    private final PhoenixConnection target;

    ConnectionHandler(PhoenixConnection target) {
      this.target = target;
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      if (unwrapping(m)) {
        return call(target, m, args);
      }
      ExplainAnalyze.Request analyze = null;
      if (m.getName().startsWith("prepare") && args != null && args[0] instanceof String) {
        args[0] = QueryExtensions.withoutTerminator((String) args[0]);
        if (StatementsQuery.parse((String) args[0]) != null) {
          throw new SQLFeatureNotSupportedException(
              "blockscope: SHOW and RESET BLOCKSCOPE STATEMENTS take no parameters: run them with"
                  + " a Statement (createStatement), not "
                  + m.getName(),
              ExplainAnalyze.NOT_SUPPORTED);
        }
        analyze = ExplainAnalyze.parse((String) args[0]);
        if (analyze != null) {
          args[0] = analyze.query(); // Phoenix prepares the query; execute explains and runs it
        }
      }
      Object r = call(target, m, args);
      if (r instanceof PreparedStatement && args != null && args[0] instanceof String) {
        QueryExtensions e = QueryExtensions.parse((String) args[0]);
        return proxy(
            PreparedStatement.class,
            new PreparedHandler(
                (PreparedStatement) r, e, StatementShape.of((String) args[0]), analyze, target));
      }
      if (r instanceof Statement && !(r instanceof PreparedStatement)) {
        return proxy(Statement.class, new StatementHandler((Statement) r, target));
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

  private static final class StatementHandler implements InvocationHandler {
    private final Statement target;
    private final PhoenixConnection connection;
    private final AtomicReference<ResultSet> last = new AtomicReference<>();

    StatementHandler(Statement target, PhoenixConnection connection) {
      this.target = target;
      this.connection = connection;
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      if (args != null
          && args.length > 0
          && args[0] instanceof String
          && m.getName().startsWith("execute")) {
        return executeSql(target, m, args, (String) args[0], connection, last);
      }
      if (m.getName().equals("getResultSet") && (args == null || args.length == 0)) {
        return lastResultSet(target, last);
      }
      return call(target, m, args);
    }
  }

  /**
   * {@code m}, an execute method given the SQL text {@code sql}: one of the driver's statements
   * about statement statistics ({@link StatementsQuery}), EXPLAIN ANALYZE, or a statement.
   */
  private static Object executeSql(
      Statement target,
      Method m,
      Object[] args,
      String sql,
      PhoenixConnection connection,
      AtomicReference<ResultSet> last)
      throws Throwable {
    args[0] = QueryExtensions.withoutTerminator(sql);
    StatementsQuery statements = StatementsQuery.parse((String) args[0]);
    if (statements != null) {
      return statements.run(connection, m.getName(), last);
    }
    ExplainAnalyze.Request analyze = ExplainAnalyze.parse((String) args[0]);
    if (analyze == null) {
      return callWith(
          QueryExtensions.parse(sql),
          StatementShape.of((String) args[0]),
          target,
          m,
          args,
          connection,
          last);
    }
    PhoenixStatement phoenix = target.unwrap(PhoenixStatement.class);
    String q = analyze.query();
    return ExplainAnalyzeRun.run(
        analyze,
        new ExplainAnalyzeRun.Query(() -> phoenix.optimizeQuery(q), () -> target.executeQuery(q)),
        m.getName(),
        connection,
        last);
  }

  /**
   * A prepared statement; for {@code EXPLAIN ANALYZE}, {@code analyze} holds the request and
   * Phoenix prepared its query, which each execute explains, runs and measures with the values
   * bound.
   */
  private static final class PreparedHandler implements InvocationHandler {
    private final PreparedStatement target;
    private final QueryExtensions extensions;
    private final StatementShape shape;
    private final ExplainAnalyze.Request analyze;
    private final PhoenixConnection connection;
    private final AtomicReference<ResultSet> last = new AtomicReference<>();

    PreparedHandler(
        PreparedStatement target,
        QueryExtensions extensions,
        StatementShape shape,
        ExplainAnalyze.Request analyze,
        PhoenixConnection connection) {
      this.target = target;
      this.extensions = extensions;
      this.shape = shape;
      this.analyze = analyze;
      this.connection = connection;
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      if (m.getName().startsWith("execute")) {
        if (args != null && args.length > 0 && args[0] instanceof String) {
          return executeSql(target, m, args, (String) args[0], connection, last);
        }
        if (analyze != null) {
          PhoenixPreparedStatement phoenix = target.unwrap(PhoenixPreparedStatement.class);
          return ExplainAnalyzeRun.run(
              analyze,
              new ExplainAnalyzeRun.Query(phoenix::optimizeQuery, target::executeQuery),
              m.getName(),
              connection,
              last);
        }
        return callWith(extensions, shape, target, m, args, connection, last);
      }
      if (m.getName().equals("getResultSet") && (args == null || args.length == 0)) {
        return lastResultSet(target, last);
      }
      return call(target, m, args);
    }
  }
}
