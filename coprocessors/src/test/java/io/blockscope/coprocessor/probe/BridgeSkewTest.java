package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import io.blockscope.metrics.CostLayout;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.junit.Test;

/**
 * A bridge made by another blockscope version (other probes, another cost layout) is refused with
 * the reason, instead of being used with the wrong slot numbers; this version's own is taken.
 */
public class BridgeSkewTest {
  @Test
  public void aBridgeOfAnotherLayoutIsRefusedWithTheReason() {
    assertNull(BridgeHandle.skew(ProbeBridge.N_PROBES, CostLayout.SIZE));
    assertEquals(
        "the read-path bridge in this JVM is another blockscope version's (6 probes, 89 cost"
            + " slots; this one has "
            + ProbeBridge.N_PROBES
            + " and "
            + CostLayout.SIZE
            + "): run one blockscope version per region server",
        BridgeHandle.skew(6, 89));
    assertEquals(
        BridgeHandle.skew(ProbeBridge.N_PROBES, 89),
        BridgeHandle.skew(ProbeBridge.N_PROBES, CostLayout.SIZE - 2));
  }

  @Test
  public void thisVersionsOwnBridgeIsTaken() {
    BridgeHandle.resolve(BlockType.class.getClassLoader(), null); // throws if it were refused
  }
}
