package io.blockscope.encoding;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Comparisons of byte runs the encoder and the seeker make per entry, on the JDK the server runs.
 *
 * <p>The encoder's jar is Java 8 bytecode (region servers run on JDK 8, 11 or 17), but on JDK 9 and
 * later {@code Arrays.mismatch(byte[], int, int, byte[], int, int)} compares eight or more bytes
 * per step (a JIT intrinsic). It is found once through a method handle held in a static final
 * field, which the JIT treats as a constant and inlines; on JDK 8 a plain loop does the same work.
 */
final class ByteRuns {
  private ByteRuns() {}

  /** {@code Arrays.mismatch} over ranges, or null on JDK 8. */
  private static final MethodHandle MISMATCH = mismatch();

  private static MethodHandle mismatch() {
    try {
      return MethodHandles.publicLookup()
          .findStatic(
              java.util.Arrays.class,
              "mismatch",
              MethodType.methodType(
                  int.class,
                  byte[].class,
                  int.class,
                  int.class,
                  byte[].class,
                  int.class,
                  int.class));
    } catch (ReflectiveOperationException e) {
      return null; // JDK 8
    }
  }

  /**
   * The index of the first byte that differs between {@code a[aFrom, aTo)} and {@code b[bFrom,
   * bTo)}, relative to each range's start; the shorter length if one is a prefix of the other; -1
   * if they are equal.
   */
  static int mismatch(byte[] a, int aFrom, int aTo, byte[] b, int bFrom, int bTo) {
    MethodHandle m = MISMATCH;
    if (m != null) {
      try {
        return (int) m.invokeExact(a, aFrom, aTo, b, bFrom, bTo);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new IllegalStateException(t);
      }
    }
    int aLength = aTo - aFrom;
    int bLength = bTo - bFrom;
    int n = Math.min(aLength, bLength);
    if (aFrom < 0 || bFrom < 0 || aTo > a.length || bTo > b.length || aLength < 0 || bLength < 0) {
      throw new ArrayIndexOutOfBoundsException("range out of bounds");
    }
    for (int i = 0; i < n; i++) {
      if (a[aFrom + i] != b[bFrom + i]) {
        return i;
      }
    }
    return aLength == bLength ? -1 : n;
  }

  /** Whether {@code a[0, an)} and {@code b[0, bn)} hold the same bytes. */
  static boolean equal(byte[] a, int an, byte[] b, int bn) {
    return an == bn && mismatch(a, 0, an, b, 0, bn) < 0;
  }

  /**
   * Every byte left in {@code in}, read into {@code room} if they fit (a stream over a byte array,
   * as {@code EncodedDataBlock} hands a block over, says how many are left) or into a larger array;
   * returns them as a buffer from 0 to their end.
   */
  static ByteBuffer readAll(InputStream in, byte[] room) throws IOException {
    byte[] b = room.length >= in.available() ? room : new byte[in.available()];
    int got = 0;
    while (true) {
      if (got == b.length) {
        int more = in.read();
        if (more < 0) {
          break;
        }
        b = Arrays.copyOf(b, 2 * b.length + 1);
        b[got++] = (byte) more;
      }
      int n = in.read(b, got, b.length - got);
      if (n < 0) {
        break;
      }
      got += n;
    }
    return ByteBuffer.wrap(b, 0, got);
  }
}
