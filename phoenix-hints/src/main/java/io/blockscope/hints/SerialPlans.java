package io.blockscope.hints;

import java.lang.reflect.Field;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.apache.phoenix.compile.GroupByCompiler.GroupBy;
import org.apache.phoenix.compile.OrderByCompiler.OrderBy;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.execute.AggregatePlan;
import org.apache.phoenix.execute.BaseQueryPlan;
import org.apache.phoenix.execute.ClientScanPlan;
import org.apache.phoenix.execute.DelegateQueryPlan;
import org.apache.phoenix.execute.HashJoinPlan;
import org.apache.phoenix.execute.ScanPlan;
import org.apache.phoenix.execute.SortMergeJoinPlan;
import org.apache.phoenix.execute.UnionPlan;
import org.apache.phoenix.parse.FilterableStatement;
import org.apache.phoenix.parse.HintNode;
import org.apache.phoenix.parse.HintNode.Hint;
import org.apache.phoenix.parse.SelectStatement;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.PTable.IndexType;
import org.apache.phoenix.thirdparty.com.google.common.base.Optional;
import org.apache.phoenix.util.ScanUtil;

/**
 * SERIAL for the plans Phoenix would run in parallel although the hint asks otherwise.
 *
 * <p>A {@link ScanPlan} or {@link AggregatePlan} runs its region scans through {@code
 * SerialIterators} when its private {@code isSerial} flag is set: one scanner at a time, each
 * opened when the previous one is exhausted and closed, in key order (reverse order for a reverse
 * scan). Phoenix sets the flag from the hint only for a LIMIT without filter ({@code
 * ScanPlan.isSerial}) or for aggregates ({@code AggregatePlan}'s constructor), so the flag is set
 * here on every plan of the tree where serial execution returns the same rows: plans whose results
 * need no merge across regions. A scan sorted on other columns is first rewritten to sort on the
 * client ({@link #sortOnClient}); a GROUP BY that is not along the row key keeps Phoenix's parallel
 * plan and merge, with its region tasks run one by one ({@link SerialExecutor}). A hash join's
 * sub-plans run one after the other before its left side ({@link SerialExecutor} again); a
 * sort-merge join's sides are read whole one after the other ({@link SpooledJoinSide}); a UNION ALL
 * reads its branches in turn (with ORDER BY, sorted on the client). Only a salted table or local
 * index read in row-key order still needs its scans merged side by side: it is left as Phoenix
 * planned it, and the reason is reported.
 */
final class SerialPlans {
  private static final Field SCAN_SERIAL = field(ScanPlan.class);
  private static final Field AGGREGATE_SERIAL = field(AggregatePlan.class);
  private static final Field SELECT_HINT = hintField();
  private static final Field MERGE_LHS = planField(SortMergeJoinPlan.class, "lhsPlan");
  private static final Field MERGE_RHS = planField(SortMergeJoinPlan.class, "rhsPlan");
  private static final Field DELEGATE = planField(DelegateQueryPlan.class, "delegate");

  private SerialPlans() {}

  private static Field field(Class<?> type) {
    try {
      Field f = type.getDeclaredField("isSerial");
      if (f.getType() != boolean.class) {
        throw new IllegalStateException(type.getName() + ".isSerial is not a boolean");
      }
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException(
          "blockscope SERIAL: this Phoenix has no "
              + type.getName()
              + ".isSerial (built against Phoenix 5.2.1)",
          e);
    }
  }

  private static Field planField(Class<?> type, String name) {
    try {
      Field f = type.getDeclaredField(name);
      if (f.getType() != QueryPlan.class) {
        throw new IllegalStateException(type.getName() + "." + name + " is not a QueryPlan");
      }
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException(
          "blockscope SERIAL: this Phoenix has no "
              + type.getName()
              + "."
              + name
              + " (built against Phoenix 5.2.1)",
          e);
    }
  }

  private static void replace(Field f, Object owner, QueryPlan plan) {
    try {
      f.set(owner, plan);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Field hintField() {
    try {
      Field f = SelectStatement.class.getDeclaredField("hint");
      if (f.getType() != HintNode.class) {
        throw new IllegalStateException("SelectStatement.hint is not a HintNode");
      }
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException(
          "blockscope SERIAL: this Phoenix has no "
              + "SelectStatement.hint (built against Phoenix 5.2.1)",
          e);
    }
  }

  /** Makes every plan of the tree serial where that is safe; returns why the others are not. */
  static List<String> force(QueryPlan root) throws SQLException {
    List<String> refused = new ArrayList<>();
    visit(root, refused);
    return refused;
  }

  /**
   * A plan whose top is a scan sorted on columns outside the row key, rewritten so that it can run
   * serially: the regions' rows, each region still sorted (and cut to the LIMIT) on its server as
   * Phoenix asked ({@code ScanPlan}'s constructor put that in the scan), come back one region after
   * the other, and the client sorts them all again ({@link ClientScanPlan}, which spools to disk
   * past {@code phoenix.query.spoolThresholdBytes}) instead of merging the regions' streams side by
   * side. Any other plan comes back as it was.
   */
  static QueryPlan sortOnClient(QueryPlan root) throws SQLException {
    if (root instanceof UnionPlan
        && !((UnionPlan) root).getOrderBy().getOrderByExpressions().isEmpty()) {
      UnionPlan u = (UnionPlan) root;
      // Phoenix merges the branches' sorted streams side by side; here the branches are read
      // one after the other and the client sorts them all, as for a single sorted scan.
      List<QueryPlan> branches = new ArrayList<>();
      for (QueryPlan branch : u.getSubPlans()) {
        branches.add(sortOnClient(branch));
      }
      UnionPlan concatenated =
          new UnionPlan(
              u.getContext(),
              u.getStatement(),
              u.getTableRef(),
              u.getProjector(),
              null,
              null,
              OrderBy.EMPTY_ORDER_BY,
              GroupBy.EMPTY_GROUP_BY,
              branches,
              u.getParameterMetaData());
      return new ClientScanPlan(
          u.getContext(),
          u.getStatement(),
          u.getTableRef(),
          u.getProjector(),
          u.getLimit(),
          u.getOffset(),
          null,
          u.getOrderBy(),
          concatenated);
    }
    if (!(root instanceof ScanPlan)
        || ((ScanPlan) root).getOrderBy().getOrderByExpressions().isEmpty()) {
      return root;
    }
    ScanPlan s = (ScanPlan) root;
    PTable table = s.getTableRef().getTable();
    if (table.getBucketNum() != null || table.getIndexType() == IndexType.LOCAL) {
      return root;
    }
    ScanPlan unsorted =
        new ScanPlan(
            s.getContext(),
            s.getStatement(),
            s.getTableRef(),
            s.getProjector(),
            null,
            null,
            OrderBy.EMPTY_ORDER_BY,
            null,
            false,
            null,
            Optional.<byte[]>absent());
    return new ClientScanPlan(
        s.getContext(),
        s.getStatement(),
        s.getTableRef(),
        s.getProjector(),
        s.getLimit(),
        s.getOffset(),
        null,
        s.getOrderBy(),
        unsorted);
  }

  private static void visit(QueryPlan p, List<String> refused) throws SQLException {
    if (p instanceof HashJoinPlan) {
      HashJoinPlan h = (HashJoinPlan) p;
      // The sub-plans build the hash tables, then the left side scans with them. Phoenix starts
      // every sub-plan at once on its pool and waits for them in order: deferred, each runs in
      // the waiting thread, one after the other, before the left side starts.
      for (HashJoinPlan.SubPlan s : h.getSubPlans()) {
        visit(s.getInnerPlan(), refused);
      }
      SerialExecutor.defer(h);
      visit(h.getDelegate(), refused);
      return;
    }
    if (p instanceof SortMergeJoinPlan) {
      SortMergeJoinPlan m = (SortMergeJoinPlan) p;
      // Each side read whole, one after the other, then merged on the client.
      Object lock = new Object();
      QueryPlan lhs = m.getLhsPlan();
      QueryPlan rhs = m.getRhsPlan();
      if (!(lhs instanceof SpooledJoinSide)) {
        // A side sorted on the join key is sorted on the client too: it is read whole anyway.
        lhs = new SpooledJoinSide(sortOnClient(lhs), lock);
        rhs = new SpooledJoinSide(sortOnClient(rhs), lock);
        replace(MERGE_LHS, m, lhs);
        replace(MERGE_RHS, m, rhs);
      }
      visit(lhs, refused);
      visit(rhs, refused);
      return;
    }
    if (p instanceof UnionPlan) {
      UnionPlan u = (UnionPlan) p;
      if (!u.getOrderBy().getOrderByExpressions().isEmpty() || u.isSupportOrderByOptimize()) {
        // At the top of the plan an ORDER BY was moved to the client (sortOnClient); below it,
        // or as a sorted derived table, the branches are merged side by side.
        refused.add("a UNION ALL inside the query merges its sorted branches side by side");
        return;
      }
      // Without ORDER BY the branches are read one after the other; a branch does not open a
      // scanner before it is read.
      for (QueryPlan branch : u.getSubPlans()) {
        visit(branch, refused);
      }
      return;
    }
    if (p instanceof DelegateQueryPlan) {
      DelegateQueryPlan d = (DelegateQueryPlan) p;
      // A sorted scan under a client-side step (a derived table, a client aggregate) is sorted
      // on the client as at the top of the plan.
      QueryPlan inner = sortOnClient(d.getDelegate());
      if (inner != d.getDelegate()) {
        replace(DELEGATE, d, inner);
      }
      visit(inner, refused);
      return;
    }
    if (p instanceof ScanPlan) {
      ScanPlan s = (ScanPlan) p;
      String why = needsMerge(s, null);
      set(SCAN_SERIAL, s, why, refused);
    } else if (p instanceof AggregatePlan) {
      AggregatePlan a = (AggregatePlan) p;
      String why = needsMerge(a, a.getGroupBy());
      if (why != null && why.startsWith("GROUP BY not along")) {
        // Phoenix's parallel plan and merge, its region tasks run one by one (SerialExecutor).
        try {
          AGGREGATE_SERIAL.setBoolean(a, false);
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
        SerialExecutor.defer(a);
        return;
      }
      set(AGGREGATE_SERIAL, a, why, refused);
    }
  }

  /**
   * Serial where that keeps the rows; parallel, with the reason reported, where it would not. The
   * second case also undoes Phoenix's own choice: Phoenix 5.2.1 makes an aggregate serial on the
   * hint alone, and a GROUP BY that is not along the row key then returns each region's groups
   * unmerged (HintsSerialIT shows 44 groups for 11 on four regions).
   */
  private static void set(Field f, QueryPlan p, String why, List<String> refused) {
    if (why == null) {
      hint(p);
    }
    try {
      f.setBoolean(p, why == null);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
    if (why != null) {
      refused.add(why);
    }
  }

  /**
   * Phoenix's {@code SerialIterators} insists on the SERIAL hint in the plan's own statement; a
   * union branch or a join's sub-query is a statement of its own, parsed with its own hints, so the
   * query's hint is added to it. Each plan has its own parsed statement, so nothing outside this
   * query sees the change.
   */
  private static void hint(QueryPlan p) {
    FilterableStatement statement = p.getStatement();
    if (statement instanceof SelectStatement
        && !((SelectStatement) statement).getHint().hasHint(Hint.SERIAL)) {
      SelectStatement s = (SelectStatement) statement;
      try {
        SELECT_HINT.set(s, HintNode.create(s.getHint(), Hint.SERIAL));
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Why the plan's results must be merged across regions, or null if they need not be. */
  private static String needsMerge(BaseQueryPlan p, GroupBy groupBy) {
    if (!p.getOrderBy().getOrderByExpressions().isEmpty()) {
      return "ORDER BY on columns outside the row key merges every region's sorted rows";
    }
    PTable table = p.getTableRef().getTable();
    boolean keyOrderAcrossScans =
        table.getBucketNum() != null || table.getIndexType() == IndexType.LOCAL;
    if (keyOrderAcrossScans
        && groupBy == null
        && ScanUtil.shouldRowsBeInRowKeyOrder(p.getOrderBy(), p.getContext())) {
      // ScanPlan would merge the scans of the salt buckets (or local index regions) by row key;
      // read one after the other they would come back bucket by bucket.
      return "rows in row-key order from a salted table or local index merge its scans";
    }
    if (groupBy != null && !groupBy.isEmpty() && !groupBy.isUngroupedAggregate()) {
      if (!groupBy.isOrderPreserving()) {
        return "GROUP BY not along the row key merges every region's groups";
      }
      if (keyOrderAcrossScans) {
        return "GROUP BY on a salted table or local index merges the scans' groups";
      }
    }
    return null;
  }
}
