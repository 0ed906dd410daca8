package io.blockscope.metrics.profile;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The messages of the profile endpoint's {@code GetStatements} method ({@link ProfileWire}'s
 * descriptor) as bytes, without a protobuf library: one region server's statement statistics, by
 * user and statement fingerprint.
 *
 * <p>A request asks for the caller's own statements, for one named user's, or for every user's
 * ({@code all}); a superuser or global ADMIN may ask for another user's or everyone's, and only
 * they may {@code reset} the server's statistics. A response names its columns once and then holds
 * one row per statement: its user, fingerprint, text ("" when none reached the server) and one
 * value per column. A kept user's statements that were let go are summed in the row whose
 * fingerprint is {@link #OTHER}; with {@code all}, the users let go are summed in a row whose user
 * and fingerprint are both {@link #OTHER}.
 */
public final class StatementsWire {
  /** Region scanners opened for the statement. */
  public static final String SCANS = "scans";

  /** Rows they returned. */
  public static final String ROWS = "rows";

  /**
   * Executions of the statement that read on the server: the distinct execution ids its scans
   * carried ({@code blockscope.statement.execution}).
   */
  public static final String EXECUTIONS = "executions";

  /** Regions those executions read, each region counted once per execution. */
  public static final String REGIONS = "regions";

  /** When the statement was first and last seen on the server, epoch ms (0 for an other row). */
  public static final String FIRST_SEEN = "first.seen.ms";

  public static final String LAST_SEEN = "last.seen.ms";

  /** The most block accesses the statement made on the server that its figures leave out. */
  public static final String UNCOUNTED_MAX = "uncounted.max";

  /** The fingerprint (and, for the users let go, the user) of a row of statements let go. */
  public static final String OTHER = "(other)";

  private StatementsWire() {}

  /**
   * A StatementsRequest: {@code user}'s statements (null or empty: the caller's own), or with
   * {@code all} every user's; {@code reset} clears the server's statistics after answering.
   */
  public static byte[] request(String user, boolean all, boolean reset) {
    Protobuf.Writer w = new Protobuf.Writer();
    if (user != null && !user.isEmpty()) {
      w.string(1, user);
    }
    if (all) {
      w.varint(2, 1);
    }
    if (reset) {
      w.varint(3, 1);
    }
    return w.bytes();
  }

  /** What a StatementsRequest asks. */
  public static final class Request {
    /** The user named, or "" for the caller's own statements. */
    public final String user;

    public final boolean all;
    public final boolean reset;

    Request(String user, boolean all, boolean reset) {
      this.user = user;
      this.all = all;
      this.reset = reset;
    }
  }

  /**
   * Reads a StatementsRequest; fields it does not know are skipped.
   *
   * @throws IllegalArgumentException if the bytes are not a well-formed message
   */
  public static Request parseRequest(byte[] bytes) {
    Protobuf.Reader r = new Protobuf.Reader(bytes);
    String user = "";
    boolean all = false;
    boolean reset = false;
    while (r.field()) {
      if (r.is(1, 2)) {
        user = r.string();
      } else if (r.is(2, 0)) {
        all = r.varint() != 0;
      } else if (r.is(3, 0)) {
        reset = r.varint() != 0;
      } else {
        r.skip(r.wire);
      }
    }
    return new Request(user, all, reset);
  }

  /** Writes one server's StatementsResponse, row by row. */
  public static final class ResponseWriter {
    private final Protobuf.Writer w = new Protobuf.Writer();
    private final int columns;

    public ResponseWriter(String server, List<String> columns) {
      w.string(1, server == null ? "" : server);
      for (String c : columns) {
        w.string(2, c);
      }
      this.columns = columns.size();
    }

    /** One statement's row: {@code values} has one value per column. */
    public ResponseWriter row(String user, String fingerprint, String text, long[] values) {
      if (values.length != columns) {
        throw new IllegalArgumentException(values.length + " values for " + columns + " columns");
      }
      w.string(3, user);
      w.string(4, fingerprint);
      w.string(5, text == null ? "" : text);
      for (long v : values) {
        w.varint(6, v);
      }
      return this;
    }

    public ResponseWriter usersLetGo(long n) {
      w.varint(7, n);
      return this;
    }

    public ResponseWriter reset(boolean done) {
      w.varint(8, done ? 1 : 0);
      return this;
    }

    public byte[] bytes() {
      return w.bytes();
    }
  }

  /** One statement of one user on one server. */
  public static final class Row {
    public final String user;
    public final String fingerprint;

    /** The normalized text, or "" when none reached the server. */
    public final String text;

    /** The row's values by column, in the order the server sent the columns. */
    public final Map<String, Long> values;

    Row(String user, String fingerprint, String text, Map<String, Long> values) {
      this.user = user;
      this.fingerprint = fingerprint;
      this.text = text;
      this.values = Collections.unmodifiableMap(values);
    }

    /** The value of {@code column}, 0 where the server sent none. */
    public long get(String column) {
      Long v = values.get(column);
      return v == null ? 0 : v;
    }
  }

  /** One server's StatementsResponse. */
  public static final class Response {
    public final String server;
    public final List<String> columns;
    public final List<Row> rows;
    public final long usersLetGo;
    public final boolean reset;

    Response(String server, List<String> columns, List<Row> rows, long usersLetGo, boolean reset) {
      this.server = server;
      this.columns = Collections.unmodifiableList(columns);
      this.rows = Collections.unmodifiableList(rows);
      this.usersLetGo = usersLetGo;
      this.reset = reset;
    }
  }

  /**
   * Reads a StatementsResponse; fields it does not know are skipped.
   *
   * @throws IllegalArgumentException if the bytes are not a well-formed response: truncated, or
   *     rows whose users, fingerprints, texts and values do not line up with the columns
   */
  public static Response parseResponse(byte[] bytes) {
    Protobuf.Reader r = new Protobuf.Reader(bytes);
    String server = "";
    List<String> columns = new ArrayList<>();
    List<String> users = new ArrayList<>();
    List<String> fingerprints = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    List<Long> values = new ArrayList<>();
    long letGo = 0;
    boolean reset = false;
    while (r.field()) {
      if (r.is(1, 2)) {
        server = r.string();
      } else if (r.is(2, 2)) {
        columns.add(r.string());
      } else if (r.is(3, 2)) {
        users.add(r.string());
      } else if (r.is(4, 2)) {
        fingerprints.add(r.string());
      } else if (r.is(5, 2)) {
        texts.add(r.string());
      } else if (r.is(6, 0)) {
        values.add(r.varint());
      } else if (r.is(6, 2)) { // packed, as a newer writer may send it
        Protobuf.Reader packed = new Protobuf.Reader(r.bytes());
        while (packed.more()) {
          values.add(packed.varint());
        }
      } else if (r.is(7, 0)) {
        letGo = r.varint();
      } else if (r.is(8, 0)) {
        reset = r.varint() != 0;
      } else {
        r.skip(r.wire);
      }
    }
    int n = users.size();
    if (fingerprints.size() != n
        || texts.size() != n
        || (long) n * columns.size() != values.size()) {
      throw new IllegalArgumentException(
          "blockscope statements: "
              + n
              + " users, "
              + fingerprints.size()
              + " fingerprints, "
              + texts.size()
              + " texts and "
              + values.size()
              + " values for "
              + columns.size()
              + " columns");
    }
    List<Row> rows = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Map<String, Long> v = new LinkedHashMap<>();
      for (int c = 0; c < columns.size(); c++) {
        v.put(columns.get(c), values.get(i * columns.size() + c));
      }
      rows.add(new Row(users.get(i), fingerprints.get(i), texts.get(i), v));
    }
    return new Response(server, columns, rows, letGo, reset);
  }
}
