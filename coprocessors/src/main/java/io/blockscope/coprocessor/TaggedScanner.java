package io.blockscope.coprocessor;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;

/**
 * The region scanner of a tagged query, unchanged but for one thing: closing it tells the engine.
 * Wrapping is how the close is seen whatever other coprocessors wrap around it afterwards (Phoenix's
 * observers run after blockscope's and wrap the scanner again; HBase closes the outermost, and
 * every wrapper closes what it wraps). HBase takes the per-batch {@code Shipper} from its core
 * scanner, not from this chain ({@code RSRpcServices.newRegionScanner}), so nothing else changes.
 */
final class TaggedScanner implements RegionScanner {
  private final RegionScanner delegate;
  private final Hooks hooks;

  TaggedScanner(RegionScanner delegate, Hooks hooks) {
    this.delegate = delegate;
    this.hooks = hooks;
  }

  @Override
  public void close() throws IOException {
    try {
      delegate.close();
    } finally {
      hooks.scannerClosed(this); // never throws
    }
  }

  @Override
  public RegionInfo getRegionInfo() {
    return delegate.getRegionInfo();
  }

  @Override
  public boolean isFilterDone() throws IOException {
    return delegate.isFilterDone();
  }

  @Override
  public boolean reseek(byte[] row) throws IOException {
    return delegate.reseek(row);
  }

  @Override
  public long getMaxResultSize() {
    return delegate.getMaxResultSize();
  }

  @Override
  public long getMvccReadPoint() {
    return delegate.getMvccReadPoint();
  }

  @Override
  public int getBatch() {
    return delegate.getBatch();
  }

  @Override
  public String getOperationId() {
    return delegate.getOperationId();
  }

  @Override
  public boolean nextRaw(List<Cell> result) throws IOException {
    return delegate.nextRaw(result);
  }

  @Override
  public boolean nextRaw(List<Cell> result, ScannerContext scannerContext) throws IOException {
    return delegate.nextRaw(result, scannerContext);
  }

  @Override
  public boolean next(List<Cell> result) throws IOException {
    return delegate.next(result);
  }

  @Override
  public boolean next(List<Cell> result, ScannerContext scannerContext) throws IOException {
    return delegate.next(result, scannerContext);
  }
}
