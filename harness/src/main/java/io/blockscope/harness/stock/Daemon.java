package io.blockscope.harness.stock;

import java.io.IOException;
import java.nio.file.Path;

/**
 * One daemon of a {@link StockCluster} (ZooKeeper, a NameNode or DataNode, the master, a region
 * server): its current process and that process's log. A cluster's wait fails at once, with the
 * log's end, when a daemon's process has exited.
 */
final class Daemon {
  private final String name;
  private Process process;
  private Path log;

  /** A daemon called {@code name} in failure messages, with no process yet. */
  Daemon(String name) {
    this.name = name;
  }

  /** Takes {@code p}, which writes to {@code log}, as the current process. */
  void started(Process p, Path log) {
    this.process = p;
    this.log = log;
  }

  /** Whether a process was started and not stopped since. */
  boolean launched() {
    return process != null;
  }

  /** The operating system's id of the current process; -1 while there is none. */
  long pid() {
    Process p = process;
    return p == null ? -1 : p.pid();
  }

  /** The current process's log; null before the first start. */
  Path log() {
    return log;
  }

  /** Stops the current process, if any (SIGTERM; see {@link Launcher#stop}), and forgets it. */
  void stop() throws InterruptedException {
    Process p = process;
    process = null;
    Launcher.stop(p, name);
  }

  /** Fails, with its log's end, when the current process has exited. */
  void checkAlive() throws IOException {
    Process p = process;
    if (p != null && !p.isAlive()) {
      throw new AssertionError(name + " exited:\n" + Launcher.tail(log));
    }
  }

  /** Kills the current process, if any, at once (SIGKILL). */
  void kill() {
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
    }
  }
}
