package io.blockscope.metrics.profile;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Protobuf's wire format, as much of it as blockscope's endpoint messages use, without protobuf.
 */
final class Protobuf {
  private Protobuf() {}

  /** Protobuf's wire format, the three field kinds this protocol writes. */
  static final class Writer {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    void varint(int number, long value) {
      raw((long) number << 3);
      raw(value);
    }

    void string(int number, String value) {
      bytes(number, value.getBytes(StandardCharsets.UTF_8));
    }

    void message(int number, Writer value) {
      bytes(number, value.bytes());
    }

    private void bytes(int number, byte[] value) {
      raw(((long) number << 3) | 2);
      raw(value.length);
      out.write(value, 0, value.length);
    }

    private void raw(long v) {
      while ((v & ~0x7FL) != 0) {
        out.write((int) ((v & 0x7F) | 0x80));
        v >>>= 7;
      }
      out.write((int) v);
    }

    byte[] bytes() {
      return out.toByteArray();
    }
  }

  static final class Reader {
    private final byte[] b;
    private int at;

    Reader(byte[] b) {
      this.b = b;
    }

    /** The field number and wire type of the field {@link #field} read last. */
    int number;

    int wire;

    boolean more() {
      return at < b.length;
    }

    /** Reads the next field's tag: whether there was one ({@link #number}, {@link #wire}). */
    boolean field() {
      if (!more()) {
        return false;
      }
      long tag = varint();
      number = (int) (tag >>> 3);
      wire = (int) (tag & 7);
      return true;
    }

    /** Whether the field read last is number {@code n} in wire type {@code type}. */
    boolean is(int n, int type) {
      return number == n && wire == type;
    }

    long varint() {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (at >= b.length) {
          throw new IllegalArgumentException("blockscope endpoint: truncated varint");
        }
        byte x = b[at++];
        v |= (long) (x & 0x7F) << shift;
        if (x >= 0) {
          return v;
        }
      }
      throw new IllegalArgumentException("blockscope endpoint: varint longer than 10 bytes");
    }

    byte[] bytes() {
      long n = varint();
      if (n < 0 || n > b.length - at) {
        throw new IllegalArgumentException(
            "blockscope endpoint: truncated field of " + n + " bytes");
      }
      byte[] v = new byte[(int) n];
      System.arraycopy(b, at, v, 0, v.length);
      at += v.length;
      return v;
    }

    String string() {
      return new String(bytes(), StandardCharsets.UTF_8);
    }

    void skip(int wire) {
      switch (wire) {
        case 0:
          varint();
          return;
        case 1:
          advance(8);
          return;
        case 2:
          bytes();
          return;
        case 5:
          advance(4);
          return;
        default:
          throw new IllegalArgumentException("blockscope endpoint: wire type " + wire);
      }
    }

    private void advance(int n) {
      if (n > b.length - at) {
        throw new IllegalArgumentException("blockscope endpoint: truncated field");
      }
      at += n;
    }
  }
}
