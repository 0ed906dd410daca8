package io.blockscope.coprocessor;

import io.blockscope.coprocessor.accounting.CostAccumulator;
import io.blockscope.coprocessor.accounting.CostRegistry;
import io.blockscope.coprocessor.accounting.CostRegistry.RegionCosts;
import io.blockscope.coprocessor.accounting.QueryTracker;
import io.blockscope.coprocessor.accounting.StatementStats;
import io.blockscope.coprocessor.accounting.UserAccounts;
import io.blockscope.coprocessor.probe.BridgeHandle;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.PerfLevel;
import java.lang.ref.WeakReference;
import java.util.Arrays;
import java.util.Collections;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.ipc.RpcCall;
import org.apache.hadoop.hbase.ipc.RpcServer;

/**
 * The attribution of reads to regions, the one part of the engine on every read's path.
 *
 * <p>The probes fill a per-thread cost array while the thread's level slot is above OFF. The
 * RegionObserver brackets every client read (scanner open, scanner next, get, exists) and every
 * compaction batch with {@link #enter} and {@link #exit}: enter pushes a frame naming the region
 * and sets the thread's level to the region's, exit drains the array into the region's accumulator
 * and restores the outer frame's level. Frames nest (Phoenix serves some reads by issuing region
 * operations of its own inside a scan); the reads between two nested hooks go to the innermost
 * region. A frame holds its region ({@code RegionCosts.acquire}) so that a read still in flight
 * when the region closes is counted before the region's costs move to its table.
 *
 * <p>Post-hooks do not come when a read throws or an observer bypasses (HBase skips them), so a
 * frame is not closed by its post-hook alone: when the RPC call ends (the {@code rpcCall} probe:
 * {@code CallRunner.run} returns on a handler thread, or the short-circuit connection's {@code
 * doCall} returns on the thread of a coprocessor that called its own server), every frame the call
 * opened and left open is closed, its costs going to its own region and query; a handler thread is
 * back at depth 0 and level OFF before it serves another call. A post-hook closes the frame of its
 * own region (frames record it), with any frame left open above it.
 *
 * <p>Where call ends cannot be relied on (the probe is not woven, or it has failed), a thread's
 * stack records which RPC call opened its first frame: HBase's {@code RpcServer.getCurrentCall()},
 * the call {@code CallRunner.run} serves on the handler thread (a short-circuit call unsets it, so
 * a nested call is never taken for a new one). The first read of another call on that thread finds
 * the earlier call's frames still open: it closes them and drops what the thread read since their
 * last hook, which mixes the failed read's costs with reads of later calls that no hook brackets. A
 * leaked frame thus never takes a later call's reads, and its region is released at the thread's
 * next read; the costs are refused rather than given to the wrong region. The stack also stays
 * bounded: frames left open are dropped once it is {@link #MAX_DEPTH} deep.
 *
 * <p>Reads outside these brackets (region open, prefetch-on-open, flushes) run at level OFF and are
 * not counted: HBase gives no region for them.
 *
 * <p>Each measured frame also holds the account of the user it reads for ({@link UserAccounts}):
 * the user of the RPC call that opened the thread's first frame, as HBase's {@code
 * RpcCall.getRequestUser()} gives it and {@link CallerAccess} names it, or the region server's own
 * user outside an RPC call. Its costs go to that account first, then to its query and region, so
 * the accounts never hold a cost the regions have not also been given by the time the frame ends.
 */
final class Attribution {
  static final int MAX_DEPTH = 32;

  private final CostRegistry registry;
  private final UserAccounts users;

  /** The probes' bridge; null where no bridge could be set up, and then nothing is attributed. */
  private final BridgeHandle bridge;

  private final AtomicLong hookFailures;
  private final AtomicLong droppedFrames = new AtomicLong();

  static final class Frames {
    /**
     * The thread's cost array, which the probes fill ({@code ProbeBridge.costs()}): one per thread
     * for the thread's life, so it is looked up once, not at every hook. Null without a bridge.
     */
    final long[] costs;

    final RegionCosts[] stack = new RegionCosts[MAX_DEPTH];

    /**
     * The encoded name of the region each frame was opened for (its {@link #stack} entry is null
     * for a region not measured): a post-hook closes its own region's frame, never another's.
     */
    final String[] owner = new String[MAX_DEPTH];

    /** The tagged query each frame works for, if any (see {@link QueryTagging#queryActive}). */
    final QueryTracker.RegionCosts[] query = new QueryTracker.RegionCosts[MAX_DEPTH];

    /**
     * The account of the user each measured frame reads for, acquired with it: the RPC's user of
     * the call that opened the thread's first frame (nested frames read for the same call).
     */
    final UserAccounts.Account[] account = new UserAccounts.Account[MAX_DEPTH];

    /**
     * The statement each measured frame reads for, acquired when a scanner of a scan that named one
     * marks the frame ({@link StatementTagging#statementActive}); null for others.
     */
    final StatementStats.Statement[] statement = new StatementStats.Statement[MAX_DEPTH];

    /** Written by its thread only; volatile so that {@link #openFrames()} reads it current. */
    volatile int depth;

    /** Which RPC call opened the first open frame ({@link #callKey}); 0 when none did. */
    long call;

    /**
     * The Scan last tagged on this thread, so that a second copy of blockscope does not tag it;
     * weakly held, as without the probes no frame end clears it and each handler thread would keep
     * its last tagged Scan for good.
     */
    WeakReference<Object> taggedScan;

    /** Which of a contended region's arrays this thread adds to (see {@link CostAccumulator}). */
    final CostAccumulator.Lane lane = new CostAccumulator.Lane();

    Frames(long[] costs) {
      this.costs = costs;
    }
  }

  /** Every thread's frames, for {@link #openFrames()}; a thread's entry goes with the thread. */
  private final Set<Frames> allFrames =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  /** Each thread's frames, made on the thread's first hook. */
  private final ThreadLocal<Frames> frames;

  Attribution(
      CostRegistry registry, UserAccounts users, BridgeHandle bridge, AtomicLong hookFailures) {
    this.registry = registry;
    this.users = users;
    this.bridge = bridge;
    this.hookFailures = hookFailures;
    this.frames =
        ThreadLocal.withInitial(
            () -> {
              Frames f = new Frames(bridge != null ? bridge.costs() : null);
              allFrames.add(f);
              return f;
            });
  }

  /** This thread's frames. */
  Frames frames() {
    return frames.get();
  }

  /** Whether anything is attributed at all: the probes' bridge is there. */
  boolean attributes() {
    return bridge != null;
  }

  /** Frames dropped because their post-hook never came, over the engine's life. */
  long droppedFrames() {
    return droppedFrames.get();
  }

  /**
   * Hands the costs gathered so far to frame {@code d}'s user, statement and query (if any) and
   * region; the user's account and the statement first, so that neither is ever ahead of the
   * regions' sum.
   */
  private static void settle(Frames f, int d, long[] costs) {
    RegionCosts region = f.stack[d];
    if (region == null) {
      return; // the costs stay on the thread for the frame that settles next
    }
    UserAccounts.Account account = f.account[d];
    if (account != null) {
      account.add(costs, f.lane);
    }
    StatementStats.Statement statement = f.statement[d];
    if (statement != null) {
      statement.add(costs, f.lane);
    }
    QueryTracker.RegionCosts q = f.query[d];
    DrillSeam.Drill drill = DrillSeam.current;
    if (drill != null) {
      drill.settle(region, q, costs);
      return;
    }
    if (q != null) {
      q.costs.add(costs);
    }
    region.costs().drain(costs, f.lane);
  }

  /** Closes frame {@code d}, the innermost, after its costs were settled. */
  private static void pop(Frames f, int d) {
    RegionCosts region = f.stack[d];
    UserAccounts.Account account = f.account[d];
    StatementStats.Statement statement = f.statement[d];
    f.stack[d] = null;
    f.query[d] = null;
    f.owner[d] = null;
    f.account[d] = null;
    f.statement[d] = null;
    f.depth = d;
    if (account != null) {
      account.release(f.lane);
    }
    if (statement != null) {
      statement.release(f.lane);
    }
    if (region != null) {
      region.release(f.lane);
    }
  }

  boolean measures(RegionCoprocessorEnvironment env) {
    try {
      RegionCosts region = registry.region(env.getRegionInfo().getEncodedName());
      return bridge != null && region != null && region.level() != PerfLevel.OFF;
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
      return false;
    }
  }

  void enter(RegionCoprocessorEnvironment env) {
    if (bridge == null) {
      return;
    }
    try {
      Frames f = frames.get();
      long[] costs = f.costs;
      // the call this read serves: recorded for a first frame, compared under a recorded one (a
      // nested read under a frame no call opened asks nothing)
      Optional<RpcCall> current =
          f.depth == 0 || f.call != 0 ? RpcServer.getCurrentCall() : Optional.empty();
      long call = callKey(current);
      if (f.depth > 0 && f.call != 0 && call != 0 && call != f.call) {
        closeAll(f, costs); // an earlier call's frames, left open with no call end to close them
      }
      if (f.depth == MAX_DEPTH) {
        closeAll(f, costs); // frames whose post-hook never came, and no call end to close them
      }
      if (f.depth == 0) {
        f.call = call;
      }
      if (f.depth > 0) {
        settle(f, f.depth - 1, costs);
      }
      String name = env.getRegionInfo().getEncodedName();
      RegionCosts region = registry.region(name);
      if (region != null && region.level() == PerfLevel.OFF) {
        region = null; // nothing is counted for it, so nothing needs holding or settling
      } else if (region != null && !region.acquire(f.lane)) {
        region = null; // closed since the lookup: this read goes uncounted, HBase refuses it too
      }
      int d = f.depth;
      f.query[d] = null;
      f.statement[d] = null;
      f.owner[d] = name;
      f.account[d] = region == null ? null : account(f, d, current);
      f.stack[d] = region;
      f.depth = d + 1;
      costs[CostLayout.DEPTH] = d + 1L;
      costs[CostLayout.LEVEL] = region == null ? 0 : region.level().ordinal();
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  /**
   * Closes the innermost frame opened for {@code env}'s region. Frames above it are reads nested in
   * this one that threw or were bypassed before their post-hook, and the read of {@code env}'s
   * region went on after them: what was read since the last hook is this region's, and they are
   * closed with it. A post-hook whose frame is not open any more (closed at its call's end or
   * dropped at {@link #MAX_DEPTH}) closes nothing.
   */
  void exit(RegionCoprocessorEnvironment env) {
    if (bridge == null) {
      return;
    }
    try {
      Frames f = frames.get();
      String name = env.getRegionInfo().getEncodedName();
      int own = f.depth - 1;
      while (own >= 0 && !name.equals(f.owner[own])) {
        own--;
      }
      if (own < 0) {
        return;
      }
      long[] costs = f.costs;
      settle(f, own, costs);
      if (f.depth - 1 > own) {
        droppedFrames.addAndGet(f.depth - 1 - own);
      }
      while (f.depth > own) {
        pop(f, f.depth - 1);
      }
      resume(f, costs);
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  /** The thread goes on at its innermost open frame's level, or at OFF outside any frame. */
  private static void resume(Frames f, long[] costs) {
    RegionCosts outer = f.depth > 0 ? f.stack[f.depth - 1] : null;
    costs[CostLayout.DEPTH] = f.depth;
    costs[CostLayout.LEVEL] = outer == null ? 0 : outer.level().ordinal();
    costs[CostLayout.PENDING_MISS] = 0;
    if (f.depth == 0) {
      f.taggedScan = null;
    }
  }

  /**
   * The account frame {@code d}'s reads add to, acquired; null (its costs go to its region only)
   * should the lookup fail, so that a region the frame holds is never left acquired.
   */
  private UserAccounts.Account account(Frames f, int d, Optional<RpcCall> current) {
    try {
      return users.acquire(user(f, d, current), f.lane);
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
      return null;
    }
  }

  /**
   * Whose read frame {@code d} is: the user of the frame it nests in, or of the RPC call it serves,
   * or the region server's own user outside any (compactions, a coprocessor's own reads), as {@link
   * CallerAccess} names users.
   */
  private static String user(Frames f, int d, Optional<RpcCall> current) {
    for (int outer = d - 1; outer >= 0; outer--) {
      if (f.account[outer] != null) {
        return f.account[outer].user();
      }
    }
    Optional<RpcCall> call = current.isPresent() ? current : RpcServer.getCurrentCall();
    return CallerAccess.name(call.isPresent() ? call.get().getRequestUser() : Optional.empty());
  }

  /**
   * The RPC call {@code current}, as a number that differs between two calls of one thread (its
   * identity hash mixed with the time HBase received it), without holding the call; 0 outside an
   * RPC call and inside a short-circuit one.
   */
  private static long callKey(Optional<RpcCall> current) {
    if (!current.isPresent()) {
      return 0;
    }
    RpcCall call = current.get();
    long key = call.getReceiveTime() * 0x9E3779B97F4A7C15L ^ System.identityHashCode(call);
    return key == 0 ? 1 : key;
  }

  void compactionOpening(RegionCoprocessorEnvironment env) {
    if (bridge == null) {
      return;
    }
    try {
      Frames f = frames.get();
      if (f.depth > 0) {
        return; // a compaction run inside a frame: its reads are that frame's
      }
      long[] costs = f.costs;
      discardCosts(costs); // what an opening that failed before preCompact left
      RegionCosts region = registry.region(env.getRegionInfo().getEncodedName());
      costs[CostLayout.LEVEL] = region == null ? 0 : region.level().ordinal();
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  /**
   * The RPC call that started on this thread at frame depth {@code depthAtStart} ended with frames
   * it opened still open: what was read since the last hook goes to the innermost frame (the read
   * that failed), and every frame above {@code depthAtStart} is closed. Frames below it belong to
   * the caller (a coprocessor's read that made a short-circuit call) and stay open.
   */
  void callEnded(int depthAtStart) {
    try {
      Frames f = frames.get();
      long[] costs = f.costs;
      int keep = Math.max(0, depthAtStart);
      if (f.depth <= keep) {
        return;
      }
      settle(f, f.depth - 1, costs);
      if (keep == 0) {
        closeAll(f, costs);
        return;
      }
      droppedFrames.addAndGet(f.depth - keep);
      while (f.depth > keep) {
        pop(f, f.depth - 1);
      }
      resume(f, costs);
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }

  private void closeAll(Frames f, long[] costs) {
    droppedFrames.addAndGet(f.depth);
    while (f.depth > 0) {
      pop(f, f.depth - 1);
    }
    f.taggedScan = null;
    discardCosts(costs); // measured by none
    costs[CostLayout.DEPTH] = 0;
    costs[CostLayout.LEVEL] = 0;
  }

  /** Drops the costs gathered on this thread and not yet settled to any frame. */
  private static void discardCosts(long[] costs) {
    Arrays.fill(costs, CostLayout.FIRST_COST, CostLayout.SIZE, 0L);
    costs[CostLayout.PENDING_MISS] = 0;
    costs[CostLayout.CELL_SAMPLING] = 0; // and a timed seeker call whose exit never came
  }

  /**
   * Attribution frames open now, summed over every thread. Between RPC calls it is 0; a quiescent
   * server that shows more has a hook imbalance.
   */
  int openFrames() {
    synchronized (allFrames) {
      int n = 0;
      for (Frames f : allFrames) {
        n += f.depth;
      }
      return n;
    }
  }
}
