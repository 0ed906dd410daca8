package io.blockscope.coprocessor.probe;

import java.lang.instrument.Instrumentation;

/**
 * Optional {@code -javaagent} entry point. A region server started with {@code
 * -javaagent:/path/blockscope-coprocessors.jar} hands blockscope its Instrumentation at start-up,
 * so the coprocessor does not need to attach to its own JVM (which some hardened JVMs forbid). The
 * agent itself weaves nothing: the coprocessor does, when it starts.
 */
public final class BlockscopeAgent {
  private static volatile Instrumentation instrumentation;

  private BlockscopeAgent() {}

  public static void premain(String args, Instrumentation inst) {
    instrumentation = inst;
  }

  public static void agentmain(String args, Instrumentation inst) {
    instrumentation = inst;
  }

  /** The Instrumentation given at start-up, or null. */
  public static Instrumentation instrumentation() {
    return instrumentation;
  }
}
