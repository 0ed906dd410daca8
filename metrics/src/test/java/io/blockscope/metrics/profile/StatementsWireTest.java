package io.blockscope.metrics.profile;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.google.protobuf.DynamicMessage;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/** The statements messages without protobuf, against protobuf 2.5's reading of the descriptor. */
public class StatementsWireTest {
  private static final List<String> COLUMNS = List.of("scans", "rows", "blockCache.hit.data");

  @Test
  public void aRequestReadsBackAsProtobufReadsIt() throws Exception {
    byte[] b = StatementsWire.request("alice", false, true);
    DynamicMessage m = DynamicMessage.parseFrom(ProfileProtocol.STATEMENTS_REQUEST, b);
    assertEquals("alice", m.getField(ProfileProtocol.STATEMENTS_REQUEST.findFieldByName("user")));
    assertEquals(true, m.getField(ProfileProtocol.STATEMENTS_REQUEST.findFieldByName("reset")));
    assertEquals(false, m.getField(ProfileProtocol.STATEMENTS_REQUEST.findFieldByName("all")));
    StatementsWire.Request r = StatementsWire.parseRequest(m.toByteArray());
    assertEquals("alice", r.user);
    assertFalse(r.all);
    assertTrue(r.reset);
    StatementsWire.Request own =
        StatementsWire.parseRequest(StatementsWire.request(null, true, false));
    assertEquals("the caller's own, unless named", "", own.user);
    assertTrue(own.all);
    assertFalse(own.reset);
  }

  @Test
  public void aResponseKeepsItsRowsInOrderThroughProtobuf() throws Exception {
    byte[] b =
        new StatementsWire.ResponseWriter("rs1,16020,1", COLUMNS)
            .row("alice", "00112233445566ff", "SELECT * FROM T WHERE K = ?", new long[] {2, 100, 7})
            .row("alice", StatementsWire.OTHER, "", new long[] {0, 0, 300})
            .row("bob", "ffeeddccbbaa9988", null, new long[] {1, 0, 1L << 40})
            .usersLetGo(3)
            .reset(true)
            .bytes();
    // protobuf's own reading of the same bytes, written back: one message, the same rows
    byte[] again = ProfileProtocol.statementsResponse(b).toByteArray();
    StatementsWire.Response r = StatementsWire.parseResponse(again);
    assertEquals("rs1,16020,1", r.server);
    assertEquals(COLUMNS, r.columns);
    assertEquals(3, r.rows.size());
    assertEquals(3, r.usersLetGo);
    assertTrue(r.reset);
    StatementsWire.Row first = r.rows.get(0);
    assertEquals("alice", first.user);
    assertEquals("SELECT * FROM T WHERE K = ?", first.text);
    assertEquals(100, first.get("rows"));
    assertEquals(7, first.get("blockCache.hit.data"));
    assertEquals(StatementsWire.OTHER, r.rows.get(1).fingerprint);
    assertEquals("no text sent: empty", "", r.rows.get(2).text);
    assertEquals(1L << 40, r.rows.get(2).get("blockCache.hit.data"));
    assertEquals("a column the server did not send", 0, first.get("decode.NONE.cells"));
  }

  @Test
  public void aRowOfTheWrongWidthIsRefusedWhenWritten() {
    StatementsWire.ResponseWriter w = new StatementsWire.ResponseWriter("s", COLUMNS);
    assertThrows(IllegalArgumentException.class, () -> w.row("u", "f", "", new long[] {1, 2}));
  }

  @Test
  public void aTruncatedOrMisalignedResponseIsAnErrorNeverMadeUpRows() {
    byte[] good =
        new StatementsWire.ResponseWriter("s", COLUMNS)
            .row("alice", "00112233445566ff", "T", new long[] {1, 2, 3})
            .bytes();
    for (int cut = 1; cut < good.length; cut++) {
      byte[] part = Arrays.copyOf(good, cut);
      try {
        StatementsWire.Response r = StatementsWire.parseResponse(part);
        assertTrue("a cut between fields leaves no row: " + cut, r.rows.isEmpty());
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage(), e.getMessage().startsWith("blockscope "));
      }
    }
  }
}
