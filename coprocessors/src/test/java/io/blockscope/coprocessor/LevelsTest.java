package io.blockscope.coprocessor;

import static org.junit.Assert.assertEquals;

import io.blockscope.coprocessor.accounting.CostRegistry;
import io.blockscope.coprocessor.accounting.ExportLimit;
import io.blockscope.metrics.Attributes;
import io.blockscope.metrics.PerfLevel;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.junit.Test;

public class LevelsTest {
  private static BlockscopeConfig tableMax(PerfLevel max) {
    Configuration conf = new Configuration(false);
    conf.set(BlockscopeConfig.TABLE_MAX_LEVEL, max.name());
    return new BlockscopeConfig(conf, new ArrayList<>());
  }

  /**
   * Regions of a table asking TIME open one after another while the operator lowers the tables' cap
   * to COUNT: once both are done, every region is at COUNT, those that opened during the reload
   * included. Many rounds, each reload started in the middle of the opens.
   */
  @Test(timeout = 120_000)
  public void regionsOpenedDuringAReloadEndAtTheNewLevel() throws Exception {
    Levels levels = new Levels(tableMax(PerfLevel.TIME), new Problems());
    TableDescriptor timed =
        TableDescriptorBuilder.newBuilder(TableName.valueOf("timed"))
            .setValue(Attributes.TABLE_LEVEL, "TIME")
            .build();
    for (int round = 0; round < 400; round++) {
      try (CostRegistry registry = new CostRegistry(ExportLimit.ALL)) {
        levels.reload(tableMax(PerfLevel.TIME), registry);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        int n = round;
        Thread opener =
            new Thread(
                () -> {
                  try {
                    for (int i = 0; i < 200; i++) {
                      levels.open(timed, "r" + n + "-" + i, registry);
                    }
                  } catch (Throwable t) {
                    failed.set(t);
                  }
                });
        opener.start();
        while (registry.regions().size() < 20 && opener.isAlive()) {
          Thread.onSpinWait();
        }
        levels.reload(tableMax(PerfLevel.COUNT), registry);
        opener.join();
        assertEquals(null, failed.get());
        for (CostRegistry.RegionCosts r : registry.regions()) {
          assertEquals("round " + round + ", " + r.region(), PerfLevel.COUNT, r.level());
        }
      }
    }
  }
}
