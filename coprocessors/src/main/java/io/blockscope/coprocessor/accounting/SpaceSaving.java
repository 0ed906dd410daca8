package io.blockscope.coprocessor.accounting;

import io.blockscope.metrics.CostLayout;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cost accounts by key, at most {@code max} of them, kept by the Space-Saving rule (Metwally,
 * Agrawal and El Abbadi, 2005) weighted by block accesses ({@link CostLayout#activity}, cache hits
 * plus misses); what no account holds is {@code (other)}'s.
 *
 * <p>A key with no account whose read arrives while {@code max} accounts exist takes the place of
 * the account whose estimate is the least, where an account's estimate is its block accesses plus
 * the estimate it inherited. The account let go has its figures moved to {@code (other)}; the new
 * one starts from zero and inherits the estimate of the one it replaced. The estimates sum to every
 * block access counted, so the least is at most {@code N / max}, and:
 *
 * <ul>
 *   <li>an account counts exactly every read of its key since it was created: its figures never
 *       exceed the key's, for any cost;
 *   <li>the key's block accesses before that (in {@code (other)}) are at most the account's {@link
 *       Account#inherited()}, which is at most {@code N / max}, {@code N} being all block accesses
 *       the table counted;
 *   <li>a key whose block accesses exceed {@code N / max} has an account.
 * </ul>
 *
 * <p>The accounts plus {@link #other} sum to every cost added, exactly. An account let go while
 * reads are in flight on it (each read {@link Account#acquire}s it) keeps counting them, as part of
 * {@code (other)}, and moves to {@code (other)}'s figures when the last ends: no read is lost and
 * none is counted twice. Memory is bounded by {@code max} accounts, plus those let go with reads
 * still in flight. Lookups take no lock; creating an account takes this table's lock and O({@code
 * max}) time.
 *
 * @param <A> the accounts, made by the table's {@link Factory}
 */
public final class SpaceSaving<A extends SpaceSaving.Account> {

  /** Makes the account of a key that inherits an estimate. */
  @FunctionalInterface
  public interface Factory<A extends Account> {
    A make(SpaceSaving<A> owner, String key, long inherited);
  }

  /** One key's costs since its account was created. */
  public static class Account {
    private final SpaceSaving<?> owner;
    private final String key;
    private final CostAccumulator costs;
    private final long inherited;

    /** Set when the account is let go; reads that acquired it before still count in it. */
    private volatile boolean gone;

    /** Its series; used under the registry's lock. */
    final ExportSelection.State export = new ExportSelection.State();

    protected Account(SpaceSaving<?> owner, String key, long inherited) {
      this.owner = owner;
      this.key = key;
      this.inherited = inherited;
      this.costs = new CostAccumulator(owner.stripes);
    }

    /**
     * A read starts adding to this account: true unless it was let go, after which the read must
     * look up its key's account again. Every true is paired with one {@link #release}.
     */
    public boolean acquire(CostAccumulator.Lane lane) {
      costs.inFlight(lane, 1);
      if (!gone) {
        return true;
      }
      release(lane);
      return false;
    }

    /**
     * The read that {@link #acquire}d ended; the last one after the account was let go folds it.
     */
    public void release(CostAccumulator.Lane lane) {
      costs.inFlight(lane, -1);
      if (gone && costs.inFlight() == 0) {
        owner.fold(this);
      }
    }

    /** Adds a read's costs, leaving them in {@code threadCosts}. */
    public void add(long[] threadCosts, CostAccumulator.Lane lane) {
      costs.add(threadCosts, lane);
    }

    public String key() {
      return key;
    }

    /** One cost of the key's reads since the account was created. */
    public long get(int slot) {
      return costs.get(slot);
    }

    /**
     * The most block accesses the key may have made before the account was created: the estimate of
     * the account it replaced (0 if it replaced none).
     */
    public long inherited() {
      return inherited;
    }

    /** Whether the account was let go (its figures are {@code (other)}'s now). */
    public boolean gone() {
      return gone;
    }

    long estimate() {
      return CostLayout.activity(costs) + inherited;
    }
  }

  private final CostAccumulator.Stripes stripes;
  private final Factory<A> factory;
  private final Map<String, A> accounts = new ConcurrentHashMap<>();

  /** Accounts let go with reads in flight; under this table's lock. */
  private final Set<Account> leaving = new HashSet<>();

  /** What accounts let go left: part of {@code (other)}. */
  private final CostAccumulator folded = new CostAccumulator();

  private final AtomicLong lettings = new AtomicLong();
  private volatile int max;

  /**
   * A table of at most {@code max} accounts; under contention all of them together grow at most
   * {@code stripes} more cost arrays.
   */
  public SpaceSaving(int max, int stripes, Factory<A> factory) {
    this.stripes = new CostAccumulator.Stripes(stripes);
    this.factory = factory;
    max(max);
  }

  /** The stripe budget the table's accounts share (for an account made outside the table). */
  CostAccumulator.Stripes stripes() {
    return stripes;
  }

  /** Changes how many accounts are kept; fewer takes effect at the next account created. */
  public void max(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("at least one account: " + max);
    }
    this.max = max;
  }

  public int max() {
    return max;
  }

  /** The account a read of {@code key} adds to, acquired for it: created if it has none. */
  public A acquire(String key, CostAccumulator.Lane lane) {
    while (true) {
      A a = accounts.get(key);
      if (a == null) {
        a = admit(key);
      }
      if (a.acquire(lane)) {
        return a;
      }
      // let go between the lookup and the acquire: the key's next account takes the read
    }
  }

  private synchronized A admit(String key) {
    A a = accounts.get(key);
    if (a != null) {
      return a;
    }
    long inherited = 0;
    while (accounts.size() >= max) {
      A least = null;
      long leastEstimate = Long.MAX_VALUE;
      for (A c : accounts.values()) {
        long e = c.estimate();
        if (e < leastEstimate) {
          least = c;
          leastEstimate = e;
        }
      }
      letGo(least);
      inherited = Math.max(inherited, leastEstimate);
    }
    a = factory.make(this, key, inherited);
    accounts.put(key, a);
    return a;
  }

  private void letGo(Account a) {
    accounts.remove(a.key);
    lettings.incrementAndGet();
    leaving.add(a);
    a.gone = true;
    if (a.costs.inFlight() == 0) {
      fold(a);
    }
  }

  /** Moves a let-go account's figures to {@code (other)} once, when no read is in flight on it. */
  private synchronized void fold(Account a) {
    if (!leaving.remove(a)) {
      return;
    }
    folded.addAll(a.costs);
    a.costs.release();
  }

  /** The accounts kept now. */
  public Collection<A> accounts() {
    return new ArrayList<>(accounts.values());
  }

  /** The account of {@code key}, or null. */
  public A account(String key) {
    return accounts.get(key);
  }

  /**
   * One cost of {@code (other)}: what accounts let go counted, including those with reads still in
   * flight. Read under the lock that folds them, so an account is never seen in both or neither.
   */
  public synchronized long other(int slot) {
    long sum = folded.get(slot);
    for (Account a : leaving) {
      sum += a.costs.get(slot);
    }
    return sum;
  }

  /** One cost summed over every account kept and {@code (other)}: every such cost added. */
  public synchronized long total(int slot) {
    long sum = other(slot);
    for (Account a : accounts.values()) {
      sum += a.costs.get(slot);
    }
    return sum;
  }

  /** Accounts let go to make room, since the table was made. */
  public long lettings() {
    return lettings.get();
  }

  /** The accounts let go whose reads are still in flight (for tests). */
  synchronized List<Account> leaving() {
    return new ArrayList<>(leaving);
  }
}
