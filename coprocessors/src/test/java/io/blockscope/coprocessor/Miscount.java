package io.blockscope.coprocessor;

/**
 * The ways the test suite's sensitivity drill makes blockscope miscount on purpose ({@link
 * MiscountDrill#miscount}).
 */
public enum Miscount {
  /** Counts right: the production state. */
  NONE,
  /** The probe counts each event twice (bytes and nanos-free counts alike). */
  DOUBLE,
  /** The probe drops every other event. */
  DROP_EVERY_OTHER,
  /**
   * Every region's costs go to one region: the first that settled after the drill began, which
   * keeps its own too (a move: the sum over regions stays right). Queries still get theirs.
   */
  WRONG_REGION,
  /**
   * The same with queries: every query's costs go to the first (query, region) record seen, which
   * keeps its own too; regions are right.
   */
  WRONG_QUERY,
  /** Data blocks are counted as leaf index blocks and leaf index blocks as data blocks. */
  WRONG_KIND,
  /** Each encoding's decode costs are counted under the next encoding of the layout. */
  WRONG_ENCODING,
  /** Each algorithm's decompression costs are counted under the next algorithm of the layout. */
  WRONG_COMPRESSION,
  /** The bytes read from the file system are counted twice; the blocks stay right. */
  FS_BYTES_DOUBLED,
  /** Every time (checksum, decompression, decoding) is counted 16 times over. */
  TIME_16X,
  /**
   * Each table's roll-up leaves out one of its regions (the first by encoded name); the regions'
   * own figures and the server's stay right.
   */
  LOST_FROM_TABLE,
  /**
   * The caps on levels are not applied: a table gets the level its attribute asks and a query the
   * level its PROFILE asks, above {@code blockscope.table.max.level} and {@code
   * blockscope.query.max.level}. The settings gauges still show the caps.
   */
  LEVEL_CAP_IGNORED,
  /**
   * The profile endpoint answers a request naming another user whoever asks: the check that only an
   * HBase superuser or a user with global ADMIN reads another user's records is skipped.
   */
  PROFILE_OWNER_IGNORED
}
