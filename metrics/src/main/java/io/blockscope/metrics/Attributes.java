package io.blockscope.metrics;

/**
 * The names blockscope reads from HBase objects other than its own configuration: the scan
 * attributes a client sets on a query's scans, and the table attribute that sets a table's level. A
 * client (the Phoenix driver, a plain HBase client, the command line) writes them; the region
 * server's observer reads them. Both sides take the names from here.
 */
public final class Attributes {
  /**
   * Scan attribute: the id of the query a scan belongs to, 32 lowercase hex digits (anything else
   * is ignored by the server, which then tracks the scan under no query).
   */
  public static final String QUERY = "blockscope.query";

  /**
   * Scan attribute: the level a profiled query asks for, {@code COUNT} or {@code TIME}, capped by
   * the server's {@code blockscope.query.max.level}.
   */
  public static final String PROFILE = "blockscope.profile";

  /**
   * Table attribute (set with {@code alter 't', METADATA => {'blockscope.level' => 'TIME'}}): the
   * level of one table, overriding the region server's {@code blockscope.level} up to the server's
   * {@code blockscope.table.max.level}. The server's own settings never come from a table.
   */
  public static final String TABLE_LEVEL = "blockscope.level";

  private Attributes() {}
}
