package io.blockscope.hints;

import io.blockscope.metrics.Attributes;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.hadoop.hbase.client.Scan;

/**
 * A statement's shape: its SQL with every literal and bind value made {@code ?}, unquoted words in
 * upper case (Phoenix reads unquoted names and keywords without regard to case), comments dropped,
 * white space made uniform; and its fingerprint, a hash of that text. Statements that differ only
 * in literals, bind values, case, comments or white space share a shape; statements that differ in
 * anything else (a name, an operator, a hint, a clause) do not.
 *
 * <p>The rules, in order of the text:
 *
 * <ul>
 *   <li>{@code --} and {@code /*} comments are dropped; a hint ({@code /*+ ... *}{@code /}) is
 *       kept, its words in upper case and its white space made single spaces, since it changes the
 *       plan;
 *   <li>a string ({@code '...'}, {@code ''} inside it), a number ({@code 42}, {@code -1.5e3},
 *       {@code .5}), a bind value ({@code ?}, {@code :1}) each become {@code ?}; a sign is part of
 *       the number where it cannot be an operator (after an operator, {@code (}, {@code ,} or a
 *       keyword-like word);
 *   <li>a parenthesized list of two or more such values ({@code IN (1, 2, 3)}, a row of {@code
 *       VALUES}) becomes {@code (?, ...)}, so that lists of different lengths share a shape;
 *   <li>a quoted name ({@code "..."}) is kept as written; {@code TRUE}, {@code FALSE} and {@code
 *       NULL} are words, not values;
 *   <li>one trailing {@code ;} is dropped; tokens are joined by single spaces, with none before
 *       {@code ,} {@code )} {@code .} and none after {@code (} {@code .}.
 * </ul>
 *
 * <p>Never throws: an unterminated string, quoted name or comment runs to the end of the text.
 */
final class StatementShape {
  /** Longest shape text kept; the fingerprint is always of the whole text. */
  static final int MAX_TEXT = Attributes.MAX_STATEMENT_TEXT;

  /** What stands for a list of two or more values. */
  static final String LIST = "(?, ...)";

  private final String text;
  private final String fingerprint;

  private StatementShape(String text, String fingerprint) {
    this.text = text;
    this.fingerprint = fingerprint;
  }

  /** The shape of {@code sql}. */
  static StatementShape of(String sql) {
    String normalized = normalize(sql);
    String kept =
        normalized.length() <= MAX_TEXT
            ? normalized
            : normalized.substring(0, MAX_TEXT - 3) + "...";
    return new StatementShape(kept, fingerprint(normalized));
  }

  /** The normalized text, at most {@link #MAX_TEXT} characters ({@code ...} ends a cut one). */
  String text() {
    return text;
  }

  /** 16 lowercase hex digits: the first 64 bits of the SHA-256 of the whole normalized text. */
  String fingerprint() {
    return fingerprint;
  }

  /**
   * What the scans of one execution of a statement carry: its fingerprint, an execution id drawn
   * for this execution alone (64 random bits as 16 hex digits), and its text when it is due.
   */
  static final class Tag {
    private final byte[] fingerprint;
    private final byte[] execution;
    private final byte[] text;

    /** A tag of {@code shape}'s execution whose scans carry {@code text} (UTF-8), or none. */
    Tag(StatementShape shape, byte[] text) {
      this.fingerprint = shape.fingerprint.getBytes(StandardCharsets.US_ASCII);
      byte[] id = new byte[8];
      ThreadLocalRandom.current().nextBytes(id);
      this.execution = QueryContext.hex(id, id.length).getBytes(StandardCharsets.US_ASCII);
      this.text = text;
    }

    /** Whether this execution's scans carry the statement's text. */
    boolean sendsText() {
      return text != null;
    }

    void applyTo(Scan scan) {
      scan.setAttribute(Attributes.STATEMENT, fingerprint);
      scan.setAttribute(Attributes.STATEMENT_EXECUTION, execution);
      if (text != null) {
        scan.setAttribute(Attributes.STATEMENT_TEXT, text);
      }
    }
  }

  /**
   * The statements whose text this process sent lately, and to which region servers.
   *
   * <p>A statement's text goes with the scans of its first execution and again once the resend
   * interval has passed since ({@link #tag}): the rule for scans whose server the driver does not
   * know. A scan whose server it knows (each region scan of a parallel plan, {@link
   * StatementTextPlacer}) carries the text only if that server has not had it from this process
   * within the interval ({@link #dueAt}), so that a region server that lost it (restarted, or let
   * the statement go) learns it back. At most {@code max} statements and {@code 4 × max}
   * (statement, server) pairs are remembered, the least recently used forgotten first (and the text
   * sent again if it runs again).
   */
  static final class Sent {
    /** A statement this process ran: its text, and when the per-process rule last sent it. */
    private static final class Known {
      final byte[] text;
      long sentAt;
      boolean sent;

      Known(byte[] text) {
        this.text = text;
      }
    }

    private final long resendNanos;
    private final LongSupplier clock;
    private final Map<String, Known> known;
    private final Map<String, Long> sentToServerAt;

    Sent(int max, long resendNanos, LongSupplier clock) {
      this.resendNanos = resendNanos;
      this.clock = clock;
      this.known = lru(max);
      this.sentToServerAt = lru(4 * max);
    }

    private static <V> Map<String, V> lru(int max) {
      return new LinkedHashMap<String, V>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
          return size() > max;
        }
      };
    }

    /** The tag of an execution of {@code shape} starting now. */
    synchronized Tag tag(StatementShape shape) {
      long now = clock.getAsLong();
      Known k = known.get(shape.fingerprint);
      if (k == null) {
        k = new Known(shape.text.getBytes(StandardCharsets.UTF_8));
        known.put(shape.fingerprint, k);
      }
      boolean send = !k.sent || now - k.sentAt >= resendNanos;
      if (send) {
        k.sent = true;
        k.sentAt = now;
      }
      return new Tag(shape, send ? k.text : null);
    }

    /**
     * The text of statement {@code fingerprint} if a scan about to go to region server {@code
     * server} is to carry it (counted as sent from now), or null if that server had it from this
     * process within the resend interval. Null too for a statement this process does not know.
     */
    synchronized byte[] dueAt(String fingerprint, String server) {
      Known k = known.get(fingerprint);
      if (k == null) {
        return null;
      }
      long now = clock.getAsLong();
      String key = fingerprint + ' ' + server;
      Long last = sentToServerAt.get(key);
      if (last != null && now - last < resendNanos) {
        return null;
      }
      sentToServerAt.put(key, now);
      return k.text;
    }

    /** Whether this process knows the text of statement {@code fingerprint}. */
    synchronized boolean knows(String fingerprint) {
      return known.containsKey(fingerprint);
    }
  }

  /** The statements whose text this process (every blockscope connection in it) sent lately. */
  static final Sent SENT =
      new Sent(
          4096,
          TimeUnit.MINUTES.toNanos(Attributes.STATEMENT_TEXT_RESEND_MINUTES),
          System::nanoTime);

  static String fingerprint(String normalized) {
    byte[] digest;
    try {
      digest =
          MessageDigest.getInstance("SHA-256").digest(normalized.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
    return QueryContext.hex(digest, 8);
  }

  /** The kinds of token the normalized text is made of. */
  private enum Kind {
    WORD,
    QUOTED,
    VALUE,
    OPERATOR,
    OPEN,
    CLOSE,
    COMMA,
    DOT,
    HINT
  }

  private static final class Token {
    final Kind kind;
    final String text;

    Token(Kind kind, String text) {
      this.kind = kind;
      this.text = text;
    }
  }

  static String normalize(String sql) {
    List<Token> tokens = collapseLists(tokens(sql == null ? "" : sql));
    if (!tokens.isEmpty() && tokens.get(tokens.size() - 1).text.equals(";")) {
      tokens.remove(tokens.size() - 1);
    }
    StringBuilder out = new StringBuilder();
    Token previous = null;
    for (Token t : tokens) {
      if (previous != null
          && t.kind != Kind.COMMA
          && t.kind != Kind.CLOSE
          && t.kind != Kind.DOT
          && previous.kind != Kind.OPEN
          && previous.kind != Kind.DOT) {
        out.append(' ');
      }
      out.append(t.text);
      previous = t;
    }
    return out.toString();
  }

  private static List<Token> tokens(String sql) {
    List<Token> tokens = new ArrayList<>();
    int n = sql.length();
    int i = 0;
    while (i < n) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? n : end + 1;
      } else if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        int stop = end < 0 ? n : end;
        if (sql.startsWith("/*+", i)) {
          tokens.add(new Token(Kind.HINT, "/*+ " + hint(sql.substring(i + 3, stop)) + " */"));
        }
        i = end < 0 ? n : end + 2;
      } else if (c == '\'') {
        i = quotedEnd(sql, i, '\'');
        tokens.add(new Token(Kind.VALUE, "?"));
      } else if (c == '"') {
        int end = quotedEnd(sql, i, '"');
        tokens.add(new Token(Kind.QUOTED, sql.substring(i, end)));
        i = end;
      } else if (c == '?') {
        tokens.add(new Token(Kind.VALUE, "?"));
        i++;
      } else if (c == ':' && i + 1 < n && isDigit(sql.charAt(i + 1))) {
        i = digitsEnd(sql, i + 1);
        tokens.add(new Token(Kind.VALUE, "?"));
      } else if (startsNumber(sql, i)) {
        i = numberEnd(sql, i);
        tokens.add(new Token(Kind.VALUE, "?"));
      } else if ((c == '-' || c == '+') && startsNumber(sql, i + 1) && signMayStartValue(tokens)) {
        i = numberEnd(sql, i + 1);
        tokens.add(new Token(Kind.VALUE, "?"));
      } else if (isWordStart(c)) {
        int end = i + 1;
        while (end < n && isWordPart(sql.charAt(end))) {
          end++;
        }
        tokens.add(new Token(Kind.WORD, sql.substring(i, end).toUpperCase(Locale.ROOT)));
        i = end;
      } else if (c == '(') {
        tokens.add(new Token(Kind.OPEN, "("));
        i++;
      } else if (c == ')') {
        tokens.add(new Token(Kind.CLOSE, ")"));
        i++;
      } else if (c == ',') {
        tokens.add(new Token(Kind.COMMA, ","));
        i++;
      } else if (c == '.') {
        tokens.add(new Token(Kind.DOT, "."));
        i++;
      } else {
        int end = i + 1;
        while (end < n && isOperatorPart(sql.charAt(end)) && isOperatorPart(c)) {
          end++;
        }
        tokens.add(new Token(Kind.OPERATOR, sql.substring(i, end)));
        i = end;
      }
    }
    return tokens;
  }

  /** A hint's text: words in upper case, white space single spaces, quoted text kept. */
  private static String hint(String body) {
    StringBuilder out = new StringBuilder();
    boolean space = false;
    for (int i = 0; i < body.length(); i++) {
      char c = body.charAt(i);
      if (Character.isWhitespace(c)) {
        space = out.length() > 0;
        continue;
      }
      if (space) {
        out.append(' ');
        space = false;
      }
      if (c == '\'' || c == '"') {
        int end = quotedEnd(body, i, c);
        out.append(body, i, end);
        i = end - 1;
      } else {
        out.append(Character.toUpperCase(c));
      }
    }
    return out.toString();
  }

  /** Replaces each parenthesized list of two or more values with one {@link #LIST} token. */
  private static List<Token> collapseLists(List<Token> tokens) {
    List<Token> out = new ArrayList<>(tokens.size());
    int i = 0;
    while (i < tokens.size()) {
      int end = valueListEnd(tokens, i);
      if (end > 0) {
        out.add(new Token(Kind.VALUE, LIST));
        i = end;
      } else {
        out.add(tokens.get(i));
        i++;
      }
    }
    return out;
  }

  /** The index past a list {@code ( v , v [, v ...] )} at {@code i}; 0 if there is none. */
  private static int valueListEnd(List<Token> tokens, int i) {
    if (tokens.get(i).kind != Kind.OPEN) {
      return 0;
    }
    int values = 0;
    int k = i + 1;
    while (k + 1 < tokens.size() && tokens.get(k).kind == Kind.VALUE) {
      values++;
      Kind after = tokens.get(k + 1).kind;
      if (after == Kind.CLOSE) {
        return values >= 2 ? k + 2 : 0;
      }
      if (after != Kind.COMMA) {
        return 0;
      }
      k += 2;
    }
    return 0;
  }

  /** Whether a sign here belongs to the number after it rather than being an operator. */
  private static boolean signMayStartValue(List<Token> tokens) {
    if (tokens.isEmpty()) {
      return true;
    }
    Token last = tokens.get(tokens.size() - 1);
    switch (last.kind) {
      case OPERATOR:
      case OPEN:
      case COMMA:
      case HINT:
        return true;
      case WORD:
        return KEYWORDS_BEFORE_VALUE.contains(last.text);
      default:
        return false;
    }
  }

  /** Words after which a sign starts a number: {@code WHERE a = 1 AND b > -2}, {@code LIMIT -1}. */
  private static final Set<String> KEYWORDS_BEFORE_VALUE =
      new HashSet<>(
          Arrays.asList(
              "SELECT", "WHERE", "AND", "OR", "NOT", "ON", "HAVING", "LIMIT", "OFFSET", "BETWEEN",
              "IN", "IS", "LIKE", "ILIKE", "THEN", "ELSE", "WHEN", "CASE", "VALUES", "SET",
              "RETURN", "BY", "ALL", "ANY", "SOME"));

  private static int quotedEnd(String s, int start, char quote) {
    int i = start + 1;
    while (i < s.length()) {
      if (s.charAt(i) == quote) {
        if (i + 1 < s.length() && s.charAt(i + 1) == quote) {
          i += 2; // a doubled quote inside
          continue;
        }
        return i + 1;
      }
      i++;
    }
    return s.length();
  }

  private static boolean startsNumber(String s, int i) {
    if (i >= s.length()) {
      return false;
    }
    char c = s.charAt(i);
    return isDigit(c) || (c == '.' && i + 1 < s.length() && isDigit(s.charAt(i + 1)));
  }

  private static int numberEnd(String s, int i) {
    i = digitsEnd(s, i);
    if (i < s.length() && s.charAt(i) == '.') {
      i = digitsEnd(s, i + 1);
    }
    if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      int k = i + 1;
      if (k < s.length() && (s.charAt(k) == '+' || s.charAt(k) == '-')) {
        k++;
      }
      if (k < s.length() && isDigit(s.charAt(k))) {
        i = digitsEnd(s, k);
      }
    }
    return i;
  }

  private static int digitsEnd(String s, int i) {
    while (i < s.length() && isDigit(s.charAt(i))) {
      i++;
    }
    return i;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isWordStart(char c) {
    return Character.isLetter(c) || c == '_';
  }

  private static boolean isWordPart(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$';
  }

  private static boolean isOperatorPart(char c) {
    return c == '<' || c == '>' || c == '=' || c == '!' || c == '|';
  }
}
