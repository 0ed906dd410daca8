package io.blockscope.coprocessor;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;

/**
 * The region scanner of a tagged query or of a scan that named its statement, unchanged but for
 * marking the frames that serve it and one thing more: closing it tells the engine. Wrapping is how
 * the close is seen whatever other coprocessors wrap around it afterwards (Phoenix's observers run
 * after blockscope's and wrap the scanner again; HBase closes the outermost, and every wrapper
 * closes what it wraps). HBase takes the per-batch {@code Shipper} from its core scanner, not from
 * this chain ({@code RSRpcServices.newRegionScanner}), so nothing else changes.
 */
final class TaggedScanner implements RegionScanner {
  private final RegionScanner delegate;
  private final Hooks hooks;

  /** Where the query's costs in this region go; null for a scan of no tagged query. */
  private final Object query;

  /** The statement the scan named ({@link Hooks#statementScan}); null for none. */
  private final Object statement;

  /**
   * Tells the engine a tagged query's scanner is gone: on close, or when it is collected unclosed;
   * null for a scanner of a statement only, which the engine does not track.
   */
  private final Reaper.Cleanable closed;

  /**
   * The key of the last row counted, copied: a Cell HBase returned may sit in a block it hands back
   * once the RPC's batch is shipped ({@code Shipper.shipped()}, then an off-heap BucketCache or a
   * pooled buffer reuses the bytes), so none is kept past the call that returned it.
   */
  private byte[] lastRow = new byte[64];

  /** Bytes of {@link #lastRow} in use; -1 before the first row. */
  private int lastRowLength = -1;

  /**
   * For a tagged query ({@code query} not null), registers the scanner with the engine as open,
   * under a token of its own rather than itself, and arranges for the token to be closed when this
   * scanner is closed or, failing that, when it becomes unreachable: if a coprocessor after
   * blockscope throws in {@code postScannerOpen}, HBase 2.6 ({@code
   * RSRpcServices.newRegionScanner}) closes the core scanner, never this one, and drops it; without
   * the cleaner it would count as open for ever.
   */
  TaggedScanner(RegionScanner delegate, Hooks hooks, Object query, Object statement) {
    this.delegate = delegate;
    this.hooks = hooks;
    this.query = query;
    this.statement = statement;
    if (query == null) {
      this.closed = null;
      return;
    }
    Object token = new Object();
    hooks.scannerOpened(token, query);
    this.closed = Reaper.register(this, () -> hooks.scannerClosed(token));
  }

  /**
   * Marks the frame of the read about to happen as this query's (and its profiling level) and this
   * statement's.
   */
  private int before(List<Cell> result) {
    if (query != null) {
      hooks.queryActive(query, 0);
    }
    if (statement != null) {
      hooks.statementActive(statement, 0);
    }
    return result.size();
  }

  /**
   * Counts a row if cells of a row not counted yet came back: a row whose cells come in two calls
   * (a batch or size limit inside the row, a heartbeat, a partial result) counts once. Never throws
   * into the scan: on a failure the row goes uncounted and the next one starts afresh.
   */
  private boolean seen(boolean more, List<Cell> result, int sizeBefore) {
    try {
      if (result.size() > sizeBefore) {
        Cell first = result.get(sizeBefore);
        if (lastRowLength < 0 || !CellUtil.matchingRow(first, lastRow, 0, lastRowLength)) {
          if (query != null) {
            hooks.queryActive(query, 1);
          }
          if (statement != null) {
            hooks.statementActive(statement, 1);
          }
        }
        remember(result.get(result.size() - 1));
      }
    } catch (Throwable t) {
      lastRowLength = -1;
    }
    return more;
  }

  private void remember(Cell last) {
    int n = last.getRowLength();
    if (n > lastRow.length) {
      lastRow = new byte[Math.max(n, lastRow.length * 2)];
    }
    CellUtil.copyRowTo(last, lastRow, 0);
    lastRowLength = n;
  }

  @Override
  public void close() throws IOException {
    try {
      delegate.close();
    } finally {
      if (closed != null) {
        closed.clean(); // hooks.scannerClosed, once; never throws
      }
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
