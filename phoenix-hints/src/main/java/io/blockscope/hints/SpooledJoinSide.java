package io.blockscope.hints;

import java.sql.SQLException;
import java.util.List;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.phoenix.compile.ExplainPlan;
import org.apache.phoenix.compile.ExplainPlanAttributes.ExplainPlanAttributesBuilder;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.execute.DelegateQueryPlan;
import org.apache.phoenix.execute.visitor.QueryPlanVisitor;
import org.apache.phoenix.iterate.ParallelScanGrouper;
import org.apache.phoenix.iterate.ResultIterator;
import org.apache.phoenix.iterate.SpoolingResultIterator.SpoolingResultIteratorFactory;
import org.apache.phoenix.schema.tuple.Tuple;

/**
 * One side of a sort-merge join under SERIAL. Phoenix's {@code SortMergeJoinPlan} reads its two
 * sides side by side (it even starts them on two threads), so each side would keep a scanner open
 * while the other reads. Here a side is read completely the first time the join asks it for a row,
 * holding a lock the two sides share, and kept on the client the way Phoenix spools results ({@code
 * SpoolingResultIterator}: in memory up to {@code phoenix.query.spoolThresholdBytes}, then a
 * temporary file up to {@code phoenix.query.maxSpoolToDiskBytes}, past which the query fails rather
 * than grow). The join then merges the two spooled sides. Rows and order are the side's own; only
 * when its scans run changes.
 */
final class SpooledJoinSide extends DelegateQueryPlan {
  private final Object lock;

  SpooledJoinSide(QueryPlan side, Object lock) {
    super(side);
    this.lock = lock;
  }

  @Override
  public ResultIterator iterator(ParallelScanGrouper grouper, Scan scan) throws SQLException {
    return new Spooled(grouper, scan);
  }

  @Override
  public ExplainPlan getExplainPlan() throws SQLException {
    return delegate.getExplainPlan();
  }

  @Override
  public <T> T accept(QueryPlanVisitor<T> visitor) {
    return delegate.accept(visitor);
  }

  /** Reads the whole side, under the shared lock, when first asked for a row. */
  private final class Spooled implements ResultIterator {
    private final ParallelScanGrouper grouper;
    private final Scan scan;
    private ResultIterator rows;
    private boolean closed;

    Spooled(ParallelScanGrouper grouper, Scan scan) {
      this.grouper = grouper;
      this.scan = scan;
    }

    @Override
    public Tuple next() throws SQLException {
      if (closed) {
        return null;
      }
      if (rows == null) {
        synchronized (lock) {
          ResultIterator side = delegate.iterator(grouper, scan);
          String table =
              delegate.getTableRef() == null
                  ? "join side"
                  : delegate.getTableRef().getTable().getPhysicalName().getString();
          // The factory reads `side` to its end and closes it before returning.
          rows =
              new SpoolingResultIteratorFactory(getContext().getConnection().getQueryServices())
                  .newIterator(getContext(), side, scan, table, delegate);
        }
      }
      return rows.next();
    }

    @Override
    public void close() throws SQLException {
      closed = true;
      if (rows != null) {
        rows.close();
      }
    }

    @Override
    public void explain(List<String> planSteps) {}

    @Override
    public void explain(List<String> planSteps, ExplainPlanAttributesBuilder builder) {}
  }
}
