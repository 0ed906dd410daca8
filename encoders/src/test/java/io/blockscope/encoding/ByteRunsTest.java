package io.blockscope.encoding;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.Test;

/** {@link ByteRuns#readAll}: every byte of a stream, whatever it says it has left. */
public class ByteRunsTest {
  private static final byte[] BYTES = new byte[70_000];

  static {
    new Random(3).nextBytes(BYTES);
  }

  @Test
  public void aStreamThatSaysItsSizeIsReadIntoTheRoomGiven() throws IOException {
    byte[] room = new byte[100_000];
    ByteBuffer read = ByteRuns.readAll(new ByteArrayInputStream(BYTES), room);
    assertSame(room, read.array());
    assertEquals(0, read.arrayOffset());
    assertArrayEquals(BYTES, bytes(read));
  }

  @Test
  public void roomTooSmallForWhatTheStreamSaysTakesAnArrayOfThatSize() throws IOException {
    ByteBuffer read = ByteRuns.readAll(new ByteArrayInputStream(BYTES), new byte[16]);
    assertArrayEquals(BYTES, bytes(read));
  }

  @Test
  public void aStreamThatSaysNothingAndReadsInDribsIsReadToItsEnd() throws IOException {
    for (int room : new int[] {0, 1, 1000, 69_999, 70_000, 70_001}) {
      ByteBuffer read = ByteRuns.readAll(dribs(BYTES), new byte[room]);
      assertArrayEquals("room " + room, BYTES, bytes(read));
    }
    assertArrayEquals(new byte[0], bytes(ByteRuns.readAll(dribs(new byte[0]), new byte[0])));
  }

  /** A stream that says nothing is left and hands out at most 7 bytes a read. */
  private static InputStream dribs(byte[] all) {
    ByteArrayInputStream in = new ByteArrayInputStream(all);
    return new InputStream() {
      @Override
      public int read() {
        return in.read();
      }

      @Override
      public int read(byte[] b, int off, int len) {
        return in.read(b, off, Math.min(len, 7));
      }

      @Override
      public int available() {
        return 0;
      }
    };
  }

  private static byte[] bytes(ByteBuffer b) {
    return Arrays.copyOfRange(b.array(), b.arrayOffset(), b.arrayOffset() + b.limit());
  }
}
