package io.blockscope.benchmarks;

import io.blockscope.coprocessor.probe.ProbeBridge;
import io.blockscope.coprocessor.probe.ProbeInstaller;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.PerfLevel;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the probe benchmarks share (JMH reads these annotations from the superclass): the four
 * modes, with the probes taken out of HBase's bytecode ({@code NOT_INSTALLED}) or woven and the
 * benchmark thread's level set to {@code OFF}, {@code COUNT} or {@code TIME}; 3 forks per mode,
 * each allowed to attach the agent to itself.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// forks inherit bin/blockscope jmh's JVM flags (JMH's default), the parent pom's list among
// them: its openings and the self-attach flag the probe installer needs
@Fork(3)
public abstract class ProbeModeBenchmark {
  @Param({"NOT_INSTALLED", "OFF", "COUNT", "TIME"})
  public String mode;

  /** Applies {@link #mode}; call last in the trial's setup. */
  protected void applyMode() {
    if (mode.equals("NOT_INSTALLED")) {
      ProbeInstaller.uninstallAll();
      return;
    }
    List<String> problems = new ArrayList<>();
    ProbeInstaller.installAll(true, 30_000, problems);
    if (!problems.isEmpty()) {
      throw new IllegalStateException("probes not installed: " + problems);
    }
    ProbeBridge.costs()[CostLayout.LEVEL] = PerfLevel.valueOf(mode).ordinal();
  }

  /** Whether the mode counts (COUNT or TIME): a counting mode that counted nothing must fail. */
  protected boolean counting() {
    return mode.equals("COUNT") || mode.equals("TIME");
  }
}
