package io.blockscope.coprocessor;

import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import com.google.protobuf.RpcCallback;
import com.google.protobuf.RpcController;
import com.google.protobuf.Service;
import io.blockscope.metrics.CostLayout;
import io.blockscope.metrics.HBaseScanMetrics;
import io.blockscope.metrics.profile.ProfileProtocol;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One region's side of the profile endpoint ({@link ProfileProtocol}): the costs this region
 * recorded for a query id. Unknown, expired or malformed ids get {@code found = false}; nothing
 * here throws into HBase's RPC path.
 */
final class ProfileService implements Service {
  private final Supplier<Hooks> hooks;
  private final Supplier<String> region;

  /**
   * HBase asks for a coprocessor's services before it starts the coprocessor ({@code
   * RegionCoprocessorHost.createEnvironment}), so both are read when a call comes.
   */
  ProfileService(Supplier<Hooks> hooks, Supplier<String> region) {
    this.hooks = hooks;
    this.region = region;
  }

  @Override
  public Descriptors.ServiceDescriptor getDescriptorForType() {
    return ProfileProtocol.SERVICE;
  }

  @Override
  public void callMethod(
      Descriptors.MethodDescriptor method,
      RpcController controller,
      Message request,
      RpcCallback<Message> done) {
    Map<String, Long> costs = null;
    long rows = 0;
    String name = region.get();
    try {
      Hooks h = hooks.get();
      long[] c =
          h == null || name == null ? null : h.queryCosts(ProfileProtocol.queryId(request), name);
      if (c != null) {
        costs = new LinkedHashMap<>();
        for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
          if (c[i] != 0) {
            costs.put(CostLayout.name(i), c[i]);
          }
        }
        rows = c[CostLayout.SIZE];
        if (c.length > CostLayout.SIZE + 1 && c[CostLayout.SIZE + 1] == 1) {
          // HBase's own figures, beside blockscope's under their own names, zeros included
          for (int i = 0; i < HBaseScanMetrics.NAMES.size(); i++) {
            costs.put(
                HBaseScanMetrics.PREFIX + HBaseScanMetrics.NAMES.get(i),
                c[CostLayout.SIZE + 2 + i]);
          }
        }
      }
    } catch (Throwable t) {
      costs = null; // answered as not found
    }
    done.run(ProfileProtocol.response(name == null ? "" : name, costs, rows));
  }

  @Override
  public Message getRequestPrototype(Descriptors.MethodDescriptor method) {
    return DynamicMessage.getDefaultInstance(ProfileProtocol.REQUEST);
  }

  @Override
  public Message getResponsePrototype(Descriptors.MethodDescriptor method) {
    return DynamicMessage.getDefaultInstance(ProfileProtocol.RESPONSE);
  }
}
