package io.blockscope.metrics.profile;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.DynamicMessage;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.Test;

/** The protobuf-free side of the profile protocol against protobuf 2.5's own reading of it. */
public class ProfileWireTest {
  @Test
  public void theDescriptorIsWhatProtobufsBuildersWrite() throws Exception {
    FileDescriptorProto expected =
        FileDescriptorProto.newBuilder()
            .setName("blockscope/profile.proto")
            .setPackage("blockscope")
            .addMessageType(
                DescriptorProto.newBuilder()
                    .setName("ProfileRequest")
                    .addField(field("query_id", 1, FieldDescriptorProto.Type.TYPE_STRING, false))
                    .addField(field("user", 2, FieldDescriptorProto.Type.TYPE_STRING, false)))
            .addMessageType(
                DescriptorProto.newBuilder()
                    .setName("ProfileResponse")
                    .addField(field("region", 1, FieldDescriptorProto.Type.TYPE_STRING, false))
                    .addField(field("found", 2, FieldDescriptorProto.Type.TYPE_BOOL, false))
                    .addField(field("rows", 3, FieldDescriptorProto.Type.TYPE_INT64, false))
                    .addField(field("name", 4, FieldDescriptorProto.Type.TYPE_STRING, true))
                    .addField(field("value", 5, FieldDescriptorProto.Type.TYPE_INT64, true)))
            .addMessageType(
                DescriptorProto.newBuilder()
                    .setName("StatementsRequest")
                    .addField(field("user", 1, FieldDescriptorProto.Type.TYPE_STRING, false))
                    .addField(field("all", 2, FieldDescriptorProto.Type.TYPE_BOOL, false))
                    .addField(field("reset", 3, FieldDescriptorProto.Type.TYPE_BOOL, false)))
            .addMessageType(
                DescriptorProto.newBuilder()
                    .setName("StatementsResponse")
                    .addField(field("server", 1, FieldDescriptorProto.Type.TYPE_STRING, false))
                    .addField(field("column", 2, FieldDescriptorProto.Type.TYPE_STRING, true))
                    .addField(field("user", 3, FieldDescriptorProto.Type.TYPE_STRING, true))
                    .addField(field("fingerprint", 4, FieldDescriptorProto.Type.TYPE_STRING, true))
                    .addField(field("text", 5, FieldDescriptorProto.Type.TYPE_STRING, true))
                    .addField(field("value", 6, FieldDescriptorProto.Type.TYPE_INT64, true))
                    .addField(field("users_let_go", 7, FieldDescriptorProto.Type.TYPE_INT64, false))
                    .addField(field("reset", 8, FieldDescriptorProto.Type.TYPE_BOOL, false)))
            .addService(
                ServiceDescriptorProto.newBuilder()
                    .setName("BlockscopeProfile")
                    .addMethod(
                        MethodDescriptorProto.newBuilder()
                            .setName("GetProfile")
                            .setInputType(".blockscope.ProfileRequest")
                            .setOutputType(".blockscope.ProfileResponse"))
                    .addMethod(
                        MethodDescriptorProto.newBuilder()
                            .setName("GetStatements")
                            .setInputType(".blockscope.StatementsRequest")
                            .setOutputType(".blockscope.StatementsResponse")))
            .build();
    assertEquals(expected, FileDescriptorProto.parseFrom(ProfileWire.fileDescriptor()));
    assertArrayEquals(expected.toByteArray(), ProfileWire.fileDescriptor());
    assertEquals("blockscope.BlockscopeProfile", ProfileProtocol.SERVICE.getFullName());
    assertEquals("GetProfile", ProfileProtocol.GET_PROFILE.getName());
    assertEquals("GetStatements", ProfileProtocol.GET_STATEMENTS.getName());
  }

  private static FieldDescriptorProto.Builder field(
      String name, int number, FieldDescriptorProto.Type type, boolean repeated) {
    return FieldDescriptorProto.newBuilder()
        .setName(name)
        .setNumber(number)
        .setType(type)
        .setLabel(
            repeated
                ? FieldDescriptorProto.Label.LABEL_REPEATED
                : FieldDescriptorProto.Label.LABEL_OPTIONAL);
  }

  @Test
  public void requestsReadAsProtobufReadsThem() throws Exception {
    DynamicMessage own =
        DynamicMessage.parseFrom(ProfileProtocol.REQUEST, ProfileWire.request("abc", null));
    assertEquals("abc", ProfileProtocol.queryId(own));
    assertEquals("", ProfileProtocol.user(own));
    assertFalse(own.hasField(ProfileProtocol.REQUEST.findFieldByName("user")));
    assertArrayEquals(
        ProfileProtocol.request("abc").toByteArray(), ProfileWire.request("abc", null));

    DynamicMessage other =
        DynamicMessage.parseFrom(ProfileProtocol.REQUEST, ProfileWire.request("é1", "bob"));
    assertEquals("é1", ProfileProtocol.queryId(other));
    assertEquals("bob", ProfileProtocol.user(other));
    assertArrayEquals(
        ProfileProtocol.request("é1", "bob").toByteArray(), ProfileWire.request("é1", "bob"));
  }

  @Test
  public void answersReadAsProtobufWroteThem() {
    Map<String, Long> costs = new LinkedHashMap<>();
    costs.put("blockCache.miss.data", 3L);
    costs.put("decode.FAST_DIFF.cells", 1000L);
    costs.put("time.total.ns", Long.MAX_VALUE);
    costs.put("odd", -1L);
    ProfileWire.Answer a =
        ProfileWire.answer(ProfileProtocol.response("r1", costs, 42).toByteArray());
    assertTrue(a.found);
    assertEquals("r1", a.region);
    assertEquals(42, a.rows);
    assertEquals(costs, a.costs);
    assertEquals(
        Arrays.asList(costs.keySet().toArray()), Arrays.asList(a.costs.keySet().toArray()));

    ProfileWire.Answer none =
        ProfileWire.answer(ProfileProtocol.response("r2", null, 0).toByteArray());
    assertFalse(none.found);
    assertEquals("r2", none.region);
    assertTrue(none.costs.isEmpty());
    assertFalse(ProfileWire.answer(new byte[0]).found);
  }

  @Test
  public void unknownFieldsAreSkippedAndPackedValuesRead() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(buf);
    out.writeString(1, "r9");
    out.writeFixed64(20, 7); // wire type 1
    out.writeBool(2, true);
    out.writeFixed32(21, 7); // wire type 5
    out.writeBytes(22, ByteString.copyFromUtf8("later"));
    out.writeUInt64(23, 99);
    out.writeString(4, "a");
    out.writeString(4, "b");
    // value as a packed field: tag 5, wire type 2
    out.writeTag(5, 2);
    out.writeRawVarint32(CodedOutputStream.computeInt64SizeNoTag(5) + 1);
    out.writeInt64NoTag(5);
    out.writeInt64NoTag(6);
    out.flush();
    ProfileWire.Answer a = ProfileWire.answer(buf.toByteArray());
    assertEquals("r9", a.region);
    assertTrue(a.found);
    assertEquals(Long.valueOf(5), a.costs.get("a"));
    assertEquals(Long.valueOf(6), a.costs.get("b"));
  }

  @Test
  public void malformedAnswersAreRefusedByName() {
    byte[] good = ProfileProtocol.response("region", Map.of("x", 300L), 1).toByteArray();
    for (int cut = 1; cut < good.length; cut++) {
      byte[] part = Arrays.copyOf(good, cut);
      try {
        ProfileWire.Answer a = ProfileWire.answer(part);
        // a cut between two fields is a shorter, well-formed message: never a made-up value
        assertTrue(a.costs.isEmpty() || a.costs.equals(Map.of("x", 300L)));
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().startsWith("blockscope "));
      }
    }
    byte[] namesOnly = {0x22, 0x01, 'x'};
    assertThrows(IllegalArgumentException.class, () -> ProfileWire.answer(namesOnly));
    byte[] groupWire = {0x0b};
    assertThrows(IllegalArgumentException.class, () -> ProfileWire.answer(groupWire));
  }
}
