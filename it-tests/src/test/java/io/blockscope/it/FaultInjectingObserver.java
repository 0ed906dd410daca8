package io.blockscope.it;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.ScanType;
import org.apache.hadoop.hbase.regionserver.Store;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionLifeCycleTracker;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionRequest;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Another coprocessor on a table, loaded after blockscope's (table coprocessors run after the
 * cluster-wide ones), that fails or bypasses on request: what AccessController, Phoenix's
 * stale-region checks or a region move do to a read between blockscope's pre- and post-hooks. A get
 * or scan asks for a fault with the attribute {@value #FAULT}: {@code throw} (pre-hook throws),
 * {@code bypass} (pre-hook bypasses), {@code postOpen} (postScannerOpen throws). A get may also
 * make a read of its own in another table (which must carry this observer too) that this observer
 * refuses, and go on: {@code nested:<table>} reads that table's region through the region itself,
 * on the handler thread, as Phoenix's observers do; {@code shortCircuitThread:<table>} reads it
 * through the region server's own connection from a thread of this observer's pool, as a
 * coprocessor's background work does (HBase short-circuits the call onto that thread); {@code meet}
 * counts {@link #readersMeet} down and waits (up to 30 seconds) until it reaches zero, so that a
 * test can hold each of the server's handlers in one get at once (their thread names are kept in
 * {@link #MEETING_THREADS}).
 *
 * <p>A table whose descriptor carries {@value #FAULT} = {@code preCompact} has every compaction
 * fail in this observer's preCompact, after HBase opened the compaction's scanner; loaded with a
 * priority below {@link org.apache.hadoop.hbase.Coprocessor#PRIORITY_SYSTEM}, it runs before
 * blockscope's preCompact, which then never comes. Such failing compactions first wait (up to a
 * minute) until {@link #failingCompactionsMeet} has counted down to zero, so that a test can hold
 * each of HBase's compaction threads in one at once. The threads that ran each preCompact are kept
 * in {@link #COMPACTION_THREADS}.
 */
public class FaultInjectingObserver implements RegionCoprocessor, RegionObserver {
  public static final String FAULT = "blockscope.test.fault";

  /** The name of the thread of each preCompact seen, in order. */
  public static final List<String> COMPACTION_THREADS = new CopyOnWriteArrayList<>();

  /** Counted down by each {@code meet} get, which then waits for it to reach zero. */
  public static volatile CountDownLatch readersMeet = new CountDownLatch(0);

  /** The name of the thread of each {@code meet} get seen. */
  public static final List<String> MEETING_THREADS = new CopyOnWriteArrayList<>();

  /** Counted down by each failing compaction, which then waits for it to reach zero. */
  public static volatile CountDownLatch failingCompactionsMeet = new CountDownLatch(0);

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  private static String fault(byte[] attribute) {
    return attribute == null ? "" : Bytes.toString(attribute);
  }

  /** A coprocessor's own pool: one long-lived thread, as such pools keep. */
  private static final ExecutorService POOL =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "fault-observer-pool");
            t.setDaemon(true);
            return t;
          });

  /** The name of the pool's thread, once it ran. */
  public static volatile Thread poolThread;

  private static Get refused(byte[] row) {
    Get g = new Get(row);
    g.setAttribute(FAULT, Bytes.toBytes("throw"));
    return g;
  }

  @Override
  public void preGetOp(ObserverContext<RegionCoprocessorEnvironment> c, Get get, List<Cell> result)
      throws IOException {
    String fault = fault(get.getAttribute(FAULT));
    if (fault.startsWith("nested:")) {
      TableName other = TableName.valueOf(fault.substring("nested:".length()));
      Region region = c.getEnvironment().getOnlineRegions().getRegions(other).get(0);
      try {
        region.get(refused(get.getRow()));
        throw new IllegalStateException("the nested read was to be refused");
      } catch (DoNotRetryIOException expected) {
        return; // and this get goes on
      }
    }
    if (fault.startsWith("shortCircuitThread:")) {
      TableName other = TableName.valueOf(fault.substring("shortCircuitThread:".length()));
      Connection connection = c.getEnvironment().getConnection();
      Future<?> read =
          POOL.submit(
              () -> {
                poolThread = Thread.currentThread();
                try (Table t = connection.getTable(other)) {
                  t.get(refused(get.getRow()));
                  throw new IllegalStateException("the pool's read was to be refused");
                } catch (IOException expected) {
                  return null;
                }
              });
      try {
        read.get(1, TimeUnit.MINUTES);
      } catch (InterruptedException | ExecutionException | TimeoutException e) {
        throw new IOException("the pool's read did not end as refused", e);
      }
      return;
    }
    switch (fault) {
      case "meet":
        meet();
        break;
      case "throw":
        throw new DoNotRetryIOException("injected: get refused");
      case "bypass":
        c.bypass();
        break;
      default:
        break;
    }
  }

  private static void meet() throws IOException {
    MEETING_THREADS.add(Thread.currentThread().getName());
    if (!meet(readersMeet, 30)) {
      throw new DoNotRetryIOException("only " + MEETING_THREADS + " met");
    }
  }

  /**
   * Counts {@code latch} down and waits, up to {@code seconds}, until it reaches zero; whether it
   * did (an interrupt ends the wait, the thread's flag set again).
   */
  private static boolean meet(CountDownLatch latch, int seconds) {
    latch.countDown();
    try {
      return latch.await(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void preScannerOpen(ObserverContext<RegionCoprocessorEnvironment> c, Scan scan)
      throws IOException {
    if (fault(scan.getAttribute(FAULT)).equals("throw")) {
      throw new DoNotRetryIOException("injected: scan refused");
    }
  }

  @Override
  public RegionScanner postScannerOpen(
      ObserverContext<RegionCoprocessorEnvironment> c, Scan scan, RegionScanner s)
      throws IOException {
    if (fault(scan.getAttribute(FAULT)).equals("postOpen")) {
      throw new DoNotRetryIOException("injected: postScannerOpen failed");
    }
    return s;
  }

  @Override
  public InternalScanner preCompact(
      ObserverContext<RegionCoprocessorEnvironment> c,
      Store store,
      InternalScanner scanner,
      ScanType scanType,
      CompactionLifeCycleTracker tracker,
      CompactionRequest request)
      throws IOException {
    COMPACTION_THREADS.add(Thread.currentThread().getName());
    if ("preCompact".equals(c.getEnvironment().getRegion().getTableDescriptor().getValue(FAULT))) {
      meet(failingCompactionsMeet, 60);
      throw new IOException("injected: compaction refused after its scanner opened");
    }
    return scanner;
  }
}
