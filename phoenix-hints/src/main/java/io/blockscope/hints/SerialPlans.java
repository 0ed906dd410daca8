package io.blockscope.hints;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import org.apache.phoenix.compile.GroupByCompiler.GroupBy;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.execute.AggregatePlan;
import org.apache.phoenix.execute.BaseQueryPlan;
import org.apache.phoenix.execute.DelegateQueryPlan;
import org.apache.phoenix.execute.HashJoinPlan;
import org.apache.phoenix.execute.ScanPlan;
import org.apache.phoenix.execute.SortMergeJoinPlan;
import org.apache.phoenix.execute.UnionPlan;
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
 * plans whose results need no merge across regions. A plan that does (ORDER BY on columns outside
 * the row key, GROUP BY that is not along the row key, salted tables and local indexes that need
 * row-key order, joins, unions) is left as Phoenix planned it, and the reason is reported.
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
      set(AGGREGATE_SERIAL, a, why, refused);
    }
  }

  private static void set(Field f, QueryPlan p, String why, List<String> refused) {
    if (why != null) {
      refused.add(why);
      return;
    }
    try {
      f.setBoolean(p, true);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
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
