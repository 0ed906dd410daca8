package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Test;

/** The progress line's estimate of the time left, on a clock the test moves. */
public class ProgressTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  public void theTimeLeftIsTheFinishedStepsAverageTimesTheStepsLeft() {
    AtomicLong now = new AtomicLong(5 * SECOND);
    StringWriter text = new StringWriter();
    Progress p = new Progress(new PrintWriter(text), false, now::get);
    p.start(10);
    p.note("writing rows");
    now.addAndGet(60 * SECOND); // not a step: the cluster's start and the rows are not counted
    p.step("a");
    assertEquals("no step has finished yet", "", p.left());
    now.addAndGet(10 * SECOND);
    p.step("b"); // one step took 10 s; 9 are left counting this one
    assertEquals("~2 min left", p.left()); // 90 s
    now.addAndGet(10 * SECOND);
    p.step("c");
    assertEquals("~80 s left", p.left());
    for (int i = 0; i < 7; i++) {
      now.addAndGet(10 * SECOND);
      p.step("d" + i);
    }
    assertEquals("~10 s left", p.left()); // the last step is under way
    String lines = text.toString();
    assertTrue(lines, lines.lines().anyMatch(l -> l.contains("3/10") && l.contains("~80 s left")));
    assertTrue(lines, lines.lines().anyMatch(l -> l.contains(" 60s ") && l.endsWith("  a")));
  }

  @Test
  public void stepsLeftOutNoLongerCountInTheTimeLeft() {
    AtomicLong now = new AtomicLong(0);
    StringWriter text = new StringWriter();
    Progress p = new Progress(new PrintWriter(text), false, now::get);
    p.start(8);
    p.step("load NONE");
    now.addAndGet(10 * SECOND);
    p.step("load FAST_DIFF");
    assertEquals("~70 s left", p.left());
    p.skip(4); // four more loads left out by the budget
    assertEquals("~30 s left", p.left());
    p.step("measure");
    assertTrue(text.toString(), text.toString().contains("3/4"));
    p.skip(9);
    assertEquals("never below the steps begun: the one under way", "~5 s left", p.left());
  }
}
