package io.blockscope.coprocessor.accounting;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class ExportLimitTest {
  @Test
  public void parsesTheThreeForms() {
    assertEquals(Integer.MAX_VALUE, ExportLimit.parse("ALL").limit());
    assertEquals(0, ExportLimit.parse("none").limit());
    assertEquals(25, ExportLimit.parse(" top:25 ").limit());
    assertEquals("top:25", ExportLimit.parse("top:25").toString());
  }

  @Test
  public void rejectsMalformedPolicies() {
    for (String bad : new String[] {"", "some", "top:", "top:x", "top:0", "top:-3", "top:100001"}) {
      IllegalArgumentException e =
          assertThrows(bad, IllegalArgumentException.class, () -> ExportLimit.parse(bad));
      assertTrue(e.getMessage(), e.getMessage().contains("top"));
    }
  }
}
