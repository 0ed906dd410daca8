package org.apache.hadoop.hbase.io.hfile;

import org.apache.hadoop.hbase.nio.ByteBuff;

/**
 * Calls HBase's verification of one on-disk block's inline checksums, {@code
 * ChecksumUtil.validateChecksum} (package-private), as {@code HFileBlock.FSReaderImpl} does after a
 * read; the method blockscope's checksum probe is woven into. Benchmark code only; never deployed.
 */
public final class BenchmarkChecksums {
  private BenchmarkChecksums() {}

  /** True if the checksums of {@code onDiskBlock} (header, data, checksums) match. */
  public static boolean validate(ByteBuff onDiskBlock) {
    return ChecksumUtil.validateChecksum(onDiskBlock, "benchmark", 0, HFileBlock.headerSize(true));
  }
}
