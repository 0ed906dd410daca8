package io.blockscope.release;

import com.google.protobuf.Descriptors;
import com.google.protobuf.Message;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

/**
 * blockscope's profile endpoint protocol as the release's {@code client/} jar describes it (its
 * {@code ProfileProtocol}, loaded from that jar over this JVM's HBase client and protobuf 2.5), so
 * that a test calls the endpoint as a user's own client would.
 */
final class ProfileAnswers {
  static final Descriptors.MethodDescriptor GET_PROFILE;
  static final Descriptors.Descriptor RESPONSE;
  private static final Class<?> PROTOCOL;

  static {
    try (Stream<Path> s = Files.list(Path.of(System.getProperty("blockscope.release"), "client"))) {
      Path jar = s.findFirst().orElseThrow(() -> new AssertionError("no jar in client/"));
      @SuppressWarnings("resource") // the protocol's classes live as long as the test JVM
      URLClassLoader loader =
          new URLClassLoader(
              new URL[] {jar.toUri().toURL()}, ProfileAnswers.class.getClassLoader());
      PROTOCOL = Class.forName("io.blockscope.metrics.profile.ProfileProtocol", true, loader);
      GET_PROFILE = (Descriptors.MethodDescriptor) PROTOCOL.getField("GET_PROFILE").get(null);
      RESPONSE = (Descriptors.Descriptor) PROTOCOL.getField("RESPONSE").get(null);
    } catch (Exception e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private ProfileAnswers() {}

  /** A request for user {@code user}'s record of query {@code id} (null: the caller's own). */
  static Message request(String id, String user) throws Exception {
    return (Message) call("request", new Class<?>[] {String.class, String.class}, id, user);
  }

  static boolean found(Message response) throws Exception {
    return (Boolean) call("found", new Class<?>[] {Message.class}, response);
  }

  static long rows(Message response) throws Exception {
    return (Long) call("rows", new Class<?>[] {Message.class}, response);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Long> costs(Message response) throws Exception {
    return (Map<String, Long>) call("costs", new Class<?>[] {Message.class}, response);
  }

  private static Object call(String name, Class<?>[] types, Object... args) throws Exception {
    Method m = PROTOCOL.getMethod(name, types);
    return m.invoke(null, args);
  }
}
