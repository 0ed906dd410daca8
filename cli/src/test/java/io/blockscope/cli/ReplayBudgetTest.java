package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import org.junit.Test;

public class ReplayBudgetTest {
  private static final long S = 1_000_000_000L;

  @Test
  public void theCurrentSettingAndTheFirstCandidateAlwaysRun() {
    ReplayBudget b = new ReplayBudget(Duration.ofSeconds(10));
    assertTrue(b.roomForAnother(0));
    b.prepared(60 * S);
    b.measurement(60 * S, 60 * S);
    assertTrue("the first candidate, though the estimate is far over", b.roomForAnother(61 * S));
    b.prepared(60 * S);
    assertFalse(b.roomForAnother(122 * S));
  }

  @Test
  public void aSettingIsLoadedWhileTheEstimatedEndStaysWithinTheBudget() {
    ReplayBudget b = new ReplayBudget(Duration.ofSeconds(100));
    b.prepared(10 * S);
    b.measurement(5 * S, 12 * S);
    b.prepared(10 * S);
    // spent 25 s; a third setting: its load 10 s, the readings 12 s, three settings' runs 15 s
    assertEquals(62 * S, b.estimateNanos(25 * S, 3));
    assertTrue(b.roomForAnother(25 * S));
    b.prepared(20 * S); // the mean load is now 40 / 3 s
    long fourth = 45 * S + 40 * S / 3 + 12 * S + 4 * 5 * S;
    assertEquals(fourth, b.estimateNanos(45 * S, 4));
    assertTrue(fourth <= 100 * S);
    assertTrue(b.roomForAnother(45 * S));
    assertFalse("the same, 10 s later", b.roomForAnother(55 * S + 40 * S / 3));
  }

  @Test
  public void withoutTheMeasurementsEstimateNothingIsLeftOut() {
    ReplayBudget b = new ReplayBudget(Duration.ofSeconds(10));
    b.prepared(60 * S);
    b.prepared(60 * S);
    assertTrue(b.roomForAnother(500 * S));
  }

  @Test
  public void theNoteNamesWhatWasLeftAndTheEstimate() {
    ReplayBudget b = new ReplayBudget(Duration.ofMinutes(1));
    b.prepared(10 * S);
    b.measurement(5 * S, 12 * S);
    b.prepared(20 * S);
    assertEquals(
        "not replayed within --budget 1m: PREFIX, DIFF (a setting takes about 15 s to load and 5 s"
            + " to measure here; the 2 replayed were estimated to end at 52 s)",
        b.note("1m", 30 * S, "PREFIX, DIFF"));
  }

  @Test
  public void budgetsAreSecondsMinutesOrHoursFrom10sTo24h() {
    assertEquals(Duration.ofSeconds(90), ReplayBudget.parse("90s"));
    assertEquals(Duration.ofMinutes(30), ReplayBudget.parse(" 30M "));
    assertEquals(Duration.ofHours(24), ReplayBudget.parse("24h"));
    for (String bad : new String[] {"", "m", "30", "9s", "1441m", "25h", "-5m", "1.5h", "30x"}) {
      IllegalArgumentException e =
          assertThrows(bad, IllegalArgumentException.class, () -> ReplayBudget.parse(bad));
      assertTrue(e.getMessage(), e.getMessage().startsWith("bad --budget '" + bad + "'"));
    }
  }
}
