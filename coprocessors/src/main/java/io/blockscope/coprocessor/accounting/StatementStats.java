package io.blockscope.coprocessor.accounting;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The read costs of one region server by user and statement, for the reads of scans that name a
 * statement ({@code blockscope.statement}): two levels of {@link SpaceSaving} accounts, weighted by
 * block accesses. At most {@code users} users are kept; each kept user keeps at most {@code
 * perUser} of its statements. So memory is bounded by {@code users × perUser} statements whatever
 * clients send, and a user who sends many distinct statements lets go only its own: another user's
 * statements go only when that whole user is let go, for having the least block accesses of the
 * users kept.
 *
 * <p>Every read adds to its statement and to its user: a kept user's figures are every read of its
 * statements since its account was created, and equal its statements' plus its own {@code (other)}
 * ({@link User#statements}); all users' figures plus {@link #other} are every read of every
 * statement, exactly. For a statement kept, with {@code N} the block accesses of all statements and
 * {@code N_u} those of its user since the user's account was created:
 *
 * <ul>
 *   <li>its figures are exactly its reads since its account was created, never more than it read;
 *   <li>the block accesses it made before that are at most {@link #uncountedMax}: its own {@link
 *       SpaceSaving.Account#inherited()} (at most {@code N_u / perUser}) plus its user's (at most
 *       {@code N / users});
 *   <li>a statement of a kept user whose block accesses since the user's account was created exceed
 *       {@code N_u / perUser} is kept.
 * </ul>
 *
 * <p>Besides costs a statement keeps the scans that named it (region scanners opened), the rows
 * they returned, its executions and the regions each read (from the execution ids its scans
 * carried; {@link Statement#executions}), the times it was first and last seen here, and its text
 * once a scan carried it (UTF-8, at most {@value #MAX_TEXT_BYTES} bytes kept). Those are the kept
 * statement's since its account was created and are not summed into {@code (other)}.
 */
public final class StatementStats {
  /** Users kept by default: {@value}. */
  public static final int DEFAULT_USERS = 20;

  /** Statements kept per user by default: {@value}. */
  public static final int DEFAULT_PER_USER = 25;

  /** The longest text kept, in UTF-8 bytes: 4,096 characters of ASCII. */
  public static final int MAX_TEXT_BYTES = 4096;

  /** Arrays the accounts of each level may grow under contention, beyond their first. */
  static final int MAX_STRIPES = 64;

  /**
   * The executions of a statement it remembers, the most recently first seen: {@value}. A scanner
   * of an execution remembered is not a new execution.
   */
  public static final int RECENT_EXECUTIONS = 8;

  /** The regions it remembers of each execution remembered: {@value}. */
  public static final int RECENT_REGIONS = 64;

  /** One statement of one user. */
  public static final class Statement extends SpaceSaving.Account {
    private final User user;
    private final long firstSeen;
    private volatile long lastSeen;
    private volatile byte[] text;
    private final AtomicLong scans = new AtomicLong();
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong executions = new AtomicLong();
    private final AtomicLong regions = new AtomicLong();
    // the executions remembered and, for each, the hashes of the regions it read here; guarded by
    // recentExecutions. A ring in the order executions were counted: the k-th counted (from 0) is
    // in slot k % RECENT_EXECUTIONS, so the count says which slots are filled and which is oldest
    private final long[] recentExecutions = new long[RECENT_EXECUTIONS];
    private final int[][] recentRegions = new int[RECENT_EXECUTIONS][];
    private final int[] recentRegionCount = new int[RECENT_EXECUTIONS];

    Statement(SpaceSaving<?> owner, String fingerprint, long inherited, User user) {
      super(owner, fingerprint, inherited);
      this.user = user;
      this.firstSeen = user.clock.getAsLong();
      this.lastSeen = firstSeen;
    }

    public String fingerprint() {
      return key();
    }

    public User user() {
      return user;
    }

    /** The normalized text a scan carried, or null if none has yet. */
    public String text() {
      byte[] t = text;
      return t == null ? null : new String(t, StandardCharsets.UTF_8);
    }

    /** Region scanners opened for the statement since its account was created. */
    public long scans() {
      return scans.get();
    }

    /** Rows those scanners returned. */
    public long rows() {
      return rows.get();
    }

    /** When the statement was first seen here since its account was created, epoch ms. */
    public long firstSeen() {
      return firstSeen;
    }

    /** When a scan of the statement was last opened here, epoch ms. */
    public long lastSeen() {
      return lastSeen;
    }

    /** A scan named this statement; {@code text} is what it carried (null for none). */
    public void scanOpened(byte[] text) {
      scans.incrementAndGet();
      lastSeen = user.clock.getAsLong();
      if (text != null && this.text == null && text.length > 0 && text.length <= MAX_TEXT_BYTES) {
        this.text = text.clone();
      }
    }

    /**
     * Executions of the statement seen here: the distinct execution ids its scanners carried. An
     * execution counts again only if more than {@value #RECENT_EXECUTIONS} others of the statement
     * were first seen here between two of its scanners.
     */
    public long executions() {
      return executions.get();
    }

    /**
     * Regions those executions read here, each counted once per execution. A region counts again
     * for an execution only if that execution counts again, or if it read more than {@value
     * #RECENT_REGIONS} regions here before that region's second scanner.
     */
    public long regions() {
      return regions.get();
    }

    /**
     * A scanner of execution {@code execution} of the statement opened on the region whose name
     * hashes to {@code region}.
     */
    public void executionScan(long execution, int region) {
      synchronized (recentExecutions) {
        long counted = executions.get();
        int slot = -1;
        for (int i = 0; i < Math.min(counted, RECENT_EXECUTIONS); i++) {
          if (recentExecutions[i] == execution) {
            slot = i;
            break;
          }
        }
        if (slot < 0) {
          slot = (int) (counted % RECENT_EXECUTIONS);
          recentExecutions[slot] = execution;
          recentRegionCount[slot] = 0;
          executions.incrementAndGet();
        }
        int[] seen = recentRegions[slot];
        int n = recentRegionCount[slot];
        for (int i = 0; i < n; i++) {
          if (seen[i] == region) {
            return;
          }
        }
        regions.incrementAndGet();
        if (n < RECENT_REGIONS) {
          if (seen == null) {
            seen = recentRegions[slot] = new int[4];
          } else if (seen.length == n) {
            seen = recentRegions[slot] = Arrays.copyOf(seen, Math.min(RECENT_REGIONS, 2 * n));
          }
          seen[n] = region;
          recentRegionCount[slot] = n + 1;
        }
      }
    }

    /** The statement's scanners returned {@code n} more rows. */
    public void rowsReturned(int n) {
      rows.addAndGet(n);
    }

    /** Adds a read's costs to the statement and its user, leaving them in {@code threadCosts}. */
    @Override
    public void add(long[] threadCosts, CostAccumulator.Lane lane) {
      super.add(threadCosts, lane);
      user.add(threadCosts, lane);
    }

    /** The read that {@link StatementStats#acquire}d this statement (and its user) ended. */
    @Override
    public void release(CostAccumulator.Lane lane) {
      super.release(lane);
      user.release(lane);
    }
  }

  /** One user's statements. */
  public static final class User extends SpaceSaving.Account {
    private final SpaceSaving<Statement> statements;
    private final LongSupplier clock;

    User(SpaceSaving<?> owner, String user, long inherited, int perUser, LongSupplier clock) {
      super(owner, user, inherited);
      this.clock = clock;
      this.statements =
          new SpaceSaving<>(perUser, MAX_STRIPES, (t, fp, i) -> new Statement(t, fp, i, this));
    }

    public String user() {
      return key();
    }

    /** The user's statements kept, and what those let go counted ({@code other}). */
    public SpaceSaving<Statement> statements() {
      return statements;
    }
  }

  private final SpaceSaving<User> users;
  private final LongSupplier clock;
  private volatile int perUser;

  /** Tables of {@code users} users of {@code perUser} statements each, timed by {@code clock}. */
  public StatementStats(int users, int perUser, LongSupplier clock) {
    if (perUser < 1) {
      throw new IllegalArgumentException("at least one statement per user: " + perUser);
    }
    this.perUser = perUser;
    this.clock = clock;
    this.users =
        new SpaceSaving<>(users, MAX_STRIPES, (t, u, i) -> new User(t, u, i, this.perUser, clock));
  }

  public StatementStats(int users, int perUser) {
    this(users, perUser, System::currentTimeMillis);
  }

  /**
   * The statement {@code fingerprint} of {@code user}, acquired with its user for one read: add the
   * read's costs to it and release it when the read ends. Never null.
   */
  public Statement acquire(String user, String fingerprint, CostAccumulator.Lane lane) {
    // a user let go after this acquire keeps counting the read, as (other)'s, until it ends
    User u = users.acquire(user, lane);
    if (u.statements.max() != perUser) {
      u.statements.max(perUser);
    }
    return u.statements.acquire(fingerprint, lane);
  }

  /** Empty tables of the same limits and clock, to start counting afresh. */
  public StatementStats fresh() {
    return new StatementStats(users.max(), perUser, clock);
  }

  /** Changes how many users and statements per user are kept, from the next one created. */
  public void limits(int users, int perUser) {
    if (perUser < 1) {
      throw new IllegalArgumentException("at least one statement per user: " + perUser);
    }
    this.users.max(users);
    this.perUser = perUser;
  }

  /** The users kept now. */
  public Collection<User> users() {
    return users.accounts();
  }

  /** The user {@code user}'s statements, or null if the user is not kept. */
  public User user(String user) {
    return users.account(user);
  }

  /** Every statement kept now, of every user kept. */
  public List<Statement> statements() {
    List<Statement> all = new ArrayList<>();
    for (User u : users.accounts()) {
      all.addAll(u.statements.accounts());
    }
    return all;
  }

  /** One cost of the users let go: part of no kept user's figures. */
  public long other(int slot) {
    return users.other(slot);
  }

  /** One cost of every statement-named read, kept or not. */
  public long total(int slot) {
    return users.total(slot);
  }

  /** Users let go to make room. */
  public long usersLetGo() {
    return users.lettings();
  }

  /**
   * The most block accesses {@code s} may have made on this server that its figures leave out: its
   * own inherited estimate plus its user's.
   */
  public static long uncountedMax(Statement s) {
    return s.inherited() + s.user.inherited();
  }
}
