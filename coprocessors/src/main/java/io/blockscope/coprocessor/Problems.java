package io.blockscope.coprocessor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the engine found wrong in its settings, its probes and the tables' attributes, kept for
 * operators ({@code Diagnostics.problems}, {@code bin/blockscope doctor}): the first {@value
 * #MAX_PROBLEMS}, then only a count, so that a server whose every table is misconfigured keeps a
 * bounded list.
 */
final class Problems {
  /** Problems kept for operators; more are counted, not kept. */
  static final int MAX_PROBLEMS = 100;

  private final List<String> kept = new ArrayList<>();
  private final AtomicLong notKept = new AtomicLong();

  /** Keeps {@code problem}: the first {@value #MAX_PROBLEMS}, then only a count. */
  void add(String problem) {
    synchronized (kept) {
      if (kept.size() < MAX_PROBLEMS) {
        kept.add(problem);
        return;
      }
    }
    notKept.incrementAndGet();
  }

  /** The problems kept, and a last line counting those not kept. */
  List<String> all() {
    synchronized (kept) {
      List<String> all = new ArrayList<>(kept);
      long more = notKept.get();
      if (more > 0) {
        all.add(more + " more problems not kept (see the region server log)");
      }
      return all;
    }
  }
}
