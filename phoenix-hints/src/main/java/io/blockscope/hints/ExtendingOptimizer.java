package io.blockscope.hints;

import java.sql.SQLException;
import java.util.List;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.iterate.ParallelIteratorFactory;
import org.apache.phoenix.jdbc.PhoenixStatement;
import org.apache.phoenix.optimize.QueryOptimizer;
import org.apache.phoenix.query.QueryServices;
import org.apache.phoenix.schema.PDatum;

/**
 * Phoenix's optimizer, then blockscope's extensions applied to the plan it chose.
 * {@code PhoenixStatement.executeQuery} asks the connection's query services for the optimizer
 * right before it builds the plan's iterator, so what is set here is in place when the region
 * scans are copied from the plan's scans.
 */
final class ExtendingOptimizer extends QueryOptimizer {
  /** The extensions of the statement this thread is executing through a blockscope connection. */
  static final ThreadLocal<QueryExtensions> CURRENT = new ThreadLocal<>();

  ExtendingOptimizer(QueryServices services) {
    super(services);
  }

  @Override
  public QueryPlan optimize(PhoenixStatement statement, QueryPlan dataPlan) throws SQLException {
    return extend(super.optimize(statement, dataPlan));
  }

  @Override
  public QueryPlan optimize(QueryPlan dataPlan, PhoenixStatement statement,
      List<? extends PDatum> targetColumns, ParallelIteratorFactory parallelIteratorFactory)
      throws SQLException {
    return extend(super.optimize(dataPlan, statement, targetColumns, parallelIteratorFactory));
  }

  static QueryPlan extend(QueryPlan plan) {
    QueryExtensions e = CURRENT.get();
    if (e != null && plan != null && e.noCache()) {
      PlanScans.forEach(plan, scan -> scan.setCacheBlocks(false));
    }
    return plan;
  }
}
