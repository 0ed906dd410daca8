package io.blockscope.benchmarks;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.blockscope.benchmarks.InterleavedRounds.Samples;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

public class InterleavedRoundsTest {
  /**
   * What a run did, in order: "round.turn:variant" for a turn, "start N" and "end N" for a round.
   */
  private static List<String> trace(List<String> variants, int rounds, int turns) throws Exception {
    List<String> trace = new ArrayList<>();
    new InterleavedRounds<>(variants, rounds, turns)
        .run(
            round -> trace.add("start " + round),
            (v, round, turn) -> trace.add(round + "." + turn + ":" + v),
            round -> trace.add("end " + round));
    return trace;
  }

  @Test
  public void aAndBTakeTurnsGoingFirst() throws Exception {
    assertEquals(
        List.of(
            "start 0", "0.0:A", "0.0:B", "end 0", //
            "start 1", "1.0:B", "1.0:A", "end 1", //
            "start 2", "2.0:A", "2.0:B", "end 2"),
        trace(List.of("A", "B"), 3, 1));
  }

  @Test
  public void theOrderRotatesFromTurnToTurnAcrossRounds() throws Exception {
    // three turns a round: the fourth turn (round 1's first) goes on from the third's order
    assertEquals(
        List.of(
            "start 0", "0.0:A", "0.0:B", "0.0:C", //
            "0.1:B", "0.1:C", "0.1:A", //
            "0.2:C", "0.2:A", "0.2:B", //
            "end 0", "start 1", "1.0:A", "1.0:B", "1.0:C", //
            "1.1:B", "1.1:C", "1.1:A", //
            "1.2:C", "1.2:A", "1.2:B", //
            "end 1"),
        trace(List.of("A", "B", "C"), 2, 3));
    assertEquals(
        List.of("C", "A", "B"), new InterleavedRounds<>(List.of("A", "B", "C"), 1, 1).order(5));
  }

  @Test
  public void aRunWithoutRoundsOrVariantsIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new InterleavedRounds<>(List.of(), 1, 1));
    assertThrows(IllegalArgumentException.class, () -> new InterleavedRounds<>(List.of("A"), 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new InterleavedRounds<>(List.of("A"), 1, 0));
  }

  @Test
  public void samplesGiveMediansAndPerRoundRatiosToTheBaseline() {
    Samples<String> s = new Samples<>(List.of("A", "B"), 2, 3);
    // round 0: A's median 1, B's 2; round 1: A's median 2, B's 3
    double[][] a = {{1, 1, 5}, {2, 2, 0}};
    double[][] b = {{9, 2, 1}, {3, 3, 100}};
    for (int round = 0; round < 2; round++) {
      for (int sample = 0; sample < 3; sample++) {
        s.put("A", round, sample, a[round][sample]);
        s.put("B", round, sample, b[round][sample]);
      }
    }
    assertEquals(2.0, s.ratio("B", "A", 0), 0);
    assertEquals(1.5, s.ratio("B", "A", 1), 0);
    RoundRatio r = s.ratio("B", "A");
    assertEquals((2.0 + 1.5) / 2, r.mean(), 1e-12);
    assertEquals(RoundRatio.of(b, a), r);
    assertEquals(1, s.ratio("A", "A").mean(), 0);
    // the median over rounds of each round's median, nearest rank (of an even count, the lower
    // middle): of 2 and 3 for B, of 1 and 2 for A
    assertEquals(2, s.median("B"), 0);
    assertEquals(1, s.median("A"), 0);
    assertThrows(IllegalArgumentException.class, () -> s.put("C", 0, 0, 1));
  }
}
