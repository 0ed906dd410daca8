package io.blockscope.encoding;

import java.util.Optional;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
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
public final class EncodingRegistrar implements RegionCoprocessor {
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
    return Optional.empty();
  }
}
