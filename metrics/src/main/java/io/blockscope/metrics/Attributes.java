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
   * Scan attribute: the statement a scan belongs to, named by its fingerprint, 16 lowercase hex
   * digits. The Phoenix driver sets it on every scan of every statement it runs: the first 64 bits
   * of the SHA-256 of the statement's normalized text (literals and bind values as {@code ?}, see
   * docs/hints.md). A plain HBase client may set any 16 hex digits to name an operation of its own.
   */
  public static final String STATEMENT = "blockscope.statement";

  /**
   * Scan attribute: the normalized text of the statement {@link #STATEMENT} names, UTF-8, at most
   * {@value #MAX_STATEMENT_TEXT} characters. The driver sends it once to each region server that
   * has not had it from its process in the last {@value #STATEMENT_TEXT_RESEND_MINUTES} minutes, on
   * one scan (where it cannot tell a scan's server, with the scans of the statement's first
   * execution in its process and again after that interval), not with every scan.
   */
  public static final String STATEMENT_TEXT = "blockscope.statement.text";

  /** The longest statement text sent or kept, in characters. */
  public static final int MAX_STATEMENT_TEXT = 4096;

  /** Minutes after which the driver sends a statement's text again. */
  public static final int STATEMENT_TEXT_RESEND_MINUTES = 10;

  /**
   * Scan attribute: which execution of the statement {@link #STATEMENT} names a scan belongs to, 16
   * lowercase hex digits the client draws afresh for each execution. The driver sets it on every
   * scan of every execution; the region server counts a statement's executions and the regions each
   * read from the distinct values it sees. A scan without it counts no execution.
   */
  public static final String STATEMENT_EXECUTION = "blockscope.statement.execution";

  /**
   * The 64 bits that 16 lowercase hex digits spell (a fingerprint or an execution id).
   *
   * @throws IllegalArgumentException if {@code v} is not 16 lowercase hex digits
   */
  public static long hex64(byte[] v) {
    if (!isStatementFingerprint(v)) {
      throw new IllegalArgumentException("not 16 lowercase hex digits");
    }
    long id = 0;
    for (byte b : v) {
      id = (id << 4) | (b <= '9' ? b - '0' : b - 'a' + 10);
    }
    return id;
  }

  /** Whether {@code v} is a statement fingerprint: 16 lowercase hex digits. */
  public static boolean isStatementFingerprint(byte[] v) {
    if (v == null || v.length != 16) {
      return false;
    }
    for (byte b : v) {
      if (!((b >= '0' && b <= '9') || (b >= 'a' && b <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Table attribute (set with {@code alter 't', METADATA => {'blockscope.level' => 'TIME'}}): the
   * level of one table, overriding the region server's {@code blockscope.level} up to the server's
   * {@code blockscope.table.max.level}. The server's own settings never come from a table.
   */
  public static final String TABLE_LEVEL = "blockscope.level";

  private Attributes() {}
}
