package io.blockscope.hints;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;

import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.util.Properties;
import org.apache.phoenix.jdbc.PhoenixDriver;
import org.junit.Test;

/**
 * {@code BlockscopeDriver.getPropertyInfo} answers for any URL a JDBC tool hands it: one shorter
 * than {@code jdbc:blockscope:} or null, a foreign one (no properties: a driver that does not
 * accept the URL says so), the prefix alone, and a blockscope URL (Phoenix's own answer for the URL
 * without the prefix). Cutting the prefix off any URL threw {@link StringIndexOutOfBoundsException}
 * and a NullPointerException, and handed Phoenix a mangled URL.
 */
public class DriverPropertyInfoTest {
  private final BlockscopeDriver driver = new BlockscopeDriver();

  @Test
  public void aUrlShorterThanThePrefix() throws SQLException {
    assertNoProperties("", "jdbc:", "jdbc:blockscope");
  }

  @Test
  public void noUrl() throws SQLException {
    assertNoProperties((String) null);
  }

  @Test
  public void aForeignUrl() throws SQLException {
    assertNoProperties(
        "jdbc:mysql://localhost:3306/test",
        "jdbc:phoenix:localhost:2181:/hbase",
        "JDBC:BLOCKSCOPE:PHOENIX:zk");
  }

  @Test
  public void thePrefixAlone() throws SQLException {
    assertNoProperties("jdbc:blockscope:", "jdbc:blockscope:phoeni");
  }

  private void assertNoProperties(String... urls) throws SQLException {
    for (String url : urls) {
      assertEquals(String.valueOf(url), 0, driver.getPropertyInfo(url, new Properties()).length);
      assertEquals(String.valueOf(url), 0, driver.getPropertyInfo(url, null).length);
    }
  }

  @Test
  public void aBlockscopeUrlGetsPhoenixsAnswer() throws SQLException {
    for (String url :
        new String[] {"jdbc:blockscope:phoenix", "jdbc:blockscope:phoenix:localhost:2181:/hbase"}) {
      DriverPropertyInfo[] ours = driver.getPropertyInfo(url, new Properties());
      assertNotNull(url, ours);
      DriverPropertyInfo[] phoenix =
          PhoenixDriver.INSTANCE.getPropertyInfo(
              BlockscopeDriver.phoenixUrl(url), new Properties());
      assertArrayEquals(url, phoenix, ours);
    }
  }
}
