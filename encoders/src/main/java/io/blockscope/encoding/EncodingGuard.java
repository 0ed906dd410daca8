package io.blockscope.encoding;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessor;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.MasterObserver;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's side of BLOCKSCOPE_V1 ({@code hbase.coprocessor.master.classes}): registers the
 * encoding in the master, and refuses a CREATE or ALTER that gives a column family the encoding
 * unless every live region server reports {@link EncodingRegistrar} among its coprocessors, so
 * that no server is handed a store it cannot open. HBase's master does not look at a family's
 * encoding itself: without this check, the regions of such a table would fail to open, over
 * and over, wherever the encoding is missing.
 *
 * <p>What it reads: the live servers' metrics ({@code Admin.getClusterMetrics(LIVE_SERVERS)},
 * answered by this master from the region servers' last reports; the coprocessor environment of
 * a non-core coprocessor does not hand out the master's ServerManager), whose coprocessor names
 * are those of the coprocessors of the regions each server holds. A server that holds no region
 * reports none and is refused too (its status cannot be known).
 */
public final class EncodingGuard implements MasterCoprocessor, MasterObserver {
  private static final Logger LOG = LoggerFactory.getLogger(EncodingGuard.class);
  private static final String REGISTRAR = EncodingRegistrar.class.getSimpleName();

  @Override
  public void start(CoprocessorEnvironment env) {
    try {
      BlockscopeEncoding.register();
    } catch (RuntimeException | LinkageError e) {
      LOG.error("blockscope: cannot register data block encoding {} in the master; CREATE and "
          + "ALTER that set it will be refused", BlockscopeEncoding.NAME, e);
    }
  }

  @Override
  public Optional<MasterObserver> getMasterObserver() {
    return Optional.of(this);
  }

  @Override
  public void preCreateTable(ObserverContext<MasterCoprocessorEnvironment> ctx,
      TableDescriptor desc, RegionInfo[] regions) throws IOException {
    check(ctx, desc, "create");
  }

  @Override
  public TableDescriptor preModifyTable(ObserverContext<MasterCoprocessorEnvironment> ctx,
      TableName tableName, TableDescriptor current, TableDescriptor next) throws IOException {
    check(ctx, next, "alter");
    return next;
  }

  /** The families of {@code desc} that use BLOCKSCOPE_V1. */
  static List<String> families(TableDescriptor desc) {
    List<String> names = new ArrayList<>();
    for (ColumnFamilyDescriptor f : desc.getColumnFamilies()) {
      String e = f.getValue("DATA_BLOCK_ENCODING");
      if (e != null && e.trim().toUpperCase(Locale.ROOT).equals(BlockscopeEncoding.NAME)) {
        names.add(f.getNameAsString());
      }
    }
    return names;
  }

  private static void check(ObserverContext<MasterCoprocessorEnvironment> ctx,
      TableDescriptor desc, String what) throws IOException {
    List<String> families = families(desc);
    if (families.isEmpty()) {
      return;
    }
    String table = desc.getTableName().getNameAsString();
    if (!BlockscopeEncoding.isRegistered()) {
      throw new DoNotRetryIOException("blockscope: refusing to " + what + " " + table
          + ": families " + families + " use " + BlockscopeEncoding.NAME + ", which is not "
          + "registered in the master (see its log)");
    }
    Map<ServerName, ServerMetrics> servers;
    try (Admin admin = ctx.getEnvironment().getConnection().getAdmin()) {
      servers = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS))
          .getLiveServerMetrics();
    }
    List<String> missing = new ArrayList<>();
    for (Map.Entry<ServerName, ServerMetrics> s : servers.entrySet()) {
      if (!s.getValue().getCoprocessorNames().contains(REGISTRAR)) {
        missing.add(s.getKey().getServerName());
      }
    }
    if (servers.isEmpty() || !missing.isEmpty()) {
      throw new DoNotRetryIOException("blockscope: refusing to " + what + " " + table
          + ": families " + families + " use " + BlockscopeEncoding.NAME + ", and "
          + (servers.isEmpty() ? "no region server is online"
              : "these region servers do not report " + EncodingRegistrar.class.getName()
                  + " (set it in hbase.coprocessor.region.classes and restart them; a server "
                  + "that holds no region reports no coprocessor): " + missing));
    }
    LOG.info("blockscope: {} {} with {} on families {}: all {} region servers registered it",
        what, table, BlockscopeEncoding.NAME, families, servers.size());
  }
}
