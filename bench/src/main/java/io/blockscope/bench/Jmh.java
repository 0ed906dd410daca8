package io.blockscope.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/** {@code bin/blockscope jmh [JMH options] [benchmark regex]}: runs the JMH benchmarks. */
@Command(name = "jmh", description = "Run blockscope's JMH microbenchmarks (e.g. DecodeProbeBenchmark);"
    + " every argument goes to JMH (-h lists JMH's options).")
final class Jmh implements Callable<Integer> {
  @Unmatched
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    org.openjdk.jmh.Main.main(args.toArray(new String[0]));
    return 0;
  }
}
