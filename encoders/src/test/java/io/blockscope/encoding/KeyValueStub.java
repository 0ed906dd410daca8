package io.blockscope.encoding;

import java.nio.charset.StandardCharsets;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;

/** Seek keys made from the test cells. */
final class KeyValueStub {
  private KeyValueStub() {}

  static Cell keyOnly(KeyValue c) {
    return withTimestamp(c, c.getTimestamp());
  }

  static Cell withTimestamp(KeyValue c, long ts) {
    return new KeyValue(
        CellUtil.cloneRow(c),
        CellUtil.cloneFamily(c),
        CellUtil.cloneQualifier(c),
        ts,
        KeyValue.Type.codeToType(c.getTypeByte()));
  }

  /** A key below every test row ("a" &lt; "row-..."). */
  static Cell before(KeyValue first) {
    return new KeyValue(
        "a".getBytes(StandardCharsets.UTF_8),
        CellUtil.cloneFamily(first),
        new byte[0],
        first.getTimestamp(),
        KeyValue.Type.Put);
  }
}
