package io.blockscope.metrics;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
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

  @Test
  public void aQueryNamesCountOrTimeInAnyCaseAndNothingElse() {
    assertEquals(PerfLevel.TIME, PerfLevel.ofQueryWord("time"));
    assertEquals(PerfLevel.COUNT, PerfLevel.ofQueryWord("Count"));
    assertNull(PerfLevel.ofQueryWord("OFF"));
    assertNull(PerfLevel.ofQueryWord(" TIME"));
    assertNull(PerfLevel.ofQueryWord(""));
    assertNull(PerfLevel.ofQueryWord(null));
  }

  @Test
  public void theProfileAttributeRoundTripsAndAnyOtherBytesAskForNothing() {
    for (PerfLevel l : new PerfLevel[] {PerfLevel.COUNT, PerfLevel.TIME}) {
      assertEquals(l, PerfLevel.ofAttribute(l.toAttribute()));
    }
    assertArrayEquals("TIME".getBytes(StandardCharsets.US_ASCII), PerfLevel.TIME.toAttribute());
    // a caller's copy: changing it changes no later attribute
    PerfLevel.TIME.toAttribute()[0] = 'X';
    assertEquals(PerfLevel.TIME, PerfLevel.ofAttribute(PerfLevel.TIME.toAttribute()));
    assertThrows(IllegalStateException.class, PerfLevel.OFF::toAttribute);
    for (String hostile : new String[] {"", "time", "OFF", "TIME ", "TIMEX", "\u0000"}) {
      assertNull(hostile, PerfLevel.ofAttribute(hostile.getBytes(StandardCharsets.UTF_8)));
    }
    assertNull(PerfLevel.ofAttribute(new byte[] {(byte) 0xff, 'T', 'I', 'M', 'E'}));
    assertNull(PerfLevel.ofAttribute(new byte[1 << 20]));
    assertNull(PerfLevel.ofAttribute(null));
  }
}
