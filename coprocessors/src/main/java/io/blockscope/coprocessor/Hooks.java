package io.blockscope.coprocessor;

import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;

/**
 * What the RegionObserver asks of the JVM-wide {@link Engine}. Implemented by the engine itself
 * and, when the engine was made by another class loader's copy of blockscope, by a forwarder that
 * reaches it through method handles (only JDK and HBase types cross).
 *
 * <p>No method throws.
 */
interface Hooks {
  void regionOpened(RegionCoprocessorEnvironment env);

  void regionClosed(RegionCoprocessorEnvironment env);

  /** Whether reads of this region are measured at all (its level is above OFF). */
  boolean measures(RegionCoprocessorEnvironment env);

  /** Opens an attribution frame on this thread: reads until {@link #exit} go to this region. */
  void enter(RegionCoprocessorEnvironment env);

  /**
   * Closes the innermost frame this thread opened for {@code env}'s region and hands its costs to
   * its region (with any frame nested in it that was left open).
   */
  void exit(RegionCoprocessorEnvironment env);

  /**
   * A compaction of this region is about to open its scanner on this thread, outside any frame
   * (between {@code preCompactScannerOpen} and {@code preCompact}, where HBase's {@code
   * Compactor.createScanner} seeks every input file). Its reads are counted at the region's level
   * and held on the thread until the next {@link #enter} and {@link #exit} hand them over; what an
   * earlier opening left there (one that threw before {@code preCompact}) is discarded first.
   */
  void compactionOpening(RegionCoprocessorEnvironment env);

  /**
   * A region scanner was opened for {@code scan} by user {@code user} (its short name), tagged with
   * a query id (the scan attribute's value; the profiling level it asks for, a {@code PerfLevel}
   * ordinal, or -1). The query is that user's: the same id tagged by another user is another query.
   * Returns the handle {@link #queryActive} and {@link #scannerOpened} take, or null if the query
   * is not tracked or this very {@code scan} was tagged already (by another copy of blockscope).
   */
  Object queryScan(
      byte[] queryId, String user, Object scan, RegionCoprocessorEnvironment env, int level);

  /** A scanner of the query of {@code handle} is open until {@link #scannerClosed}. */
  void scannerOpened(Object scanner, Object handle);

  /**
   * The innermost frame on this thread works for the query of {@code handle}: when it closes, its
   * costs go to that query as well as to the region, and from now on it counts at least at the
   * level the query asked for. {@code rows} rows were returned.
   */
  void queryActive(Object handle, int rows);

  /** A region scanner was closed (ignored if it belongs to no tagged query). */
  void scannerClosed(Object scanner);

  /**
   * A scan RPC's batch ends on this thread ({@code postScannerNext}, before {@link #exit}): HBase's
   * own scan metrics of the RPC, where it tracked them, go to the innermost frame's query.
   */
  void scanBatchEnded();

  /**
   * The costs region {@code region} recorded for user {@code user}'s query {@code queryId}, as
   * {@code CostLayout} slots followed by the rows returned, 1 if HBase's own scan metrics were
   * tracked (else 0), those metrics in {@code HBaseScanMetrics} order, the level the region
   * measured the query at and why ({@code ProfileWire.LEVEL_APPLIED}, {@code LEVEL_REASON}; -1
   * before a scan opened); null if there are none. A caller checks the length: an engine of an
   * earlier copy of blockscope in the same server returns the shorter array.
   */
  long[] queryCosts(String queryId, String user, String region);

  /** The profile endpoint was called on one of this server's regions, whatever it answers. */
  void profileAsked();

  /**
   * A region scanner was opened on region {@code region} (its encoded name) for a scan of user
   * {@code user} that named a statement ({@code fingerprint}, the {@code blockscope.statement}
   * attribute, with its {@code text} and {@code execution} id or null). Returns the handle {@link
   * #statementActive} takes, or null if the value is not a fingerprint.
   */
  Object statementScan(
      byte[] fingerprint, byte[] text, byte[] execution, String region, String user);

  /**
   * The innermost frame on this thread serves a scanner of the statement of {@code handle}: its
   * costs go to that statement as well. {@code rows} rows were returned.
   */
  void statementActive(Object handle, int rows);

  /**
   * This server's statement statistics as a {@code StatementsResponse} ({@code StatementsWire}),
   * named {@code server}: user {@code user}'s statements, or with {@code all} every user's and the
   * users let go; with {@code reset} the statistics then start afresh. The caller has decided that
   * whoever asks may read them. Null if they cannot be read.
   */
  byte[] statementsReport(String server, String user, boolean all, boolean reset);
}
