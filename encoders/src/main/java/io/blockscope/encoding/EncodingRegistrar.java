package io.blockscope.encoding;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileDataBlockEncoder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers BLOCKSCOPE_V1 in a region server. Deployed cluster-wide through {@code
 * hbase.coprocessor.region.classes}: HBase starts a region's coprocessors in the region's
 * constructor ({@code RegionCoprocessorHost}), before the region opens its stores, so the encoding
 * exists before any store file of the region is read or written. Registration runs once per JVM;
 * later starts only find it done.
 *
 * <p>Its name in the region server's report to the master ({@code ServerMetrics
 * .getCoprocessorNames()}) is what {@link EncodingGuard} checks: its simple name, since HBase 2.6.1
 * reports each coprocessor as {@code CoprocessorHost.getCoprocessors()} names it ({@code
 * getClass().getSimpleName()}), and only while the server holds a region. Keep the class name: it
 * is the deployment's contract (hbase-site.xml) and the guard's signal. It never throws: a failed
 * registration (another HBase version) is logged as an error once per JVM, the region still opens,
 * and a store using the encoding fails to open on that server as it would without blockscope.
 */
public final class EncodingRegistrar implements RegionCoprocessor, RegionObserver {
  private static final Logger LOG = LoggerFactory.getLogger(EncodingRegistrar.class);
  private static volatile boolean logged;
  private static volatile boolean failureLogged;

  @Override
  @SuppressWarnings("rawtypes") // HBase's own signature: Coprocessor.start(CoprocessorEnvironment)
  public void start(CoprocessorEnvironment env) {
    try {
      BlockscopeEncoding.register();
      if (!logged) {
        logged = true;
        LOG.info(
            "blockscope: data block encoding {} (id {}) registered",
            BlockscopeEncoding.NAME,
            BlockscopeEncoding.ID);
      }
    } catch (RuntimeException | LinkageError e) {
      // every region open retries (the same answer on the same HBase): the reason once, at ERROR
      if (!failureLogged) {
        failureLogged = true;
        LOG.error(
            "blockscope: cannot register data block encoding {}; stores using it will not "
                + "open on this server (said once; later region opens log it at DEBUG)",
            BlockscopeEncoding.NAME,
            e);
      } else if (LOG.isDebugEnabled()) {
        LOG.debug("blockscope: cannot register {}: {}", BlockscopeEncoding.NAME, e.toString());
      }
    }
  }

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  /**
   * Refuses a bulk load that would bring BLOCKSCOPE_V1-encoded store files into a family that does
   * not use BLOCKSCOPE_V1. The master's {@link EncodingGuard} sees descriptor changes only, and a
   * store file is decoded by the encoding its own metadata names, so such a load would give the
   * family a kind of file that a region server without the registrar cannot open, unchecked. A
   * family that uses BLOCKSCOPE_V1 was checked by the guard and takes the files.
   *
   * <p>HBase calls this on the server that holds the region, before it moves the files into the
   * store ({@code HRegion.bulkLoadHFiles}); each file's metadata is read once here (its trailer and
   * file info, no data block). A file that cannot be read is left to HBase's own checks.
   */
  @Override
  public void preBulkLoadHFile(
      ObserverContext<RegionCoprocessorEnvironment> ctx, List<Pair<byte[], String>> familyPaths)
      throws IOException {
    RegionCoprocessorEnvironment env = ctx.getEnvironment();
    TableDescriptor table = env.getRegion().getTableDescriptor();
    for (Pair<byte[], String> fp : familyPaths) {
      ColumnFamilyDescriptor family = table.getColumnFamily(fp.getFirst());
      if (family == null || family.getDataBlockEncoding().name().equals(BlockscopeEncoding.NAME)) {
        continue; // an unknown family is HBase's to refuse
      }
      String encoding = encodingOf(new Path(fp.getSecond()), env.getConfiguration());
      if (BlockscopeEncoding.NAME.equals(encoding)) {
        throw new DoNotRetryIOException(
            "blockscope: refusing to bulk load "
                + fp.getSecond()
                + " into "
                + table.getTableName().getNameAsString()
                + ":"
                + family.getNameAsString()
                + ": the file's blocks are "
                + BlockscopeEncoding.NAME
                + "-encoded and the family uses "
                + family.getDataBlockEncoding()
                + " (rewrite the file with the family's encoding, or load it into a family that"
                + " uses "
                + BlockscopeEncoding.NAME
                + ")");
      }
    }
  }

  /** The data block encoding a store file's metadata names, or null if it cannot be read. */
  private static String encodingOf(Path file, Configuration conf) {
    try (HFile.Reader r =
        HFile.createReader(file.getFileSystem(conf), file, CacheConfig.DISABLED, true, conf)) {
      byte[] name = r.getHFileInfo().get(HFileDataBlockEncoder.DATA_BLOCK_ENCODING);
      return name == null ? null : Bytes.toString(name);
    } catch (IOException | RuntimeException e) {
      LOG.debug("blockscope: cannot read the encoding of {}", file, e);
      return null;
    }
  }
}
