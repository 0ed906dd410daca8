package io.blockscope.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** The benchmark commands' options ({@code --name value} pairs) and their way of exiting. */
final class Args {
  private Args() {}

  /** A command's work once its options are parsed. */
  interface Body<O> {
    void run(O options) throws Exception;
  }

  /**
   * Parses {@code args} with {@code parse} and runs {@code body}, then exits the JVM (HBase's
   * client leaves non-daemon threads behind): 0 when it ran or for {@code --help}; 2 with the usage
   * for a bad option; 1 with the message of an {@link IllegalStateException} the body throws (a
   * refused run: a missing build, a cold cache, a mode that measured nothing).
   */
  static <O> void main(
      String command, String usage, String[] args, Function<String[], O> parse, Body<O> body)
      throws Exception {
    O options;
    try {
      options = parse.apply(args);
    } catch (IllegalArgumentException e) {
      if (!e.getMessage().isEmpty()) {
        System.err.println(command + ": " + e.getMessage());
      }
      System.err.println("usage: " + command + " " + usage);
      System.exit(e.getMessage().isEmpty() ? 0 : 2);
      return;
    }
    int status = 0;
    try {
      body.run(options);
    } catch (IllegalStateException e) {
      System.err.println(command + ": " + e.getMessage());
      status = 1;
    }
    System.exit(status);
  }

  /**
   * {@code args} as {@code {name, value}} pairs, in order. {@code --help} or {@code -h} throws an
   * IllegalArgumentException with an empty message; an option without a value, one with a message.
   */
  static List<String[]> pairs(String[] args) {
    List<String[]> pairs = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help") || a.equals("-h")) {
        throw new IllegalArgumentException("");
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(a + " needs a value");
      }
      pairs.add(new String[] {a, args[++i]});
    }
    return pairs;
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
  static boolean yesNo(String option, String value) {
    return switch (value) {
      case "yes" -> true;
      case "no" -> false;
      default -> throw new IllegalArgumentException(option + " must be yes or no: " + value);
    };
  }
}
