package io.blockscope.coprocessor;

import java.io.IOException;
import java.util.Optional;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.ipc.RpcServer;
import org.apache.hadoop.hbase.regionserver.OnlineRegions;
import org.apache.hadoop.hbase.regionserver.RegionServerServices;
import org.apache.hadoop.hbase.security.Superusers;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.Permission;

/**
 * Who makes a call, and whether they may read other users' query profiles, decided the way HBase's
 * own AccessController decides it.
 *
 * <p>The user of a call is the RPC's authenticated user ({@code ObserverContext.getCaller()}, which
 * HBase fills from {@code RpcServer.getRequestUser()}), named by its short name as HBase's
 * permissions name users ({@code alice} for {@code alice@EXAMPLE.COM}). A call that did not come
 * over RPC (a coprocessor's own scan) is the region server's own user, as {@code
 * AccessController.getActiveUser} has it. With {@code hbase.security.authentication=simple} the
 * RPC's user is whatever name the client sends: nothing is authenticated.
 *
 * <p>A superuser ({@code hbase.superuser} and the region server's own user, {@code Superusers}) or
 * a user with global ADMIN (the grants HBase's AccessController keeps, read through the region
 * server's {@code AccessChecker}: {@code RegionServerServices.getAccessChecker()}, {@code
 * AuthManager.authorizeUserGlobal}) may read anyone's profile. Without {@code
 * hbase.security.authorization} the server's checker holds no grants, so superusers only. A check
 * that fails for any reason answers no.
 */
final class CallerAccess {
  private static volatile String processUser;

  private CallerAccess() {}

  /** The short name of the caller HBase gives an observer hook. */
  static String name(Optional<User> caller) {
    return caller.isPresent() ? caller.get().getShortName() : processUser();
  }

  /** The user of the RPC being served on this thread; the region server's own user outside one. */
  static User current() throws IOException {
    Optional<User> rpc = RpcServer.getRequestUser();
    return rpc.isPresent() ? rpc.get() : User.getCurrent();
  }

  /** Whether {@code user} is an HBase superuser or holds global ADMIN on this region server. */
  static boolean mayReadOthers(User user, RegionCoprocessorEnvironment env) {
    try {
      OnlineRegions services = env.getOnlineRegions();
      RegionServerServices rs =
          services instanceof RegionServerServices ? (RegionServerServices) services : null;
      if (rs != null && rs.getAccessChecker() != null) {
        // includes the superuser check (AuthManager.authorizeUserGlobal)
        return rs.getAccessChecker()
            .getAuthManager()
            .authorizeUserGlobal(user, Permission.Action.ADMIN);
      }
      return Superusers.isSuperUser(user);
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  private static String processUser() {
    String name = processUser;
    if (name == null) {
      try {
        User u = User.getCurrent();
        name = u == null ? "" : u.getShortName();
      } catch (IOException | RuntimeException e) {
        name = "";
      }
      processUser = name;
    }
    return name;
  }
}
