package io.blockscope.encoding;

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
  public void refusesAnotherHBaseVersionInOneSentence() {
    for (String v : new String[] {"2.5.10", "2.5.13-hadoop3", "3.0.0-beta-1", "3.0.0", null}) {
      try {
        BlockscopeEncoding.checkVersion(v);
        fail("accepted HBase " + v);
      } catch (IllegalStateException expected) {
        assertTrue(expected.getMessage(), expected.getMessage().contains("this is HBase " + v));
      }
    }
    BlockscopeEncoding.checkVersion("2.6.1");
    BlockscopeEncoding.checkVersion("2.6.1-hadoop3");
  }

  @Test
  public void theInternalsItWritesAreWhereItExpects() {
    // fails, naming the field, if an HBase upgrade renames or retypes one of them
    BlockscopeEncoding.Internals in = BlockscopeEncoding.Internals.check();
    assertEquals("idArray", in.idArray.getName());
  }
}
