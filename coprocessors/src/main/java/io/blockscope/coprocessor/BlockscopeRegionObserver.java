package io.blockscope.coprocessor;

import com.google.protobuf.Service;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.PerfLevel;
import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.ScanOptions;
import org.apache.hadoop.hbase.regionserver.ScanType;
import org.apache.hadoop.hbase.regionserver.Store;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionLifeCycleTracker;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The blockscope coprocessor: deploy it cluster-wide with {@code
 * hbase.coprocessor.region.classes=io.blockscope.coprocessor.BlockscopeRegionObserver} or per table
 * from a jar on a file system (see docs/deploy.md).
 *
 * <p>It tracks each region from {@link #start} to {@link #stop} (HBase stops a region's
 * coprocessors when the region closes, moves, splits or merges, which removes the region's metrics)
 * and brackets every read with the hooks below, so the probes' costs land on the right region.
 * Every hook returns what HBase handed it and never throws.
 */
public class BlockscopeRegionObserver implements RegionCoprocessor, RegionObserver {
  private static final Logger LOG = LoggerFactory.getLogger(BlockscopeRegionObserver.class);

  private volatile Hooks hooks;
  private volatile String region;
  private volatile RegionCoprocessorEnvironment environment;

  /** Makes or joins the JVM's engine for a region: {@link JvmEngine#hooks}, or a test's. */
  private final Function<RegionCoprocessorEnvironment, Hooks> engines;

  /** Whether the JVM's engine is there already, so that joining it does not wait. */
  private final BooleanSupplier engineReady;

  /** Set by {@link #stop}: a region closed before its tracking started is not tracked. */
  private boolean stopped; // guarded by this

  public BlockscopeRegionObserver() {
    this(JvmEngine::hooks, JvmEngine::ready);
  }

  BlockscopeRegionObserver(
      Function<RegionCoprocessorEnvironment, Hooks> engines, BooleanSupplier engineReady) {
    this.engines = engines;
    this.engineReady = engineReady;
  }

  /**
   * Never throws: with {@code hbase.coprocessor.abortonerror=true} (HBase's default) an exception
   * here would abort the region server. If blockscope cannot start, the region opens unmeasured.
   *
   * <p>The first region a region server opens makes the engine, which may wait up to {@code
   * blockscope.probes.attach.timeout.ms} for instrumentation. A system table's region ({@code
   * hbase:meta}, {@code hbase:namespace}, ...) does not wait for it: while the engine is not there,
   * the region opens at once and is tracked from a thread of its own once the engine is made (its
   * reads until then go unmeasured), so that a slow attach never holds up the cluster's catalog.
   */
  @Override
  @SuppressWarnings("rawtypes") // HBase's own signature: Coprocessor.start(CoprocessorEnvironment)
  public void start(CoprocessorEnvironment env) throws IOException {
    try {
      if (!(env instanceof RegionCoprocessorEnvironment)) {
        return;
      }
      RegionCoprocessorEnvironment e = (RegionCoprocessorEnvironment) env;
      if (!engineReady.getAsBoolean() && e.getRegionInfo().getTable().isSystemTable()) {
        Thread t = new Thread(() -> track(e), "blockscope-start");
        t.setDaemon(true);
        t.start();
        return;
      }
      track(e);
    } catch (Throwable t) {
      LOG.error("blockscope: cannot start; this region runs unmeasured", t);
    }
  }

  /** Tracks the region with the JVM's engine, unless it closed meanwhile. Never throws. */
  private void track(RegionCoprocessorEnvironment e) {
    try {
      // the server's settings, never the region's configuration (which a table's owner sets)
      Hooks h = engines.apply(e);
      synchronized (this) {
        if (stopped) {
          return;
        }
        h.regionOpened(e);
        environment = e;
        region = e.getRegionInfo().getEncodedName();
        hooks = h;
      }
    } catch (Throwable t) {
      LOG.error("blockscope: cannot start; this region runs unmeasured", t);
    }
  }

  @Override
  @SuppressWarnings("rawtypes") // HBase's own signature: Coprocessor.start(CoprocessorEnvironment)
  public void stop(CoprocessorEnvironment env) throws IOException {
    try {
      Hooks h;
      synchronized (this) {
        stopped = true;
        h = hooks;
      }
      if (h != null && env instanceof RegionCoprocessorEnvironment) {
        h.regionClosed((RegionCoprocessorEnvironment) env);
      }
    } catch (Throwable t) {
      LOG.error("blockscope: error while untracking a region", t);
    }
  }

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  /**
   * The profile endpoint of this region (docs/hints.md, PROFILE); none if it cannot be made. HBase
   * calls this while it builds the coprocessor's environment ({@code
   * RegionCoprocessorHost.createEnvironment}), before {@link #start} and inside {@code
   * CoprocessorHost.checkAndLoadInstance}, whose caller aborts the region server on any Throwable
   * of a cluster-wide coprocessor (with {@code hbase.coprocessor.abortonerror=true}, the default):
   * a region server without protobuf 2.5's {@code com.google.protobuf} classes, or whose endpoint
   * class fails to initialize, must open the region without the endpoint instead.
   */
  @Override
  public Iterable<Service> getServices() {
    try {
      return Collections.singletonList(profileService());
    } catch (Throwable t) {
      if (NO_ENDPOINT_SAID.compareAndSet(false, true)) {
        LOG.warn(
            "blockscope: the profile endpoint is unavailable on this region server; regions open"
                + " without it (PROFILE hints get no profile)",
            t);
      }
      return Collections.emptyList();
    }
  }

  /** Whether the endpoint's absence was logged already (once per class-loader copy). */
  private static final AtomicBoolean NO_ENDPOINT_SAID = new AtomicBoolean();

  /** The endpoint {@link #getServices} hands to HBase. */
  Service profileService() {
    return new ProfileService(() -> hooks, () -> region, () -> environment);
  }

  private void enter(ObserverContext<RegionCoprocessorEnvironment> c) {
    Hooks h = hooks;
    if (h != null) {
      h.enter(c.getEnvironment());
    }
  }

  private void exit(ObserverContext<RegionCoprocessorEnvironment> c) {
    Hooks h = hooks;
    if (h != null) {
      h.exit(c.getEnvironment());
    }
  }

  @Override
  public void preScannerOpen(ObserverContext<RegionCoprocessorEnvironment> c, Scan scan) {
    enter(c);
  }

  /** The level a profiled scan asks for (a PerfLevel ordinal); -1 if none or not understood. */
  private static int profileLevel(byte[] attribute) {
    PerfLevel asked = PerfLevel.ofAttribute(attribute);
    return asked == null ? -1 : asked.ordinal();
  }

  @Override
  public RegionScanner postScannerOpen(
      ObserverContext<RegionCoprocessorEnvironment> c, Scan scan, RegionScanner s) {
    Hooks h = hooks;
    RegionScanner result = s;
    if (h != null) {
      try {
        byte[] query = scan.getAttribute(Attributes.QUERY);
        Object handle =
            query == null
                ? null
                : h.queryScan(
                    query,
                    CallerAccess.name(c.getCaller()),
                    scan,
                    c.getEnvironment(),
                    profileLevel(scan.getAttribute(Attributes.PROFILE)));
        if (handle != null) {
          h.queryActive(handle, 0); // what opening the scanner read is the query's too
        }
        byte[] fingerprint = scan.getAttribute(Attributes.STATEMENT);
        Object statement =
            fingerprint == null
                ? null
                : h.statementScan(
                    fingerprint,
                    scan.getAttribute(Attributes.STATEMENT_TEXT),
                    scan.getAttribute(Attributes.STATEMENT_EXECUTION),
                    c.getEnvironment().getRegionInfo().getEncodedName(),
                    CallerAccess.name(c.getCaller()));
        if (statement != null) {
          h.statementActive(statement, 0); // and the statement's
        }
        if (handle != null || statement != null) {
          result = new TaggedScanner(s, h, handle, statement);
        }
      } catch (Throwable t) {
        LOG.debug("blockscope: cannot read the scan's query tag", t);
      }
    }
    exit(c);
    return result;
  }

  @Override
  public boolean preScannerNext(
      ObserverContext<RegionCoprocessorEnvironment> c,
      InternalScanner s,
      List<Result> result,
      int limit,
      boolean hasNext) {
    enter(c);
    return hasNext;
  }

  @Override
  public boolean postScannerNext(
      ObserverContext<RegionCoprocessorEnvironment> c,
      InternalScanner s,
      List<Result> result,
      int limit,
      boolean hasNext) {
    Hooks h = hooks;
    if (h != null) {
      h.scanBatchEnded();
    }
    exit(c);
    return hasNext;
  }

  @Override
  public void preGetOp(
      ObserverContext<RegionCoprocessorEnvironment> c, Get get, List<Cell> result) {
    enter(c);
  }

  @Override
  public void postGetOp(
      ObserverContext<RegionCoprocessorEnvironment> c, Get get, List<Cell> result) {
    exit(c);
  }

  @Override
  public boolean preExists(
      ObserverContext<RegionCoprocessorEnvironment> c, Get get, boolean exists) {
    enter(c);
    return exists;
  }

  @Override
  public boolean postExists(
      ObserverContext<RegionCoprocessorEnvironment> c, Get get, boolean exists) {
    exit(c);
    return exists;
  }

  /**
   * HBase's {@code Compactor.compact} calls this hook, then opens the compaction's scanner ({@code
   * createScanner} seeks every input file, reading its first block), then {@link #preCompact}: the
   * reads in between are held on the thread and handed to the region by preCompact.
   */
  @Override
  public void preCompactScannerOpen(
      ObserverContext<RegionCoprocessorEnvironment> c,
      Store store,
      ScanType scanType,
      ScanOptions options,
      CompactionLifeCycleTracker tracker,
      CompactionRequest request) {
    Hooks h = hooks;
    if (h != null) {
      h.compactionOpening(c.getEnvironment());
    }
  }

  /**
   * The reads of the scanner's opening go to the region (one frame opened and closed at once), and
   * compaction reads are attributed batch by batch through a wrapping scanner that keeps every
   * interface of the one it wraps ({@link AttributedScanner}); a region at level OFF keeps HBase's
   * scanner as it is.
   */
  @Override
  public InternalScanner preCompact(
      ObserverContext<RegionCoprocessorEnvironment> c,
      Store store,
      InternalScanner scanner,
      ScanType scanType,
      CompactionLifeCycleTracker tracker,
      CompactionRequest request) {
    Hooks h = hooks;
    if (h == null) {
      return scanner;
    }
    h.enter(c.getEnvironment());
    h.exit(c.getEnvironment());
    try {
      return !h.measures(c.getEnvironment())
          ? scanner
          : AttributedScanner.wrap(scanner, h, c.getEnvironment());
    } catch (Throwable t) {
      LOG.warn("blockscope: compaction of {} runs unmeasured", region, t);
      return scanner;
    }
  }
}
