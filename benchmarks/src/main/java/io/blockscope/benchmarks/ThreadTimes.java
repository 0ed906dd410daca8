package io.blockscope.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The CPU time of another process's threads, from Linux's {@code /proc/PID/task/TID}: {@code
 * schedstat}'s first field (time on a CPU, ns) and {@code comm} (the thread's name, its first 15
 * characters). The JVM's own {@code ProcessCpuTime} comes from {@code times(2)} in clock ticks, 10
 * ms here, too coarse for a 1% difference in a sample of a quarter second.
 *
 * <p>A difference of two readings is taken thread by thread: a thread that started in between
 * counts from zero, and a thread that ended in between drops out without taking the time it had run
 * before the first reading with it (only what it ran between the readings is lost).
 */
final class ThreadTimes {
  /** One thread at one reading. */
  record Task(String name, long cpuNs) {}

  private final Path tasks;

  ThreadTimes(long pid, String command) {
    this.tasks = Path.of("/proc/" + pid + "/task");
    if (!Files.isDirectory(tasks)) {
      throw new IllegalStateException(
          command + " reads a process's thread CPU from Linux's /proc; no " + tasks);
    }
  }

  /** Every thread of the process now, by thread id. */
  Map<String, Task> read() throws IOException {
    List<Path> threads = new ArrayList<>();
    try (var list = Files.list(tasks)) {
      list.forEach(threads::add);
    }
    Map<String, Task> now = new HashMap<>(threads.size() * 2);
    for (Path t : threads) {
      try {
        String stat = Files.readString(t.resolve("schedstat"));
        String comm = Files.readString(t.resolve("comm")).trim();
        now.put(
            t.getFileName().toString(),
            new Task(comm, Long.parseLong(stat.substring(0, stat.indexOf(' ')))));
      } catch (NoSuchFileException ended) {
        // the thread ended while being listed
      }
    }
    return now;
  }

  /**
   * The CPU ns the threads whose name {@code named} accepts ran from {@code before} to {@code
   * after}.
   */
  static long between(Map<String, Task> before, Map<String, Task> after, Predicate<String> named) {
    long sum = 0;
    for (Map.Entry<String, Task> e : after.entrySet()) {
      Task now = e.getValue();
      if (named.test(now.name())) {
        Task then = before.get(e.getKey());
        sum += now.cpuNs() - (then == null ? 0 : then.cpuNs());
      }
    }
    return sum;
  }

  /**
   * A process's CPU time (user and system, all its threads, those that ended included) from Linux's
   * {@code /proc/PID/stat}, in ms, at the kernel's 100 ticks a second.
   */
  static double processCpuMs(long pid) throws IOException {
    return cpuMs(Files.readString(Path.of("/proc/" + pid + "/stat")));
  }

  /** The user and system CPU, in ms, of a {@code /proc/PID/stat} line. */
  static double cpuMs(String stat) {
    // the fields after the command name, which is in parentheses and may hold spaces
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // utime and stime are the stat's fields 14 and 15, here 11 and 12 (from the state, field 3)
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10.0;
  }
}
