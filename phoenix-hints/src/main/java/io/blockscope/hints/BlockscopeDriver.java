package io.blockscope.hints;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;
import org.apache.phoenix.jdbc.PhoenixDriver;

/**
 * {@code jdbc:blockscope:phoenix:<zk quorum>[:port[:/znode]]}: Phoenix's driver with blockscope's
 * hints. Everything after {@code jdbc:blockscope:} is handed to Phoenix as a {@code
 * jdbc:phoenix:...} URL; the connection Phoenix returns is wrapped by {@link
 * BlockscopePhoenix#wrap}. Registered through {@code META-INF/services/java.sql.Driver}.
 */
public final class BlockscopeDriver implements Driver {
  public static final String PREFIX = "jdbc:blockscope:";

  static {
    try {
      DriverManager.registerDriver(new BlockscopeDriver());
    } catch (SQLException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  @Override
  public boolean acceptsURL(String url) {
    return url != null && url.startsWith(PREFIX + "phoenix");
  }

  /** The Phoenix URL behind a blockscope URL. */
  static String phoenixUrl(String url) {
    return "jdbc:" + url.substring(PREFIX.length());
  }

  @Override
  public Connection connect(String url, Properties info) throws SQLException {
    if (!acceptsURL(url)) {
      return null; // JDBC: not ours, let DriverManager try the next driver
    }
    PhoenixSupport.require(); // before Phoenix connects: nothing to close on a refusal
    Connection phoenix =
        PhoenixDriver.INSTANCE.connect(phoenixUrl(url), info == null ? new Properties() : info);
    if (phoenix == null) {
      throw new SQLException("blockscope: Phoenix does not accept " + phoenixUrl(url), "08001");
    }
    try (Connection c = phoenix) {
      return BlockscopePhoenix.wrap(c);
    }
  }

  /** Phoenix's answer for a blockscope URL; none for a URL this driver does not accept. */
  @Override
  public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
    if (!acceptsURL(url)) {
      return new DriverPropertyInfo[0];
    }
    return PhoenixDriver.INSTANCE.getPropertyInfo(phoenixUrl(url), info);
  }

  @Override
  public int getMajorVersion() {
    return 0;
  }

  @Override
  public int getMinorVersion() {
    return 1;
  }

  @Override
  public boolean jdbcCompliant() {
    return false;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }
}
