package io.blockscope.hints;

import java.lang.reflect.Proxy;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Phoenix's EXPLAIN output with a line per blockscope extension appended, in the {@code PLAN}
 * column (Phoenix's first), the other columns null; and EXPLAIN ANALYZE's lines in a PLAN column of
 * their own. Read with {@code next}, {@code getString}, {@code getObject}, {@code getLong}, {@code
 * getInt}, {@code wasNull}, {@code getMetaData}.
 */
final class ExplainResults {
  private ExplainResults() {}

  static ResultSet withExtensions(ResultSet phoenix, QueryExtensions e, List<String> serialRefused)
      throws SQLException {
    ResultSetMetaData meta = phoenix.getMetaData();
    int columns = meta.getColumnCount();
    List<Object[]> rows = new ArrayList<>();
    try (ResultSet rs = phoenix) {
      while (rs.next()) {
        Object[] row = new Object[columns];
        for (int i = 0; i < columns; i++) {
          row[i] = rs.getObject(i + 1);
        }
        rows.add(row);
      }
    }
    for (String line : e.explainLines(serialRefused)) {
      Object[] row = new Object[columns];
      row[0] = line;
      rows.add(row);
    }
    return of(meta, rows);
  }

  /** EXPLAIN ANALYZE's result: one VARCHAR column, {@code PLAN}, one row per line. */
  static ResultSet lines(List<String> lines) {
    List<Object[]> rows = new ArrayList<>();
    for (String line : lines) {
      rows.add(new Object[] {line});
    }
    return of(planColumn(), rows);
  }

  /**
   * The metadata of a single nullable VARCHAR column named PLAN, as Phoenix's EXPLAIN describes its
   * first column; what SQL tools ask of a column before they print it.
   */
  private static ResultSetMetaData planColumn() {
    return columns(
        "EXPLAIN ANALYZE",
        Collections.singletonList("PLAN"),
        Collections.singletonList(Types.VARCHAR));
  }

  /**
   * A result of the driver's own ({@code what} names it in messages): columns {@code names} of JDBC
   * types {@code types} (VARCHAR or BIGINT), all nullable, one array per row.
   */
  static ResultSet table(
      String what, List<String> names, List<Integer> types, List<Object[]> rows) {
    return of(columns(what, names, types), rows);
  }

  private static ResultSetMetaData columns(String what, List<String> names, List<Integer> types) {
    return (ResultSetMetaData)
        Proxy.newProxyInstance(
            ExplainResults.class.getClassLoader(),
            new Class<?>[] {ResultSetMetaData.class},
            (proxy, m, args) -> {
              int type =
                  args != null && args.length == 1 && args[0] instanceof Integer
                      ? types.get((Integer) args[0] - 1)
                      : Types.VARCHAR;
              switch (m.getName()) {
                case "getColumnCount":
                  return names.size();
                case "getColumnLabel":
                case "getColumnName":
                  return names.get((Integer) args[0] - 1);
                case "getColumnType":
                  return type;
                case "getColumnTypeName":
                  return type == Types.BIGINT ? "BIGINT" : "VARCHAR";
                case "getColumnClassName":
                  return (type == Types.BIGINT ? Long.class : String.class).getName();
                case "getColumnDisplaySize":
                  return type == Types.BIGINT ? 20 : Integer.MAX_VALUE;
                case "getPrecision":
                  return type == Types.BIGINT ? 19 : 0;
                case "getScale":
                  return 0;
                case "isNullable":
                  return ResultSetMetaData.columnNullable;
                case "getSchemaName":
                case "getTableName":
                case "getCatalogName":
                  return "";
                case "isSigned":
                  return type == Types.BIGINT;
                case "isCaseSensitive":
                  return type != Types.BIGINT;
                case "isSearchable":
                case "isReadOnly":
                  return true;
                case "isAutoIncrement":
                case "isCurrency":
                case "isWritable":
                case "isDefinitelyWritable":
                case "isWrapperFor":
                  return false;
                case "unwrap":
                  throw new SQLException("not a wrapper");
                case "hashCode":
                  return System.identityHashCode(proxy);
                case "equals":
                  return proxy == args[0];
                case "toString":
                  return "blockscope " + what + " metadata " + names;
                default:
                  throw new SQLFeatureNotSupportedException(
                      "blockscope " + what + " metadata does not support " + m.getName());
              }
            });
  }

  private static ResultSet of(ResultSetMetaData meta, List<Object[]> rows) {
    int[] position = {-1};
    boolean[] wasNull = {false};
    boolean[] closed = {false};
    return (ResultSet)
        Proxy.newProxyInstance(
            ExplainResults.class.getClassLoader(),
            new Class<?>[] {ResultSet.class},
            (proxy, m, args) -> {
              switch (m.getName()) {
                case "next":
                  return ++position[0] < rows.size();
                case "close":
                  closed[0] = true;
                  return null;
                case "isClosed":
                  return closed[0];
                case "wasNull":
                  return wasNull[0];
                case "getMetaData":
                  return meta;
                case "findColumn":
                  return column(meta, (String) args[0]);
                case "getString":
                case "getObject":
                case "getLong":
                case "getInt":
                  if (position[0] < 0 || position[0] >= rows.size()) {
                    throw new SQLException("blockscope result: no current row");
                  }
                  int c =
                      args[0] instanceof String
                          ? column(meta, (String) args[0])
                          : (Integer) args[0];
                  Object v = rows.get(position[0])[c - 1];
                  wasNull[0] = v == null;
                  switch (m.getName()) {
                    case "getString":
                      return v == null ? null : v.toString();
                    case "getLong":
                      return v == null ? 0L : ((Number) v).longValue();
                    case "getInt":
                      return v == null ? 0 : ((Number) v).intValue();
                    default:
                      return v;
                  }
                case "hashCode":
                  return System.identityHashCode(proxy);
                case "equals":
                  return proxy == args[0];
                case "toString":
                  return "blockscope result (" + rows.size() + " rows)";
                default:
                  throw new SQLFeatureNotSupportedException(
                      "blockscope result does not support " + m.getName());
              }
            });
  }

  private static int column(ResultSetMetaData meta, String name) throws SQLException {
    for (int i = 1; i <= meta.getColumnCount(); i++) {
      if (meta.getColumnLabel(i).equalsIgnoreCase(name)) {
        return i;
      }
    }
    throw new SQLException("blockscope result: no column " + name);
  }
}
