package io.blockscope.coprocessor.accounting;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.MetricKeys;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.Test;

/**
 * The accounts by user against the truth each test keeps beside them: Space-Saving's bounds, the
 * sum with {@code (other)}, and reads in flight on an account that is let go.
 */
public class UserAccountsTest {
  private final CostAccumulator.Lane lane = new CostAccumulator.Lane();

  /** The truth: every user's costs and the server's, as the reads added them. */
  private final Map<String, long[]> truth = new HashMap<>();

  private final long[] server = new long[CostLayout.SIZE];

  private void read(UserAccounts accounts, String user, long[] costs) {
    UserAccounts.Account a = accounts.acquire(user, lane);
    a.add(costs, lane);
    a.release(lane);
    long[] t = truth.computeIfAbsent(user, u -> new long[CostLayout.SIZE]);
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      t[s] += costs[s];
      server[s] += costs[s];
    }
  }

  static long[] costs(Random random) {
    long[] c = new long[CostLayout.SIZE];
    c[CostLayout.CACHE_HIT + random.nextInt(CostLayout.N_KINDS)] = 1L + random.nextInt(4);
    c[CostLayout.CACHE_MISS + random.nextInt(CostLayout.N_KINDS)] = random.nextInt(3);
    c[CostLayout.FS_BYTES] = random.nextInt(65_536);
    c[CostLayout.CHECKSUM_CHUNKS] = random.nextInt(10);
    return c;
  }

  private static long activity(long[] costs) {
    return CostLayout.activity(s -> costs[s]);
  }

  /** Zipf-like: user i is about 1/(i+1) as busy as user 0; 500 users, 20 accounts. */
  private void skewedStream(UserAccounts accounts, long seed, int reads) {
    Random random = new Random(seed);
    int users = 500;
    double[] cumulative = new double[users];
    double sum = 0;
    for (int i = 0; i < users; i++) {
      sum += 1.0 / (i + 1);
      cumulative[i] = sum;
    }
    for (int n = 0; n < reads; n++) {
      double x = random.nextDouble() * sum;
      int i = 0;
      while (cumulative[i] < x) {
        i++;
      }
      read(accounts, "user" + i, costs(random));
    }
  }

  @Test
  public void accountsHoldSpaceSavingsBoundsAgainstTheTruth() {
    for (long seed = 1; seed <= 5; seed++) {
      truth.clear();
      java.util.Arrays.fill(server, 0);
      int max = 20;
      UserAccounts accounts = new UserAccounts(max);
      skewedStream(accounts, seed, 50_000);
      long n = activity(server);
      assertTrue("the stream let accounts go", accounts.lettings() > 0);
      assertTrue(accounts.accounts().size() <= max);
      Set<String> kept = new HashSet<>();
      for (UserAccounts.Account a : accounts.accounts()) {
        kept.add(a.user());
        long[] t = truth.get(a.user());
        for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
          assertTrue(a.user() + " slot " + s + " never above the truth", a.get(s) <= t[s]);
        }
        long missed = activity(t) - CostLayout.activity(a::get);
        assertTrue(
            a.user() + ": " + missed + " accesses uncounted, within " + a.inherited(),
            missed <= a.inherited());
        assertTrue(a.user() + ": inherited within N/max", a.inherited() <= n / max);
      }
      for (Map.Entry<String, long[]> e : truth.entrySet()) {
        if (activity(e.getValue()) > n / max) {
          assertTrue(e.getKey() + " is over N/max and has an account", kept.contains(e.getKey()));
        }
      }
      assertTrue("the busiest user is kept", kept.contains("user0"));
      for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
        assertEquals("slot " + s + ": accounts + (other) = server", server[s], accounts.total(s));
      }
    }
  }

  /** The error bound, computed: what the accounts miss of their users' reads, and its bound. */
  @Test
  public void theUncountedAccessesOfEveryAccountAreWithinWhatItInherited() {
    UserAccounts accounts = new UserAccounts(10);
    skewedStream(accounts, 42, 20_000);
    long worst = 0;
    for (UserAccounts.Account a : accounts.accounts()) {
      long missed = activity(truth.get(a.user())) - CostLayout.activity(a::get);
      worst = Math.max(worst, missed);
      assertTrue(missed <= a.inherited());
    }
    assertTrue(
        "some account misses accesses (else the bound was never tested): " + worst, worst > 0);
  }

  @Test
  public void tenThousandUsersKeepAtMostMaxAccounts() {
    UserAccounts accounts = new UserAccounts(20);
    Random random = new Random(7);
    for (int u = 0; u < 10_000; u++) {
      read(accounts, "flood" + u, costs(random));
    }
    assertEquals(20, accounts.accounts().size());
    assertEquals(10_000 - 20, accounts.lettings());
    assertTrue(accounts.leaving().isEmpty());
    for (int s = CostLayout.FIRST_COST; s < CostLayout.SIZE; s++) {
      assertEquals(server[s], accounts.total(s));
    }
  }

  @Test
  public void aReadInFlightOnAnAccountLetGoCountsInOtherOnceItEnds() {
    UserAccounts accounts = new UserAccounts(2);
    long[] one = new long[CostLayout.SIZE];
    one[CostLayout.CACHE_HIT] = 1;
    UserAccounts.Account alice = accounts.acquire("alice", lane);
    read(accounts, "bob", one);
    read(accounts, "bob", one);
    read(accounts, "carol", one); // alice has the least estimate (0): let go, her read in flight
    assertTrue(alice.gone());
    assertEquals(1, accounts.leaving().size());
    long[] late = new long[CostLayout.SIZE];
    late[CostLayout.CACHE_MISS] = 5;
    alice.add(late, lane); // counted where it is: in (other), through the leaving account
    assertEquals(5, accounts.other(CostLayout.CACHE_MISS));
    alice.release(lane);
    assertTrue(accounts.leaving().isEmpty());
    assertEquals(5, accounts.other(CostLayout.CACHE_MISS));
    assertEquals(3, accounts.total(CostLayout.CACHE_HIT));
    UserAccounts.Account again = accounts.acquire("alice", lane);
    assertNotSame("a new account, from zero", alice, again);
    assertEquals(0, again.get(CostLayout.CACHE_MISS));
    again.release(lane);
  }

  @Test
  public void fewerAccountsAtAReloadLetTheLeastGoAtTheNextNewUser() {
    UserAccounts accounts = new UserAccounts(5);
    long[] one = new long[CostLayout.SIZE];
    one[CostLayout.CACHE_HIT] = 1;
    for (int u = 0; u < 5; u++) {
      for (int r = 0; r <= u; r++) {
        read(accounts, "u" + u, one);
      }
    }
    accounts.max(2);
    read(accounts, "new", one);
    assertEquals(2, accounts.accounts().size());
    assertNotNull("the busiest stays", accounts.account("u4"));
    assertNotNull(accounts.account("new"));
    assertEquals("the estimate of the busiest let go", 4, accounts.account("new").inherited());
    assertFalse(accounts.account("u4").gone());
    assertEquals(15 + 1, accounts.total(CostLayout.CACHE_HIT));
  }

  /** A client that names itself (other) adds to (other), and takes no account of that name. */
  @Test
  public void aUserCalledOtherIsCountedInOther() {
    UserAccounts accounts = new UserAccounts(3);
    long[] one = new long[CostLayout.SIZE];
    one[CostLayout.CACHE_MISS] = 2;
    read(accounts, MetricKeys.OTHER_USER, one);
    read(accounts, "alice", one);
    assertEquals(null, accounts.account(MetricKeys.OTHER_USER));
    assertEquals(1, accounts.accounts().size());
    assertEquals(2, accounts.other(CostLayout.CACHE_MISS));
    assertEquals(4, accounts.total(CostLayout.CACHE_MISS));
  }

  @Test(expected = IllegalArgumentException.class)
  public void noAccountsIsRefused() {
    new UserAccounts(0);
  }
}
