package io.blockscope.coprocessor.accounting;

import io.blockscope.metrics.MetricKeys;
import java.util.Collection;
import java.util.List;

/**
 * The read costs of one region server by user: every read's costs go to the account of the user
 * whose RPC made it, at most {@code max} accounts kept by the Space-Saving rule ({@link
 * SpaceSaving}, weighted by block accesses), and the rest to {@code (other)}. So an account counts
 * exactly every read its user made on this server since it was created, the user's block accesses
 * before that are at most its {@link Account#inherited()} (at most {@code N / max}, {@code N} being
 * all block accesses the server counted), and a user above {@code N / max} has an account.
 *
 * <p>Every cost a read adds to an account it also adds to its region ({@code Attribution}); the
 * accounts plus {@link #other} sum to the same as the server's regions, for every cost, with reads
 * in flight on an account let go counted once ({@link SpaceSaving}).
 */
public final class UserAccounts {

  /** The accounts kept by default: {@value}. */
  public static final int DEFAULT_MAX = 20;

  /** Arrays the accounts may grow under contention, beyond their first: 256, about 250 KB. */
  static final int MAX_STRIPES = 256;

  /** One user's costs since the account was created. */
  public static final class Account extends SpaceSaving.Account {
    Account(SpaceSaving<?> owner, String user, long inherited) {
      super(owner, user, inherited);
    }

    public String user() {
      return key();
    }
  }

  private final SpaceSaving<Account> table;

  /**
   * The reads of a user who calls itself {@code (other)} (with simple authentication a client names
   * itself): counted in {@code (other)}, never an account whose series would take the roll-up's
   * names. Never let go.
   */
  private final Account named;

  public UserAccounts(int max) {
    table = new SpaceSaving<>(max, MAX_STRIPES, Account::new);
    named = new Account(table, MetricKeys.OTHER_USER, 0);
  }

  /** Changes how many accounts are kept; fewer takes effect at the next account created. */
  public void max(int max) {
    table.max(max);
  }

  public int max() {
    return table.max();
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
    return table.acquire(user, lane);
  }

  /** The accounts kept now. */
  public Collection<Account> accounts() {
    return table.accounts();
  }

  /** The account of {@code user}, or null. */
  public Account account(String user) {
    return table.account(user);
  }

  /**
   * One cost of {@code (other)}: what accounts let go counted, including those with reads still in
   * flight, and the reads of a user named {@code (other)}.
   */
  public long other(int slot) {
    return table.other(slot) + named.get(slot);
  }

  /**
   * One cost summed over every account kept and {@code (other)}: the same as the server's regions
   * once no read is between adding to its account and to its region.
   */
  public long total(int slot) {
    return table.total(slot) + named.get(slot);
  }

  /** Accounts let go to make room, since the server started. */
  public long lettings() {
    return table.lettings();
  }

  /** The accounts let go whose reads are still in flight (for tests). */
  List<SpaceSaving.Account> leaving() {
    return table.leaving();
  }
}
