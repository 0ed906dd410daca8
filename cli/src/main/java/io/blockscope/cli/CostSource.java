package io.blockscope.cli;

import io.blockscope.metrics.CostSnapshot;

/** Where {@code evaluate} reads a table's blockscope costs from. */
interface CostSource {
  /** The table's costs now, or null when not available. */
  CostSnapshot table(String table);

  /** Why {@link #table} returns null, or null when it does not. */
  String unavailable();
}
