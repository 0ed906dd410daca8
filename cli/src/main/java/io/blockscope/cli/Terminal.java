package io.blockscope.cli;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The controlling terminal in character mode, for {@code top}'s keys: each key arrives as it is
 * pressed, unechoed, until {@link #close} puts the terminal back as it was (also when the JVM ends
 * on Ctrl-C, which stays a signal). Uses {@code stty} on {@code /dev/tty}, as POSIX systems have
 * it.
 */
final class Terminal implements AutoCloseable {
  private final String saved;
  private final Thread restoreAtExit;
  private boolean closed;

  private Terminal(String saved) {
    this.saved = saved;
    this.restoreAtExit = new Thread(this::restore, "top-terminal-restore");
    Runtime.getRuntime().addShutdownHook(restoreAtExit);
  }

  /** The terminal in character mode; an IOException where there is none or stty fails. */
  static Terminal raw() throws IOException {
    String saved = stty("-g").strip();
    stty("-icanon", "-echo", "min", "1");
    return new Terminal(saved);
  }

  private static String stty(String... args) throws IOException {
    String[] cmd = new String[args.length + 1];
    cmd[0] = "stty";
    System.arraycopy(args, 0, cmd, 1, args.length);
    Process p =
        new ProcessBuilder(cmd)
            .redirectInput(new File("/dev/tty"))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IOException("stty " + String.join(" ", args) + " failed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted waiting for stty", e);
    }
    return out;
  }

  private synchronized void restore() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      stty(saved);
    } catch (IOException | RuntimeException notRestored) {
      System.err.println("blockscope top: could not restore the terminal: run 'stty sane'");
    }
  }

  @Override
  public void close() {
    restore();
    try {
      Runtime.getRuntime().removeShutdownHook(restoreAtExit);
    } catch (IllegalStateException exiting) {
      // the JVM is shutting down: the hook runs (and finds it done)
    }
  }

  /**
   * Reads keys from {@code in} into {@code keys} until it ends: characters as they are, Enter as
   * {@link TopSession#ENTER}, Backspace as {@link TopSession#BACKSPACE}, the up and down arrows as
   * {@link TopSession#UP} and {@link TopSession#DOWN}, Escape alone as {@link TopSession#ESCAPE}.
   */
  static void readKeys(InputStream in, BlockingQueue<Integer> keys) {
    try {
      for (int b = in.read(); b >= 0; b = in.read()) {
        keys.put(decode(b, in));
      }
    } catch (IOException | InterruptedException stopped) {
      // the terminal went away or top is ending
    }
  }

  private static int decode(int b, InputStream in) throws IOException, InterruptedException {
    if (b == '\r') {
      return TopSession.ENTER;
    }
    if (b == 8) {
      return TopSession.BACKSPACE;
    }
    if (b != TopSession.ESCAPE) {
      return b;
    }
    // an arrow key is ESC [ A (or ESC O A); Escape alone has nothing after it
    TimeUnit.MILLISECONDS.sleep(30);
    if (in.available() < 2) {
      return TopSession.ESCAPE;
    }
    int bracket = in.read();
    int code = in.read();
    if (bracket != '[' && bracket != 'O') {
      return TopSession.ESCAPE;
    }
    return switch (code) {
      case 'A' -> TopSession.UP;
      case 'B' -> TopSession.DOWN;
      default -> TopSession.ESCAPE;
    };
  }
}
