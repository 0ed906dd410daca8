package io.blockscope.coprocessor;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;

/** A compaction scanner whose every batch is one attribution frame of its region. */
final class AttributedScanner implements InternalScanner {
  private final InternalScanner delegate;
  private final Hooks hooks;
  private final RegionCoprocessorEnvironment env;

  AttributedScanner(InternalScanner delegate, Hooks hooks, RegionCoprocessorEnvironment env) {
    this.delegate = delegate;
    this.hooks = hooks;
    this.env = env;
  }

  @Override
  public boolean next(List<Cell> result, ScannerContext scannerContext) throws IOException {
    hooks.enter(env);
    try {
      return delegate.next(result, scannerContext);
    } finally {
      hooks.exit();
    }
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }
}
