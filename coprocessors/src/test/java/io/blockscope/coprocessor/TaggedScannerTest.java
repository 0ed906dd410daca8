package io.blockscope.coprocessor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/**
 * The tagged scanner counts a query's rows across RPCs. It used to keep the last row's Cell until
 * the next RPC, after HBase had shipped the batch and handed the Cell's block back: with an
 * off-heap BucketCache or a pooled buffer those bytes then belong to another block, and a row split
 * across two RPCs was counted twice (or not at all). It also compared rows without a guard, so a
 * failing Cell threw into the scan.
 */
public class TaggedScannerTest {

  /** A region scanner that answers each nextRaw with the next batch of cells given. */
  private static RegionScanner scripted(Deque<List<Cell>> batches) {
    return (RegionScanner)
        Proxy.newProxyInstance(
            RegionScanner.class.getClassLoader(),
            new Class<?>[] {RegionScanner.class},
            (proxy, method, args) -> {
              if (method.getName().equals("nextRaw")) {
                @SuppressWarnings("unchecked")
                List<Cell> out = (List<Cell>) args[0];
                out.addAll(batches.removeFirst());
                return !batches.isEmpty();
              }
              return method.getReturnType() == boolean.class ? Boolean.FALSE : null;
            });
  }

  private static long rowsCounted(RecordingHooks hooks) {
    return hooks.calls.stream().filter(c -> c.equals("queryActive[q, 1]")).count();
  }

  private static KeyValue cell(String row, String qualifier) {
    return new KeyValue(
        Bytes.toBytes(row), Bytes.toBytes("f"), Bytes.toBytes(qualifier), Bytes.toBytes("v"));
  }

  @Test
  public void aRowSplitAcrossRpcsCountsOnceAfterItsBlockIsReused() throws Exception {
    // the first RPC returns row-a's first cell from a "block"; HBase ships the batch and the
    // block's bytes are reused for another block, which holds row-b at the same place
    KeyValue inBlock = cell("row-a", "q1");
    byte[] block = inBlock.getBuffer();
    Deque<List<Cell>> batches = new ArrayDeque<>();
    batches.add(new ArrayList<>(Arrays.asList((Cell) inBlock)));
    batches.add(new ArrayList<>(Arrays.asList((Cell) cell("row-a", "q2"))));
    batches.add(new ArrayList<>(Arrays.asList((Cell) cell("row-c", "q1"))));
    RecordingHooks hooks = new RecordingHooks();
    TaggedScanner scanner = new TaggedScanner(scripted(batches), hooks, "q", null);

    scanner.nextRaw(new ArrayList<>());
    KeyValue reused = cell("row-b", "q1");
    System.arraycopy(reused.getBuffer(), 0, block, 0, block.length); // the shipped block, reused
    scanner.nextRaw(new ArrayList<>());
    scanner.nextRaw(new ArrayList<>());

    assertEquals("row-a counts once, row-c once", 2, rowsCounted(hooks));
  }

  @Test
  public void aCellThatFailsDoesNotThrowIntoTheScan() throws Exception {
    Cell failing =
        (Cell)
            Proxy.newProxyInstance(
                Cell.class.getClassLoader(),
                new Class<?>[] {Cell.class},
                (proxy, method, args) -> {
                  throw new IllegalStateException("a cell whose bytes are gone");
                });
    Deque<List<Cell>> batches = new ArrayDeque<>();
    batches.add(new ArrayList<>(Arrays.asList(failing)));
    batches.add(new ArrayList<>(Arrays.asList((Cell) cell("row-a", "q1"))));
    RecordingHooks hooks = new RecordingHooks();
    TaggedScanner scanner = new TaggedScanner(scripted(batches), hooks, "q", null);

    List<Cell> first = new ArrayList<>();
    assertTrue("the scan goes on", scanner.nextRaw(first));
    assertEquals("HBase's cells are handed on as they came", 1, first.size());
    scanner.nextRaw(new ArrayList<>());
    assertEquals("the failing cell's row and the next one", 2, rowsCounted(hooks));
  }

  @Test
  public void aStatementOnlyScannerMarksEachBatchAndRowForItsStatementAndIsNotTracked()
      throws Exception {
    Deque<List<Cell>> batches = new ArrayDeque<>();
    batches.add(new ArrayList<>(Arrays.asList((Cell) cell("row-a", "q1"))));
    batches.add(new ArrayList<>(Arrays.asList((Cell) cell("row-a", "q2"))));
    batches.add(new ArrayList<>(Arrays.asList((Cell) cell("row-b", "q1"))));
    RecordingHooks hooks = new RecordingHooks();
    TaggedScanner scanner = new TaggedScanner(scripted(batches), hooks, null, "s");
    for (int i = 0; i < 3; i++) {
      scanner.nextRaw(new ArrayList<>());
    }
    scanner.close();
    assertEquals(
        "each call marks its frame, each new row counts once; no query is opened or closed",
        Arrays.asList(
            "statementActive[s, 0]",
            "statementActive[s, 1]",
            "statementActive[s, 0]",
            "statementActive[s, 0]",
            "statementActive[s, 1]"),
        hooks.calls);
  }
}
