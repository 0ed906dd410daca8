package io.blockscope.coprocessor.probe;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntUnaryOperator;

/**
 * A probe drill for {@link ProbeBridge#drill}: how many times each probe counts an event while one
 * probe fails, counts twice or drops every other event. Other probes count once.
 */
public final class ProbeDrill implements IntUnaryOperator {
  /** What the drilled probe does. */
  public enum Mode {
    /** Throws on every call (counted in {@link ProbeBridge#FAILURES}, swallowed). */
    FAULT,
    /** Counts every event twice. */
    DOUBLE,
    /**
     * Drops every other event: the first is dropped, the second kept, and so on. Only calls that
     * count something take an event, so every other counted event is dropped, exactly.
     */
    DROP_EVERY_OTHER
  }

  private final int probe;
  private final Mode mode;
  private final AtomicLong events = new AtomicLong();

  /** Probe {@code probe} (a {@link ProbeBridge} id) drilled the way {@code mode} says. */
  public ProbeDrill(int probe, Mode mode) {
    this.probe = probe;
    this.mode = mode;
  }

  @Override
  public int applyAsInt(int p) {
    if (p != probe) {
      return 1;
    }
    switch (mode) {
      case DOUBLE:
        return 2;
      case DROP_EVERY_OTHER:
        return (int) (events.getAndIncrement() & 1);
      default:
        throw new IllegalStateException(
            "blockscope: injected fault in probe " + ProbeBridge.PROBE_NAMES[p]);
    }
  }
}
