package io.blockscope.hints;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
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
          if (p.getTableRef() != null
              && p.getTableRef().getTable() != null
              && p.getTableRef().getTable().getPhysicalName() != null) {
            names.add(p.getTableRef().getTable().getPhysicalName().getString());
          }
        });
    return names;
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
