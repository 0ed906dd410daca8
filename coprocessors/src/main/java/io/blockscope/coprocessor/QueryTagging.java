package io.blockscope.coprocessor;

import io.blockscope.coprocessor.accounting.CostRegistry;
import io.blockscope.coprocessor.accounting.CostRegistry.RegionCosts;
import io.blockscope.coprocessor.accounting.QueryTracker;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.HBaseScanMetrics;
import io.blockscope.metrics.PerfLevel;
import io.blockscope.metrics.profile.ProfileWire;
import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;

/**
 * Tagged queries: a scan that carries a query id is that user's query in each region it opens a
 * scanner in; the frame that serves it works for the query too ({@link #queryActive}), so its costs
 * go to the query's record for the region as well as to the region, at the level the query may ask
 * for. The records are what the profile endpoint serves ({@link #queryCosts}).
 */
final class QueryTagging {
  private final QueryTracker queries;
  private final CostRegistry registry;
  private final Attribution attribution;
  private final Levels levels;
  private final AtomicLong hookFailures;

  /** HBase's own scan metrics for query profiles; null on an HBase without them. */
  private final HBaseScanMetricsReader hbaseScanMetrics;

  QueryTagging(
      CostRegistry registry,
      Attribution attribution,
      Levels levels,
      HBaseScanMetricsReader hbaseScanMetrics,
      AtomicLong hookFailures,
      QueryTracker.Limits limits) {
    this.queries = QueryTracker.withLimits(limits);
    this.registry = registry;
    this.attribution = attribution;
    this.levels = levels;
    this.hbaseScanMetrics = hbaseScanMetrics;
    this.hookFailures = hookFailures;
  }

  /** The scanners of tagged queries seen by this JVM's region servers. */
  QueryTracker queries() {
    return queries;
  }

  Object queryScan(
      byte[] queryId, String user, Object scan, RegionCoprocessorEnvironment env, int level) {
    try {
      String id = QueryTracker.parseId(queryId);
      if (id == null || user == null || levels.queryCap() == PerfLevel.OFF) {
        return null;
      }
      Attribution.Frames f = attribution.frames();
      if (scan != null && f.taggedScan != null && f.taggedScan.get() == scan) {
        return null; // another copy of blockscope tagged this scan already (both deployments)
      }
      QueryTracker.RegionCosts q = queries.region(id, user, env.getRegionInfo().getEncodedName());
      if (q == null) {
        return null;
      }
      f.taggedScan = scan == null ? null : new WeakReference<>(scan);
      if (level > q.asked) {
        q.asked = level;
      }
      q.level = levels.queryLevel(q.asked); // within the cap in force now, lowered or raised
      RegionCosts region = registry.region(env.getRegionInfo().getEncodedName());
      if (region != null) {
        applyLevel(q, q.asked, region.level().ordinal());
      }
      return q;
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
      return null;
    }
  }

  /**
   * Records the level region {@code q} measures its query at, as {@link #queryActive} applies it to
   * the frame: the region's own level, raised to what the query may ask ({@code q.level}), but
   * never above OFF for a region at OFF; and why, against what the query asked ({@code asked}).
   */
  static void applyLevel(QueryTracker.RegionCosts q, int asked, int regionLevel) {
    int applied;
    int reason;
    if (regionLevel == PerfLevel.OFF.ordinal()) {
      applied = regionLevel;
      reason = ProfileWire.REGION_OFF;
    } else {
      applied = Math.max(regionLevel, q.level);
      reason =
          applied > asked
              ? ProfileWire.REGION_LEVEL
              : applied < asked ? ProfileWire.CAPPED : ProfileWire.AS_ASKED;
    }
    q.appliedReason = reason;
    q.applied = applied;
  }

  /**
   * Re-levels every query record after a reload of the caps: each may measure at what its query
   * asked within the new cap, at once (its open scanners' next batches included), and its profile
   * says so.
   */
  void relevel() {
    try {
      queries.forEachRegion(
          (region, q) -> {
            q.level = levels.queryLevel(q.asked);
            RegionCosts r = registry.region(region);
            if (r != null && q.applied >= 0) {
              applyLevel(q, q.asked, r.level().ordinal());
            }
          });
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  void scannerOpened(Object scanner, Object handle) {
    try {
      if (handle instanceof QueryTracker.RegionCosts) {
        queries.opened(scanner, (QueryTracker.RegionCosts) handle);
      }
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  /**
   * Marks the innermost frame as the query's. A query raises the frame's level to what it asked for
   * (within {@code blockscope.query.max.level}), but a region at OFF stays unmeasured.
   */
  void queryActive(Object handle, int rows) {
    if (!(handle instanceof QueryTracker.RegionCosts)) {
      return;
    }
    QueryTracker.RegionCosts q = (QueryTracker.RegionCosts) handle;
    try {
      if (levels.queryCap() == PerfLevel.OFF) {
        return; // profiles were switched off while the query's scanners were open
      }
      Attribution.Frames f = attribution.frames();
      if (f.depth > 0) {
        f.query[f.depth - 1] = q;
        // the cap as it is now: a reload that lowered it holds from the next batch on
        int level = Math.min(q.level, levels.queryCap().ordinal());
        if (level >= 0 && attribution.attributes()) {
          long[] costs = f.costs;
          long current = costs[CostLayout.LEVEL];
          if (current != PerfLevel.OFF.ordinal() && current < level) {
            costs[CostLayout.LEVEL] = level;
          }
        }
      }
      if (rows > 0) {
        q.rows.addAndGet(rows);
      }
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  /**
   * Called where a scan RPC's batch ends ({@code postScannerNext}), before {@link
   * Attribution#exit}: if the innermost frame works for a tagged query and HBase tracked this RPC's
   * scan metrics, they go to that query's record for the region.
   */
  void scanBatchEnded() {
    HBaseScanMetricsReader reader = hbaseScanMetrics;
    if (reader == null) {
      return;
    }
    try {
      Attribution.Frames f = attribution.frames();
      QueryTracker.RegionCosts q = f.depth > 0 ? f.query[f.depth - 1] : null;
      if (q != null && reader.addTo(q.hbase)) {
        q.hbaseTracked = true;
      }
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  /**
   * Where {@link #queryCosts} puts the level a region measured the query at, and the reason after
   * it: past the costs, the rows, the tracked flag and HBase's scan metrics.
   */
  static final int QUERY_LEVEL = CostLayout.SIZE + 2 + HBaseScanMetrics.NAMES.size();

  static final int QUERY_LEVEL_REASON = QUERY_LEVEL + 1;

  long[] queryCosts(String queryId, String user, String region) {
    try {
      QueryTracker.RegionCosts q = queries.costs(queryId, user, region);
      if (q == null) {
        return null;
      }
      int n = HBaseScanMetrics.NAMES.size();
      long[] out = new long[QUERY_LEVEL_REASON + 1];
      for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
        out[i] = q.costs.get(i);
      }
      out[CostLayout.SIZE] = q.rows.get();
      out[CostLayout.SIZE + 1] = q.hbaseTracked ? 1 : 0;
      for (int i = 0; i < n; i++) {
        out[CostLayout.SIZE + 2 + i] = q.hbase.get(i);
      }
      out[QUERY_LEVEL] = q.applied;
      out[QUERY_LEVEL_REASON] = q.appliedReason;
      return out;
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
      return null;
    }
  }

  void scannerClosed(Object scanner) {
    try {
      queries.closed(scanner);
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }
}
