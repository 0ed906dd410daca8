package io.blockscope.coprocessor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;

/**
 * Hooks that record each call, as the call's name and its arguments: loaded by OtherCopyHooksTest
 * as another copy's engine, and asked by AttributedScannerTest what its wrapper called.
 */
public class RecordingHooks implements Hooks {
  public final List<String> calls = new ArrayList<>();
  public boolean fail;

  private void record(String call, Object... args) {
    calls.add(call + Arrays.deepToString(args));
    if (fail) {
      throw new IllegalStateException("this copy fails " + call);
    }
  }

  @Override
  public void regionOpened(RegionCoprocessorEnvironment env) {
    record("regionOpened", env);
  }

  @Override
  public void regionClosed(RegionCoprocessorEnvironment env) {
    record("regionClosed", env);
  }

  @Override
  public boolean measures(RegionCoprocessorEnvironment env) {
    record("measures", env);
    return true;
  }

  @Override
  public void enter(RegionCoprocessorEnvironment env) {
    record("enter", env);
  }

  @Override
  public void exit(RegionCoprocessorEnvironment env) {
    record("exit", env);
  }

  @Override
  public void scanBatchEnded() {
    record("scanBatchEnded");
  }

  @Override
  public void compactionOpening(RegionCoprocessorEnvironment env) {
    record("compactionOpening", env);
  }

  @Override
  public Object queryScan(
      byte[] queryId, String user, Object scan, RegionCoprocessorEnvironment env, int level) {
    record("queryScan", queryId, user, scan, env, level);
    return "handle";
  }

  @Override
  public void scannerOpened(Object scanner, Object handle) {
    record("scannerOpened", scanner, handle);
  }

  @Override
  public void queryActive(Object handle, int rows) {
    record("queryActive", handle, rows);
  }

  @Override
  public void scannerClosed(Object scanner) {
    record("scannerClosed", scanner);
  }

  @Override
  public long[] queryCosts(String queryId, String user, String region) {
    record("queryCosts", queryId, user, region);
    return new long[] {7};
  }

  @Override
  public void profileAsked() {
    record("profileAsked");
  }

  @Override
  public Object statementScan(
      byte[] fingerprint, byte[] text, byte[] execution, String region, String user) {
    record("statementScan", fingerprint, text, execution, region, user);
    return "s";
  }

  @Override
  public void statementActive(Object handle, int rows) {
    record("statementActive", handle, rows);
  }

  @Override
  public byte[] statementsReport(String server, String user, boolean all, boolean reset) {
    record("statementsReport", server, user, all, reset);
    return null;
  }
}
