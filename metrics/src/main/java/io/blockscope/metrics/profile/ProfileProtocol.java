package io.blockscope.metrics.profile;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The coprocessor endpoint that returns a profiled query's costs, region by region: service {@code
 * blockscope.BlockscopeProfile}, method {@code GetProfile} (and {@code GetStatements}, a region
 * server's statement statistics: {@link StatementsWire}), for the region server's side, in protobuf
 * 2.5 (the protobuf HBase 2.6 keeps for endpoints). The messages are described at run time from
 * {@link ProfileWire}'s descriptor ({@code DynamicMessage}), so neither side needs generated code,
 * and a client without {@code com.google.protobuf} speaks it through {@link ProfileWire}:
 *
 * <pre>
 * message ProfileRequest  { optional string query_id = 1; optional string user = 2; }
 * message ProfileResponse { optional string region = 1; optional bool found = 2;
 *                           optional int64 rows = 3;
 *                           repeated string name = 4; repeated int64 value = 5; }
 * </pre>
 *
 * A query belongs to the user whose scans tagged it (the RPC's authenticated user, as HBase's
 * AccessController sees it), and a region answers with that user's record only: the caller's own,
 * or, when {@code user} names another, that user's if the caller is an HBase superuser or holds
 * global ADMIN; any other caller naming another user is refused with HBase's {@code
 * AccessDeniedException}. A region that has nothing for the id and user (never seen, expired, or
 * not a well-formed id) answers {@code found = false}: an empty answer, not an error.
 */
public final class ProfileProtocol {
  public static final Descriptors.ServiceDescriptor SERVICE;
  public static final Descriptors.MethodDescriptor GET_PROFILE;
  public static final Descriptors.Descriptor REQUEST;
  public static final Descriptors.Descriptor RESPONSE;

  /** The second method: a region server's statement statistics ({@link StatementsWire}). */
  public static final Descriptors.MethodDescriptor GET_STATEMENTS;

  public static final Descriptors.Descriptor STATEMENTS_REQUEST;
  public static final Descriptors.Descriptor STATEMENTS_RESPONSE;

  static {
    try {
      Descriptors.FileDescriptor d =
          Descriptors.FileDescriptor.buildFrom(
              FileDescriptorProto.parseFrom(ProfileWire.fileDescriptor()),
              new Descriptors.FileDescriptor[0]);
      SERVICE = d.findServiceByName(ProfileWire.SERVICE);
      GET_PROFILE = SERVICE.findMethodByName(ProfileWire.METHOD);
      REQUEST = d.findMessageTypeByName(ProfileWire.REQUEST);
      RESPONSE = d.findMessageTypeByName(ProfileWire.RESPONSE);
      GET_STATEMENTS = SERVICE.findMethodByName(ProfileWire.STATEMENTS_METHOD);
      STATEMENTS_REQUEST = d.findMessageTypeByName(ProfileWire.STATEMENTS_REQUEST);
      STATEMENTS_RESPONSE = d.findMessageTypeByName(ProfileWire.STATEMENTS_RESPONSE);
    } catch (Descriptors.DescriptorValidationException | InvalidProtocolBufferException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private ProfileProtocol() {}

  /** A request for the caller's own record of query {@code queryId}. */
  public static DynamicMessage request(String queryId) {
    return request(queryId, null);
  }

  /**
   * A request for user {@code user}'s record of query {@code queryId} ({@code null} or empty: the
   * caller's own). Only a superuser or global ADMIN may name another user.
   */
  public static DynamicMessage request(String queryId, String user) {
    DynamicMessage.Builder b =
        DynamicMessage.newBuilder(REQUEST)
            .setField(REQUEST.findFieldByName("query_id"), queryId == null ? "" : queryId);
    if (user != null && !user.isEmpty()) {
      b.setField(REQUEST.findFieldByName("user"), user);
    }
    return b.build();
  }

  public static String queryId(Message request) {
    Object v = request.getField(REQUEST.findFieldByName("query_id"));
    return v == null ? "" : v.toString();
  }

  /** The user a request names, or "" for the caller's own record. */
  public static String user(Message request) {
    Object v = request.getField(REQUEST.findFieldByName("user"));
    return v == null ? "" : v.toString();
  }

  /** A region's answer: its costs by name (non-zero only) and rows, or not found. */
  public static DynamicMessage response(String region, Map<String, Long> costs, long rows) {
    DynamicMessage.Builder b =
        DynamicMessage.newBuilder(RESPONSE)
            .setField(RESPONSE.findFieldByName("region"), region)
            .setField(RESPONSE.findFieldByName("found"), costs != null);
    if (costs != null) {
      b.setField(RESPONSE.findFieldByName("rows"), rows);
      for (Map.Entry<String, Long> e : costs.entrySet()) {
        b.addRepeatedField(RESPONSE.findFieldByName("name"), e.getKey());
        b.addRepeatedField(RESPONSE.findFieldByName("value"), e.getValue());
      }
    }
    return b.build();
  }

  public static boolean found(Message response) {
    return Boolean.TRUE.equals(response.getField(RESPONSE.findFieldByName("found")));
  }

  public static String region(Message response) {
    return (String) response.getField(RESPONSE.findFieldByName("region"));
  }

  public static long rows(Message response) {
    return (Long) response.getField(RESPONSE.findFieldByName("rows"));
  }

  /** The costs in a response, by name, in the order the region sent them. */
  public static Map<String, Long> costs(Message response) {
    List<?> names = (List<?>) response.getField(RESPONSE.findFieldByName("name"));
    List<?> values = (List<?>) response.getField(RESPONSE.findFieldByName("value"));
    if (names.size() != values.size()) {
      throw new IllegalArgumentException(
          "blockscope profile: " + names.size() + " names, " + values.size() + " values");
    }
    Map<String, Long> m = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      m.put((String) names.get(i), (Long) values.get(i));
    }
    return m;
  }

  /** A StatementsRequest ({@link StatementsWire#request}) as the endpoint's message. */
  public static DynamicMessage statementsRequest(String user, boolean all, boolean reset) {
    return parse(STATEMENTS_REQUEST, StatementsWire.request(user, all, reset));
  }

  /** A StatementsResponse's bytes ({@link StatementsWire.ResponseWriter}) as the message. */
  public static DynamicMessage statementsResponse(byte[] bytes) {
    return parse(STATEMENTS_RESPONSE, bytes);
  }

  private static DynamicMessage parse(Descriptors.Descriptor type, byte[] bytes) {
    try {
      return DynamicMessage.parseFrom(type, bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("blockscope: not a " + type.getName(), e);
    }
  }
}
