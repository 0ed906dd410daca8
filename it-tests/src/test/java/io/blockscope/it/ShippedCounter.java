package io.blockscope.it;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.regionserver.ScanType;
import org.apache.hadoop.hbase.regionserver.Store;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionLifeCycleTracker;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionRequest;

/**
 * Counts, per table, the {@code shipped()} calls that reach a compaction's store scanner. Loaded as
 * a system coprocessor before blockscope's, so it wraps HBase's StoreScanner first and blockscope
 * wraps it: a call that blockscope's wrapper does not pass on is not counted.
 */
public class ShippedCounter implements RegionCoprocessor, RegionObserver {
  public static final Map<String, AtomicLong> SHIPPED = new ConcurrentHashMap<>();

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public InternalScanner preCompact(
      ObserverContext<RegionCoprocessorEnvironment> c,
      Store store,
      InternalScanner scanner,
      ScanType scanType,
      CompactionLifeCycleTracker tracker,
      CompactionRequest request) {
    AtomicLong count =
        SHIPPED.computeIfAbsent(
            c.getEnvironment().getRegionInfo().getTable().getNameAsString(), t -> new AtomicLong());
    Set<Class<?>> interfaces = new LinkedHashSet<>();
    for (Class<?> k = scanner.getClass(); k != null; k = k.getSuperclass()) {
      interfaces.addAll(List.of(k.getInterfaces()));
    }
    return (InternalScanner)
        Proxy.newProxyInstance(
            scanner.getClass().getClassLoader(),
            interfaces.toArray(new Class<?>[0]),
            (proxy, m, args) -> {
              if (m.getName().equals("shipped")) {
                count.incrementAndGet();
              }
              try {
                return m.invoke(scanner, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
