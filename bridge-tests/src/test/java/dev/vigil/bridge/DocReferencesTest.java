package dev.vigil.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The project's documents and every reference to them, over the whole source tree (code, javadoc,
 * tests, poms, bridge scenarios, README files and docs/): a cited document exists, a cited section of
 * DESIGN.md exists, a law id used anywhere is defined in docs/LAWS.md, and every law defined there is
 * used by code or tests. Each rule asserts that it looked at a good number of real references, so a
 * broken scan cannot pass.
 */
class DocReferencesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path DOCS = ROOT.resolve("docs");
  private static final Set<String> SCANNED_EXTENSIONS = Set.of(".java", ".md", ".xml", ".txt", ".properties",
      ".json", ".signatures");

  /** A document named in capitals, e.g. LAWS.md, docs/DESIGN.md, coordination-h2/README.md. */
  private static final Pattern DOCUMENT = Pattern.compile("(?<![A-Za-z0-9_./-])((?:[A-Za-z0-9_.-]+/)*[A-Z][A-Z0-9_-]*\\.md)\\b");
  /** A citation of DESIGN.md sections: "DESIGN.md §7", "DESIGN §5, §9", "DESIGN.md section 2". */
  private static final Pattern DESIGN_CITATION = Pattern.compile(
      "DESIGN(?:\\.md)?((?:(?:,|, and| and)?\\s*(?:§\\s?|section\\s+)[0-9]+(?:\\.[0-9]+)?)+)");
  private static final Pattern SECTION_NUMBER = Pattern.compile("[0-9]+(?:\\.[0-9]+)?");
  /** A section reference inside DESIGN.md itself: "(§4)". */
  private static final Pattern BARE_SECTION = Pattern.compile("§\\s?([0-9]+(?:\\.[0-9]+)?)");
  /** A law id where it stands alone or starts a test or scenario name: Q9, (Q4, Q5), C1_oneLease. */
  private static final Pattern LAW_ID = Pattern.compile("(?<![A-Za-z0-9$#.])([CQSD][0-9]{1,2})(?![0-9A-Za-z])");
  /** An id of a many-hosts law (H and a number other than 2, the database), counted like the others. */
  private static final Pattern HOST_LAW_ID = Pattern.compile("(?<![A-Za-z0-9$#.])(H(?:[013-9]|[1-9][0-9]))(?![0-9A-Za-z])");
  /** A law's definition in LAWS.md: "- **Q12 a time limit …**". */
  private static final Pattern LAW_DEFINITION = Pattern.compile("^- \\*\\*([CQSDH][0-9]{1,2}) ", Pattern.MULTILINE);
  /** A relative link in markdown: [text](path) or [text](path#anchor). */
  private static final Pattern MD_LINK = Pattern.compile("\\]\\(([^)#\\s]+)(?:#[^)]*)?\\)");

  private static final List<Path> FILES = new ArrayList<>();
  private static final Set<String> LAWS = new TreeSet<>();
  private static final Set<String> SECTIONS = new TreeSet<>();

  @BeforeAll
  static void readTheTree() throws IOException {
    try (Stream<Path> s = Files.walk(ROOT)) {
      s.filter(p -> !excluded(ROOT.relativize(p)))
          .filter(Files::isRegularFile)
          .filter(p -> SCANNED_EXTENSIONS.stream().anyMatch(p.getFileName().toString()::endsWith))
          .sorted()
          .forEach(FILES::add);
    }
    String laws = Files.readString(DOCS.resolve("LAWS.md"));
    Matcher m = LAW_DEFINITION.matcher(laws);
    List<String> defined = new ArrayList<>();
    while (m.find()) {
      defined.add(m.group(1));
    }
    LAWS.addAll(defined);
    assertEquals(defined.size(), LAWS.size(), "each law is defined once in docs/LAWS.md: " + defined);
    Matcher h = Pattern.compile("^(?:## ([0-9]+) |### ([0-9]+\\.[0-9]+) )", Pattern.MULTILINE)
        .matcher(Files.readString(DOCS.resolve("DESIGN.md")));
    while (h.find()) {
      SECTIONS.add(h.group(1) != null ? h.group(1) : h.group(2));
    }
  }

  private static boolean excluded(Path relative) {
    for (Path part : relative) {
      String name = part.toString();
      if (name.equals("target") || name.startsWith(".")) {
        return true;
      }
    }
    return false;
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String where(Path file, String text, int offset) {
    int line = 1;
    for (int i = 0; i < offset; i++) {
      if (text.charAt(i) == '\n') {
        line++;
      }
    }
    return ROOT.relativize(file) + ":" + line;
  }

  @Test
  void theTreeWasReadWithItsDocuments() {
    assertTrue(FILES.size() > 300, "files scanned: " + FILES.size());
    for (String doc : List.of("LAWS.md", "DESIGN.md", "GUIDE.md", "CONFIG.md")) {
      assertTrue(FILES.contains(DOCS.resolve(doc)), "docs/" + doc + " was scanned");
    }
    assertTrue(LAWS.size() >= 35, "laws defined in docs/LAWS.md: " + LAWS);
    assertTrue(SECTIONS.containsAll(List.of("1", "1.4", "2", "5", "6", "7", "8", "9", "11")), "sections: " + SECTIONS);
  }

  @Test
  void everyCitedDocumentExists() {
    List<String> missing = new ArrayList<>();
    int seen = 0;
    for (Path f : FILES) {
      String text = read(f);
      Matcher m = DOCUMENT.matcher(text);
      while (m.find()) {
        seen++;
        String name = m.group(1);
        if (!resolves(f, name)) {
          missing.add(where(f, text, m.start()) + " cites " + name);
        }
      }
    }
    assertTrue(seen > 60, "document citations seen: " + seen);
    assertEquals(List.of(), missing, "cited documents that are not in the repository");
  }

  /** A name with a directory resolves from the citing file or the root; a bare name also from docs/. */
  private static boolean resolves(Path citing, String name) {
    List<Path> candidates = new ArrayList<>(List.of(citing.getParent().resolve(name), ROOT.resolve(name)));
    if (!name.contains("/")) {
      candidates.add(DOCS.resolve(name));
    }
    return candidates.stream().map(Path::normalize).anyMatch(p -> p.startsWith(ROOT) && Files.isRegularFile(p));
  }

  @Test
  void everyMarkdownLinkLeadsToAFile() {
    List<String> broken = new ArrayList<>();
    int seen = 0;
    for (Path f : FILES) {
      if (!f.toString().endsWith(".md")) {
        continue;
      }
      String text = read(f);
      Matcher m = MD_LINK.matcher(text);
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("[a-z]+:.*")) {
          continue;
        }
        seen++;
        Path p = f.getParent().resolve(target).normalize();
        if (!p.startsWith(ROOT) || !Files.exists(p)) {
          broken.add(where(f, text, m.start()) + " links to " + target);
        }
      }
    }
    assertTrue(seen > 15, "relative links seen: " + seen);
    assertEquals(List.of(), broken, "markdown links to nothing");
  }

  @Test
  void everyCitedDesignSectionExists() {
    List<String> missing = new ArrayList<>();
    int seen = 0;
    for (Path f : FILES) {
      String text = read(f);
      Matcher m = DESIGN_CITATION.matcher(text);
      while (m.find()) {
        Matcher n = SECTION_NUMBER.matcher(m.group(1));
        while (n.find()) {
          seen++;
          if (!SECTIONS.contains(n.group())) {
            missing.add(where(f, text, m.start()) + " cites DESIGN.md §" + n.group());
          }
        }
      }
    }
    Path design = DOCS.resolve("DESIGN.md");
    String text = read(design);
    Matcher b = BARE_SECTION.matcher(text);
    while (b.find()) {
      seen++;
      if (!SECTIONS.contains(b.group(1))) {
        missing.add(where(design, text, b.start()) + " refers to §" + b.group(1));
      }
    }
    assertTrue(seen > 40, "section citations seen: " + seen);
    assertEquals(List.of(), missing, "cited sections that DESIGN.md does not have (it has " + SECTIONS + ")");
  }

  @Test
  void everyLawIdUsedIsDefinedAndNoUnbuiltLawIsCited() {
    List<String> undefined = new ArrayList<>();
    TreeMap<String, Integer> uses = new TreeMap<>();
    for (Path f : FILES) {
      String text = read(f);
      boolean laws = f.equals(DOCS.resolve("LAWS.md"));
      Matcher m = LAW_ID.matcher(text);
      while (m.find()) {
        String id = m.group(1);
        if (!LAWS.contains(id)) {
          undefined.add(where(f, text, m.start()) + " uses " + id);
        } else if (!laws) {
          uses.merge(id, 1, Integer::sum);
        }
      }
      Matcher h = HOST_LAW_ID.matcher(text);
      while (h.find()) {
        if (!LAWS.contains(h.group(1))) {
          undefined.add(where(f, text, h.start()) + " uses " + h.group(1) + " (not built)");
        } else if (!laws) {
          uses.merge(h.group(1), 1, Integer::sum);
        }
      }
    }
    assertTrue(uses.values().stream().mapToInt(Integer::intValue).sum() > 500, "law ids seen: " + uses);
    assertEquals(List.of(), undefined, "law ids that docs/LAWS.md does not define");
    Set<String> unused = new LinkedHashSet<>(LAWS);
    unused.removeAll(uses.keySet());
    assertEquals(Set.of(), unused, "laws of docs/LAWS.md that no code, test or document uses");
  }

  @Test
  void theLawsNotYetBuiltHaveNoIds() {
    String laws = read(DOCS.resolve("LAWS.md"));
    int at = laws.indexOf("\n## Not yet built");
    assertTrue(at > 0, "docs/LAWS.md has a 'Not yet built' section");
    String rest = laws.substring(at);
    Matcher m = Pattern.compile("\\b[CQSDH][0-9]{1,2}\\b").matcher(rest);
    assertTrue(!m.find(), "the laws not yet built carry no id: " + (m.find(0) ? m.group() : ""));
    for (String id : LAWS) {
      assertTrue(laws.indexOf("**" + id + " ") < at, id + " is defined above 'Not yet built'");
    }
  }
}
