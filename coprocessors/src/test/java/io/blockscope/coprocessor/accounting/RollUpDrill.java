package io.blockscope.coprocessor.accounting;

import java.util.Collection;
import java.util.Collections;

/**
 * The drill of a lost roll-up: each table's figures leave out one of its regions (the first by
 * encoded name); the regions' own figures and the server's stay right.
 */
public final class RollUpDrill {
  private RollUpDrill() {}

  /** Starts ({@code true}) or ends the lost roll-up in {@code registry}. */
  public static void loseFirstRegion(CostRegistry registry, boolean lose) {
    registry.leaveOut = lose ? RollUpDrill::first : null;
  }

  private static String first(Collection<String> regions) {
    return regions.isEmpty() ? null : Collections.min(regions);
  }
}
