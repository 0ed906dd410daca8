package io.blockscope.hints;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import org.apache.phoenix.compile.GroupByCompiler.GroupBy;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.compile.OrderByCompiler.OrderBy;
import org.apache.phoenix.execute.AggregatePlan;
import org.apache.phoenix.execute.ClientScanPlan;
import org.apache.phoenix.execute.BaseQueryPlan;
import org.apache.phoenix.execute.DelegateQueryPlan;
import org.apache.phoenix.execute.HashJoinPlan;
import org.apache.phoenix.execute.ScanPlan;
import org.apache.phoenix.execute.SortMergeJoinPlan;
import org.apache.phoenix.execute.UnionPlan;
import org.apache.phoenix.parse.HintNode;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.PTable.IndexType;

/**
 * SERIAL for the plans Phoenix would run in parallel although the hint asks otherwise.
 *
 * <p>A {@link ScanPlan} or {@link AggregatePlan} runs its region scans through
 * {@code SerialIterators} when its private {@code isSerial} flag is set: one scanner at a time,
 * each opened when the previous one is exhausted and closed, in key order (reverse order for a
 * reverse scan). Phoenix sets the flag from the hint only for a LIMIT without filter
 * ({@code ScanPlan.isSerial}) or for aggregates ({@code AggregatePlan}'s constructor), so the
 * flag is set here on every plan of the tree where serial execution returns the same rows:
 * plans whose results need no merge across regions. A scan sorted on other columns is first
 * rewritten to sort on the client ({@link #sortOnClient}); a GROUP BY that is not along the row
 * key keeps Phoenix's parallel plan and merge, with its region tasks run one by one
 * ({@link SerialExecutor}). A plan that still needs a merge (salted tables and local indexes that
 * need row-key order, ORDER BY below the top of the plan, joins, unions) is left as Phoenix
 * planned it, and the reason is reported.
 */
final class SerialPlans {
  private static final Field SCAN_SERIAL = field(ScanPlan.class);
  private static final Field AGGREGATE_SERIAL = field(AggregatePlan.class);

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
      throw new IllegalStateException("blockscope SERIAL: this Phoenix has no "
          + type.getName() + ".isSerial (built against Phoenix 5.2.1)", e);
    }
  }

  /** Makes every plan of the tree serial where that is safe; returns why the others are not. */
  static List<String> force(QueryPlan root) {
    List<String> refused = new ArrayList<>();
    visit(root, refused);
    return refused;
  }

  /**
   * A plan whose top is a scan sorted on columns outside the row key, rewritten so that it can
   * run serially: the regions' rows, each region still sorted (and cut to the LIMIT) on its
   * server as Phoenix asked ({@code ScanPlan}'s constructor put that in the scan), come back one
   * region after the other, and the client sorts them all again ({@link ClientScanPlan}, which
   * spools to disk past {@code phoenix.query.spoolThresholdBytes}) instead of merging the regions'
   * streams side by side. Any other plan comes back as it was.
   */
  static QueryPlan sortOnClient(QueryPlan root) throws java.sql.SQLException {
    if (!(root instanceof ScanPlan s) || s.getOrderBy().getOrderByExpressions().isEmpty()) {
      return root;
    }
    PTable table = s.getTableRef().getTable();
    if (table.getBucketNum() != null || table.getIndexType() == IndexType.LOCAL) {
      return root;
    }
    ScanPlan unsorted = new ScanPlan(s.getContext(), s.getStatement(), s.getTableRef(),
        s.getProjector(), null, null, OrderBy.EMPTY_ORDER_BY, null, false, null,
        org.apache.phoenix.thirdparty.com.google.common.base.Optional.<byte[]>absent());
    return new ClientScanPlan(s.getContext(), s.getStatement(), s.getTableRef(),
        s.getProjector(), s.getLimit(), s.getOffset(), null, s.getOrderBy(), unsorted);
  }

  private static void visit(QueryPlan p, List<String> refused) {
    if (p instanceof HashJoinPlan || p instanceof SortMergeJoinPlan) {
      refused.add("joins run their sides at once");
      return;
    }
    if (p instanceof UnionPlan) {
      refused.add("UNION ALL runs its branches at once");
      return;
    }
    if (p instanceof DelegateQueryPlan d) {
      visit(d.getDelegate(), refused);
      return;
    }
    if (p instanceof ScanPlan s) {
      String why = needsMerge(s, null);
      set(SCAN_SERIAL, s, why, refused);
    } else if (p instanceof AggregatePlan a) {
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
   * Serial where that keeps the rows; parallel, with the reason reported, where it would not.
   * The second case also undoes Phoenix's own choice: Phoenix 5.2.1 makes an aggregate serial on
   * the hint alone, and a GROUP BY that is not along the row key then returns each region's
   * groups unmerged (HintsSerialIT shows 44 groups for 11 on four regions).
   */
  private static void set(Field f, QueryPlan p, String why, List<String> refused) {
    if (why == null && !p.getStatement().getHint().hasHint(HintNode.Hint.SERIAL)) {
      // Phoenix's SerialIterators insists on the hint in the plan's own statement: a union
      // branch or a subquery compiled with a hint node of its own does not have it.
      why = "a union branch or subquery without its own SERIAL hint";
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

  /** Why the plan's results must be merged across regions, or null if they need not be. */
  private static String needsMerge(BaseQueryPlan p, GroupBy groupBy) {
    if (!p.getOrderBy().getOrderByExpressions().isEmpty()) {
      return "ORDER BY on columns outside the row key merges every region's sorted rows";
    }
    PTable table = p.getTableRef().getTable();
    boolean keyOrderAcrossScans = table.getBucketNum() != null
        || table.getIndexType() == IndexType.LOCAL;
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
