package org.apache.hadoop.hbase.regionserver;

import java.io.IOException;

/**
 * Opens an {@link HRegion} built outside a region server, after the benchmark gave it a block cache
 * and a coprocessor host: {@code HRegion.initialize(CancelableProgressable)} is package-private
 * (HBase's own region tests call it from this package too). Benchmark code only; never deployed.
 */
public final class BenchmarkRegions {
  private BenchmarkRegions() {}

  /** Opens the region's stores (reading their files' trailers) as a region server's open does. */
  public static void initialize(HRegion region) throws IOException {
    region.initialize(null);
  }
}
