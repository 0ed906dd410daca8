package io.blockscope.hints;

import io.blockscope.metrics.Attributes;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.iterate.ParallelIteratorFactory;
import org.apache.phoenix.jdbc.PhoenixStatement;
import org.apache.phoenix.optimize.QueryOptimizer;
import org.apache.phoenix.query.QueryServices;
import org.apache.phoenix.schema.PDatum;

/**
 * Phoenix's optimizer, then blockscope's extensions applied to the plan it chose. {@code
 * PhoenixStatement.executeQuery} asks the connection's query services for the optimizer right
 * before it builds the plan's iterator, so what is set here is in place when the region scans are
 * copied from the plan's scans.
 */
final class ExtendingOptimizer extends QueryOptimizer {
  /** The extensions of the statement this thread is executing through a blockscope connection. */
  static final ThreadLocal<QueryExtensions> CURRENT = new ThreadLocal<>();

  /** The id the current execution tags its scans with (SERIAL and PROFILE queries). */
  static final ThreadLocal<String> QUERY_ID = new ThreadLocal<>();

  /** The statement the current execution's scans name, and its text when it is to be sent. */
  static final ThreadLocal<StatementShape.Tag> STATEMENT = new ThreadLocal<>();

  /** Why SERIAL could not be applied to parts of the last plan this thread optimized. */
  static final ThreadLocal<List<String>> REFUSED = new ThreadLocal<>();

  /** The physical tables the current execution's tagged plans scan. */
  static final ThreadLocal<Set<String>> TABLES = new ThreadLocal<>();

  ExtendingOptimizer(QueryServices services) {
    super(services);
  }

  /**
   * Phoenix's two-argument form hands a plan with a table to the four-argument form below (which
   * extends it) and returns a plan without one (a union, EXPLAIN's one-row plan) as it is; only
   * that second case is extended here, so no plan is extended twice.
   */
  @Override
  public QueryPlan optimize(PhoenixStatement statement, QueryPlan dataPlan) throws SQLException {
    QueryPlan plan = super.optimize(statement, dataPlan);
    return dataPlan.getTableRef() == null ? extend(plan) : plan;
  }

  @Override
  public QueryPlan optimize(
      QueryPlan dataPlan,
      PhoenixStatement statement,
      List<? extends PDatum> targetColumns,
      ParallelIteratorFactory parallelIteratorFactory)
      throws SQLException {
    return extend(super.optimize(dataPlan, statement, targetColumns, parallelIteratorFactory));
  }

  static QueryPlan extend(QueryPlan plan) throws SQLException {
    QueryExtensions e = CURRENT.get();
    if (e == null || plan == null) {
      return plan;
    }
    if (e.serial()) {
      plan = SerialPlans.sortOnClient(plan);
    }
    String id = QUERY_ID.get();
    byte[] tag = id == null ? null : id.getBytes(StandardCharsets.US_ASCII);
    byte[] level =
        e.profile() == QueryExtensions.Profile.NONE ? null : e.profile().level().toAttribute();
    StatementShape.Tag statement = STATEMENT.get();
    PlanScans.forEach(
        plan,
        scan -> {
          if (e.noCache()) {
            scan.setCacheBlocks(false);
          }
          if (tag != null) {
            scan.setAttribute(Attributes.QUERY, tag);
          }
          if (statement != null) {
            statement.applyTo(scan);
          }
          if (level != null) {
            scan.setAttribute(Attributes.PROFILE, level);
            // HBase 2.6.4 on tracks its own server-side read metrics only for scans that ask; the
            // coprocessor then shows them in the profile beside blockscope's (on older HBase the
            // flag only adds HBase's client-side scan metrics)
            scan.setScanMetricsEnabled(true);
          }
        });
    if (id != null) {
      Set<String> tables = TABLES.get();
      if (tables != null) {
        tables.addAll(PlanScans.tables(plan));
      }
    }
    if (e.serial()) {
      // Phoenix may optimize more than once per statement (EXPLAIN optimizes the query, then
      // its own one-row plan): keep every distinct reason.
      List<String> refused = REFUSED.get();
      if (refused == null) {
        refused = new ArrayList<>();
        REFUSED.set(refused);
      }
      for (String why : SerialPlans.force(plan)) {
        if (!refused.contains(why)) {
          refused.add(why);
        }
      }
    }
    return plan;
  }
}
