package io.blockscope.cli;

import io.blockscope.metrics.CostSnapshot;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Where {@code evaluate} reads a table's blockscope costs from. */
interface CostSource {
  /** The table's costs now, or null when not available. */
  CostSnapshot table(String table);

  /**
   * Each table's costs now, read at one moment (a remote cluster's exports waited for once, not
   * once per table); a table maps to null when not available.
   */
  default Map<String, CostSnapshot> tables(List<String> tables) {
    Map<String, CostSnapshot> m = new LinkedHashMap<>();
    for (String t : tables) {
      m.put(t, table(t));
    }
    return m;
  }

  /** Why {@link #table} returns null, or null when it does not. */
  String unavailable();
}
