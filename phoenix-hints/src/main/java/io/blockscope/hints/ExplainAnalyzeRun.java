package io.blockscope.hints;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.iterate.ExplainTable;
import org.apache.phoenix.jdbc.PhoenixConnection;

/** Runs an EXPLAIN ANALYZE statement ({@link ExplainAnalyze} parses and renders it). */
final class ExplainAnalyzeRun {
  private ExplainAnalyzeRun() {}

  /** Phoenix's answer to a call that may throw SQLException. */
  interface SqlCall<T> {
    T call() throws SQLException;
  }

  /**
   * A statement's query as Phoenix runs it (the plain statement's or the prepared one's): its plan,
   * optimized (blockscope's extensions applied), and its execution.
   */
  static final class Query {
    private final SqlCall<QueryPlan> plan;
    private final SqlCall<ResultSet> run;

    Query(SqlCall<QueryPlan> plan, SqlCall<ResultSet> run) {
      this.plan = plan;
      this.run = run;
    }

    SqlCall<QueryPlan> plan() {
      return plan;
    }

    SqlCall<ResultSet> run() {
      return run;
    }
  }

  /**
   * EXPLAIN ANALYZE: the plan as Phoenix's EXPLAIN gives it (its region locations left out, as
   * there), then the query run to completion with PROFILE at the request's level, its rows counted
   * and dropped, and the costs the region servers recorded for it.
   */
  static Object run(
      ExplainAnalyze.Request request,
      Query query,
      String executeMethod,
      PhoenixConnection connection,
      AtomicReference<ResultSet> last)
      throws SQLException {
    if (!executeMethod.equals("execute") && !executeMethod.equals("executeQuery")) {
      throw new SQLException(
          "blockscope: EXPLAIN ANALYZE returns rows: run it with executeQuery or execute, not "
              + executeMethod,
          ExplainAnalyze.NOT_SUPPORTED);
    }
    last.set(null);
    QueryExtensions e = request.extensions();
    long start = System.nanoTime();
    List<String> plan = new ArrayList<>();
    long rows = 0;
    Set<String> tables;
    QueryPlan executed;
    String id;
    List<String> refused;
    try (QueryContext context = new QueryContext(e, StatementShape.of(request.query()))) {
      for (String step : query.plan().call().getExplainPlan().getPlanSteps()) {
        if (step != null && !step.contains(REGION_LOCATIONS)) {
          plan.add(step);
        }
      }
      try (ResultSet rs = query.run().call()) {
        while (rs.next()) {
          rows++;
        }
        executed = JdbcProxies.executedPlan(rs.getStatement());
      }
      tables = context.tables();
      id = context.id;
      refused = context.refused();
    }
    long wall = System.nanoTime() - start;
    QueryProfile profile =
        ProfileClient.fetch(connection, ProfileClient.reads(executed, tables), id, null);
    QueryExtensions shown =
        new QueryExtensions(e.noCache(), e.serial(), QueryExtensions.Profile.NONE, true);
    ResultSet result =
        ExplainResults.lines(
            ExplainAnalyze.render(
                new ExplainAnalyze.Outcome(
                    request,
                    e.profile().level(),
                    plan,
                    shown.explainLines(refused),
                    profile,
                    rows,
                    wall)));
    last.set(result);
    return executeMethod.equals("execute") ? (Object) true : result;
  }

  /**
   * What Phoenix's EXPLAIN leaves out of its default form ({@code ExplainTable.REGION_LOCATIONS} in
   * Phoenix 5.2 and 5.3, a compile-time constant copied here by javac).
   */
  private static final String REGION_LOCATIONS = ExplainTable.REGION_LOCATIONS;
}
