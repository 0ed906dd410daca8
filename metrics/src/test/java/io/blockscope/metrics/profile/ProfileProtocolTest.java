package io.blockscope.metrics.profile;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.google.protobuf.DynamicMessage;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.Test;

public class ProfileProtocolTest {
  @Test
  public void requestsAndResponsesSurviveTheWire() throws Exception {
    DynamicMessage req =
        DynamicMessage.parseFrom(
            ProfileProtocol.REQUEST, ProfileProtocol.request("abc").toByteArray());
    assertEquals("abc", ProfileProtocol.queryId(req));

    Map<String, Long> costs = new LinkedHashMap<>();
    costs.put("blockCache.miss.data", 3L);
    costs.put("decode.FAST_DIFF.cells", 1000L);
    DynamicMessage resp =
        DynamicMessage.parseFrom(
            ProfileProtocol.RESPONSE, ProfileProtocol.response("r1", costs, 42).toByteArray());
    assertTrue(ProfileProtocol.found(resp));
    assertEquals("r1", ProfileProtocol.region(resp));
    assertEquals(42, ProfileProtocol.rows(resp));
    assertEquals(costs, ProfileProtocol.costs(resp));

    DynamicMessage none =
        DynamicMessage.parseFrom(
            ProfileProtocol.RESPONSE, ProfileProtocol.response("r2", null, 0).toByteArray());
    assertFalse(ProfileProtocol.found(none));
    assertTrue(ProfileProtocol.costs(none).isEmpty());
    assertEquals("blockscope.BlockscopeProfile", ProfileProtocol.SERVICE.getFullName());
  }
}
