package io.blockscope.metrics;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;

/**
 * A small JSON writer: maps, lists, strings, numbers, booleans and null, indented two spaces. Used
 * by evaluate's results.json and EXPLAIN ANALYZE's JSON form; strings are escaped so that the text
 * is also safe inside an HTML script element.
 */
public final class Json {
  /** {@code value} as JSON text, ending with a newline. */
  public static String write(Object value) {
    return write(value, false);
  }

  /**
   * The same, with each {@code <} escaped (backslash, u003c): safe inside an HTML script element.
   */
  public static String writeForScript(Object value) {
    return write(value, true);
  }

  private static String write(Object value, boolean script) {
    StringBuilder sb = new StringBuilder();
    new Json(script).write(sb, value, 0);
    return sb.append('\n').toString();
  }

  private final boolean script;

  private Json(boolean script) {
    this.script = script;
  }

  private void write(StringBuilder sb, Object v, int indent) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof String) {
      string(sb, (String) v);
    } else if (v instanceof Double) {
      Double d = (Double) v;
      sb.append(d.isNaN() || d.isInfinite() ? "null" : String.format(Locale.ROOT, "%.6g", d));
    } else if (v instanceof Float) {
      write(sb, ((Float) v).doubleValue(), indent);
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else if (v instanceof Map<?, ?>) {
      Map<?, ?> m = (Map<?, ?>) v;
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        sb.append(first ? "\n" : ",\n").append(indent(indent + 1));
        string(sb, String.valueOf(e.getKey()));
        sb.append(": ");
        write(sb, e.getValue(), indent + 1);
        first = false;
      }
      sb.append(first ? "}" : "\n" + indent(indent) + "}");
    } else if (v instanceof Collection<?>) {
      Collection<?> c = (Collection<?>) v;
      boolean scalars = c.stream().allMatch(x -> !(x instanceof Map || x instanceof Collection));
      sb.append('[');
      boolean first = true;
      for (Object x : c) {
        if (scalars) {
          sb.append(first ? "" : ", ");
        } else {
          sb.append(first ? "\n" : ",\n").append(indent(indent + 1));
        }
        write(sb, x, indent + 1);
        first = false;
      }
      sb.append(scalars || first ? "]" : "\n" + indent(indent) + "]");
    } else {
      string(sb, v.toString());
    }
  }

  private void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      switch (ch) {
        case '"':
          sb.append("\\\"");
          break;
        case '\\':
          sb.append("\\\\");
          break;
        case '\n':
          sb.append("\\n");
          break;
        case '\r':
          sb.append("\\r");
          break;
        case '\t':
          sb.append("\\t");
          break;
        default:
          if (ch == '<' && script) {
            sb.append("\\u003c");
          } else if (ch < 0x20) {
            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
          } else {
            sb.append(ch);
          }
      }
    }
    sb.append('"');
  }

  /** Two spaces per level. */
  private static String indent(int levels) {
    StringBuilder sb = new StringBuilder(2 * levels);
    for (int i = 0; i < levels; i++) {
      sb.append("  ");
    }
    return sb.toString();
  }
}
