package io.blockscope.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A one-line progress bar on a terminal, plain lines otherwise, with an estimate of the time left:
 * the steps done so far took so long on average, and as many again are left as steps remain.
 */
final class Progress {
  private final PrintWriter out;
  private final boolean terminal;
  private final LongSupplier nanoTime;
  private final long started;
  private long firstStep = -1;
  private int total;
  private int done;

  Progress(PrintWriter out, boolean terminal) {
    this(out, terminal, System::nanoTime);
  }

  Progress(PrintWriter out, boolean terminal, LongSupplier nanoTime) {
    this.out = out;
    this.terminal = terminal;
    this.nanoTime = nanoTime;
    this.started = nanoTime.getAsLong();
  }

  static Progress forConsole(PrintWriter out) {
    // JDK 17: System.console() is null unless both streams are a terminal (newer JDKs differ)
    @SuppressWarnings("SystemConsoleNull")
    boolean terminal = System.console() != null;
    return new Progress(out, terminal);
  }

  void start(int steps) {
    total = steps;
  }

  /** {@code steps} of the steps announced will not run (a replay's budget left them out). */
  void skip(int steps) {
    total = Math.max(done, total - steps);
  }

  void note(String what) {
    line(what);
  }

  /** Step {@code done + 1} begins: {@code what} is under way. */
  void step(String what) {
    long now = nanoTime.getAsLong();
    if (firstStep < 0) {
      firstStep = now;
    }
    done++;
    line(what);
  }

  /**
   * About how long the steps left take, from the steps finished so far (the one under way is not
   * finished), or empty before a step has finished.
   */
  String left() {
    int finished = done - 1;
    if (finished < 1 || firstStep < 0) {
      return "";
    }
    double perStep = (nanoTime.getAsLong() - firstStep) / 1e9 / finished;
    double seconds = perStep * (total - finished);
    return seconds < 90
        ? String.format(Locale.ROOT, "~%.0f s left", Math.max(seconds, 1))
        : String.format(Locale.ROOT, "~%.0f min left", seconds / 60);
  }

  private void line(String what) {
    int width = 30;
    int filled = total == 0 ? 0 : Math.min(width, done * width / total);
    String bar = "[" + "#".repeat(filled) + ".".repeat(width - filled) + "]";
    String text =
        String.format(
            Locale.ROOT,
            "%s %3d/%d %5.0fs %14s  %s",
            bar,
            done,
            total,
            (nanoTime.getAsLong() - started) / 1e9,
            left(),
            what);
    if (terminal) {
      out.print("\r\033[2K" + text);
    } else {
      out.println(text);
    }
    out.flush();
  }

  void done() {
    if (terminal) {
      out.println();
    }
  }
}
