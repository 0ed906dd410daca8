package io.blockscope.hints;

import io.blockscope.metrics.profile.ProfileWire;
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
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.iterate.ExplainTable;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.jdbc.PhoenixPreparedStatement;
import org.apache.phoenix.jdbc.PhoenixStatement;

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
   * endpoint. A query belongs to the user who ran it: this reads the connection's user's own. An id
   * this user never ran gives an empty profile.
   */
  public static QueryProfile fetchProfile(Connection connection, String table, String queryId)
      throws SQLException {
    return fetchProfile(
        connection.unwrap(PhoenixConnection.class),
        Collections.singletonList(Objects.requireNonNull(table)),
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
    return fetchProfile(
        connection.unwrap(PhoenixConnection.class),
        Collections.singletonList(Objects.requireNonNull(table)),
        queryId,
        user);
  }

  static QueryProfile fetchProfile(
      PhoenixConnection pc, Iterable<String> tables, String queryId, String user)
      throws SQLException {
    List<QueryProfile.Region> regions = new ArrayList<>();
    for (String table : tables) {
      try (Table t = pc.getQueryServices().getTable(Bytes.toBytes(table))) {
        for (ProfileWire.Answer a : ProfileEndpoint.get().ask(t, queryId, user)) {
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
   * This thread's extensions while a statement runs through a blockscope connection (what {@link
   * ExtendingOptimizer} reads), set on creation and put back as they were on close; for SERIAL and
   * PROFILE, with a new query id.
   */
  private static final class Context implements AutoCloseable {
    final String id;
    final Set<String> tables = new LinkedHashSet<>();
    private final QueryExtensions outerExtensions = ExtendingOptimizer.CURRENT.get();
    private final String outerId = ExtendingOptimizer.QUERY_ID.get();
    private final Set<String> outerTables = ExtendingOptimizer.TABLES.get();

    Context(QueryExtensions e) {
      id = e.serial() || e.profile() != QueryExtensions.Profile.NONE ? newQueryId() : null;
      ExtendingOptimizer.CURRENT.set(e);
      ExtendingOptimizer.QUERY_ID.set(id);
      ExtendingOptimizer.REFUSED.remove();
      ExtendingOptimizer.TABLES.set(tables);
    }

    /** A copy of the tables the plans optimized so far scan. */
    Set<String> tables() {
      return Collections.unmodifiableSet(new LinkedHashSet<>(tables));
    }

    /** Why SERIAL was not applied to parts of the plans optimized so far. */
    List<String> refused() {
      List<String> refused = ExtendingOptimizer.REFUSED.get();
      return refused == null
          ? Collections.emptyList()
          : Collections.unmodifiableList(new ArrayList<>(refused));
    }

    @Override
    public void close() {
      ExtendingOptimizer.CURRENT.set(outerExtensions);
      ExtendingOptimizer.QUERY_ID.set(outerId);
      ExtendingOptimizer.REFUSED.remove();
      ExtendingOptimizer.TABLES.set(outerTables);
    }
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
    try (Context context = new Context(e)) {
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
                  profiled ? new Profiler(connection, context.tables(), context.id) : null));
      last.set(wrapped);
      return r instanceof ResultSet ? wrapped : r;
    }
  }

  /** Phoenix's answer to a call that may throw SQLException. */
  private interface SqlCall<T> {
    T call() throws SQLException;
  }

  /**
   * A statement's query as Phoenix runs it (the plain statement's or the prepared one's): its plan,
   * optimized (blockscope's extensions applied), and its execution.
   */
  private static final class Query {
    private final SqlCall<QueryPlan> plan;
    private final SqlCall<ResultSet> run;

    Query(SqlCall<QueryPlan> plan, SqlCall<ResultSet> run) {
      this.plan = plan;
      this.run = run;
    }

    SqlCall<QueryPlan> plan() {
      return plan;
    }

    SqlCall<ResultSet> run() {
      return run;
    }
  }

  /**
   * EXPLAIN ANALYZE: the plan as Phoenix's EXPLAIN gives it (its region locations left out, as
   * there), then the query run to completion with PROFILE at the request's level, its rows counted
   * and dropped, and the costs the region servers recorded for it.
   */
  private static Object explainAnalyze(
      ExplainAnalyze.Request request,
      Query query,
      String executeMethod,
      PhoenixConnection connection,
      AtomicReference<ResultSet> last)
      throws SQLException {
    if (!executeMethod.equals("execute") && !executeMethod.equals("executeQuery")) {
      throw new SQLException(
          "blockscope: EXPLAIN ANALYZE returns rows: run it with executeQuery or execute, not "
              + executeMethod,
          ExplainAnalyze.NOT_SUPPORTED);
    }
    last.set(null);
    QueryExtensions e = request.extensions();
    long start = System.nanoTime();
    List<String> plan = new ArrayList<>();
    long rows = 0;
    Set<String> tables;
    String id;
    List<String> refused;
    try (Context context = new Context(e)) {
      for (String step : query.plan().call().getExplainPlan().getPlanSteps()) {
        if (step != null && !step.contains(REGION_LOCATIONS)) {
          plan.add(step);
        }
      }
      try (ResultSet rs = query.run().call()) {
        while (rs.next()) {
          rows++;
        }
      }
      tables = context.tables();
      id = context.id;
      refused = context.refused();
    }
    long wall = System.nanoTime() - start;
    QueryProfile profile = fetchProfile(connection, tables, id, null);
    QueryExtensions shown =
        new QueryExtensions(e.noCache(), e.serial(), QueryExtensions.Profile.NONE, true);
    ResultSet result =
        ExplainResults.lines(
            ExplainAnalyze.render(
                new ExplainAnalyze.Outcome(
                    request,
                    e.profile().level(),
                    plan,
                    shown.explainLines(refused),
                    profile,
                    rows,
                    wall)));
    last.set(result);
    return executeMethod.equals("execute") ? (Object) true : result;
  }

  /**
   * What Phoenix's EXPLAIN leaves out of its default form ({@code ExplainTable.REGION_LOCATIONS} in
   * Phoenix 5.2 and 5.3, a compile-time constant copied here by javac).
   */
  private static final String REGION_LOCATIONS = ExplainTable.REGION_LOCATIONS;

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
      QueryProfile p = fetchProfile(connection, tables, queryId, null);
      if (keep) {
        kept = p;
      }
      return p;
    }
  }

  private static final class ResultSetHandler implements InvocationHandler {
    private final ResultSet target;
    private final String queryId;
    private final List<String> refused;
    private final Profiler profiler;

    ResultSetHandler(ResultSet target, String queryId, List<String> refused, Profiler profiler) {
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

  /**
   * The statement without one trailing {@code ;} (and the white space around it), which Phoenix's
   * JDBC parser rejects and SQL tools and scripts, the seeds included, write.
   */
  static String withoutTerminator(String sql) {
    String t = QueryExtensions.Head.stripTrailing(sql);
    return t.endsWith(";")
        ? QueryExtensions.Head.stripTrailing(t.substring(0, t.length() - 1))
        : sql;
  }

  private static boolean unwrapping(Method m) {
    return m.getName().equals("unwrap") || m.getName().equals("isWrapperFor");
  }

  private static final class ConnectionHandler implements InvocationHandler {
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
        args[0] = withoutTerminator((String) args[0]);
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
            new PreparedHandler((PreparedStatement) r, e, analyze, target));
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
   * {@code m}, an execute method given the SQL text {@code sql}: EXPLAIN ANALYZE or a statement.
   */
  private static Object executeSql(
      Statement target,
      Method m,
      Object[] args,
      String sql,
      PhoenixConnection connection,
      AtomicReference<ResultSet> last)
      throws Throwable {
    args[0] = withoutTerminator(sql);
    ExplainAnalyze.Request analyze = ExplainAnalyze.parse((String) args[0]);
    if (analyze == null) {
      return callWith(QueryExtensions.parse(sql), target, m, args, connection, last);
    }
    PhoenixStatement phoenix = target.unwrap(PhoenixStatement.class);
    String q = analyze.query();
    return explainAnalyze(
        analyze,
        new Query(() -> phoenix.optimizeQuery(q), () -> target.executeQuery(q)),
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
    private final ExplainAnalyze.Request analyze;
    private final PhoenixConnection connection;
    private final AtomicReference<ResultSet> last = new AtomicReference<>();

    PreparedHandler(
        PreparedStatement target,
        QueryExtensions extensions,
        ExplainAnalyze.Request analyze,
        PhoenixConnection connection) {
      this.target = target;
      this.extensions = extensions;
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
          return explainAnalyze(
              analyze,
              new Query(phoenix::optimizeQuery, target::executeQuery),
              m.getName(),
              connection,
              last);
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
