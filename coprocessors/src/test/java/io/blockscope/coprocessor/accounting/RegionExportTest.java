package io.blockscope.coprocessor.accounting;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class RegionExportTest {
  @Test
  public void parsesTheThreeForms() {
    assertEquals(Integer.MAX_VALUE, RegionExport.parse("ALL").limit());
    assertEquals(0, RegionExport.parse("none").limit());
    assertEquals(25, RegionExport.parse(" top:25 ").limit());
    assertEquals("top:25", RegionExport.parse("top:25").toString());
  }

  @Test
  public void rejectsMalformedPolicies() {
    for (String bad : new String[] {"", "some", "top:", "top:x", "top:0", "top:-3", "top:100001"}) {
      IllegalArgumentException e =
          assertThrows(bad, IllegalArgumentException.class, () -> RegionExport.parse(bad));
      assertTrue(e.getMessage(), e.getMessage().contains("top"));
    }
  }
}
