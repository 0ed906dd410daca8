package io.blockscope.encoding;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.SnapshotDescription;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessor;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.MasterObserver;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's side of BLOCKSCOPE_V1 ({@code hbase.coprocessor.master.classes}): registers the
 * encoding in the master, and refuses a CREATE, a clone of a snapshot, an ALTER or a restore of a
 * snapshot that puts the encoding on a column family that did not have it, unless every live region
 * server reports {@link EncodingRegistrar} among its coprocessors, so that no server is handed a
 * kind of store it cannot open. HBase's master does not look at a family's encoding itself: without
 * this check, the regions of such a table would fail to open, over and over, wherever the encoding
 * is missing. An ALTER or restore that keeps the encoding of a family that already had it (a TTL
 * change, the coprocessor Phoenix adds with an index) is not checked.
 */
public final class EncodingGuard implements MasterCoprocessor, MasterObserver {
  /*
   * Design note (for the maintainer).
   *
   * What the master sees. A region server's report (HRegionServer.buildServerLoad, HBase 2.6.1)
   * lists the coprocessors of its WAL's host and of the host of every region it holds, each as
   * CoprocessorHost.getCoprocessors() names it: getClass().getSimpleName(). ServerMetricsBuilder
   * .toServerMetrics copies these names into ServerMetrics.getCoprocessorNames(). So the master
   * learns "EncodingRegistrar", never "io.blockscope.encoding.EncodingRegistrar": a class of
   * that simple name in any package passes, and the name proves configuration, not a
   * successful registration (a registrar whose registration failed is listed too; it logs an
   * error). No other field of ServerMetrics carries a class name. A sounder signal would be an
   * answer from the server itself (a RegionServerCoprocessor endpoint that the guard calls on
   * every server through Admin.coprocessorService(ServerName), answering whether the encoding
   * is registered in its JVM); that costs a protobuf service and an RPC per server per DDL, and
   * is not built: the limit is stated in docs/encoder.md. The full name is accepted as well, in
   * case a later HBase reports full names (REGISTRAR_NAMES).
   *
   * Which changes are checked. The guard exists so that no server is given a store it cannot
   * open. A family gets BLOCKSCOPE_V1 stores on servers by a CREATE, a clone (a new table:
   * SnapshotManager.cloneSnapshot calls preCloneSnapshot with the new table's descriptor), an
   * ALTER that sets it (preModifyTable), and a restore of a snapshot whose family had it while
   * the table's does not (SnapshotManager.restoreSnapshot calls preRestoreSnapshot with the
   * snapshot's descriptor; the table's current one is read through Admin.getDescriptor). An
   * ALTER that keeps the encoding of a family reopens each region on the server that holds it
   * (ModifyTableProcedure -> ReopenTableRegionsProcedure -> TransitRegionStateProcedure.reopen):
   * no server is given a kind of store it has not had, and the table's regions could move to
   * any server before the ALTER as after it. Refusing such an ALTER while one server held no
   * region (its report names no region coprocessor) blocked TTL changes and Phoenix's CREATE
   * INDEX on BLOCKSCOPE_V1 tables and protected nothing.
   *
   * A server that holds no region still cannot be verified and still makes the guard refuse a
   * change it checks: its status is unknown, and it is where the balancer sends a new table's
   * regions first. A server that joins later without the registrar is not stopped (HBase has
   * no hook for it). And the guard reads descriptors, not files: a snapshot taken after an ALTER
   * away from BLOCKSCOPE_V1 but before the major compaction has a FAST_DIFF descriptor and
   * BLOCKSCOPE_V1 files, and its clone is not refused. EncodedFiles lists such files.
   */
  private static final Logger LOG = LoggerFactory.getLogger(EncodingGuard.class);

  /** The registrar's names in a server's report: the simple name is what HBase 2.6.1 sends. */
  static final Set<String> REGISTRAR_NAMES =
      Collections.unmodifiableSet(
          new HashSet<>(
              Arrays.asList(
                  EncodingRegistrar.class.getSimpleName(), EncodingRegistrar.class.getName())));

  private static final String ENCODING_KEY = "DATA_BLOCK_ENCODING";

  @Override
  @SuppressWarnings("rawtypes") // HBase's own signature: Coprocessor.start(CoprocessorEnvironment)
  public void start(CoprocessorEnvironment env) {
    try {
      BlockscopeEncoding.register();
    } catch (RuntimeException | LinkageError e) {
      LOG.error(
          "blockscope: cannot register data block encoding {} in the master; changes "
              + "that set it will be refused",
          BlockscopeEncoding.NAME,
          e);
    }
  }

  @Override
  public Optional<MasterObserver> getMasterObserver() {
    return Optional.of(this);
  }

  @Override
  public void preCreateTable(
      ObserverContext<MasterCoprocessorEnvironment> ctx, TableDescriptor desc, RegionInfo[] regions)
      throws IOException {
    check(ctx, "create " + desc.getTableName().getNameAsString(), addedFamilies(null, desc));
  }

  @Override
  public TableDescriptor preModifyTable(
      ObserverContext<MasterCoprocessorEnvironment> ctx,
      TableName tableName,
      TableDescriptor current,
      TableDescriptor next)
      throws IOException {
    check(ctx, "alter " + tableName.getNameAsString(), addedFamilies(current, next));
    return next;
  }

  @Override
  public void preCloneSnapshot(
      ObserverContext<MasterCoprocessorEnvironment> ctx,
      SnapshotDescription snapshot,
      TableDescriptor desc)
      throws IOException {
    check(
        ctx,
        "clone snapshot " + snapshot.getName() + " as " + desc.getTableName().getNameAsString(),
        addedFamilies(null, desc));
  }

  @Override
  public void preRestoreSnapshot(
      ObserverContext<MasterCoprocessorEnvironment> ctx,
      SnapshotDescription snapshot,
      TableDescriptor desc)
      throws IOException {
    List<String> added = addedFamilies(null, desc);
    if (!added.isEmpty()) {
      TableDescriptor current = null;
      try (Admin admin = ctx.getEnvironment().getConnection().getAdmin()) {
        current = admin.getDescriptor(desc.getTableName());
      } catch (TableNotFoundException gone) {
        // every family is new; SnapshotManager decides clone or restore before calling us
      }
      added = addedFamilies(current, desc);
    }
    check(
        ctx,
        "restore snapshot " + snapshot.getName() + " onto " + desc.getTableName().getNameAsString(),
        added);
  }

  static boolean usesBlockscope(ColumnFamilyDescriptor f) {
    // the string, not getDataBlockEncoding(), which throws when the master lacks the encoding
    String e = f.getValue(ENCODING_KEY);
    return e != null && e.trim().toUpperCase(Locale.ROOT).equals(BlockscopeEncoding.NAME);
  }

  /**
   * The families of {@code next} that use BLOCKSCOPE_V1 and did not in {@code current} (absent
   * there, or another encoding); every BLOCKSCOPE_V1 family when {@code current} is null.
   */
  static List<String> addedFamilies(TableDescriptor current, TableDescriptor next) {
    List<String> names = new ArrayList<>();
    for (ColumnFamilyDescriptor f : next.getColumnFamilies()) {
      if (!usesBlockscope(f)) {
        continue;
      }
      ColumnFamilyDescriptor before = current == null ? null : current.getColumnFamily(f.getName());
      if (before == null || !usesBlockscope(before)) {
        names.add(f.getNameAsString());
      }
    }
    return names;
  }

  /**
   * Why {@code action} must be refused, or empty if it may go ahead: {@code added} are the families
   * it gives BLOCKSCOPE_V1, {@code servers} the live region servers' last reports.
   */
  static Optional<String> refusal(
      String action,
      List<String> added,
      boolean registeredHere,
      Map<ServerName, ServerMetrics> servers) {
    if (added.isEmpty()) {
      return Optional.empty();
    }
    String head =
        "blockscope: refusing to "
            + action
            + ": families "
            + added
            + " would use "
            + BlockscopeEncoding.NAME
            + ", and ";
    if (!registeredHere) {
      return Optional.of(head + "it is not registered in the master (see its log)");
    }
    if (servers.isEmpty()) {
      return Optional.of(head + "no region server is online");
    }
    List<String> missing = new ArrayList<>();
    for (Map.Entry<ServerName, ServerMetrics> s : servers.entrySet()) {
      Set<String> names = s.getValue().getCoprocessorNames();
      if (REGISTRAR_NAMES.stream().noneMatch(names::contains)) {
        missing.add(s.getKey().getServerName());
      }
    }
    if (missing.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        head
            + "these region servers do not report "
            + EncodingRegistrar.class.getName()
            + " (set it in hbase.coprocessor.region.classes and "
            + "restart them; a server that holds no region reports no coprocessor): "
            + missing);
  }

  private static void check(
      ObserverContext<MasterCoprocessorEnvironment> ctx, String action, List<String> added)
      throws IOException {
    if (added.isEmpty()) {
      return;
    }
    Map<ServerName, ServerMetrics> servers;
    try (Admin admin = ctx.getEnvironment().getConnection().getAdmin()) {
      // answered by this master from the servers' last reports (ServerManager); a non-core
      // coprocessor's environment does not hand out the ServerManager itself
      servers =
          admin
              .getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS))
              .getLiveServerMetrics();
    }
    Optional<String> why = refusal(action, added, BlockscopeEncoding.isRegistered(), servers);
    if (why.isPresent()) {
      throw new DoNotRetryIOException(why.get());
    }
    LOG.info(
        "blockscope: {} with {} on families {}: all {} region servers report the registrar",
        action,
        BlockscopeEncoding.NAME,
        added,
        servers.size());
  }
}
