package io.blockscope.hints;

import io.blockscope.metrics.profile.KeyRanges;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.phoenix.compile.QueryPlan;
import org.apache.phoenix.compile.StatementContext;
import org.apache.phoenix.execute.DelegateQueryPlan;
import org.apache.phoenix.execute.HashJoinPlan;
import org.apache.phoenix.execute.SortMergeJoinPlan;
import org.apache.phoenix.execute.UnionPlan;

/**
 * Every scan a compiled Phoenix plan will issue, reached before it runs.
 *
 * <p>Each plan's region scans are copies of its context's scan, made when the plan's iterator is
 * built ({@code BaseResultIterators}' constructor, through {@code ScanUtil.newScan}, which keeps
 * {@code cacheBlocks} and every attribute), so a setting made on the context scans of the whole
 * plan tree after optimization reaches every region and every parallel chunk. The tree: a {@link
 * DelegateQueryPlan} (client-side sort/aggregate, tuple projection, hash join, cursor, unnest)
 * wraps one plan; a {@link HashJoinPlan} adds its sub-plans; {@link SortMergeJoinPlan} has two
 * sides; {@link UnionPlan} its branches.
 */
final class PlanScans {
  private PlanScans() {}

  /** The physical HBase tables the plans of the tree scan. */
  static Set<String> tables(QueryPlan root) {
    Set<String> names = new LinkedHashSet<>();
    walk(
        root,
        p -> {
          String name = physicalName(p);
          if (name != null) {
            names.add(name);
          }
        });
    return names;
  }

  /**
   * The row ranges each physical table was read over, from the region scans of a plan that ran:
   * {@code QueryPlan.getScans()} of every plan that reads a table itself (a wrapper's scans are its
   * delegate's). A plan's scans are cut when its iterator is built, after a hash join has narrowed
   * the plan's key ranges by the other side's keys, so they are read after execution; a plan that
   * never ran reads nothing and adds no range. Reversed scans (a descending primary key order) are
   * swapped back ({@code ScanUtil.setupReverseScan} turns the scan around in place).
   */
  static Map<String, KeyRanges> ranges(QueryPlan executed) {
    Map<String, KeyRanges> byTable = new LinkedHashMap<>();
    walk(
        executed,
        p -> {
          String table = physicalName(p);
          if (table == null
              || p instanceof DelegateQueryPlan
              || p instanceof SortMergeJoinPlan
              || p instanceof UnionPlan) {
            return;
          }
          KeyRanges ranges = byTable.computeIfAbsent(table, t -> new KeyRanges());
          List<List<Scan>> scans = p.getScans();
          if (scans == null) {
            return;
          }
          for (List<Scan> group : scans) {
            for (Scan s : group) {
              ranges.addScan(
                  s.getStartRow(),
                  s.includeStartRow(),
                  s.getStopRow(),
                  s.includeStopRow(),
                  s.isReversed());
            }
          }
        });
    return byTable;
  }

  private static String physicalName(QueryPlan p) {
    return p.getTableRef() != null
            && p.getTableRef().getTable() != null
            && p.getTableRef().getTable().getPhysicalName() != null
        ? p.getTableRef().getTable().getPhysicalName().getString()
        : null;
  }

  /** Calls {@code action} once with the context scan of every plan in the tree. */
  static int forEach(QueryPlan root, Consumer<Scan> action) {
    Set<Scan> scans = Collections.newSetFromMap(new IdentityHashMap<>());
    walk(
        root,
        p -> {
          StatementContext context = p.getContext();
          if (context != null && context.getScan() != null && scans.add(context.getScan())) {
            action.accept(context.getScan());
          }
        });
    return scans.size();
  }

  private static void walk(QueryPlan root, Consumer<QueryPlan> visit) {
    Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Deque<QueryPlan> todo = new ArrayDeque<>();
    todo.push(root);
    while (!todo.isEmpty()) {
      QueryPlan p = todo.pop();
      if (p == null || !seen.add(p)) {
        continue;
      }
      visit.accept(p);
      if (p instanceof DelegateQueryPlan) {
        todo.push(((DelegateQueryPlan) p).getDelegate());
      }
      if (p instanceof HashJoinPlan) {
        for (HashJoinPlan.SubPlan s : ((HashJoinPlan) p).getSubPlans()) {
          todo.push(s.getInnerPlan());
        }
      } else if (p instanceof SortMergeJoinPlan) {
        SortMergeJoinPlan m = (SortMergeJoinPlan) p;
        todo.push(m.getLhsPlan());
        todo.push(m.getRhsPlan());
      } else if (p instanceof UnionPlan) {
        ((UnionPlan) p).getSubPlans().forEach(todo::push);
      }
    }
  }
}
