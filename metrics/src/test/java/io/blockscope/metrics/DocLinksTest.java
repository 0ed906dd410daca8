package io.blockscope.metrics;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * Every relative link of the operator pages (docs/*.md, README.md, CHANGELOG.md) and of the notes
 * of runs (benchmarks/*.md) reaches a file of the source tree, and every {@code #anchor} a heading
 * of its page, spelled as GitHub makes a heading's anchor: lower case, punctuation but {@code -}
 * and {@code _} dropped, spaces made hyphens, a repeated heading numbered {@code -1}, {@code -2}.
 */
public class DocLinksTest {
  private static final Path ROOT = Path.of("..");

  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

  @Test
  public void everyLinkReachesAFileAndEveryAnchorAHeading() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(ROOT.resolve("README.md"));
    pages.add(ROOT.resolve("CHANGELOG.md"));
    for (String dir : List.of("docs", "benchmarks")) {
      try (Stream<Path> docs = Files.list(ROOT.resolve(dir))) {
        docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
      }
    }
    List<String> broken = new ArrayList<>();
    int links = 0;
    Map<Path, Set<String>> anchors = new HashMap<>();
    for (Path page : pages) {
      for (String target : links(page)) {
        if (target.matches("^[a-z]+:.*")) {
          continue; // http:, https:, mailto:
        }
        links++;
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path to = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(to)) {
          broken.add(page + ": " + target + " (no such file)");
          continue;
        }
        if (hash >= 0 && to.toString().endsWith(".md")) {
          Set<String> headings = anchors.computeIfAbsent(to, DocLinksTest::anchorsOf);
          if (!headings.contains(target.substring(hash + 1))) {
            broken.add(page + ": " + target + " (no such heading)");
          }
        }
      }
    }
    assertTrue("the pages have links", links > 100);
    assertTrue("broken links:\n" + String.join("\n", broken), broken.isEmpty());
  }

  /** A page's lines outside fenced code blocks, read once per page. */
  private static final Map<Path, List<String>> PROSE = new HashMap<>();

  private static List<String> prose(Path page) {
    return PROSE.computeIfAbsent(
        page.normalize(),
        p -> {
          List<String> lines = new ArrayList<>();
          boolean code = false;
          try {
            for (String line : Files.readAllLines(p)) {
              if (line.trim().startsWith("```")) {
                code = !code;
              } else if (!code) {
                lines.add(line);
              }
            }
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
          return lines;
        });
  }

  /** The link targets of a page, outside fenced code blocks. */
  private static List<String> links(Path page) {
    List<String> targets = new ArrayList<>();
    for (String line : prose(page)) {
      Matcher m = LINK.matcher(line);
      while (m.find()) {
        targets.add(m.group(1));
      }
    }
    return targets;
  }

  /** The anchors GitHub gives a page's headings. */
  static Set<String> anchorsOf(Path page) {
    Set<String> anchors = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (String line : prose(page)) {
      if (line.startsWith("#")) {
        String slug = slug(line.replaceFirst("^#+\\s*", ""));
        int n = seen.merge(slug, 1, Integer::sum);
        anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
      }
    }
    return anchors;
  }

  static String slug(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1"); // a link's text
    StringBuilder s = new StringBuilder();
    for (char c : text.toLowerCase(Locale.ROOT).toCharArray()) {
      if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
        s.append(c);
      } else if (c == ' ') {
        s.append('-');
      }
    }
    return s.toString();
  }

  @Test
  public void slugsAreGitHubs() {
    assertEquals(
        "what-a-region-server-process-pays-binblockscope-process-overhead",
        slug("What a region server process pays: `bin/blockscope process-overhead`"));
    assertEquals(
        "a-region-every-handler-reads-at-once-hotregionbenchmark",
        slug("A region every handler reads at once: `HotRegionBenchmark`"));
  }
}
