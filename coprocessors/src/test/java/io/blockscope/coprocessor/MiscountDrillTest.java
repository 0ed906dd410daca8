package io.blockscope.coprocessor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.blockscope.metrics.CostLayout;
import java.util.HashMap;
import java.util.Map;
import org.junit.Test;

/** The drill's mislabels and rescales move exactly the slots they name, and nothing else. */
public class MiscountDrillTest {

  private static long[] costs(Map<String, Long> named) {
    long[] c = new long[CostLayout.SIZE];
    named.forEach((name, v) -> c[CostLayout.slotOf(name)] = v);
    return c;
  }

  private static Map<String, Long> mislabelled(Miscount how, Map<String, Long> named) {
    long[] c = costs(named);
    MiscountDrill.mislabel(how, c);
    Map<String, Long> out = new HashMap<>();
    for (int slot = CostLayout.FIRST_COST; slot < CostLayout.SIZE; slot++) {
      if (c[slot] != 0) {
        out.put(CostLayout.name(slot), c[slot]);
      }
    }
    return out;
  }

  @Test
  public void aWrongKindSwapsDataAndLeafIndexInEveryKindedGroup() {
    assertEquals(
        Map.of(
            "blockCache.hit.leafIndex", 3L,
            "blockCache.miss.data", 4L,
            "fs.read.blocks.leafIndex", 5L,
            "fs.read.bytes.leafIndex", 500L,
            "fs.read.bytes.data", 7L,
            "blockCache.miss.bloom", 1L),
        mislabelled(
            Miscount.WRONG_KIND,
            Map.of(
                "blockCache.hit.data", 3L,
                "blockCache.miss.leafIndex", 4L,
                "fs.read.blocks.data", 5L,
                "fs.read.bytes.data", 500L,
                "fs.read.bytes.leafIndex", 7L,
                "blockCache.miss.bloom", 1L)));
  }

  @Test
  public void aWrongEncodingOrAlgorithmMovesTheWholeGroupToTheNextName() {
    String first = CostLayout.ENCODINGS.get(0);
    String second = CostLayout.ENCODINGS.get(1);
    String last = CostLayout.ENCODINGS.get(CostLayout.N_ENCODINGS - 1);
    assertEquals(
        Map.of(
            "decode." + second + ".cells", 10L,
            "decode." + second + ".seeks", 2L,
            "decode." + first + ".nanos", 9L),
        mislabelled(
            Miscount.WRONG_ENCODING,
            Map.of(
                "decode." + first + ".cells", 10L,
                "decode." + first + ".seeks", 2L,
                "decode." + last + ".nanos", 9L)));
    assertEquals(
        Map.of("decompress.LZO.blocks", 4L, "decompress.LZO.bytesIn", 40L),
        mislabelled(
            Miscount.WRONG_COMPRESSION,
            Map.of("decompress.GZ.blocks", 4L, "decompress.GZ.bytesIn", 40L)));
  }

  @Test
  public void doubledBytesAndTimesScaleOnlyTheirSlots() {
    Map<String, Long> read =
        Map.of(
            "fs.read.blocks.data", 5L,
            "fs.read.bytes.data", 500L,
            "checksum.nanos", 3L,
            "decompress.GZ.nanos", 4L,
            "decode.FAST_DIFF.nanos", 5L,
            "decode.FAST_DIFF.cells", 6L);
    assertEquals(
        Map.of(
            "fs.read.blocks.data", 5L,
            "fs.read.bytes.data", 1000L,
            "checksum.nanos", 3L,
            "decompress.GZ.nanos", 4L,
            "decode.FAST_DIFF.nanos", 5L,
            "decode.FAST_DIFF.cells", 6L),
        mislabelled(Miscount.FS_BYTES_DOUBLED, read));
    assertEquals(
        Map.of(
            "fs.read.blocks.data", 5L,
            "fs.read.bytes.data", 500L,
            "checksum.nanos", 48L,
            "decompress.GZ.nanos", 64L,
            "decode.FAST_DIFF.nanos", 80L,
            "decode.FAST_DIFF.cells", 6L),
        mislabelled(Miscount.TIME_16X, read));
    assertEquals(read, mislabelled(Miscount.WRONG_REGION, read));
  }

  /**
   * The property starts the two security drills only, and says so; a probe drill, or a name that is
   * no drill, starts nothing.
   */
  @Test
  public void thePropertyStartsOnlyTheSecurityDrills() {
    try {
      System.clearProperty(DrillSeam.PROPERTY);
      assertNull(DrillSeam.fromProperty());
      assertEquals(false, (DrillSeam.current != null));
      for (String refused : new String[] {"DOUBLE", "WRONG_REGION", "level_cap_ignored", "x"}) {
        System.setProperty(DrillSeam.PROPERTY, refused);
        String said = DrillSeam.fromProperty();
        assertTrue(said, said.contains("names no drill a property may start"));
        assertEquals(refused, false, (DrillSeam.current != null));
      }
      for (Miscount m :
          new Miscount[] {Miscount.LEVEL_CAP_IGNORED, Miscount.PROFILE_OWNER_IGNORED}) {
        System.setProperty(DrillSeam.PROPERTY, " " + m + " ");
        String said = DrillSeam.fromProperty();
        assertTrue(said, said.contains("never set it on a production server"));
        assertTrue(m.toString(), MiscountDrill.runs(m));
        MiscountDrill.start(Miscount.NONE);
      }
    } finally {
      System.clearProperty(DrillSeam.PROPERTY);
      MiscountDrill.start(Miscount.NONE);
    }
  }

  /**
   * A region server whose class path has the release jar only (no test jar): the property starts
   * nothing, and the line says why.
   */
  @Test
  public void withoutTheDrillClassesThePropertyStartsNothing() throws Exception {
    java.net.URL mainClasses = DrillSeam.class.getProtectionDomain().getCodeSource().getLocation();
    try (java.net.URLClassLoader release =
        new java.net.URLClassLoader(
            new java.net.URL[] {mainClasses}, ClassLoader.getPlatformClassLoader())) {
      Class<?> seam = Class.forName(DrillSeam.class.getName(), true, release);
      java.lang.reflect.Method start = seam.getDeclaredMethod("fromProperty");
      start.setAccessible(true);
      System.setProperty(DrillSeam.PROPERTY, "LEVEL_CAP_IGNORED");
      String said = (String) start.invoke(null);
      assertTrue(
          said,
          said.startsWith(
              "-Dblockscope.drill.miscount=LEVEL_CAP_IGNORED: the test suite's drill classes are"
                  + " not on this server's class path (java.lang.ClassNotFoundException: "
                  + DrillSeam.DRILL_CLASS
                  + ")"));
      assertTrue(said, said.endsWith("; none runs"));
    } finally {
      System.clearProperty(DrillSeam.PROPERTY);
    }
    assertNull(DrillSeam.current);
  }
}
