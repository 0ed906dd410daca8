package io.blockscope.cli;

import io.blockscope.harness.EmbeddedCluster;
import io.blockscope.harness.StoreFiles;
import java.io.IOException;
import java.lang.reflect.Field;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.fs.HFileSystem;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.util.VersionInfo;

/**
 * evaluate's default: a cluster in this JVM; costs read by their JMX names ({@link LocalJmxCosts}).
 */
final class EmbeddedEvalCluster implements EvalCluster {
  private final EmbeddedCluster cluster;

  /** Costs by JMX name, as operators read them. */
  private final CostSource costs = new LocalJmxCosts();

  EmbeddedEvalCluster() throws Exception {
    this(new Configuration(false));
  }

  EmbeddedEvalCluster(Configuration overrides) throws Exception {
    cluster = EmbeddedCluster.start(overrides);
  }

  @Override
  public java.sql.Connection phoenix() throws SQLException {
    return cluster.phoenix();
  }

  @Override
  public Connection hbase() throws IOException {
    return cluster.connection();
  }

  @Override
  public CostSource costs() {
    return costs;
  }

  @Override
  public String whyNoColdCache() {
    return null;
  }

  @Override
  public void dropCache(String table) {
    StoreFiles.evict(cluster.blockCache(), cluster.regions(TableName.valueOf(table)));
  }

  @Override
  public String whyNoVerifyToggle() {
    return null;
  }

  /**
   * hbase.regionserver.checksum.verify reaches readers as HFileSystem.useHBaseChecksum, read when a
   * store file is opened; the embedded cluster flips it and reopens the table.
   */
  @Override
  public void hbaseChecksumVerification(String table, boolean on) throws IOException {
    try {
      HFileSystem fs = (HFileSystem) cluster.regionServer().getFileSystem();
      Field f = HFileSystem.class.getDeclaredField("useHBaseChecksum");
      f.setAccessible(true);
      f.setBoolean(fs, on);
    } catch (ReflectiveOperationException e) {
      throw new IOException("cannot switch HBase checksum verification", e);
    }
    TableName t = TableName.valueOf(table);
    cluster.admin().disableTable(t);
    cluster.admin().enableTable(t);
  }

  @Override
  public boolean cpuTimeIncludesServer() {
    return true;
  }

  @Override
  public long storeFileBytes(String table) {
    long bytes = 0;
    for (HRegion r : cluster.regions(TableName.valueOf(table))) {
      for (HStore s : r.getStores()) {
        for (HStoreFile f : s.getStorefiles()) {
          bytes += f.getReader().length();
        }
      }
    }
    return bytes;
  }

  @Override
  public Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("mode", "embedded");
    m.put("hbase", VersionInfo.getVersion());
    m.put("hadoop", org.apache.hadoop.util.VersionInfo.getVersion());
    m.put("phoenix", "5.2.1");
    m.put("java", System.getProperty("java.version"));
    m.put("cores", Runtime.getRuntime().availableProcessors());
    m.put("regionServers", 1);
    m.put("blockCacheBytes", cluster.blockCache().getMaxSize());
    m.put("blockCache", cluster.blockCache().getClass().getSimpleName());
    m.put(
        "hbase.regionserver.checksum.verify",
        cluster.conf().getBoolean("hbase.regionserver.checksum.verify", true));
    m.put(
        "hbase.block.data.cachecompressed",
        cluster.conf().getBoolean("hbase.block.data.cachecompressed", false));
    m.put("compressionCodecs", "aircompressor (pure Java) for SNAPPY, LZ4, ZSTD; JDK for GZ");
    return m;
  }

  @Override
  public void close() throws IOException {
    ShutdownLogging.quiet();
    cluster.close();
  }
}
