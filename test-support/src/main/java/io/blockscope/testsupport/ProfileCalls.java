package io.blockscope.testsupport;

import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import io.blockscope.metrics.Attributes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * What a client does to have a query profiled and to read its profile back: a scan tagged with the
 * query's id and level, and the profile endpoint asked on the table's one region. The caller's
 * connection decides who asks, so a suite runs the same call as the user who must be refused.
 */
public final class ProfileCalls {
  private ProfileCalls() {}

  /**
   * The rows of a full scan of {@code t} through {@code c}, tagged as query {@code query} at {@code
   * level} ({@code COUNT} or {@code TIME}) unless {@code query} is null.
   */
  public static long scanRows(Connection c, TableName t, String query, String level)
      throws IOException {
    Scan s = new Scan();
    if (query != null) {
      s.setAttribute(Attributes.QUERY, query.getBytes(StandardCharsets.US_ASCII));
      s.setAttribute(Attributes.PROFILE, level.getBytes(StandardCharsets.US_ASCII));
    }
    return scanRows(c, t, s);
  }

  /** Runs {@code s} on {@code t} to its end; the rows it returned. */
  public static long scanRows(Connection c, TableName t, Scan s) throws IOException {
    long rows = 0;
    try (Table table = c.getTable(t);
        ResultScanner r = table.getScanner(s)) {
      for (Result ignored : r) {
        rows++;
      }
    }
    return rows;
  }

  /**
   * The answer of a one-region table's region to an endpoint call, asked through {@code c}: {@code
   * method} with {@code request}, read as a {@code response} message. Whatever HBase throws (an
   * AccessDeniedException among its causes when it refuses the caller) is thrown.
   */
  public static Message askOneRegion(
      Connection c,
      TableName t,
      Descriptors.MethodDescriptor method,
      Message request,
      Descriptors.Descriptor response)
      throws Throwable {
    try (Table table = c.getTable(t)) {
      Map<byte[], Message> answers =
          table.batchCoprocessorService(
              method, request, null, null, DynamicMessage.getDefaultInstance(response));
      if (answers.size() != 1) {
        throw new AssertionError(t + ": " + answers.size() + " regions answered, not 1");
      }
      return answers.values().iterator().next();
    }
  }
}
