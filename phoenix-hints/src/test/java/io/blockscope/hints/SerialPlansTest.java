package io.blockscope.hints;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.execute.AggregatePlan;
import org.apache.phoenix.execute.ScanPlan;
import org.apache.phoenix.iterate.BaseResultIterators;
import org.junit.Test;

/** SERIAL sets a private flag of two Phoenix plans: fail here, loudly, when Phoenix changes it. */
public class SerialPlansTest {
  @Test
  public void phoenixStillHasTheFlagsBlockscopeSets() throws Exception {
    assertEquals(boolean.class, ScanPlan.class.getDeclaredField("isSerial").getType());
    assertEquals(boolean.class, AggregatePlan.class.getDeclaredField("isSerial").getType());
    assertTrue("no plan, nothing refused", SerialPlans.force(null).isEmpty());
    assertEquals(QueryPlan.class, BaseResultIterators.class.getDeclaredField("plan").getType());
  }
}
