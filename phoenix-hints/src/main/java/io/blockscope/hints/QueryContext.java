package io.blockscope.hints;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * This thread's extensions while a statement runs through a blockscope connection (what {@link
 * ExtendingOptimizer} reads), set on creation and put back as they were on close; for SERIAL and
 * PROFILE, with a new query id; and the statement its scans name.
 */
final class QueryContext implements AutoCloseable {
  private static final SecureRandom IDS = new SecureRandom();

  /** A new query id: 128 random bits as 32 hex digits. */
  static String newQueryId() {
    byte[] b = new byte[16];
    IDS.nextBytes(b);
    return hex(b, b.length);
  }

  /** The first {@code n} bytes of {@code b} as {@code 2n} lower-case hex digits. */
  static String hex(byte[] b, int n) {
    StringBuilder s = new StringBuilder(2 * n);
    for (int i = 0; i < n; i++) {
      s.append(Character.forDigit((b[i] >> 4) & 0xf, 16))
          .append(Character.forDigit(b[i] & 0xf, 16));
    }
    return s.toString();
  }

  final String id;
  final Set<String> tables = new LinkedHashSet<>();
  private final QueryExtensions outerExtensions = ExtendingOptimizer.CURRENT.get();
  private final String outerId = ExtendingOptimizer.QUERY_ID.get();
  private final Set<String> outerTables = ExtendingOptimizer.TABLES.get();
  private final StatementShape.Tag outerStatement = ExtendingOptimizer.STATEMENT.get();

  /** The context of a statement of shape {@code shape} (null: its scans name no statement). */
  QueryContext(QueryExtensions e, StatementShape shape) {
    id = e.serial() || e.profile() != QueryExtensions.Profile.NONE ? newQueryId() : null;
    ExtendingOptimizer.CURRENT.set(e);
    ExtendingOptimizer.QUERY_ID.set(id);
    ExtendingOptimizer.STATEMENT.set(shape == null ? null : StatementShape.SENT.tag(shape));
    ExtendingOptimizer.REFUSED.remove();
    ExtendingOptimizer.TABLES.set(tables);
  }

  /** A copy of the tables the plans optimized so far scan. */
  Set<String> tables() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(tables));
  }

  /** Why SERIAL was not applied to parts of the plans optimized so far. */
  List<String> refused() {
    List<String> refused = ExtendingOptimizer.REFUSED.get();
    return refused == null
        ? Collections.emptyList()
        : Collections.unmodifiableList(new ArrayList<>(refused));
  }

  @Override
  public void close() {
    ExtendingOptimizer.CURRENT.set(outerExtensions);
    ExtendingOptimizer.QUERY_ID.set(outerId);
    ExtendingOptimizer.REFUSED.remove();
    ExtendingOptimizer.TABLES.set(outerTables);
    ExtendingOptimizer.STATEMENT.set(outerStatement);
  }
}
