package io.blockscope.harness;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.List;
import org.junit.Test;

public class JvmFlagsTest {
  @Test
  public void theBuildsFlagsAreTheParentPomsListAndOpensDropsOnlyTheAttachFlags() {
    List<String> build = JvmFlags.build();
    List<String> opens = JvmFlags.opens();
    // the openings HBase and Hadoop need on JDK 17, each an option and its value
    int i = opens.indexOf("java.base/java.nio=ALL-UNNAMED");
    assertTrue(opens.toString(), i > 0 && opens.get(i - 1).equals("--add-opens"));
    assertTrue(build.contains("-Djdk.attach.allowAttachSelf=true"));
    assertTrue(build.contains("-XX:+EnableDynamicAgentLoading"));
    assertFalse(opens.toString(), opens.stream().anyMatch(f -> f.contains("attach")));
    assertFalse(opens.contains("-XX:+EnableDynamicAgentLoading"));
    assertEquals("only the two attach flags go", build.size() - 2, opens.size());
    assertTrue(build.containsAll(opens));
  }
}
