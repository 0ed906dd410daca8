package io.blockscope.metrics;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** An immutable copy of a scope's costs, addressable by metric name. */
public final class CostSnapshot implements CostLayout.LongSlotReader {
  /** A snapshot in which every cost is zero. */
  public static final CostSnapshot ZERO = new CostSnapshot(new long[CostLayout.SIZE]);

  private final long[] slots;

  /** A snapshot of a cost array laid out as {@link CostLayout} (taken as is, not copied). */
  public static CostSnapshot ofSlots(long[] slots) {
    return new CostSnapshot(slots);
  }

  private CostSnapshot(long[] slots) {
    this.slots = slots;
  }

  /** A snapshot from named costs (unknown names are an error; missing ones are zero). */
  public static CostSnapshot of(Map<String, Long> costs) {
    long[] s = new long[CostLayout.SIZE];
    costs.forEach(
        (name, v) -> {
          int slot = CostLayout.slotOf(name);
          if (slot < 0) {
            throw new IllegalArgumentException("no such cost: " + name);
          }
          s[slot] = v;
        });
    return new CostSnapshot(s);
  }

  @Override
  public long get(int slot) {
    return slots[slot];
  }

  /**
   * The value of a metric by its name (see {@link CostLayout#name}).
   *
   * @throws IllegalArgumentException for a name that is not a cost
   */
  public long get(String metric) {
    int slot = CostLayout.slotOf(metric);
    if (slot < 0) {
      throw new IllegalArgumentException("no such cost: " + metric);
    }
    return slots[slot];
  }

  /** Sum over all block kinds of a per-kind figure, e.g. {@code fs.read.blocks}. */
  public long sumKinds(String prefix) {
    long sum = 0;
    for (String kind : CostLayout.KINDS) {
      sum += get(prefix + "." + kind);
    }
    return sum;
  }

  /** Sum over all encodings (or algorithms) of one field, e.g. {@code decode.*.cells}. */
  public long sumOver(String family, String field) {
    long sum = 0;
    for (String dim : "decode".equals(family) ? CostLayout.ENCODINGS : CostLayout.ALGORITHMS) {
      sum += get(family + "." + dim + "." + field);
    }
    return sum;
  }

  /**
   * The server's time in the block work a setting changes: checksum verification, decompression and
   * decoding, in ns (TIME figures; 0 below TIME).
   */
  public long serverNanos() {
    return get("checksum.nanos") + sumOver("decompress", "nanos") + sumOver("decode", "nanos");
  }

  /** This snapshot minus an earlier one of the same scope. */
  public CostSnapshot minus(CostSnapshot earlier) {
    long[] d = new long[CostLayout.SIZE];
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      d[i] = slots[i] - earlier.slots[i];
    }
    return new CostSnapshot(d);
  }

  /** This snapshot plus another. */
  public CostSnapshot plus(CostSnapshot other) {
    long[] d = new long[CostLayout.SIZE];
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      d[i] = slots[i] + other.slots[i];
    }
    return new CostSnapshot(d);
  }

  /** The non-zero costs by name, in slot order. */
  public Map<String, Long> nonZero() {
    Map<String, Long> m = new LinkedHashMap<>();
    for (int i = CostLayout.FIRST_COST; i < CostLayout.SIZE; i++) {
      if (slots[i] != 0) {
        m.put(CostLayout.name(i), slots[i]);
      }
    }
    return m;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CostSnapshot && Arrays.equals(slots, ((CostSnapshot) o).slots);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(slots);
  }

  @Override
  public String toString() {
    return nonZero().toString();
  }
}
