package io.blockscope.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code bin/blockscope}: the blockscope command line. */
@Command(name = "blockscope", mixinStandardHelpOptions = true, version = "blockscope 0.1.0",
    description = "Where HBase and Phoenix reads spend their time.",
    subcommands = {Demo.class, OverheadBenchmark.class})
public final class BlockscopeCli implements Runnable {
  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  public static void main(String[] args) {
    CommandLine cli = new CommandLine(new BlockscopeCli());
    // Bad input is one clear line, not a stack trace.
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
      cmd.getErr().println("blockscope: " + e.getMessage());
      return 2;
    });
    int code = cli.execute(args);
    System.exit(code);
  }
}
