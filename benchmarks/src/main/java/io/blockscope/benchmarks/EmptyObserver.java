package io.blockscope.benchmarks;

import java.util.Optional;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;

/**
 * A RegionObserver that does nothing: what HBase's own hook calls cost any observer, the overhead
 * benchmarks' yardstick. A class of its own, with no reference to the benchmarks, so that a region
 * server can load it from a jar holding only this class.
 */
public final class EmptyObserver implements RegionCoprocessor, RegionObserver {
  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }
}
