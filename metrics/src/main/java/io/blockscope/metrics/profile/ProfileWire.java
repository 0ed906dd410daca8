package io.blockscope.metrics.profile;

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

  /**
   * The service's second method: a region server's statement statistics ({@link StatementsWire}).
   */
  public static final String STATEMENTS_METHOD = "GetStatements";

  public static final String STATEMENTS_REQUEST = "StatementsRequest";
  public static final String STATEMENTS_RESPONSE = "StatementsResponse";

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
   * message StatementsRequest  { optional string user = 1; optional bool all = 2;
   *                              optional bool reset = 3; }
   * message StatementsResponse { optional string server = 1; repeated string column = 2;
   *                              repeated string user = 3; repeated string fingerprint = 4;
   *                              repeated string text = 5; repeated int64 value = 6;
   *                              optional int64 users_let_go = 7; optional bool reset = 8; }
   * service BlockscopeProfile {
   *   rpc GetProfile(ProfileRequest) returns (ProfileResponse);
   *   rpc GetStatements(StatementsRequest) returns (StatementsResponse);
   * }
   * </pre>
   */
  public static byte[] fileDescriptor() {
    return DESCRIPTOR.clone();
  }

  private static byte[] describe() {
    Protobuf.Writer request = new Protobuf.Writer();
    request.string(1, REQUEST);
    request.message(2, field("query_id", 1, OPTIONAL, STRING));
    request.message(2, field("user", 2, OPTIONAL, STRING));

    Protobuf.Writer response = new Protobuf.Writer();
    response.string(1, RESPONSE);
    response.message(2, field("region", 1, OPTIONAL, STRING));
    response.message(2, field("found", 2, OPTIONAL, BOOL));
    response.message(2, field("rows", 3, OPTIONAL, INT64));
    response.message(2, field("name", 4, REPEATED, STRING));
    response.message(2, field("value", 5, REPEATED, INT64));

    Protobuf.Writer statementsRequest = new Protobuf.Writer();
    statementsRequest.string(1, STATEMENTS_REQUEST);
    statementsRequest.message(2, field("user", 1, OPTIONAL, STRING));
    statementsRequest.message(2, field("all", 2, OPTIONAL, BOOL));
    statementsRequest.message(2, field("reset", 3, OPTIONAL, BOOL));

    Protobuf.Writer statementsResponse = new Protobuf.Writer();
    statementsResponse.string(1, STATEMENTS_RESPONSE);
    statementsResponse.message(2, field("server", 1, OPTIONAL, STRING));
    statementsResponse.message(2, field("column", 2, REPEATED, STRING));
    statementsResponse.message(2, field("user", 3, REPEATED, STRING));
    statementsResponse.message(2, field("fingerprint", 4, REPEATED, STRING));
    statementsResponse.message(2, field("text", 5, REPEATED, STRING));
    statementsResponse.message(2, field("value", 6, REPEATED, INT64));
    statementsResponse.message(2, field("users_let_go", 7, OPTIONAL, INT64));
    statementsResponse.message(2, field("reset", 8, OPTIONAL, BOOL));

    Protobuf.Writer service = new Protobuf.Writer();
    service.string(1, SERVICE);
    service.message(2, method(METHOD, REQUEST, RESPONSE));
    service.message(2, method(STATEMENTS_METHOD, STATEMENTS_REQUEST, STATEMENTS_RESPONSE));

    // FileDescriptorProto: name 1, package 2, message_type 4, service 6
    Protobuf.Writer file = new Protobuf.Writer();
    file.string(1, FILE);
    file.string(2, PACKAGE);
    file.message(4, request);
    file.message(4, response);
    file.message(4, statementsRequest);
    file.message(4, statementsResponse);
    file.message(6, service);
    return file.bytes();
  }

  /** A MethodDescriptorProto: name 1, input_type 2, output_type 3. */
  private static Protobuf.Writer method(String name, String request, String response) {
    Protobuf.Writer w = new Protobuf.Writer();
    w.string(1, name);
    w.string(2, "." + PACKAGE + "." + request);
    w.string(3, "." + PACKAGE + "." + response);
    return w;
  }

  /** A FieldDescriptorProto: name 1, number 3, label 4, type 5. */
  private static Protobuf.Writer field(String name, int number, int label, int type) {
    Protobuf.Writer w = new Protobuf.Writer();
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
    Protobuf.Writer w = new Protobuf.Writer();
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
    Protobuf.Reader r = new Protobuf.Reader(bytes);
    String region = "";
    boolean found = false;
    long rows = 0;
    List<String> names = new ArrayList<>();
    List<Long> values = new ArrayList<>();
    while (r.field()) {
      if (r.is(1, 2)) {
        region = r.string();
      } else if (r.is(2, 0)) {
        found = r.varint() != 0;
      } else if (r.is(3, 0)) {
        rows = r.varint();
      } else if (r.is(4, 2)) {
        names.add(r.string());
      } else if (r.is(5, 0)) {
        values.add(r.varint());
      } else if (r.is(5, 2)) { // packed, as a newer writer may send it
        Protobuf.Reader packed = new Protobuf.Reader(r.bytes());
        while (packed.more()) {
          values.add(packed.varint());
        }
      } else {
        r.skip(r.wire);
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
}
