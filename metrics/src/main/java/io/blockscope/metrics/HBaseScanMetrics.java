package io.blockscope.metrics;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * HBase's own server-side scan metrics that a query profile shows beside blockscope's costs, where
 * the region server's HBase has them (2.6.4 on: {@code ThreadLocalServerSideScanMetrics}). They are
 * HBase's figures, named as HBase names them with the prefix {@value #PREFIX}, and never added into
 * blockscope's: {@code BLOCK_READ_OPS_COUNT} counts what blockscope's {@code fs.read.blocks.*} does
 * and {@code BYTES_READ_FROM_FS} what {@code fs.read.bytes.*} does, plus the look-ahead headers
 * HBase fetched (docs/compatibility.md).
 */
public final class HBaseScanMetrics {
  private HBaseScanMetrics() {}

  public static final String PREFIX = "hbase.";

  /** In the order a profile carries them. */
  public static final List<String> NAMES =
      Collections.unmodifiableList(
          Arrays.asList(
              "BLOCK_READ_OPS_COUNT",
              "BYTES_READ_FROM_FS",
              "BYTES_READ_FROM_BLOCK_CACHE",
              "BYTES_READ_FROM_MEMSTORE",
              "FS_READ_TIME"));
}
