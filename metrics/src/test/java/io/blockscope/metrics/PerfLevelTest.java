package io.blockscope.metrics;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class PerfLevelTest {
  @Test
  public void parsesIgnoringCaseAndBlanks() {
    assertEquals(PerfLevel.TIME, PerfLevel.parse(" time "));
    assertEquals(PerfLevel.OFF, PerfLevel.parse("Off"));
    assertEquals(PerfLevel.COUNT, PerfLevel.parse("COUNT"));
  }

  @Test
  public void rejectsUnknownAndEmptyLevelsNamingTheChoices() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PerfLevel.parse("verbose"));
    assertTrue(e.getMessage(), e.getMessage().contains("'verbose'"));
    assertTrue(e.getMessage().contains("OFF, COUNT, TIME"));
    assertThrows(IllegalArgumentException.class, () -> PerfLevel.parse(""));
    assertThrows(IllegalArgumentException.class, () -> PerfLevel.parse(null));
  }

  @Test
  public void ordinalsAreWhatTheProbesCompareAgainst() {
    // ProbeBridge hard-codes OFF = 0 and TIME = 2 in the per-thread level slot.
    assertEquals(0, PerfLevel.OFF.ordinal());
    assertEquals(2, PerfLevel.TIME.ordinal());
  }
}
