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

  /** A region scanner of a tagged query was opened (the tag: the scan attribute's value). */
  void scannerOpened(Object scanner, byte[] queryId);

  /** A region scanner was closed (ignored if it belongs to no tagged query). */
  void scannerClosed(Object scanner);
}
