package io.blockscope.coprocessor.accounting;

import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.MetricKeys;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The read costs of one region server by user: every read's costs go to the account of the user
 * whose RPC made it, at most {@code max} accounts, and the rest to {@code (other)}.
 *
 * <p>The accounts are kept by the Space-Saving rule (Metwally, Agrawal and El Abbadi, 2005),
 * weighted by block accesses ({@link CostLayout#activity}, cache hits plus misses): a user with no
 * account whose read arrives while {@code max} accounts exist takes the place of the account whose
 * estimate is the least, where an account's estimate is its block accesses plus the estimate it
 * inherited. The account let go has its figures moved to {@code (other)}; the new one starts from
 * zero and inherits the estimate of the one it replaced. So:
 *
 * <ul>
 *   <li>an account counts exactly every read its user made on this server since it was created: its
 *       figures never exceed the user's, for any cost;
 *   <li>the block accesses the user made before that (which are in {@code (other)}) are at most the
 *       account's {@link Account#inherited()}, which is at most {@code N / max}, {@code N} being
 *       all block accesses the server counted since it started;
 *   <li>a user whose block accesses exceed {@code N / max} has an account.
 * </ul>
 *
 * <p>Every cost a read adds to an account it also adds to its region ({@code Attribution}); the
 * accounts plus {@link #other} sum to the same as the server's regions, for every cost. An account
 * let go while reads are in flight on it (each read {@link Account#acquire}s it) keeps counting
 * them, as part of {@code (other)}, and moves to {@code (other)}'s figures when the last ends: no
 * read is lost and no figure is counted twice.
 *
 * <p>Memory is bounded by {@code max} accounts, plus those let go with reads still in flight.
 * Lookups take no lock; creating an account takes this object's lock and O({@code max}) time.
 */
public final class UserAccounts {

  /** The accounts kept by default: {@value}. */
  public static final int DEFAULT_MAX = 20;

  /** Arrays the accounts may grow under contention, beyond their first: 256, about 250 KB. */
  static final int MAX_STRIPES = 256;

  /** One user's costs since the account was created. */
  public static final class Account {
    private final UserAccounts owner;
    private final String user;
    private final CostAccumulator costs;
    private final long inherited;

    /** Set when the account is let go; reads that acquired it before still count in it. */
    private volatile boolean gone;

    /** Its series; used under the registry's lock. */
    final ExportSelection.State export = new ExportSelection.State();

    Account(UserAccounts owner, String user, long inherited) {
      this.owner = owner;
      this.user = user;
      this.inherited = inherited;
      this.costs = new CostAccumulator(owner.stripes);
    }

    /**
     * A read starts adding to this account: true unless it was let go, after which the read must
     * look up its user's account again. Every true is paired with one {@link #release}.
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

    /** Adds a read's costs, leaving them in {@code threadCosts} for its region. */
    public void add(long[] threadCosts, CostAccumulator.Lane lane) {
      costs.add(threadCosts, lane);
    }

    public String user() {
      return user;
    }

    /** One cost of the user's reads since the account was created. */
    public long get(int slot) {
      return costs.get(slot);
    }

    /**
     * The most block accesses the user may have made on this server before the account was created:
     * the estimate of the account it replaced (0 if it replaced none).
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

  private final CostAccumulator.Stripes stripes = new CostAccumulator.Stripes(MAX_STRIPES);
  private final Map<String, Account> accounts = new ConcurrentHashMap<>();

  /** Accounts let go with reads in flight; under this object's lock. */
  private final Set<Account> leaving = new HashSet<>();

  /** What accounts let go left: part of {@code (other)}. */
  private final CostAccumulator folded = new CostAccumulator();

  /**
   * The reads of a user who calls itself {@code (other)} (with simple authentication a client names
   * itself): counted in {@code (other)}, never an account whose series would take the roll-up's
   * names. Never let go.
   */
  private final Account named = new Account(this, MetricKeys.OTHER_USER, 0);

  private final AtomicLong lettings = new AtomicLong();
  private volatile int max;

  public UserAccounts(int max) {
    max(max);
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

  /**
   * The account a read of {@code user} adds to, acquired for it: the user's, created if it has
   * none. Never null.
   */
  public Account acquire(String user, CostAccumulator.Lane lane) {
    if (MetricKeys.OTHER_USER.equals(user)) {
      named.acquire(lane);
      return named;
    }
    while (true) {
      Account a = accounts.get(user);
      if (a == null) {
        a = admit(user);
      }
      if (a.acquire(lane)) {
        return a;
      }
      // let go between the lookup and the acquire: the user's next account takes the read
    }
  }

  private synchronized Account admit(String user) {
    Account a = accounts.get(user);
    if (a != null) {
      return a;
    }
    long inherited = 0;
    while (accounts.size() >= max) {
      Account least = null;
      long leastEstimate = Long.MAX_VALUE;
      for (Account c : accounts.values()) {
        long e = c.estimate();
        if (e < leastEstimate) {
          least = c;
          leastEstimate = e;
        }
      }
      letGo(least);
      inherited = Math.max(inherited, leastEstimate);
    }
    a = new Account(this, user, inherited);
    accounts.put(user, a);
    return a;
  }

  private void letGo(Account a) {
    accounts.remove(a.user);
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
  public Collection<Account> accounts() {
    return new ArrayList<>(accounts.values());
  }

  /** The account of {@code user}, or null. */
  public Account account(String user) {
    return accounts.get(user);
  }

  /**
   * One cost of {@code (other)}: what accounts let go counted, including those with reads still in
   * flight. Read under the lock that folds them, so an account is never seen in both or neither.
   */
  public synchronized long other(int slot) {
    long sum = folded.get(slot) + named.costs.get(slot);
    for (Account a : leaving) {
      sum += a.costs.get(slot);
    }
    return sum;
  }

  /**
   * One cost summed over every account kept and {@code (other)}: the same as the server's regions
   * once no read is between adding to its account and to its region.
   */
  public synchronized long total(int slot) {
    long sum = other(slot);
    for (Account a : accounts.values()) {
      sum += a.costs.get(slot);
    }
    return sum;
  }

  /** Accounts let go to make room, since the server started. */
  public long lettings() {
    return lettings.get();
  }

  /** The accounts let go whose reads are still in flight (for tests). */
  synchronized List<Account> leaving() {
    return new ArrayList<>(leaving);
  }
}
