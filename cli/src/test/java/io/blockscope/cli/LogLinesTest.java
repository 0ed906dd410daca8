package io.blockscope.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * Every line blockscope's main code logs at WARN or ERROR is in docs/troubleshooting.md: each fixed
 * part of its format (the text between its {@code {}} placeholders) appears there, with the page's
 * white space made single. A format that is a placeholder alone ({@code "blockscope: {}"}, the
 * engine's problems) has no fixed text to look for; the page names it as {@code <problem>}.
 */
public class LogLinesTest {
  private static final Path ROOT = Path.of("..");

  /** {@code LOG.warn(} or {@code LOG.error(} and the string literals its format is joined from. */
  private static final Pattern CALL =
      Pattern.compile("LOG\\.(warn|error)\\(\\s*((?:\"(?:[^\"\\\\]|\\\\.)*\"\\s*\\+?\\s*)+)");

  private static final Pattern LITERAL = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** The formats of every WARN and ERROR call under the modules' {@code src/main/java}. */
  static List<String> formats() throws IOException {
    List<String> formats = new ArrayList<>();
    int calls = 0;
    List<Path> sources;
    try (Stream<Path> files = Files.walk(ROOT)) {
      sources =
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(p -> p.toString().contains("/src/main/java/"))
              .filter(p -> !p.toString().contains("/target/"))
              .toList();
    }
    for (Path source : sources) {
      String text = Files.readString(source);
      calls += count(text, "LOG.warn(") + count(text, "LOG.error(");
      Matcher call = CALL.matcher(text);
      while (call.find()) {
        StringBuilder format = new StringBuilder();
        Matcher literal = LITERAL.matcher(call.group(2));
        while (literal.find()) {
          format.append(literal.group(1));
        }
        formats.add(format.toString());
      }
    }
    assertEquals("WARN and ERROR calls whose format was read: " + formats, calls, formats.size());
    return formats;
  }

  private static int count(String text, String what) {
    int n = 0;
    for (int at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + 1)) {
      n++;
    }
    return n;
  }

  private static String oneSpaced(String s) {
    return s.replaceAll("\\s+", " ");
  }

  @Test
  public void everyWarnAndErrorLineIsOnTheTroubleshootingPage() throws IOException {
    String page = oneSpaced(Files.readString(ROOT.resolve("docs/troubleshooting.md")));
    List<String> formats = formats();
    assertTrue("WARN and ERROR calls found: " + formats, !formats.isEmpty());
    List<String> missing = new ArrayList<>();
    for (String format : formats) {
      for (String part : format.split("\\{\\}")) {
        String fixed = oneSpaced(part).trim();
        if (fixed.equals("blockscope:") || fixed.isEmpty()) {
          continue;
        }
        if (!page.contains(fixed)) {
          missing.add(fixed + "  (of: " + format + ")");
        }
      }
    }
    assertEquals("log lines docs/troubleshooting.md does not have", List.of(), missing);
  }
}
