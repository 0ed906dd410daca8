package io.blockscope.release;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;

/**
 * An HBase shell {@code alter} line of the operator pages, turned into the descriptor change the
 * shell makes of it, so that the stock suite applies the page's own line rather than its idea of
 * it. HBase's shell is not in the releases served here; this follows what its {@code admin.rb}
 * ({@code alter}, HBase 2.x) does with the four forms the pages use:
 *
 * <ul>
 *   <li>{@code METHOD => 'table_att', 'coprocessor' => 'spec'}: each key containing "coprocessor"
 *       (any case) adds its value, stripped, as a coprocessor spec ({@code addCoprocessorWithSpec},
 *       which names the attribute {@code coprocessor$<n>});
 *   <li>{@code METADATA => {'k' => 'v'}}: each pair set as a table attribute;
 *   <li>{@code METHOD => 'table_att_unset', NAME => 'k'}: the attribute removed, an error when the
 *       table has no such attribute;
 *   <li>{@code METHOD => 'table_remove_coprocessor', CLASSNAME => 'c'} (HBase 2.5 on, HBASE-26524):
 *       {@code TableDescriptorBuilder.removeCoprocessor}, which removes the {@code coprocessor$<n>}
 *       attribute whose spec names the class, whatever its number.
 * </ul>
 *
 * Anything else (another method, a column family, an argument the shell would ignore) is refused:
 * an ignored argument on a page is a mistake on the page.
 */
final class ShellAlter {
  private ShellAlter() {}

  private static final Pattern TOKEN = Pattern.compile("\\s*('[^']*'|=>|[A-Za-z_]+|[,{}])");

  /** The descriptor {@code line} makes of {@code td}; the line must name td's table. */
  static TableDescriptor apply(String line, TableDescriptor td) throws IOException {
    List<String> tokens = tokens(line.trim());
    int[] at = {0};
    expect(tokens, at, "alter");
    String table = string(tokens, at);
    if (!table.equals(td.getTableName().getNameAsString())) {
      throw new IllegalArgumentException(line + " alters " + table + ", not " + td.getTableName());
    }
    Map<String, Object> args = new LinkedHashMap<>();
    while (at[0] < tokens.size()) {
      expect(tokens, at, ",");
      String key = key(tokens, at);
      expect(tokens, at, "=>");
      args.put(key, tokens.get(at[0]).equals("{") ? hash(tokens, at) : string(tokens, at));
    }
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(td);
    Object method = args.remove("METHOD");
    if ("table_att_unset".equals(method)) {
      Object name = args.remove("NAME");
      if (!(name instanceof String)) {
        throw new IllegalArgumentException("NAME parameter missing for table_att_unset: " + line);
      }
      if (td.getValue((String) name) == null) {
        throw new IllegalArgumentException("Could not find attribute: " + name);
      }
      b.removeValue((String) name);
    } else if ("table_remove_coprocessor".equals(method)) {
      Object name = args.remove("CLASSNAME");
      if (!(name instanceof String)) {
        throw new IllegalArgumentException(
            "CLASSNAME parameter missing for table_remove_coprocessor: " + line);
      }
      b.removeCoprocessor((String) name);
    } else if (method == null || "table_att".equals(method)) {
      Object metadata = args.remove("METADATA");
      if (metadata instanceof Map) {
        for (Map.Entry<?, ?> e : ((Map<?, ?>) metadata).entrySet()) {
          b.setValue((String) e.getKey(), (String) e.getValue());
        }
      }
      for (String key : new ArrayList<>(args.keySet())) {
        if (key.trim().toLowerCase(Locale.ROOT).contains("coprocessor")) {
          b.addCoprocessorWithSpec(((String) args.remove(key)).trim());
        }
      }
    } else {
      throw new IllegalArgumentException("a method the pages do not use: " + method);
    }
    if (!args.isEmpty()) {
      throw new IllegalArgumentException("arguments HBase's shell would ignore: " + args.keySet());
    }
    return b.build();
  }

  private static List<String> tokens(String line) {
    List<String> tokens = new ArrayList<>();
    Matcher m = TOKEN.matcher(line);
    int end = 0;
    while (m.lookingAt()) {
      tokens.add(m.group(1));
      end = m.end();
      m.region(end, line.length());
    }
    if (end != line.length()) {
      throw new IllegalArgumentException("cannot read " + line.substring(end) + " in " + line);
    }
    return tokens;
  }

  private static void expect(List<String> tokens, int[] at, String token) {
    if (at[0] >= tokens.size() || !tokens.get(at[0]).equals(token)) {
      throw new IllegalArgumentException(
          "expected " + token + " at token " + at[0] + " of " + tokens);
    }
    at[0]++;
  }

  private static String string(List<String> tokens, int[] at) {
    String t = at[0] < tokens.size() ? tokens.get(at[0]) : "";
    if (!t.startsWith("'")) {
      throw new IllegalArgumentException(
          "expected a quoted string at token " + at[0] + " of " + tokens);
    }
    at[0]++;
    return t.substring(1, t.length() - 1);
  }

  /** A hash key: a quoted string or one of the shell's constants (METHOD, NAME, METADATA). */
  private static String key(List<String> tokens, int[] at) {
    String t = at[0] < tokens.size() ? tokens.get(at[0]) : "";
    if (t.startsWith("'")) {
      return string(tokens, at);
    }
    if (!t.matches("[A-Z_]+")) {
      throw new IllegalArgumentException("expected a key at token " + at[0] + " of " + tokens);
    }
    at[0]++;
    return t;
  }

  private static Map<String, String> hash(List<String> tokens, int[] at) {
    expect(tokens, at, "{");
    Map<String, String> m = new LinkedHashMap<>();
    while (!tokens.get(at[0]).equals("}")) {
      if (!m.isEmpty()) {
        expect(tokens, at, ",");
      }
      String k = string(tokens, at);
      expect(tokens, at, "=>");
      m.put(k, string(tokens, at));
    }
    expect(tokens, at, "}");
    return m;
  }
}
