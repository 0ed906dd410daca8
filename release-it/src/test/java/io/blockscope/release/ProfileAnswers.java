package io.blockscope.release;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Map;

/**
 * blockscope's profile endpoint protocol as the release's {@code client/} jar speaks it (its
 * protobuf-free {@code ProfileWire}, loaded from that jar), with descriptors built from that jar's
 * own description in this JVM's protobuf 2.5, so that a test calls the endpoint as a user's own
 * client would.
 */
final class ProfileAnswers {
  static final Descriptors.MethodDescriptor GET_PROFILE;
  static final Descriptors.Descriptor REQUEST;
  static final Descriptors.Descriptor RESPONSE;
  private static final Class<?> WIRE;

  /** The profile's entries for the level a region measured the query at, and why. */
  static final String LEVEL_APPLIED;

  static final String LEVEL_REASON;

  /** The reason code for a level held down by {@code blockscope.query.max.level}. */
  static final long CAPPED;

  static {
    try {
      Path jar = ReleaseClients.driverJar(Path.of(System.getProperty("blockscope.release")));
      @SuppressWarnings("resource") // the protocol's classes live as long as the test JVM
      URLClassLoader loader =
          new URLClassLoader(
              new URL[] {jar.toUri().toURL()}, ProfileAnswers.class.getClassLoader());
      WIRE = Class.forName("io.blockscope.metrics.profile.ProfileWire", true, loader);
      Descriptors.FileDescriptor d =
          Descriptors.FileDescriptor.buildFrom(
              FileDescriptorProto.parseFrom((byte[]) WIRE.getMethod("fileDescriptor").invoke(null)),
              new Descriptors.FileDescriptor[0]);
      GET_PROFILE = d.findServiceByName("BlockscopeProfile").findMethodByName("GetProfile");
      REQUEST = d.findMessageTypeByName("ProfileRequest");
      RESPONSE = d.findMessageTypeByName("ProfileResponse");
      LEVEL_APPLIED = (String) WIRE.getField("LEVEL_APPLIED").get(null);
      LEVEL_REASON = (String) WIRE.getField("LEVEL_REASON").get(null);
      CAPPED = ((Number) WIRE.getField("CAPPED").get(null)).longValue();
    } catch (Exception e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private ProfileAnswers() {}

  /** A request for user {@code user}'s record of query {@code id} (null: the caller's own). */
  static Message request(String id, String user) throws Exception {
    byte[] b =
        (byte[]) WIRE.getMethod("request", String.class, String.class).invoke(null, id, user);
    return DynamicMessage.parseFrom(REQUEST, b);
  }

  static boolean found(Message response) throws Exception {
    return (Boolean) field(response, "found");
  }

  static long rows(Message response) throws Exception {
    return (Long) field(response, "rows");
  }

  @SuppressWarnings("unchecked")
  static Map<String, Long> costs(Message response) throws Exception {
    return (Map<String, Long>) field(response, "costs");
  }

  /** A field of the client jar's reading of {@code response}'s bytes. */
  private static Object field(Message response, String name) throws Exception {
    Object answer = WIRE.getMethod("answer", byte[].class).invoke(null, response.toByteArray());
    return answer.getClass().getField(name).get(answer);
  }
}
