package io.blockscope.hints;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.antlr.runtime.ANTLRStringStream;
import org.antlr.runtime.Token;
import org.apache.phoenix.parse.PhoenixSQLLexer;

/** A query's tokens as Phoenix's own lexer cuts them: the truth the guard is held to. */
final class PhoenixTokens {
  private PhoenixTokens() {}

  /**
   * Whether Phoenix's lexer finds {@code NEXT}, then at most three tokens, then {@code VALUE} or
   * {@code VALUES}, then {@code FOR} among the query's tokens (comments and white space aside);
   * null if the lexer reports an error. Phoenix matches keywords in lower case ({@code
   * SQLParser.CaseInsensitiveReaderStream}), so the query is lower-cased first.
   */
  static Boolean takesSequenceValues(String query) {
    int[] errors = {0};
    PhoenixSQLLexer lexer =
        new PhoenixSQLLexer(new ANTLRStringStream(query.toLowerCase(Locale.ROOT))) {
          @Override
          public void emitErrorMessage(String message) {
            errors[0]++;
          }
        };
    List<Integer> types = new ArrayList<>();
    try {
      for (Token t = lexer.nextToken(); t.getType() != Token.EOF; t = lexer.nextToken()) {
        if (t.getChannel() == Token.DEFAULT_CHANNEL) {
          types.add(t.getType());
        }
      }
    } catch (RuntimeException e) {
      return null;
    }
    if (errors[0] > 0) {
      return null;
    }
    for (int k = 1; k + 1 < types.size(); k++) {
      boolean values =
          types.get(k) == PhoenixSQLLexer.VALUE || types.get(k) == PhoenixSQLLexer.VALUES;
      if (values && types.get(k + 1) == PhoenixSQLLexer.FOR) {
        for (int j = k - 1; j >= 0 && j >= k - 4; j--) {
          if (types.get(j) == PhoenixSQLLexer.NEXT) {
            return true;
          }
        }
      }
    }
    return false;
  }
}
