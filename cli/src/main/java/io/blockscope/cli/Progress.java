package io.blockscope.cli;

import java.io.PrintWriter;
import java.util.Locale;

/** A one-line progress bar on a terminal, plain lines otherwise. */
final class Progress {
  private final PrintWriter out;
  private final boolean terminal;
  private final long started = System.nanoTime();
  private int total;
  private int done;

  Progress(PrintWriter out, boolean terminal) {
    this.out = out;
    this.terminal = terminal;
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

  void note(String what) {
    line(what);
  }

  void step(String what) {
    done++;
    line(what);
  }

  private void line(String what) {
    int width = 30;
    int filled = total == 0 ? 0 : Math.min(width, done * width / total);
    String bar = "[" + "#".repeat(filled) + ".".repeat(width - filled) + "]";
    String text =
        String.format(
            Locale.ROOT,
            "%s %3d/%d %5.0fs  %s",
            bar,
            done,
            total,
            (System.nanoTime() - started) / 1e9,
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
