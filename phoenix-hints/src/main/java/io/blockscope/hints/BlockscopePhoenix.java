package io.blockscope.hints;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.apache.phoenix.jdbc.PhoenixConnection;

/**
 * The Java API: a Phoenix connection on which blockscope's hints hold. For code that already
 * holds a Phoenix connection; the JDBC driver ({@code jdbc:blockscope:phoenix:...}) returns the
 * same kind of connection.
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
    PhoenixConnection pc = phoenix.unwrap(PhoenixConnection.class);
    PhoenixConnection extended = new PhoenixConnection(
        new ExtendingQueryServices(pc.getQueryServices()), pc.getURL(), pc.getClientInfo());
    return proxy(Connection.class, extended, new ConnectionHandler(extended));
  }

  @SuppressWarnings("unchecked")
  private static <T> T proxy(Class<T> type, Object target, InvocationHandler h) {
    return (T) Proxy.newProxyInstance(BlockscopePhoenix.class.getClassLoader(),
        new Class<?>[] {type}, h);
  }

  /** Calls {@code m} on {@code target}, unwrapping what reflection wraps. */
  private static Object call(Object target, Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** Runs {@code m} with {@code e} as this thread's extensions. */
  private static Object callWith(QueryExtensions e, Object target, Method m, Object[] args)
      throws Throwable {
    QueryExtensions outer = ExtendingOptimizer.CURRENT.get();
    ExtendingOptimizer.CURRENT.set(e);
    try {
      return call(target, m, args);
    } finally {
      ExtendingOptimizer.CURRENT.set(outer);
    }
  }

  private static boolean unwrapping(Method m) {
    return m.getName().equals("unwrap") || m.getName().equals("isWrapperFor");
  }

  private record ConnectionHandler(PhoenixConnection target) implements InvocationHandler {
    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      if (unwrapping(m)) {
        return call(target, m, args);
      }
      Object r = call(target, m, args);
      if (r instanceof PreparedStatement ps && args != null && args[0] instanceof String sql) {
        QueryExtensions e = QueryExtensions.parse(sql);
        return proxy(PreparedStatement.class, ps, new PreparedHandler(ps, e));
      }
      if (r instanceof Statement s && !(r instanceof PreparedStatement)) {
        return proxy(Statement.class, s, new StatementHandler(s));
      }
      return r;
    }
  }

  private record StatementHandler(Statement target) implements InvocationHandler {
    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      if (args != null && args.length > 0 && args[0] instanceof String sql
          && m.getName().startsWith("execute")) {
        QueryExtensions e = QueryExtensions.parse(sql);
        Object r = callWith(e, target, m, args);
        if (r instanceof ResultSet rs && e.explain()) {
          return ExplainResults.withExtensions(rs, e);
        }
        if (e.explain() && r instanceof Boolean && (Boolean) r) {
          throw new SQLException("blockscope: use executeQuery for EXPLAIN with blockscope hints");
        }
        return r;
      }
      return call(target, m, args);
    }
  }

  private record PreparedHandler(PreparedStatement target, QueryExtensions extensions)
      implements InvocationHandler {
    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      if (m.getName().startsWith("execute")) {
        if (args != null && args.length > 0 && args[0] instanceof String) {
          return new StatementHandler(target).invoke(proxy, m, args);
        }
        Object r = callWith(extensions, target, m, args);
        if (r instanceof ResultSet rs && extensions.explain()) {
          return ExplainResults.withExtensions(rs, extensions);
        }
        return r;
      }
      return call(target, m, args);
    }
  }
}
