package io.blockscope.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * {@code region-open --jfr}: the server's recording, written with {@code jcmd <pid> JFR.dump}, and
 * what its stack samples of the open executor's threads ({@link RegionOpen#OPENERS}) show: how many
 * there are, how many have a frame of blockscope's, and of those how many are the weaving of the
 * probes (once per server, at the first region open) rather than blockscope's part of every open.
 */
final class OpenProfile {
  private OpenProfile() {}

  /**
   * Has the server {@code pid} write its recording to {@code file}; the counts, as a line that says
   * which opens the recording holds ({@code opens}).
   */
  static String of(long pid, Path file, String opens) throws IOException, InterruptedException {
    dump(pid, file);
    return read(file, opens);
  }

  private static void dump(long pid, Path file) throws IOException, InterruptedException {
    Process jcmd =
        new ProcessBuilder("jcmd", Long.toString(pid), "JFR.dump", "filename=" + file)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!jcmd.waitFor(2, TimeUnit.MINUTES) || jcmd.exitValue() != 0) {
      throw new IOException("jcmd " + pid + " JFR.dump did not write " + file);
    }
  }

  private static String read(Path file, String opens) throws IOException {
    long samples = 0;
    long blockscope = 0;
    long weaving = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
        continue;
      }
      RecordedThread thread = e.getThread("sampledThread");
      RecordedStackTrace stack = e.getStackTrace();
      if (thread == null
          || stack == null
          || thread.getJavaName() == null
          || !thread.getJavaName().startsWith(RegionOpen.OPENERS)) {
        continue;
      }
      samples++;
      Kind kind = kind(stack.getFrames());
      if (kind == Kind.WEAVING) {
        weaving++;
      } else if (kind == Kind.BLOCKSCOPE) {
        blockscope++;
      }
    }
    return String.format(
        Locale.ROOT,
        "profile %s: %d stack samples of the open executor's threads, %s; %d with"
            + " blockscope's frames in every open (%.1f%%), %d more in the weaving of the probes at"
            + " the first open",
        file,
        samples,
        opens,
        blockscope,
        samples == 0 ? 0.0 : 100.0 * blockscope / samples,
        weaving);
  }

  private enum Kind {
    NONE,
    BLOCKSCOPE,
    WEAVING
  }

  /** The classes that install the probes: their frames are the weaving, not every open's part. */
  private static final Set<String> INSTALLER =
      Set.of(
          "io.blockscope.coprocessor.probe.ProbeInstaller",
          "io.blockscope.coprocessor.probe.ProbeTargets",
          "io.blockscope.coprocessor.probe.ProbeChecks",
          "io.blockscope.coprocessor.probe.ProbeWeaver");

  private static Kind kind(List<RecordedFrame> frames) {
    Kind kind = Kind.NONE;
    for (RecordedFrame f : frames) {
      if (f.getMethod() == null || f.getMethod().getType() == null) {
        continue;
      }
      String type = f.getMethod().getType().getName();
      // the benchmark's own empty observer is HBase's cost of any coprocessor, not blockscope's
      if (type.startsWith("io.blockscope.") && !type.startsWith("io.blockscope.benchmarks.")) {
        if (type.startsWith("io.blockscope.shaded.net.bytebuddy.") || INSTALLER.contains(type)) {
          return Kind.WEAVING;
        }
        kind = Kind.BLOCKSCOPE;
      }
    }
    return kind;
  }
}
