package io.blockscope.coprocessor;

import io.blockscope.coprocessor.accounting.StatementStats;
import io.blockscope.metrics.Attributes;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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

  private final StatementStats stats;
  private final Attribution attribution;
  private final Problems problems;
  private final AtomicLong hookFailures;
  private final AtomicBoolean badFingerprintReported = new AtomicBoolean();
  private final AtomicBoolean longTextReported = new AtomicBoolean();

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
   * A scanner opened for a scan of {@code user} that carried {@code fingerprint} (and {@code text},
   * or null): counts the scan for the statement and returns the tag its batches mark frames with,
   * or null if the value is not a fingerprint.
   */
  Object statementScan(byte[] fingerprint, byte[] text, String user) {
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
      Tag tag = new Tag(user, new String(fingerprint, StandardCharsets.US_ASCII));
      Attribution.Frames f = attribution.frames();
      StatementStats.Statement s = stats.acquire(tag.user, tag.fingerprint, f.lane);
      try {
        s.scanOpened(text);
      } finally {
        s.release(f.lane);
      }
      return tag;
    } catch (Throwable t) {
      hookFailures.incrementAndGet();
      return null;
    }
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
