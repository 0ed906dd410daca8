package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.junit.After;
import org.junit.Test;

/**
 * {@link BridgeHandle#measuring} sets the flag the probes read first ({@code
 * ProbeBridge.measuring}) through the field it looked up once, both ways and repeated, as region
 * opens and closes call it.
 */
public class MeasuringFlagTest {
  private final BridgeHandle bridge = BridgeHandle.resolve(BlockType.class.getClassLoader(), null);

  @After
  public void measureAgain() {
    ProbeBridge.measuring = true;
  }

  @Test
  public void setsTheProbesFlagBothWaysAndKeepsItWhenAskedAgain() {
    bridge.measuring(false);
    assertFalse(ProbeBridge.measuring);
    bridge.measuring(false);
    assertFalse(ProbeBridge.measuring);
    bridge.measuring(true);
    assertTrue(ProbeBridge.measuring);
    bridge.measuring(true);
    assertTrue(ProbeBridge.measuring);
    bridge.measuring(false);
    assertFalse(ProbeBridge.measuring);
  }
}
