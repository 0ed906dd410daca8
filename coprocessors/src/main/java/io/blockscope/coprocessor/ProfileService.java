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
import io.blockscope.metrics.profile.ProfileWire;
import io.blockscope.metrics.profile.StatementsWire;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcUtils;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;

/**
 * One region's side of the profile endpoint ({@link ProfileProtocol}): the costs this region
 * recorded for a query id, for the user who made the query.
 *
 * <p>The caller gets its own record (the query its own scans tagged, {@link CallerAccess}). A
 * request that names another user is answered only for an HBase superuser or a user with global
 * ADMIN; anyone else gets HBase's {@code AccessDeniedException} through the RPC controller ({@code
 * CoprocessorRpcUtils.setControllerException}, which {@code HRegion.execService} throws back to the
 * client). Unknown, expired or malformed ids, and ids the caller never tagged, get {@code found =
 * false}: nothing tells a caller whether another user has a query of that id. Whether a user may
 * call the endpoint at all is HBase's own decision first: with {@code
 * hbase.security.exec.permission.checks=true} the AccessController wants EXEC on the table ({@code
 * AccessController.preEndpointInvocation}). Nothing here throws into HBase's RPC path.
 */
final class ProfileService implements Service {
  private final Supplier<Hooks> hooks;
  private final Supplier<String> region;
  private final Supplier<RegionCoprocessorEnvironment> env;

  /**
   * HBase asks for a coprocessor's services before it starts the coprocessor ({@code
   * RegionCoprocessorHost.createEnvironment}), so all three are read when a call comes.
   */
  ProfileService(
      Supplier<Hooks> hooks, Supplier<String> region, Supplier<RegionCoprocessorEnvironment> env) {
    this.hooks = hooks;
    this.region = region;
    this.env = env;
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
    if (method.getName().equals(ProfileWire.STATEMENTS_METHOD)) {
      statements(controller, request, done);
      return;
    }
    Map<String, Long> costs = null;
    long rows = 0;
    String name = region.get();
    try {
      Hooks h = hooks.get();
      if (h != null) {
        h.profileAsked();
      }
      String owner = owner(request);
      if (owner == null) {
        CoprocessorRpcUtils.setControllerException(
            controller,
            new AccessDeniedException(
                "blockscope: only an HBase superuser or a user with global ADMIN may read another"
                    + " user's query profile"));
        done.run(null);
        return;
      }
      long[] c =
          h == null || name == null
              ? null
              : h.queryCosts(ProfileProtocol.queryId(request), owner, name);
      if (c != null) {
        costs = new LinkedHashMap<>();
        for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
          if (c[i] != 0) {
            costs.put(CostLayout.name(i), c[i]);
          }
        }
        rows = c[CostLayout.SIZE];
        int n = HBaseScanMetrics.NAMES.size();
        if (c.length > CostLayout.SIZE + 1 && c[CostLayout.SIZE + 1] == 1) {
          // HBase's own figures, beside blockscope's under their own names, zeros included
          for (int i = 0; i < n; i++) {
            costs.put(
                HBaseScanMetrics.PREFIX + HBaseScanMetrics.NAMES.get(i),
                c[CostLayout.SIZE + 2 + i]);
          }
        }
        if (c.length > QueryTagging.QUERY_LEVEL_REASON && c[QueryTagging.QUERY_LEVEL] >= 0) {
          costs.put(ProfileWire.LEVEL_APPLIED, c[QueryTagging.QUERY_LEVEL]);
          costs.put(ProfileWire.LEVEL_REASON, c[QueryTagging.QUERY_LEVEL_REASON]);
        }
      }
    } catch (Throwable t) {
      costs = null; // answered as not found
    }
    done.run(ProfileProtocol.response(name == null ? "" : name, costs, rows));
  }

  /**
   * Whose record the request may read: the caller's own, or the user it names if the caller may
   * read others'; null if it names another user and may not.
   */
  private String owner(Message request) throws java.io.IOException {
    User caller = CallerAccess.current();
    String asked = ProfileProtocol.user(request);
    String me = caller.getShortName();
    if (asked.isEmpty() || asked.equals(me)) {
      return me;
    }
    if (DrillSeam.profileOwnerIgnored()) {
      return asked;
    }
    RegionCoprocessorEnvironment e = env.get();
    return e != null && CallerAccess.mayReadOthers(caller, e) ? asked : null;
  }

  /**
   * {@code GetStatements}: this region server's statement statistics ({@link StatementsWire}). The
   * caller's own statements for anyone; another user's, everyone's, or a reset only for an HBase
   * superuser or a user with global ADMIN, as for profiles (anyone else gets HBase's {@code
   * AccessDeniedException}). Statements are the server's, not the region's: every region of a
   * server answers alike.
   */
  private void statements(RpcController controller, Message request, RpcCallback<Message> done) {
    String server = "";
    byte[] report = null;
    try {
      Hooks h = hooks.get();
      if (h != null) {
        h.profileAsked();
      }
      RegionCoprocessorEnvironment e = env.get();
      server = e == null || e.getServerName() == null ? "" : e.getServerName().toString();
      StatementsWire.Request asked = StatementsWire.parseRequest(request.toByteArray());
      User caller = CallerAccess.current();
      String me = caller.getShortName();
      boolean others = asked.all || asked.reset || !(asked.user.isEmpty() || asked.user.equals(me));
      if (others
          && !DrillSeam.profileOwnerIgnored()
          && !(e != null && CallerAccess.mayReadOthers(caller, e))) {
        CoprocessorRpcUtils.setControllerException(
            controller,
            new AccessDeniedException(
                "blockscope: only an HBase superuser or a user with global ADMIN may read another"
                    + " user's statements, everyone's, or reset them"));
        done.run(null);
        return;
      }
      if (h != null) {
        report =
            h.statementsReport(
                server, asked.user.isEmpty() ? me : asked.user, asked.all, asked.reset);
      }
    } catch (Throwable t) {
      report = null; // answered as empty
    }
    if (report == null) {
      report = new StatementsWire.ResponseWriter(server, StatementTagging.COLUMNS).bytes();
    }
    done.run(ProfileProtocol.statementsResponse(report));
  }

  @Override
  public Message getRequestPrototype(Descriptors.MethodDescriptor method) {
    return DynamicMessage.getDefaultInstance(
        method.getName().equals(ProfileWire.STATEMENTS_METHOD)
            ? ProfileProtocol.STATEMENTS_REQUEST
            : ProfileProtocol.REQUEST);
  }

  @Override
  public Message getResponsePrototype(Descriptors.MethodDescriptor method) {
    return DynamicMessage.getDefaultInstance(
        method.getName().equals(ProfileWire.STATEMENTS_METHOD)
            ? ProfileProtocol.STATEMENTS_RESPONSE
            : ProfileProtocol.RESPONSE);
  }
}
