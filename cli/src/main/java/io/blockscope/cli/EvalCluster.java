package io.blockscope.cli;

import java.io.IOException;
import java.sql.SQLException;
import java.util.Map;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;

/** The cluster {@code evaluate} runs on: embedded, or a real one reached through ZooKeeper. */
interface EvalCluster extends AutoCloseable {
  /** A Phoenix connection; callers close it. */
  java.sql.Connection phoenix() throws SQLException;

  Connection hbase() throws IOException;

  default Admin admin() throws IOException {
    return hbase().getAdmin();
  }

  CostSource costs();

  /** Null when the runner can drop a table's cached blocks, else why it cannot. */
  String whyNoColdCache();

  void dropCache(String table) throws IOException;

  /**
   * Null when the runner can switch HBase's own checksum verification off and on ({@code
   * hbase.regionserver.checksum.verify}) for a table, else why it cannot.
   */
  default String whyNoVerifyToggle() {
    return "hbase.regionserver.checksum.verify is a region server setting; a client cannot"
        + " change it";
  }

  /** Switches HBase checksum verification for the table's readers (reopens the table). */
  default void hbaseChecksumVerification(String table, boolean on) throws IOException {
    throw new UnsupportedOperationException(whyNoVerifyToggle());
  }

  /** True when this JVM's CPU time includes the region server's (the embedded cluster). */
  default boolean cpuTimeIncludesServer() {
    return false;
  }

  /** Bytes of the table's store files on the file system. */
  long storeFileBytes(String table) throws IOException;

  /** Versions and settings, for results.json. */
  Map<String, Object> describe() throws IOException;

  /**
   * Why blockscope's times will be missing although its counts are not (its scratch tables ask for
   * level TIME, and the servers allow a table less), or null when they will be there.
   */
  default String whyNoTimings() {
    return null;
  }

  /** How exact {@link #storeFileBytes} was over the run, once the run is over. */
  default String storeFileSizeResolution() {
    return "bytes (store file lengths)";
  }

  @Override
  void close() throws IOException;
}
