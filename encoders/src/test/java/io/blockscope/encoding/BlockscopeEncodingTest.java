package io.blockscope.encoding;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.Arrays;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.junit.Test;

/** Registration in this JVM, and the refusals it promises. */
public class BlockscopeEncodingTest {
  @Test
  public void registersOnceUnderItsNameAndId() {
    DataBlockEncoding e = BlockscopeEncoding.register();
    assertSame(e, BlockscopeEncoding.register());
    assertEquals("BLOCKSCOPE_V1", e.name());
    assertEquals(64, e.getId());
    assertSame(e, DataBlockEncoding.valueOf("BLOCKSCOPE_V1"));
    assertSame(e, DataBlockEncoding.getEncodingById((short) 64));
    assertEquals("BLOCKSCOPE_V1", DataBlockEncoding.getNameFromId((short) 64));
    assertTrue(e.getEncoder() instanceof BlockscopeV1Encoder);
    assertTrue(DataBlockEncoding.isCorrectEncoder(e.getEncoder(), (short) 64));
    assertTrue(Arrays.asList(DataBlockEncoding.values()).contains(e));
    // the built-ins are untouched
    assertSame(DataBlockEncoding.FAST_DIFF, DataBlockEncoding.getEncodingById((short) 4));
    assertEquals(6, DataBlockEncoding.values().length);
    assertTrue(BlockscopeEncoding.isRegistered());
  }

  @Test
  public void refusesAnHBaseOtherThan25Or26InOneSentence() {
    for (String v : new String[] {"2.4.18", "2.7.0", "3.0.0-beta-1", "3.0.0", "2.6", null}) {
      try {
        BlockscopeEncoding.checkVersion(v);
        fail("accepted HBase " + v);
      } catch (IllegalStateException expected) {
        assertTrue(expected.getMessage(), expected.getMessage().contains("this is HBase " + v));
      }
    }
    BlockscopeEncoding.checkVersion("2.6.1");
    BlockscopeEncoding.checkVersion("2.6.1-hadoop3");
    BlockscopeEncoding.checkVersion("2.5.13-hadoop3");
    BlockscopeEncoding.checkVersion("2.5.10");
  }

  @Test
  public void theInternalsItWritesAreWhereItExpects() {
    // fails, naming the field, if an HBase upgrade renames or retypes one of them
    BlockscopeEncoding.Internals in = BlockscopeEncoding.Internals.check();
    assertEquals("idArray", in.idArray.getName());
  }

  /**
   * A registration that fails after it wrote the id and the enum's constants (HBase does not
   * resolve what was written, a linkage error) used to leave both written; it must leave the enum
   * as it was.
   */
  @Test
  public void aRegistrationThatFailsHalfWayLeavesTheEnumAsItWas() {
    BlockscopeEncoding.register();
    DataBlockEncoding[] before = DataBlockEncoding.values();
    short unused = 65;
    try {
      BlockscopeEncoding.Internals.check()
          .add(
              "BLOCKSCOPE_TRIAL",
              unused,
              new BlockscopeV1Encoder(),
              () -> {
                assertEquals(before.length + 1, DataBlockEncoding.values().length);
                throw new IllegalStateException("HBase does not resolve it");
              });
      fail("a registration that failed was kept");
    } catch (IllegalStateException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("the change was undone"));
    }
    assertArrayEquals(before, DataBlockEncoding.values());
    try {
      DataBlockEncoding.valueOf("BLOCKSCOPE_TRIAL");
      fail("the name stayed");
    } catch (IllegalArgumentException expected) {
      // no such constant, as before
    }
    try {
      DataBlockEncoding.getEncodingById(unused);
      fail("the id stayed taken");
    } catch (IllegalArgumentException expected) {
      // no encoding has it, as before
    }
  }
}
