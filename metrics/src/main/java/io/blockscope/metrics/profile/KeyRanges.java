package io.blockscope.metrics.profile;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The row ranges a query read from one table, and the endpoint calls that ask exactly the regions
 * holding them: a profile costs the regions read, not the table's size.
 *
 * <p>Ranges are kept half-open, {@code [start, stop)}, rows compared as unsigned bytes; an empty
 * start is the table's first row and an empty stop its end. A scan's bounds are normalized on the
 * way in: an inclusive stop {@code k} becomes {@code k + 0x00} (the next row), an exclusive start
 * {@code k} becomes {@code k + 0x00}, and a reversed scan's bounds are swapped first.
 */
public final class KeyRanges {

  /** The region holding a row: its start key and end key (each empty at the table's ends). */
  public interface RegionAt<X extends Exception> {
    byte[][] at(byte[] row) throws X;
  }

  /** One call of the endpoint over a run of adjacent regions: both keys inclusive. */
  public static final class Call {
    private final byte[] start;
    private final byte[] end;
    private final int regions;

    Call(byte[] start, byte[] end, int regions) {
      this.start = start;
      this.end = end;
      this.regions = regions;
    }

    /** The run's first region's start key (empty: the table's first region). */
    public byte[] start() {
      return start.clone();
    }

    /** The run's last region's start key, never empty (a single first region gets {@code 0x00}). */
    public byte[] end() {
      return end.clone();
    }

    /** How many regions the call asks. */
    public int regions() {
      return regions;
    }

    @Override
    public String toString() {
      return "[" + hex(start) + " .. " + hex(end) + "] (" + regions + " regions)";
    }
  }

  private static final byte[] EMPTY = new byte[0];

  private final List<byte[][]> ranges = new ArrayList<>();

  /**
   * Adds a scan's bounds as HBase's {@code Scan} carries them: {@code start} and {@code stop} with
   * their inclusiveness, swapped first when {@code reversed} (a reversed scan starts at its larger
   * row). A range that holds no row is left out.
   */
  public KeyRanges addScan(
      byte[] start, boolean includeStart, byte[] stop, boolean includeStop, boolean reversed) {
    if (reversed) {
      byte[] s = start;
      boolean i = includeStart;
      start = stop;
      includeStart = includeStop;
      stop = s;
      includeStop = i;
    }
    byte[] from = start == null ? EMPTY : start;
    byte[] to = stop == null ? EMPTY : stop;
    if (!includeStart && from.length > 0) {
      from = next(from);
    }
    if (includeStop && to.length > 0) {
      to = next(to);
    }
    return add(from, to);
  }

  /** Adds {@code [start, stop)} (empty stop: to the table's end); an empty range is left out. */
  public KeyRanges add(byte[] start, byte[] stop) {
    byte[] from = start == null ? EMPTY : start.clone();
    byte[] to = stop == null ? EMPTY : stop.clone();
    if (to.length > 0 && compare(from, to) >= 0) {
      return this;
    }
    ranges.add(new byte[][] {from, to});
    return this;
  }

  /** Whether no range was added: the query read no row of this table. */
  public boolean isEmpty() {
    return ranges.isEmpty();
  }

  /** The ranges sorted by start, those that overlap or touch merged into one. */
  public List<byte[][]> merged() {
    List<byte[][]> sorted = new ArrayList<>(ranges);
    sorted.sort((a, b) -> compare(a[0], b[0]));
    List<byte[][]> out = new ArrayList<>();
    for (byte[][] r : sorted) {
      if (!out.isEmpty()) {
        byte[][] last = out.get(out.size() - 1);
        if (last[1].length == 0) {
          break; // the last range already runs to the table's end
        }
        if (compare(r[0], last[1]) <= 0) {
          if (r[1].length == 0 || compare(r[1], last[1]) > 0) {
            last[1] = r[1];
          }
          continue;
        }
      }
      out.add(new byte[][] {r[0], r[1]});
    }
    return out;
  }

  /**
   * The regions the merged ranges intersect, each once, sorted by start key, found by walking the
   * table's regions from each range's start with {@code regionAt} (a cached location lookup).
   */
  public <X extends Exception> List<byte[][]> regions(RegionAt<X> regionAt) throws X {
    List<byte[][]> found = new ArrayList<>();
    byte[] walkedTo = null; // the end key of the last region found; empty: the table's end
    for (byte[][] r : merged()) {
      byte[] row = r[0];
      if (walkedTo != null) {
        if (walkedTo.length == 0) {
          break;
        }
        if (compare(row, walkedTo) < 0) {
          row = walkedTo; // this range starts in a region already found
          if (r[1].length > 0 && compare(row, r[1]) >= 0) {
            continue;
          }
        }
      }
      while (true) {
        byte[][] region = regionAt.at(row);
        byte[] regionEnd = region[1] == null ? EMPTY : region[1];
        if (regionEnd.length > 0 && compare(regionEnd, row) <= 0) {
          throw new IllegalStateException(
              "the region found for row " + hex(row) + " ends at " + hex(regionEnd));
        }
        found.add(new byte[][] {region[0] == null ? EMPTY : region[0], regionEnd});
        walkedTo = regionEnd;
        if (regionEnd.length == 0 || (r[1].length > 0 && compare(regionEnd, r[1]) >= 0)) {
          break;
        }
        row = regionEnd;
      }
    }
    return found;
  }

  /**
   * The calls of HBase's {@code Table.batchCoprocessorService(method, request, start, end, ...)}
   * that ask exactly {@code regions} (sorted, distinct, as {@link #regions} gives them): one per
   * run of adjacent regions. That method asks every region from the one holding {@code start}
   * through the one holding {@code end}, inclusive, so a run ends at its last region's start key; a
   * run that is the table's first region alone ends at {@code 0x00}, since an empty end would mean
   * the table's last region.
   */
  public static List<Call> calls(List<byte[][]> regions) {
    List<Call> calls = new ArrayList<>();
    int i = 0;
    while (i < regions.size()) {
      int j = i;
      while (j + 1 < regions.size()
          && regions.get(j)[1].length > 0
          && Arrays.equals(regions.get(j)[1], regions.get(j + 1)[0])) {
        j++;
      }
      byte[] start = regions.get(i)[0];
      byte[] end = regions.get(j)[0];
      calls.add(new Call(start, end.length == 0 ? new byte[] {0} : end, j - i + 1));
      i = j + 1;
    }
    return Collections.unmodifiableList(calls);
  }

  /** Unsigned lexicographic order of rows, as HBase orders them. */
  public static int compare(byte[] a, byte[] b) {
    int n = Math.min(a.length, b.length);
    for (int i = 0; i < n; i++) {
      int d = (a[i] & 0xff) - (b[i] & 0xff);
      if (d != 0) {
        return d;
      }
    }
    return a.length - b.length;
  }

  /** The first row after {@code row}: {@code row} followed by one zero byte. */
  private static byte[] next(byte[] row) {
    return Arrays.copyOf(row, row.length + 1);
  }

  private static String hex(byte[] row) {
    StringBuilder b = new StringBuilder(row.length * 2 + 2);
    b.append('\'');
    for (byte x : row) {
      int c = x & 0xff;
      if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
        b.append((char) c);
      } else {
        b.append(String.format("\\x%02X", c));
      }
    }
    return b.append('\'').toString();
  }
}
