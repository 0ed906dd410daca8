package io.blockscope.coprocessor;

import io.blockscope.coprocessor.accounting.StatementStats;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.profile.StatementsWire;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scans that name a statement ({@value Attributes#STATEMENT}): their reads are also added to
 * that statement of the scan's user ({@link StatementStats}). A scan names its statement when its
 * scanner opens; each batch of the scanner then marks the frame that serves it, which acquires the
 * statement for as long as the frame is open.
 *
 * <p>A value that is not a fingerprint (16 lower-case hex digits), or a text longer than {@value
 * StatementStats#MAX_TEXT_BYTES} bytes, is ignored, logged once per kind and kept among the
 * engine's problems, never stored. No method throws.
 */
final class StatementTagging {
  /** What a scanner of a statement-naming scan carries: the user and statement it reads for. */
  static final class Tag {
    final String user;
    final String fingerprint;

    Tag(String user, String fingerprint) {
      this.user = user;
      this.fingerprint = fingerprint;
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(StatementTagging.class);

  /**
   * The columns of a statement's row in a report: the statement's own figures, then every cost slot
   * ({@code CostLayout.name}).
   */
  static final List<String> COLUMNS = columns();

  private static final int OWN_COLUMNS = 7;

  /** Replaced whole by a reset: a read that acquired a statement before it ends in the old one. */
  private volatile StatementStats stats;

  private final Attribution attribution;
  private final Problems problems;
  private final AtomicLong hookFailures;
  private final AtomicBoolean badFingerprintReported = new AtomicBoolean();
  private final AtomicBoolean longTextReported = new AtomicBoolean();
  private final AtomicBoolean badExecutionReported = new AtomicBoolean();

  StatementTagging(
      StatementStats stats, Attribution attribution, Problems problems, AtomicLong hookFailures) {
    this.stats = stats;
    this.attribution = attribution;
    this.problems = problems;
    this.hookFailures = hookFailures;
  }

  StatementStats stats() {
    return stats;
  }

  /**
   * A scanner opened on region {@code region} (its encoded name) for a scan of {@code user} that
   * carried {@code fingerprint} (and {@code text} and {@code execution}, or null): counts the scan,
   * and the execution and region if new, for the statement and returns the tag its batches mark
   * frames with, or null if the value is not a fingerprint.
   */
  Object statementScan(
      byte[] fingerprint, byte[] text, byte[] execution, String region, String user) {
    try {
      if (user == null || fingerprint == null) {
        return null;
      }
      if (!Attributes.isStatementFingerprint(fingerprint)) {
        if (badFingerprintReported.compareAndSet(false, true)) {
          report(
              "a scan of user "
                  + user
                  + " named its statement with a value that is not 16 lower-case hex digits"
                  + " (attribute "
                  + Attributes.STATEMENT
                  + ", "
                  + fingerprint.length
                  + " bytes): ignored, as every such value from now on, reported once");
        }
        return null;
      }
      if (text != null && text.length > StatementStats.MAX_TEXT_BYTES) {
        if (longTextReported.compareAndSet(false, true)) {
          report(
              "a scan of user "
                  + user
                  + " sent a statement text of "
                  + text.length
                  + " bytes (attribute "
                  + Attributes.STATEMENT_TEXT
                  + ", at most "
                  + StatementStats.MAX_TEXT_BYTES
                  + "): not kept, as every such text from now on, reported once");
        }
        text = null;
      }
      if (execution != null && !Attributes.isStatementFingerprint(execution)) {
        if (badExecutionReported.compareAndSet(false, true)) {
          report(
              "a scan of user "
                  + user
                  + " named its statement's execution with a value that is not 16 lower-case hex"
                  + " digits (attribute "
                  + Attributes.STATEMENT_EXECUTION
                  + ", "
                  + execution.length
                  + " bytes): its scan counted without an execution, as every such scan from now"
                  + " on, reported once");
        }
        execution = null;
      }
      Tag tag = new Tag(user, new String(fingerprint, StandardCharsets.US_ASCII));
      Attribution.Frames f = attribution.frames();
      StatementStats.Statement s = stats.acquire(tag.user, tag.fingerprint, f.lane);
      try {
        s.scanOpened(text);
        if (execution != null) {
          s.executionScan(Attributes.hex64(execution), region.hashCode());
        }
      } finally {
        s.release(f.lane);
      }
      return tag;
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
      return null;
    }
  }

  /**
   * The statistics as a {@code StatementsResponse} of server {@code server}: user {@code user}'s
   * statements, or with {@code all} every user's and the users let go; with {@code reset} they then
   * start afresh. Null if they cannot be read.
   */
  byte[] report(String server, String user, boolean all, boolean reset) {
    try {
      StatementStats s = stats;
      StatementsWire.ResponseWriter w = new StatementsWire.ResponseWriter(server, COLUMNS);
      for (StatementStats.User u : s.users()) {
        if (!all && !u.user().equals(user)) {
          continue;
        }
        for (StatementStats.Statement st : u.statements().accounts()) {
          long[] v = new long[COLUMNS.size()];
          v[0] = st.scans();
          v[1] = st.rows();
          v[2] = st.executions();
          v[3] = st.regions();
          v[4] = st.firstSeen();
          v[5] = st.lastSeen();
          v[6] = StatementStats.uncountedMax(st);
          for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
            v[OWN_COLUMNS + i - CostLayout.FIRST_COST] = st.get(i);
          }
          w.row(u.user(), st.fingerprint(), st.text(), v);
        }
        otherRow(w, u.user(), u.statements().lettings(), u.statements()::other);
      }
      if (all) {
        otherRow(w, StatementsWire.OTHER, s.usersLetGo(), s::other);
        w.usersLetGo(s.usersLetGo());
      }
      if (reset) {
        stats = s.fresh();
        w.reset(true);
        LOG.info("blockscope: statement statistics reset");
      }
      return w.bytes();
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
      return null;
    }
  }

  /** The row of what was let go ({@code lettings} accounts, costs by slot), if anything was. */
  private static void otherRow(
      StatementsWire.ResponseWriter w, String user, long lettings, IntToLongFunction cost) {
    if (lettings == 0) {
      return;
    }
    long[] v = new long[COLUMNS.size()];
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      v[OWN_COLUMNS + i - CostLayout.FIRST_COST] = cost.applyAsLong(i);
    }
    w.row(user, StatementsWire.OTHER, "", v);
  }

  private static List<String> columns() {
    List<String> c = new ArrayList<>();
    c.add(StatementsWire.SCANS);
    c.add(StatementsWire.ROWS);
    c.add(StatementsWire.EXECUTIONS);
    c.add(StatementsWire.REGIONS);
    c.add(StatementsWire.FIRST_SEEN);
    c.add(StatementsWire.LAST_SEEN);
    c.add(StatementsWire.UNCOUNTED_MAX);
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      c.add(CostLayout.name(i));
    }
    return Collections.unmodifiableList(c);
  }

  private void report(String problem) {
    LOG.warn("blockscope: {}", problem);
    problems.add(problem);
  }

  /**
   * The innermost frame serves a scanner of the statement of {@code handle} (a {@link Tag}): if it
   * is measured, its reads go to that statement too until it closes. {@code rows} rows were
   * returned.
   */
  void statementActive(Object handle, int rows) {
    if (!(handle instanceof Tag)) {
      return;
    }
    try {
      Attribution.Frames f = attribution.frames();
      int d = f.depth - 1;
      if (d < 0 || f.stack[d] == null) {
        return; // no frame, or a region not measured: nothing of this read is counted
      }
      StatementStats.Statement s = f.statement[d];
      if (s == null) {
        Tag tag = (Tag) handle;
        s = stats.acquire(tag.user, tag.fingerprint, f.lane);
        f.statement[d] = s;
      }
      if (rows > 0) {
        s.rowsReturned(rows);
      }
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
    }
  }
}
