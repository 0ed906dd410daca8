package io.blockscope.hints;

import io.blockscope.metrics.profile.ProfileWire;
import io.blockscope.metrics.profile.StatementsWire;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.client.Table;

/**
 * Calls blockscope's profile endpoint through HBase's {@code Table.batchCoprocessorService} with
 * whichever protobuf that method takes in this JVM, found from its signature: {@code
 * com.google.protobuf} beside Phoenix's unshaded client, {@code
 * org.apache.phoenix.shaded.com.google.protobuf} inside Phoenix's shaded client jar, which
 * relocates protobuf 2.5 and rewrites HBase's client to match. The messages are built and read
 * through {@link ProfileWire}'s bytes, so the driver names no protobuf class itself.
 *
 * <p>The protobuf members used (each present in protobuf 2.5 and 3): {@code
 * DescriptorProtos.FileDescriptorProto.parseFrom(byte[])}, {@code
 * Descriptors.FileDescriptor.buildFrom}, {@code findServiceByName}, {@code findMethodByName},
 * {@code findMessageTypeByName}, {@code DynamicMessage.parseFrom(Descriptor, byte[])}, {@code
 * DynamicMessage.getDefaultInstance(Descriptor)} and {@code toByteArray()}.
 */
final class ProfileEndpointClient {
  private final Method batch;
  private final Object getProfile;
  private final Object request;
  private final Method parse;
  private final Object responsePrototype;
  private final Object getStatements;
  private final Object statementsRequest;
  private final Object statementsPrototype;

  private ProfileEndpointClient(Method batch) throws ReflectiveOperationException {
    this.batch = batch;
    Class<?> methodDescriptor = batch.getParameterTypes()[0];
    String pkg = methodDescriptor.getName();
    pkg = pkg.substring(0, pkg.lastIndexOf('.'));
    ClassLoader loader = methodDescriptor.getClassLoader();
    Class<?> fileProto = Class.forName(pkg + ".DescriptorProtos$FileDescriptorProto", true, loader);
    Class<?> file = Class.forName(pkg + ".Descriptors$FileDescriptor", true, loader);
    Class<?> descriptor = Class.forName(pkg + ".Descriptors$Descriptor", true, loader);
    Class<?> service = Class.forName(pkg + ".Descriptors$ServiceDescriptor", true, loader);
    Class<?> dynamic = Class.forName(pkg + ".DynamicMessage", true, loader);

    Object proto =
        fileProto.getMethod("parseFrom", byte[].class).invoke(null, ProfileWire.fileDescriptor());
    Object none = Array.newInstance(file, 0);
    Object built =
        file.getMethod("buildFrom", fileProto, none.getClass()).invoke(null, proto, none);
    Object svc =
        file.getMethod("findServiceByName", String.class).invoke(built, ProfileWire.SERVICE);
    Method findType = file.getMethod("findMessageTypeByName", String.class);
    this.getProfile =
        service.getMethod("findMethodByName", String.class).invoke(svc, ProfileWire.METHOD);
    this.request = findType.invoke(built, ProfileWire.REQUEST);
    this.parse = dynamic.getMethod("parseFrom", descriptor, byte[].class);
    this.responsePrototype =
        dynamic
            .getMethod("getDefaultInstance", descriptor)
            .invoke(null, findType.invoke(built, ProfileWire.RESPONSE));
    this.getStatements =
        service
            .getMethod("findMethodByName", String.class)
            .invoke(svc, ProfileWire.STATEMENTS_METHOD);
    this.statementsRequest = findType.invoke(built, ProfileWire.STATEMENTS_REQUEST);
    this.statementsPrototype =
        dynamic
            .getMethod("getDefaultInstance", descriptor)
            .invoke(null, findType.invoke(built, ProfileWire.STATEMENTS_RESPONSE));
    if (getProfile == null
        || request == null
        || !methodDescriptor.isInstance(getProfile)
        || !methodDescriptor.isInstance(getStatements)
        || statementsRequest == null) {
      throw new IllegalStateException("the profile protocol's descriptor did not build");
    }
  }

  private static volatile ProfileEndpointClient instance;

  /**
   * The endpoint as this JVM's HBase client reaches it; built once.
   *
   * @throws IllegalStateException naming what is missing when HBase's client has no {@code
   *     batchCoprocessorService} of the known shape or its protobuf lacks a member named above
   */
  static ProfileEndpointClient get() {
    ProfileEndpointClient e = instance;
    if (e == null) {
      Method batch = null;
      for (Method m : Table.class.getMethods()) {
        if (m.getName().equals("batchCoprocessorService") && m.getParameterCount() == 5) {
          batch = m;
        }
      }
      if (batch == null) {
        throw new IllegalStateException(
            "blockscope: this HBase client's Table has no batchCoprocessorService(MethodDescriptor,"
                + " Message, byte[], byte[], Message); the profile endpoint cannot be called");
      }
      try {
        e = new ProfileEndpointClient(batch);
      } catch (InvocationTargetException x) {
        throw new IllegalStateException(
            "blockscope: building the profile protocol with "
                + batch.getParameterTypes()[0].getName()
                + "'s protobuf failed: "
                + x.getCause(),
            x.getCause());
      } catch (ReflectiveOperationException | RuntimeException x) {
        throw new IllegalStateException(
            "blockscope: the protobuf of this HBase client ("
                + batch.getParameterTypes()[0].getName()
                + ") lacks what the profile call needs: "
                + x,
            x);
      }
      instance = e;
    }
    return e;
  }

  /** The protobuf package HBase's endpoint API takes here, for messages and tests. */
  String protobufPackage() {
    String n = batch.getParameterTypes()[0].getName();
    return n.substring(0, n.lastIndexOf(".Descriptors"));
  }

  /**
   * Asks the regions of {@code table} from the one holding row {@code start} through the one
   * holding row {@code end}, both inclusive (null and null: every region; see {@link
   * io.blockscope.metrics.profile.KeyRanges#calls}), for user {@code user}'s record of query {@code
   * queryId} ({@code user} null: the caller's own) and returns each region's answer. Throws what
   * HBase's client throws.
   */
  List<ProfileWire.Answer> ask(Table table, byte[] start, byte[] end, String queryId, String user)
      throws Throwable {
    Object req = parse.invoke(null, request, ProfileWire.request(queryId, user));
    Map<?, ?> answers;
    try {
      answers = (Map<?, ?>) batch.invoke(table, getProfile, req, start, end, responsePrototype);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
    List<ProfileWire.Answer> out = new ArrayList<>(answers.size());
    for (Object m : answers.values()) {
      out.add(ProfileWire.answer((byte[]) m.getClass().getMethod("toByteArray").invoke(m)));
    }
    return out;
  }

  /**
   * Asks the region of {@code table} holding row {@code row} for its server's statement statistics
   * ({@link StatementsWire#request}: {@code user}'s, or with {@code all} everyone's; {@code reset}
   * clears them after answering). Throws what HBase's client throws.
   */
  List<StatementsWire.Response> askStatements(
      Table table, byte[] row, String user, boolean all, boolean reset) throws Throwable {
    Object req = parse.invoke(null, statementsRequest, StatementsWire.request(user, all, reset));
    Map<?, ?> answers;
    try {
      answers = (Map<?, ?>) batch.invoke(table, getStatements, req, row, row, statementsPrototype);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
    List<StatementsWire.Response> out = new ArrayList<>(answers.size());
    for (Object m : answers.values()) {
      out.add(
          StatementsWire.parseResponse((byte[]) m.getClass().getMethod("toByteArray").invoke(m)));
    }
    return out;
  }
}
