package io.blockscope.coprocessor;

import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;

/**
 * What the RegionObserver asks of the JVM-wide {@link Engine}. Implemented by the engine itself
 * and, when the engine was made by another class loader's copy of blockscope, by a forwarder
 * that reaches it through method handles (only JDK and HBase types cross).
 *
 * <p>No method throws.
 */
interface Hooks {
  void regionOpened(RegionCoprocessorEnvironment env);

  void regionClosed(RegionCoprocessorEnvironment env);

  /** Opens an attribution frame on this thread: reads until {@link #exit} go to this region. */
  void enter(RegionCoprocessorEnvironment env);

  /** Closes the innermost frame on this thread and hands its costs to its region. */
  void exit();

  /**
   * A region scanner of a tagged query was opened (the tag: the scan attribute's value; the
   * profiling level it asks for, a {@code PerfLevel} ordinal, or -1); returns the handle
   * {@link #queryActive} takes, or null if the query is not tracked.
   */
  Object scannerOpened(Object scanner, byte[] queryId, RegionCoprocessorEnvironment env,
      int level);

  /**
   * The innermost frame on this thread works for the query of {@code handle}: when it closes, its
   * costs go to that query as well as to the region, and from now on it counts at least at the
   * level the query asked for. {@code rows} rows were returned.
   */
  void queryActive(Object handle, int rows);

  /** A region scanner was closed (ignored if it belongs to no tagged query). */
  void scannerClosed(Object scanner);

  /**
   * The costs region {@code region} recorded for query {@code queryId}, as {@code CostLayout}
   * slots followed by one more: the rows returned; null if there are none.
   */
  long[] queryCosts(String queryId, String region);
}
