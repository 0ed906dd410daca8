package io.blockscope.it;

import io.blockscope.metrics.Attributes;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;

/**
 * Keeps the statement attributes of every scan opened on the regions of the tables that carry it,
 * as the region server received them: the truth a test holds the driver's tagging to.
 */
public class StatementRecordingObserver implements RegionCoprocessor, RegionObserver {
  /**
   * One scan opened: its region, its statement fingerprint, text and execution id (null where
   * absent).
   */
  public record Seen(String region, String fingerprint, String text, String execution) {}

  public static final List<Seen> SEEN = new CopyOnWriteArrayList<>();

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void preScannerOpen(ObserverContext<RegionCoprocessorEnvironment> c, Scan scan) {
    SEEN.add(
        new Seen(
            c.getEnvironment().getRegionInfo().getEncodedName(),
            string(scan.getAttribute(Attributes.STATEMENT)),
            string(scan.getAttribute(Attributes.STATEMENT_TEXT)),
            string(scan.getAttribute(Attributes.STATEMENT_EXECUTION))));
  }

  private static String string(byte[] v) {
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }
}
