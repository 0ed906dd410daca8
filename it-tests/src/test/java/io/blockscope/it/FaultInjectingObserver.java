package io.blockscope.it;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Another coprocessor on a table, loaded after blockscope's (table coprocessors run after the
 * cluster-wide ones), that fails or bypasses on request: what AccessController, Phoenix's
 * stale-region checks or a region move do to a read between blockscope's pre- and post-hooks. A get
 * or scan asks for a fault with the attribute {@value #FAULT}: {@code throw} (pre-hook throws),
 * {@code bypass} (pre-hook bypasses), {@code postOpen} (postScannerOpen throws).
 */
public class FaultInjectingObserver implements RegionCoprocessor, RegionObserver {
  public static final String FAULT = "blockscope.test.fault";

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  private static String fault(byte[] attribute) {
    return attribute == null ? "" : Bytes.toString(attribute);
  }

  @Override
  public void preGetOp(ObserverContext<RegionCoprocessorEnvironment> c, Get get, List<Cell> result)
      throws IOException {
    switch (fault(get.getAttribute(FAULT))) {
      case "throw":
        throw new DoNotRetryIOException("injected: get refused");
      case "bypass":
        c.bypass();
        break;
      default:
        break;
    }
  }

  @Override
  public void preScannerOpen(ObserverContext<RegionCoprocessorEnvironment> c, Scan scan)
      throws IOException {
    if (fault(scan.getAttribute(FAULT)).equals("throw")) {
      throw new DoNotRetryIOException("injected: scan refused");
    }
  }

  @Override
  public RegionScanner postScannerOpen(
      ObserverContext<RegionCoprocessorEnvironment> c, Scan scan, RegionScanner s)
      throws IOException {
    if (fault(scan.getAttribute(FAULT)).equals("postOpen")) {
      throw new DoNotRetryIOException("injected: postScannerOpen failed");
    }
    return s;
  }
}
