package io.blockscope.hints;

import io.blockscope.metrics.Attributes;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Map;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.phoenix.cache.ServerCacheClient;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.execute.MutationState;
import org.apache.phoenix.hbase.index.util.ImmutableBytesPtr;
import org.apache.phoenix.iterate.DefaultTableResultIteratorFactory;
import org.apache.phoenix.iterate.ParallelScanGrouper;
import org.apache.phoenix.iterate.TableResultIterator;
import org.apache.phoenix.iterate.TableResultIteratorFactory;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.monitoring.ScanMetricsHolder;
import org.apache.phoenix.query.ConnectionQueryServices;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.TableRef;

/**
 * Puts a statement's text on the region scans of a parallel plan only where the scan's region
 * server has not had it from this process lately ({@link StatementShape.Sent#dueAt}), and takes it
 * off the others, just before Phoenix makes each scan's iterator.
 *
 * <p>Phoenix's {@code ParallelIterators.submitWork} makes the iterator of every region scan (each
 * parallel chunk of each region) through its connection's {@link TableResultIteratorFactory}
 * ({@code PhoenixConnection.getTableResultIteratorFactory}), and {@code TableResultIterator} reads
 * the plan table's physical HBase table. The scan's server is where the region holding its start
 * row is, in the connection's region cache ({@code
 * ConnectionQueryServices.getTableRegionLocation}), which Phoenix filled when it cut the scans. A
 * reversed scan, a scan of a statement this process does not know, or one whose server cannot be
 * told is left as the plan made it ({@link StatementShape.Sent#tag}'s rule). Scans that Phoenix
 * makes otherwise (serial plans) keep that rule too. Never throws from its own work.
 */
final class StatementTextPlacer implements TableResultIteratorFactory {
  private final TableResultIteratorFactory delegate;
  private final ConnectionQueryServices services;
  private final StatementShape.Sent sent;

  StatementTextPlacer(
      TableResultIteratorFactory delegate,
      ConnectionQueryServices services,
      StatementShape.Sent sent) {
    this.delegate = delegate == null ? new DefaultTableResultIteratorFactory() : delegate;
    this.services = services;
    this.sent = sent;
  }

  @Override
  public TableResultIterator newIterator(
      MutationState mutationState,
      TableRef tableRef,
      Scan scan,
      ScanMetricsHolder scanMetricsHolder,
      long renewLeaseThreshold,
      QueryPlan plan,
      ParallelScanGrouper scanGrouper,
      Map<ImmutableBytesPtr, ServerCacheClient.ServerCache> caches,
      long maxQueryEndTime)
      throws SQLException {
    place(scan, plan);
    return delegate.newIterator(
        mutationState,
        tableRef,
        scan,
        scanMetricsHolder,
        renewLeaseThreshold,
        plan,
        scanGrouper,
        caches,
        maxQueryEndTime);
  }

  /**
   * Installs a placer in front of {@code pc}'s iterator factory when this Phoenix's factory
   * interface is the one this class implements (one method, {@code newIterator}, of these
   * parameters); on another, the connection keeps its factory and {@link StatementShape.Sent#tag}'s
   * rule alone decides (StatementTagsIT fails then). Never throws.
   */
  static void install(PhoenixConnection pc, StatementShape.Sent sent) {
    if (!FITS) {
      return; // another Phoenix: the text goes as the plan's scans carry it
    }
    try {
      pc.setTableResultIteratorFactory(
          new StatementTextPlacer(pc.getTableResultIteratorFactory(), pc.getQueryServices(), sent));
    } catch (RuntimeException | LinkageError e) {
      // the connection keeps its own factory
    }
  }

  /** Whether this JVM's Phoenix has the factory interface this class implements, checked once. */
  private static final boolean FITS = fits();

  private static boolean fits() {
    try {
      Method[] methods = TableResultIteratorFactory.class.getMethods();
      if (methods.length != 1) {
        return false;
      }
      // throws NoSuchMethodException unless this class implements that method as it is now
      StatementTextPlacer.class.getMethod(methods[0].getName(), methods[0].getParameterTypes());
      return true;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return false;
    }
  }

  /** Sets or removes the text of the statement {@code scan} names, for its server. */
  void place(Scan scan, QueryPlan plan) {
    try {
      byte[] fingerprint = scan.getAttribute(Attributes.STATEMENT);
      if (fingerprint == null || scan.isReversed() || plan == null) {
        return;
      }
      String server = server(scan, plan);
      if (server == null) {
        return;
      }
      String statement = new String(fingerprint, StandardCharsets.US_ASCII);
      byte[] text = sent.dueAt(statement, server);
      if (text != null || sent.knows(statement)) {
        scan.setAttribute(Attributes.STATEMENT_TEXT, text); // null removes it
      }
    } catch (RuntimeException | SQLException | LinkageError e) {
      // the scan keeps what the plan gave it
    }
  }

  /** The region server of the region holding {@code scan}'s start row, or null if unknown. */
  private String server(Scan scan, QueryPlan plan) throws SQLException {
    PTable table = plan.getTableRef() == null ? null : plan.getTableRef().getTable();
    if (table == null || table.getPhysicalName() == null) {
      return null;
    }
    HRegionLocation location =
        services.getTableRegionLocation(table.getPhysicalName().getBytes(), scan.getStartRow());
    return location == null || location.getServerName() == null
        ? null
        : location.getServerName().getServerName();
  }
}
