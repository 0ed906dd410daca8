package io.blockscope.testsupport;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of sqlline in a JVM of its own, connected through blockscope's hints driver as
 * docs/hints.md shows: {@code sqlline.SqlLine -d io.blockscope.hints.BlockscopeDriver -u <url>},
 * user and password {@code none}, READ_COMMITTED isolation.
 */
public final class SqllineCommand {
  private SqllineCommand() {}

  /**
   * sqlline's {@code main} on {@code classpath}, connected to {@code url}, with {@code home} as its
   * user home (sqlline keeps its history there), the JVM taking {@code jvmOptions} and sqlline
   * {@code sqllineArgs} after the connection's.
   */
  public static List<String> of(
      Path home, String classpath, String url, List<String> jvmOptions, List<String> sqllineArgs) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx384m");
    cmd.add("-Duser.home=" + home);
    cmd.addAll(jvmOptions);
    cmd.addAll(
        List.of(
            "-cp",
            classpath,
            "sqlline.SqlLine",
            "-d",
            "io.blockscope.hints.BlockscopeDriver",
            "-u",
            url,
            "-n",
            "none",
            "-p",
            "none",
            "--isolation=TRANSACTION_READ_COMMITTED"));
    cmd.addAll(sqllineArgs);
    return cmd;
  }
}
