package io.blockscope.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code bin/blockscope}: the blockscope command line. */
@Command(
    name = "blockscope",
    mixinStandardHelpOptions = true,
    versionProvider = BlockscopeCli.Version.class,
    description = "Where HBase and Phoenix reads spend their time.",
    subcommands = {
      Evaluate.class,
      Demo.class,
      Top.class,
      Profile.class,
      Statements.class,
      Advise.class
    })
public final class BlockscopeCli implements Runnable {
  /** Exit code of bad input: an unknown option, a bad value, an unreachable cluster. */
  static final int BAD_INPUT = 2;

  /** Exit code of a run that failed for another reason. */
  static final int FAILED = 1;

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /** {@code --version}: the build's version and the versions it was built against. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties p = new Properties();
      try (InputStream in = BlockscopeCli.class.getResourceAsStream("version.properties")) {
        if (in == null) {
          return new String[] {"blockscope (version unknown: version.properties missing)"};
        }
        p.load(in);
      }
      return new String[] {
        "blockscope " + p.getProperty("version"),
        "built against HBase "
            + p.getProperty("hbase")
            + ", Hadoop "
            + p.getProperty("hadoop")
            + ", Phoenix "
            + p.getProperty("phoenix")
            + "; runs on Java 17 (docs/compatibility.md)"
      };
    }
  }

  public static void main(String[] args) {
    System.exit(
        execute(
            args,
            new PrintWriter(new OutputStreamWriter(System.out, Charset.defaultCharset()), true),
            new PrintWriter(new OutputStreamWriter(System.err, Charset.defaultCharset()), true)));
  }

  /**
   * Runs a command line. Bad input is reported as one line on {@code err}, never as a stack trace
   * (set BLOCKSCOPE_DEBUG=1 to get one for unexpected failures).
   */
  static int execute(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(new BlockscopeCli());
    cli.setOut(out);
    cli.setErr(err);
    cli.setParameterExceptionHandler(
        (e, a) -> {
          String command = e.getCommandLine().getCommandName();
          err.println(
              "blockscope: "
                  + e.getMessage()
                  + " (see: blockscope "
                  + (command.equals("blockscope") ? "" : command + " ")
                  + "--help)");
          return BAD_INPUT;
        });
    cli.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          if (e instanceof IllegalArgumentException) {
            err.println("blockscope: " + e.getMessage());
            return BAD_INPUT;
          }
          if (e instanceof InterruptedException) {
            err.println("blockscope: interrupted; scratch tables were dropped");
            return FAILED;
          }
          err.println("blockscope: " + cmd.getCommandName() + " failed: " + describe(e));
          if (System.getenv("BLOCKSCOPE_DEBUG") != null) {
            e.printStackTrace(err);
          }
          return FAILED;
        });
    return cli.execute(args);
  }

  /**
   * A failure and what caused it, on one line: a wrapper that says nothing of its own (a proxy's
   * UndeclaredThrowableException, a doAs's or an executor's) is named by its causes, at most five.
   */
  static String describe(Throwable e) {
    StringBuilder line = new StringBuilder(e.toString());
    Throwable cause = e.getCause();
    for (int depth = 0; cause != null && cause != e && depth < 5; depth++) {
      line.append("; caused by ").append(cause);
      e = cause;
      cause = cause.getCause();
    }
    return line.toString();
  }
}
