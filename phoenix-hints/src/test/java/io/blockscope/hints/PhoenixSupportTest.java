package io.blockscope.hints;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.Test;

public class PhoenixSupportTest {
  private static final ClassLoader OURS = PhoenixSupportTest.class.getClassLoader();

  @Test
  public void thisPhoenixHasEveryInternalTheHintsRelyOn() throws SQLException {
    for (PhoenixSupport.Member m : PhoenixSupport.REQUIRED) {
      assertEquals(m.toString(), Optional.empty(), PhoenixSupport.refusal(List.of(m), OURS));
    }
    assertEquals("5.2.1", PhoenixSupport.phoenixVersion(OURS));
    PhoenixSupport.require();
  }

  /**
   * A Phoenix without one of the plan classes the SERIAL hint rewrites, as a later one might be.
   */
  @Test
  public void aPhoenixWithoutOneIsRefusedNamingWhatItLacks() {
    ClassLoader withoutSortMergeJoins =
        new ClassLoader(OURS) {
          @Override
          protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.equals("org.apache.phoenix.execute.SortMergeJoinPlan")) {
              throw new ClassNotFoundException(name);
            }
            return super.loadClass(name, resolve);
          }
        };
    assertEquals(
        Optional.of(
            "blockscope: the hints driver cannot run on Phoenix 5.2.1: it relies on Phoenix "
                + "internals this Phoenix does not have: [SortMergeJoinPlan.lhsPlan (QueryPlan), "
                + "SortMergeJoinPlan.rhsPlan (QueryPlan)] (tested on Phoenix 5.2.1; "
                + "docs/compatibility.md). Connect with jdbc:phoenix: instead to run without "
                + "blockscope's hints."),
        PhoenixSupport.refusal(PhoenixSupport.REQUIRED, withoutSortMergeJoins));
  }

  /** A field renamed or retyped, a constructor or method gone: each is named. */
  @Test
  public void aRenamedOrRetypedMemberIsNamed() {
    List<PhoenixSupport.Member> changed = new ArrayList<>(PhoenixSupport.REQUIRED);
    changed.add(
        PhoenixSupport.Member.field("org.apache.phoenix.execute.ScanPlan", "serial", "boolean"));
    changed.add(
        PhoenixSupport.Member.field(
            "org.apache.phoenix.execute.ScanPlan", "isSerial", "java.lang.Boolean"));
    changed.add(
        PhoenixSupport.Member.method(
            "org.apache.phoenix.optimize.QueryOptimizer", "optimize", "java.lang.String"));
    String why = PhoenixSupport.refusal(changed, OURS).orElseThrow();
    assertTrue(
        why,
        why.contains(
            "[ScanPlan.serial (boolean), ScanPlan.isSerial (Boolean), "
                + "QueryOptimizer.optimize(String)]"));
  }
}
