package io.blockscope.hints;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * Every SQLState the driver's code raises is in the table of docs/hints.md's "SQLStates" section:
 * each five-character state literal of the module's main sources ({@code "08001"}, {@code "0A000"},
 * ...) is a row of it, and the table names no state the code does not raise.
 */
public class DriverSqlStatesTest {
  /** A string literal of five characters shaped as an SQLState: a class of two, a subclass. */
  private static final Pattern STATE = Pattern.compile("\"([0-9][0-9A-Z][0-9A-Z]{3})\"");

  private static final Pattern ROW = Pattern.compile("(?m)^\\| `([0-9A-Z]{5})` \\|");

  @Test
  public void everySqlStateTheDriverRaisesIsInItsTable() throws IOException {
    Set<String> raised = new TreeSet<>();
    try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
      for (Path p : sources.filter(f -> f.toString().endsWith(".java")).toList()) {
        Matcher m = STATE.matcher(Files.readString(p));
        while (m.find()) {
          raised.add(m.group(1));
        }
      }
    }
    assertTrue(
        "states found in the code: " + raised, raised.containsAll(List.of("08001", "42501")));
    String page = Files.readString(Path.of("../docs/hints.md"));
    int from = page.indexOf("\n## SQLStates\n");
    assertTrue("docs/hints.md has a SQLStates section", from >= 0);
    int to = page.indexOf("\n## ", from + 1);
    Matcher row = ROW.matcher(page.substring(from, to < 0 ? page.length() : to));
    Set<String> documented = new TreeSet<>();
    while (row.find()) {
      documented.add(row.group(1));
    }
    assertEquals("the SQLStates table of docs/hints.md", raised, documented);
  }
}
