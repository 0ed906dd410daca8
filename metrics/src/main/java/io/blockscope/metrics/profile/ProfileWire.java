package io.blockscope.metrics.profile;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The profile endpoint's messages as bytes, without any protobuf library: the description of
 * service {@code blockscope.BlockscopeProfile} (a serialized {@code FileDescriptorProto}, from
 * which {@link ProfileProtocol} and the driver build their descriptors), the request's encoding and
 * the response's decoding, in protobuf's wire format.
 *
 * <p>It exists for clients whose protobuf is not {@code com.google.protobuf}: Phoenix's shaded
 * client jar relocates protobuf 2.5 (and HBase's endpoint API that takes it) under {@code
 * org.apache.phoenix.shaded}, so the driver builds the endpoint's messages with whichever protobuf
 * HBase's client in its JVM uses, from these bytes.
 */
public final class ProfileWire {
  public static final String FILE = "blockscope/profile.proto";
  public static final String PACKAGE = "blockscope";
  public static final String SERVICE = "BlockscopeProfile";
  public static final String METHOD = "GetProfile";
  public static final String REQUEST = "ProfileRequest";
  public static final String RESPONSE = "ProfileResponse";

  // descriptor.proto's enum values: FieldDescriptorProto.Label and .Type
  private static final int OPTIONAL = 1;
  private static final int REPEATED = 3;
  private static final int INT64 = 3;
  private static final int BOOL = 8;
  private static final int STRING = 9;

  private static final byte[] DESCRIPTOR = describe();

  /**
   * Beside the costs in a response's names and values: the level the region measured the query at
   * (a {@code PerfLevel} ordinal: 0 OFF, 1 COUNT, 2 TIME) and why ({@link #LEVEL_REASONS}'s index).
   * A region server of an earlier blockscope sends neither.
   */
  public static final String LEVEL_APPLIED = "level.applied";

  public static final String LEVEL_REASON = "level.reason";

  /** Why a region measured a query at the level it did, by the code in {@link #LEVEL_REASON}. */
  @SuppressWarnings("MutablePublicArray") // read by name lookups only; nothing writes it
  public static final String[] LEVEL_REASONS = {
    "as the query asked",
    "capped by the region server's blockscope.query.max.level",
    "the region is at OFF: its table's or its server's blockscope.level",
    "the region's own level, above what the query asked"
  };

  public static final int AS_ASKED = 0;
  public static final int CAPPED = 1;
  public static final int REGION_OFF = 2;
  public static final int REGION_LEVEL = 3;

  private ProfileWire() {}

  /**
   * The serialized {@code FileDescriptorProto} of {@code blockscope/profile.proto}:
   *
   * <pre>
   * message ProfileRequest  { optional string query_id = 1; optional string user = 2; }
   * message ProfileResponse { optional string region = 1; optional bool found = 2;
   *                           optional int64 rows = 3;
   *                           repeated string name = 4; repeated int64 value = 5; }
   * service BlockscopeProfile { rpc GetProfile(ProfileRequest) returns (ProfileResponse); }
   * </pre>
   */
  public static byte[] fileDescriptor() {
    return DESCRIPTOR.clone();
  }

  private static byte[] describe() {
    Writer request = new Writer();
    request.string(1, REQUEST);
    request.message(2, field("query_id", 1, OPTIONAL, STRING));
    request.message(2, field("user", 2, OPTIONAL, STRING));

    Writer response = new Writer();
    response.string(1, RESPONSE);
    response.message(2, field("region", 1, OPTIONAL, STRING));
    response.message(2, field("found", 2, OPTIONAL, BOOL));
    response.message(2, field("rows", 3, OPTIONAL, INT64));
    response.message(2, field("name", 4, REPEATED, STRING));
    response.message(2, field("value", 5, REPEATED, INT64));

    Writer method = new Writer();
    method.string(1, METHOD);
    method.string(2, "." + PACKAGE + "." + REQUEST);
    method.string(3, "." + PACKAGE + "." + RESPONSE);
    Writer service = new Writer();
    service.string(1, SERVICE);
    service.message(2, method);

    // FileDescriptorProto: name 1, package 2, message_type 4, service 6
    Writer file = new Writer();
    file.string(1, FILE);
    file.string(2, PACKAGE);
    file.message(4, request);
    file.message(4, response);
    file.message(6, service);
    return file.bytes();
  }

  /** A FieldDescriptorProto: name 1, number 3, label 4, type 5. */
  private static Writer field(String name, int number, int label, int type) {
    Writer w = new Writer();
    w.string(1, name);
    w.varint(3, number);
    w.varint(4, label);
    w.varint(5, type);
    return w;
  }

  /**
   * A ProfileRequest for user {@code user}'s record of query {@code queryId} ({@code user} null or
   * empty: the caller's own).
   */
  public static byte[] request(String queryId, String user) {
    Writer w = new Writer();
    w.string(1, queryId == null ? "" : queryId);
    if (user != null && !user.isEmpty()) {
      w.string(2, user);
    }
    return w.bytes();
  }

  /** One region's ProfileResponse. */
  public static final class Answer {
    public final String region;
    public final boolean found;
    public final long rows;

    /** The costs by name, in the order the region sent them; empty when not found. */
    public final Map<String, Long> costs;

    Answer(String region, boolean found, long rows, Map<String, Long> costs) {
      this.region = region;
      this.found = found;
      this.rows = rows;
      this.costs = Collections.unmodifiableMap(costs);
    }
  }

  /**
   * Reads a ProfileResponse; fields it does not know are skipped, as protobuf does.
   *
   * @throws IllegalArgumentException if the bytes are not a well-formed response (truncated, a wire
   *     type it cannot skip, or a different number of names and values)
   */
  public static Answer answer(byte[] bytes) {
    Reader r = new Reader(bytes);
    String region = "";
    boolean found = false;
    long rows = 0;
    List<String> names = new ArrayList<>();
    List<Long> values = new ArrayList<>();
    while (r.more()) {
      long tag = r.varint();
      int number = (int) (tag >>> 3);
      int wire = (int) (tag & 7);
      if (number == 1 && wire == 2) {
        region = r.string();
      } else if (number == 2 && wire == 0) {
        found = r.varint() != 0;
      } else if (number == 3 && wire == 0) {
        rows = r.varint();
      } else if (number == 4 && wire == 2) {
        names.add(r.string());
      } else if (number == 5 && wire == 0) {
        values.add(r.varint());
      } else if (number == 5 && wire == 2) { // packed, as a newer writer may send it
        Reader packed = new Reader(r.bytes());
        while (packed.more()) {
          values.add(packed.varint());
        }
      } else {
        r.skip(wire);
      }
    }
    if (names.size() != values.size()) {
      throw new IllegalArgumentException(
          "blockscope profile: " + names.size() + " names, " + values.size() + " values");
    }
    Map<String, Long> costs = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      costs.put(names.get(i), values.get(i));
    }
    return new Answer(region, found, rows, costs);
  }

  /** Protobuf's wire format, the three field kinds this protocol writes. */
  private static final class Writer {
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

  private static final class Reader {
    private final byte[] b;
    private int at;

    Reader(byte[] b) {
      this.b = b;
    }

    boolean more() {
      return at < b.length;
    }

    long varint() {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (at >= b.length) {
          throw new IllegalArgumentException("blockscope profile: truncated varint");
        }
        byte x = b[at++];
        v |= (long) (x & 0x7F) << shift;
        if (x >= 0) {
          return v;
        }
      }
      throw new IllegalArgumentException("blockscope profile: varint longer than 10 bytes");
    }

    byte[] bytes() {
      long n = varint();
      if (n < 0 || n > b.length - at) {
        throw new IllegalArgumentException(
            "blockscope profile: truncated field of " + n + " bytes");
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
          throw new IllegalArgumentException("blockscope profile: wire type " + wire);
      }
    }

    private void advance(int n) {
      if (n > b.length - at) {
        throw new IllegalArgumentException("blockscope profile: truncated field");
      }
      at += n;
    }
  }
}
