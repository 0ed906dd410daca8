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
  /** Where the query's costs in this region go; null if the query is not tracked. */
  private volatile Object query;

  TaggedScanner(RegionScanner delegate, Hooks hooks) {
    this.delegate = delegate;
    this.hooks = hooks;
  }

  void query(Object handle) {
    this.query = handle;
  }

  /** Marks the frame of the read about to happen as this query's (and its profiling level). */
  private int before(List<Cell> result) {
    Object q = query;
    if (q != null) {
      hooks.queryActive(q, 0);
    }
    return result.size();
  }

  /** Counts a row if one came back. */
  private boolean seen(boolean more, List<Cell> result, int sizeBefore) {
    Object q = query;
    if (q != null && result.size() > sizeBefore) {
      hooks.queryActive(q, 1);
    }
    return more;
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
    int before = before(result);
    return seen(delegate.nextRaw(result), result, before);
  }

  @Override
  public boolean nextRaw(List<Cell> result, ScannerContext scannerContext) throws IOException {
    int before = before(result);
    return seen(delegate.nextRaw(result, scannerContext), result, before);
  }

  @Override
  public boolean next(List<Cell> result) throws IOException {
    int before = before(result);
    return seen(delegate.next(result), result, before);
  }

  @Override
  public boolean next(List<Cell> result, ScannerContext scannerContext) throws IOException {
    int before = before(result);
    return seen(delegate.next(result, scannerContext), result, before);
  }
}
