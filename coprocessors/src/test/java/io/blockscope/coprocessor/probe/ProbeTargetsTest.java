package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import io.blockscope.metrics.CostLayout;
import java.lang.reflect.Field;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.encoding.HFileBlockDefaultDecodingContext;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.junit.Test;

/**
 * Pins every HBase method, field and constant the probes rely on to the HBase on the classpath.
 * When an HBase upgrade moves one, this test names it; in a region server the probe would report
 * itself unavailable instead.
 */
public class ProbeTargetsTest {
  @Test
  public void everyWovenMethodExistsWithTheExpectedSignature() throws Exception {
    ClassLoader hbase = DataBlockEncoding.class.getClassLoader();
    int targets = 0;
    for (List<ProbeTargets.Target> probe : ProbeTargets.PROBES) {
      for (ProbeTargets.Target t : probe) {
        ProbeChecks.verify(t, hbase);
        targets++;
      }
    }
    assertEquals(ProbeBridge.N_PROBES, ProbeTargets.PROBES.size());
    // the decode probe: decodeNext of five HBase seekers, decodeFirst of two, decode of
    // BLOCKSCOPE_V1's, and rewind, setCurrentBuffer, seekToKeyInBlock of three (not next: a
    // cell step is the decodeNext it calls); the rpcCall probe: CallRunner.run and the
    // short-circuit connection's doCall, where frames left open by a failed read are closed; the
    // memstore probe: SegmentScanner.updateCurrent; the cacheReuse probe: the HFile reader's and
    // writer's constructors, LruCachedBlock's, evictBlock of the two LRU caches, and the
    // BucketCache's putIntoBackingMap, blockEvicted and getBlock, and BucketEntry's access
    assertEquals(2 + 1 + 1 + 1 + (5 + 2 + 1 + 3 * 3) + 2 + 1 + 9, targets);
  }

  /**
   * BLOCKSCOPE_V1's seeker (the encoders jar, a test dependency here) is woven where the region
   * server has it and left out, without failing the decode probe, where it does not.
   */
  @Test
  public void blockscopeSeekerTargetsAreDroppedWhereTheEncodersJarIsMissing() throws Exception {
    List<ProbeTargets.Target> decode = ProbeTargets.PROBES.get(ProbeBridge.DECODE);
    ClassLoader hbase = DataBlockEncoding.class.getClassLoader();
    assertEquals(decode, ProbeChecks.present(decode, hbase));
    ClassLoader withoutEncoders =
        new ClassLoader(hbase) {
          @Override
          protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("io.blockscope.encoding.")) {
              throw new ClassNotFoundException(name);
            }
            return super.loadClass(name, resolve);
          }
        };
    List<ProbeTargets.Target> present = ProbeChecks.present(decode, withoutEncoders);
    assertEquals(decode.size() - 4, present.size()); // decode, rewind, setCurrentBuffer, seek
    for (ProbeTargets.Target t : present) {
      ProbeChecks.verify(t, withoutEncoders);
      assertFalse(t.toString(), t.type().equals(ProbeTargets.BLOCKSCOPE_SEEKER));
    }
  }

  @Test
  public void headerOffsetsMatchHFileBlockHeader() throws Exception {
    Class<?> header = Class.forName("org.apache.hadoop.hbase.io.hfile.HFileBlock$Header");
    assertEquals(ProbeBridge.HEADER_CHECKSUM_TYPE, intField(header, "CHECKSUM_TYPE_INDEX"));
    assertEquals(
        ProbeBridge.HEADER_BYTES_PER_CHECKSUM, intField(header, "BYTES_PER_CHECKSUM_INDEX"));
    assertEquals(
        ProbeBridge.HEADER_ON_DISK_DATA_SIZE_WITH_HEADER,
        intField(header, "ON_DISK_DATA_SIZE_WITH_HEADER_INDEX"));
  }

  private static int intField(Class<?> type, String name) throws ReflectiveOperationException {
    Field f = type.getDeclaredField(name);
    f.setAccessible(true);
    return f.getInt(null);
  }

  @Test
  public void everyEncodingsSeekerIsKnownUnderItsOwnName() {
    HFileBlockDefaultDecodingContext ctx =
        new HFileBlockDefaultDecodingContext(
            new Configuration(false), new HFileContextBuilder().build());
    for (DataBlockEncoding e : DataBlockEncoding.values()) {
      DataBlockEncoder encoder = e.getEncoder();
      if (encoder == null) {
        continue; // NONE has no seeker
      }
      String seeker = encoder.createSeeker(ctx).getClass().getName();
      assertEquals(
          seeker, CostLayout.encodingIndex(e.name()), ProbeTargets.encodingOfSeeker(seeker));
    }
  }

  @Test
  public void blockTypesMapToTheDocumentedKinds() {
    int[] map = ProbeInstaller.blockTypeMap();
    assertEquals(CostLayout.KIND_DATA, map[BlockType.ENCODED_DATA.ordinal()]);
    assertEquals(CostLayout.KIND_BLOOM, map[BlockType.BLOOM_CHUNK.ordinal()]);
    assertEquals(CostLayout.KIND_OTHER, map[BlockType.FILE_INFO.ordinal()]);
  }
}
