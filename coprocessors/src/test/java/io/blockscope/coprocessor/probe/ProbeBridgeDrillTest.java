package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertEquals;

import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.PerfLevel;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/** The probes' drill switch: fail, double, drop every other, and nothing once it is off. */
public class ProbeBridgeDrillTest {
  private static final int CELLS = CostLayout.DECODE + CostLayout.DECODE_CELLS;

  private long[] costs;
  private long savedLevel;

  @Before
  public void countOnThisThread() {
    costs = ProbeBridge.costs();
    savedLevel = costs[CostLayout.LEVEL];
    costs[CostLayout.LEVEL] = PerfLevel.COUNT.ordinal();
    costs[CELLS] = 0;
  }

  @After
  public void endTheDrill() {
    ProbeBridge.drill = null;
    costs[CELLS] = 0;
    costs[CostLayout.LEVEL] = savedLevel;
  }

  private long cells(int calls) {
    long before = costs[CELLS];
    for (int i = 0; i < calls; i++) {
      ProbeBridge.cell(0);
    }
    return costs[CELLS] - before;
  }

  private static void drill(int probe, ProbeDrill.Mode mode) {
    ProbeBridge.drill = new ProbeDrill(probe, mode);
  }

  @Test
  public void withoutADrillEachEventCountsOnce() {
    assertEquals(1_000, cells(1_000));
  }

  @Test
  public void aDrillOnAnotherProbeChangesNothing() {
    drill(ProbeBridge.CACHE, ProbeDrill.Mode.DOUBLE);
    assertEquals(1_000, cells(1_000));
  }

  @Test
  public void doubleCountsEachEventTwice() {
    drill(ProbeBridge.DECODE, ProbeDrill.Mode.DOUBLE);
    assertEquals(2_000, cells(1_000));
  }

  @Test
  public void dropEveryOtherCountsHalf() {
    drill(ProbeBridge.DECODE, ProbeDrill.Mode.DROP_EVERY_OTHER);
    assertEquals(500, cells(1_000));
  }

  @Test
  public void aFaultCountsNothingAndIsContained() {
    long failures = ProbeBridge.FAILURES.get(ProbeBridge.DECODE);
    drill(ProbeBridge.DECODE, ProbeDrill.Mode.FAULT);
    assertEquals(0, cells(1_000));
    assertEquals(1_000, ProbeBridge.FAILURES.get(ProbeBridge.DECODE) - failures);
  }
}
