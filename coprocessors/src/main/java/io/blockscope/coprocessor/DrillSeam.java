package io.blockscope.coprocessor;

import io.blockscope.coprocessor.accounting.CostRegistry.RegionCosts;
import io.blockscope.coprocessor.accounting.QueryTracker;

/*
 * The test suite's sensitivity drill makes blockscope miscount on purpose and checks that the tests
 * named to catch each miscount fail. The miscounts themselves live in the coprocessors' test jar
 * (io.blockscope.coprocessor.MiscountDrill and accounting.RollUpDrill); what ships in the region
 * server's jar is only where they plug in, and every plug is empty on a production server:
 *
 *   DrillSeam.current         -> Attribution settles a frame's costs through the drill;
 *                                Levels and ProfileService ask it whether a check is skipped
 *   ProbeBridge.drill         -> how many times each probe counts an event (or a thrown fault)
 *   CostRegistry.leaveOut     -> which region a table's roll-up leaves out
 *
 * Each is one volatile read where it is asked, null when no drill runs. The release suites' region
 * servers are processes of their own that no test reaches in-process; for them the JVM property
 * PROPERTY asks the engine, at its start, to load the drill class from the server's class path
 * (the suite adds the test jar's drill classes to lib/ beside the release jar).
 */

/**
 * Where the test suite's drills plug into the engine; nothing is plugged in on a production server.
 */
final class DrillSeam {
  private DrillSeam() {}

  /** What a drill changes in the engine. */
  interface Drill {
    /** Settles one frame's costs ({@code q} null for an untagged read) in the drill's way. */
    void settle(RegionCosts region, QueryTracker.RegionCosts q, long[] costs);

    /** Whether the caps on levels are left out. */
    boolean levelCapsIgnored();

    /** Whether the profile endpoint answers a request naming another user, whoever asks. */
    boolean profileOwnerIgnored();
  }

  /** The drill that runs now; null (none) on a production server. */
  static volatile Drill current;

  /**
   * The JVM system property that starts a drill in a region server process when its engine starts,
   * for the release suites. Never set on a production server.
   */
  static final String PROPERTY = "blockscope.drill.miscount";

  /** The class of the test jar that starts the drill {@link #PROPERTY} names. */
  static final String DRILL_CLASS = "io.blockscope.coprocessor.MiscountDrill";

  static boolean levelCapsIgnored() {
    Drill d = current;
    return d != null && d.levelCapsIgnored();
  }

  static boolean profileOwnerIgnored() {
    Drill d = current;
    return d != null && d.profileOwnerIgnored();
  }

  /**
   * Starts the drill {@link #PROPERTY} names, if set: what the server's log must say about it, or
   * null when it is unset. The drill's class comes from this class's own loader; where the test
   * jar's drill classes are not there, none runs and the line says so.
   */
  static String fromProperty() {
    String named = System.getProperty(PROPERTY, "").trim();
    if (named.isEmpty()) {
      return null;
    }
    try {
      Class<?> drill = Class.forName(DRILL_CLASS, true, DrillSeam.class.getClassLoader());
      return (String) drill.getMethod("fromProperty", String.class).invoke(null, named);
    } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
      return "-D"
          + PROPERTY
          + "="
          + named
          + ": the test suite's drill classes are not on this server's class path ("
          + e
          + "); none runs";
    }
  }
}
