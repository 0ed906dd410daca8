package io.blockscope.harness.stock;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts a {@link StockCluster}'s processes, each a JVM on the install's server class path as
 * {@code bin/hbase} builds it (a conf directory, a {@code lib/}, then the server class path), with
 * its output in a log of its own, and keeps every one it started: they are killed when this JVM
 * exits, and {@link #awaitExit} waits for them at close.
 */
final class Launcher {
  private final Path home;
  private final String serverClasspath;
  private final List<String> jvmFlags;

  /** The cluster's Kerberos setting, whose JVM options its HBase processes take; null if open. */
  private final StockSecurity realm;

  private final List<Process> processes = new ArrayList<>();

  Launcher(Path home, StockCluster.Install install, StockSecurity realm) throws IOException {
    this.home = home;
    this.serverClasspath = Files.readString(install.serverClasspath()).trim();
    this.jvmFlags = install.jvmFlags();
    this.realm = realm;
    Runtime.getRuntime().addShutdownHook(new Thread(this::killAll, "stock-cluster-kill"));
  }

  /**
   * Starts {@code main} with {@code args} on {@code conf} (null: none, and no Kerberos options),
   * {@code lib}'s jars (null: none) and the server class path, its output in {@code log}.
   */
  Process launch(Path conf, Path lib, List<String> opts, String main, List<String> args, Path log)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmFlags);
    if (realm != null && conf != null) {
      cmd.addAll(realm.jvmOptions());
    }
    cmd.addAll(opts);
    cmd.add("-cp");
    StringBuilder cp = new StringBuilder();
    if (conf != null) {
      cp.append(conf).append(':');
    }
    if (lib != null) {
      cp.append(lib).append("/*:");
    }
    cp.append(serverClasspath);
    cmd.add(cp.toString());
    cmd.add(main);
    cmd.addAll(args);
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
            .start();
    keep(p);
    return p;
  }

  /**
   * Stops {@code p} (SIGTERM, the way an operator's stop script ends a daemon); fails when it is
   * still running 90 s later. A process that is null or gone already is left as it is.
   */
  static void stop(Process p, String what) throws InterruptedException {
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroy();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      throw new AssertionError(what + " did not stop within 90 s of SIGTERM");
    }
  }

  /**
   * Runs {@code main} on {@code conf}, {@code lib} and the server class path to its end (at most 3
   * min), its output in {@code logs/<class's simple name>.log}.
   */
  StockCluster.Run runToEnd(Path conf, Path lib, String main, List<String> args) throws Exception {
    Path log = home.resolve("logs").resolve(main.substring(main.lastIndexOf('.') + 1) + ".log");
    Process p = launch(conf, lib, List.of("-Xmx256m"), main, args, log);
    if (!p.waitFor(3, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(main + " still running after 3 min:\n" + tail(log));
    }
    return new StockCluster.Run(p.exitValue(), Files.readString(log));
  }

  /**
   * Runs a command as a process of its own with its output in {@code logs/<name>.log}; fails unless
   * it exits 0 within {@code minutes}. Returns what it printed.
   */
  String run(String name, List<String> cmd, Map<String, String> env, int minutes) throws Exception {
    Path log = home.resolve("logs").resolve(name + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    keep(p);
    if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(name + " still running after " + minutes + " min:\n" + tail(log));
    }
    String printed = Files.readString(log);
    if (p.exitValue() != 0) {
      throw new AssertionError(name + " exited " + p.exitValue() + ":\n" + printed);
    }
    return printed;
  }

  private void keep(Process p) {
    synchronized (processes) {
      processes.add(p);
    }
  }

  private void killAll() {
    synchronized (processes) {
      for (Process p : processes) {
        p.destroyForcibly();
      }
    }
  }

  /**
   * Waits up to 30 s for each process started to exit (they have been told to); stops if
   * interrupted.
   */
  void awaitExit() {
    for (Process p : processes) {
      try {
        p.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** The last 60 lines of a log, for a failure message. */
  static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }
}
