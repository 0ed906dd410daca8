package io.blockscope.metrics;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

public class JsonTest {
  @Test
  public void escapesWhatCouldBreakOutOfAReportsScriptElement() {
    String json = Json.writeForScript(Map.of("t", "</script><b>\"q\"\n"));
    assertTrue(json, json.contains("\"\\u003c/script>\\u003cb>\\\"q\\\"\\n\""));
    assertEquals("{\n  \"t\": \"a < b\"\n}\n", Json.write(Map.of("t", "a < b")));
    assertEquals("[1, 2.50000, null]\n", Json.write(List.of(1, 2.5, Double.NaN)));
  }

  @Test
  public void nestsMapsAndListsInTheirOrder() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("b", 2L);
    m.put("a", List.of(Map.of("x", true)));
    m.put("e", Map.of());
    assertEquals(
        "{\n  \"b\": 2,\n  \"a\": [\n    {\n      \"x\": true\n    }\n  ],\n  \"e\": {}\n}\n",
        Json.write(m));
  }
}
