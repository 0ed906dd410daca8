package io.blockscope.coprocessor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import com.google.protobuf.Service;
import org.junit.Test;

/**
 * HBase asks a coprocessor for its endpoints while it builds the coprocessor's environment, before
 * {@code start} and outside blockscope's guard, and aborts the region server on whatever that
 * throws. A region server without protobuf 2.5 (or an endpoint class whose initializer fails) must
 * open its regions without the endpoint, not abort.
 */
public class EndpointLinkageTest {

  @Test
  public void anEndpointThatCannotLinkLeavesTheRegionWithoutOne() {
    BlockscopeRegionObserver observer =
        new BlockscopeRegionObserver() {
          @Override
          Service profileService() {
            throw new NoClassDefFoundError("com/google/protobuf/Service");
          }
        };
    assertFalse(observer.getServices().iterator().hasNext());
  }

  @Test
  public void theEndpointIsThereWhenItLinks() {
    int n = 0;
    for (Service s : new BlockscopeRegionObserver().getServices()) {
      assertEquals("BlockscopeProfile", s.getDescriptorForType().getName());
      n++;
    }
    assertEquals(1, n);
  }
}
