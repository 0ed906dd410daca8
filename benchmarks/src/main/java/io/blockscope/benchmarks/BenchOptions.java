package io.blockscope.benchmarks;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.Function;

/**
 * The benchmark commands' options ({@code --name value} pairs) and their way of exiting. A command
 * reads each option once, in one function from a {@code BenchOptions} to its options record ({@link
 * #integer}, {@link #yesNo}, {@link #path}, {@link #option}): each read gives the value on the
 * command line, or the default, and adds the option to the usage line as {@code [--name shown]}, so
 * that the usage line is the reading's own and cannot drift from it.
 */
final class BenchOptions {
  /** A command's work once its options are parsed. */
  interface Body<O> {
    void run(O options) throws Exception;
  }

  /** A value's conversion; an IllegalArgumentException naming {@code option} for a bad value. */
  interface Convert<T> {
    T apply(String option, String value);
  }

  /** The options on the command line, by name (the last of a name given twice). */
  private final Map<String, String> given;

  private final Set<String> read = new HashSet<>();
  private final StringJoiner usage = new StringJoiner(" ");

  private BenchOptions(Map<String, String> given) {
    this.given = given;
  }

  /**
   * Parses {@code args} with {@code options} and runs {@code body}, then exits the JVM (HBase's
   * client leaves non-daemon threads behind): 0 when it ran or for {@code --help}; 2 with the usage
   * for a bad option; 1 with the message of an {@link IllegalStateException} the body throws (a
   * refused run: a missing build, a cold cache, a mode that measured nothing), or with the stack
   * trace of any other failure.
   */
  static <O> void main(
      String command, String[] args, Function<BenchOptions, O> options, Body<O> body)
      throws Exception {
    O parsed;
    try {
      parsed = parse(options, args);
    } catch (IllegalArgumentException e) {
      if (!e.getMessage().isEmpty()) {
        System.err.println(command + ": " + e.getMessage());
      }
      System.err.println("usage: " + command + " " + usage(options));
      System.exit(e.getMessage().isEmpty() ? 0 : 2);
      return;
    }
    int status = 0;
    try {
      body.run(parsed);
    } catch (IllegalStateException e) {
      System.err.println(command + ": " + e.getMessage());
      status = 1;
    } catch (Exception e) {
      System.err.println(command + " failed:");
      e.printStackTrace(System.err);
      status = 1;
    }
    System.exit(status);
  }

  /**
   * {@code args} read by {@code options}. {@code --help} or {@code -h} throws an
   * IllegalArgumentException with an empty message; an option without a value, a bad value or an
   * option {@code options} does not read, one with a message.
   */
  static <O> O parse(Function<BenchOptions, O> options, String... args) {
    Map<String, String> given = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help") || a.equals("-h")) {
        throw new IllegalArgumentException("");
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(a + " needs a value");
      }
      given.put(a, args[++i]);
    }
    BenchOptions o = new BenchOptions(given);
    O parsed = options.apply(o);
    for (String name : given.keySet()) {
      if (!o.read.contains(name)) {
        throw new IllegalArgumentException("unknown option " + name);
      }
    }
    return parsed;
  }

  /** The usage line of the options {@code options} reads: {@code [--rows 20000] [--out DIR]}. */
  static String usage(Function<BenchOptions, ?> options) {
    BenchOptions o = new BenchOptions(Map.of());
    var unused = options.apply(o); // the defaults; what counts is what the reading showed
    return o.usage.toString();
  }

  /**
   * Option {@code name}: its value converted, or {@code fallback} when the command line does not
   * give it; {@code shown} stands for its value in the usage line.
   */
  <T> T option(String name, String shown, T fallback, Convert<T> convert) {
    usage.add("[" + name + " " + shown + "]");
    read.add(name);
    String value = given.get(name);
    return value == null ? fallback : convert.apply(name, value);
  }

  /** An integer option of at least {@code min}, shown as its default. */
  int integer(String name, int fallback, int min) {
    return option(name, Integer.toString(fallback), fallback, (o, v) -> atLeast(o, v, min));
  }

  /** A yes or no option, shown as its default. */
  boolean yesNo(String name, boolean fallback) {
    return option(name, fallback ? "yes" : "no", fallback, BenchOptions::yesOrNo);
  }

  /** A path option, shown as {@code shown} ({@code DIR}, {@code FILE}). */
  Path path(String name, String shown, Path fallback) {
    return option(name, shown, fallback, (o, v) -> Paths.get(v));
  }

  /** {@code value} as an integer of at least {@code min}, or an error naming {@code option}. */
  static int atLeast(String option, String value, int min) {
    try {
      int n = Integer.parseInt(value);
      if (n >= min) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(option + " must be an integer >= " + min + ": " + value);
  }

  /** {@code value} as yes (true) or no (false), or an error naming {@code option}. */
  static boolean yesOrNo(String option, String value) {
    return switch (value) {
      case "yes" -> true;
      case "no" -> false;
      default -> throw new IllegalArgumentException(option + " must be yes or no: " + value);
    };
  }
}
