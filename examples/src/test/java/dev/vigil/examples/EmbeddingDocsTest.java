package dev.vigil.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The embedding documents show what the build checks. README.md's "Embedding" section: its Java
 * block is the source of {@link EmbeddedQueueMain}, character for character (which
 * {@link EmbeddedQueueMainTest} runs), and its Maven coordinates are this build's group, a module of
 * this reactor and this build's version. docs/GUIDE.md's section on testing: each Java block is an
 * excerpt of a test the build runs, and each test jar it names is built, with the contract classes
 * it names in it.
 */
class EmbeddingDocsTest {
  private static final Path README = Path.of("..", "README.md");
  private static final Path SOURCE = Path.of("src", "main", "java", "dev", "vigil", "examples", "EmbeddedQueueMain.java");
  private static final Path PARENT_POM = Path.of("..", "pom.xml");
  private static final Path GUIDE = Path.of("..", "docs", "GUIDE.md");
  private static final Path ROOT = Path.of("..");

  private static String section() throws Exception {
    return section(README, "## Embedding");
  }

  /** The text from the heading line {@code heading} to the next heading of its level. */
  private static String section(Path doc, String heading) throws Exception {
    String text = Files.readString(doc);
    int start = text.indexOf("\n" + heading + "\n");
    assertTrue(start >= 0, doc + " has a section " + heading);
    String level = heading.substring(0, heading.indexOf(' ') + 1);
    int end = text.indexOf("\n" + level, start + 1);
    return text.substring(start, end < 0 ? text.length() : end);
  }

  /** The guide's section on testing, whatever its number. */
  private static String testingSection() throws Exception {
    Matcher m = Pattern.compile("\n(## [0-9]+ Testing your own worker types and stores)\n").matcher(Files.readString(GUIDE));
    assertTrue(m.find(), "docs/GUIDE.md has a section on testing worker types and stores");
    return section(GUIDE, m.group(1));
  }

  /** {@code text} with each line's leading and trailing blanks removed, so an excerpt matches at any indentation. */
  private static String stripped(String text) {
    return text.lines().map(String::strip).collect(java.util.stream.Collectors.joining("\n"));
  }

  private static List<String> blocks(String text, String language) {
    Matcher m = Pattern.compile("```" + language + "\\n(.*?)```", Pattern.DOTALL).matcher(text);
    List<String> out = new ArrayList<>();
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static String tag(String xml, String name) {
    Matcher m = Pattern.compile("<" + name + ">([^<]*)</" + name + ">").matcher(xml);
    assertTrue(m.find(), "<" + name + "> in " + xml);
    return m.group(1).trim();
  }

  @Test
  void theJavaBlockIsTheEmbeddedQueueExample_asCompiled() throws Exception {
    List<String> java = blocks(section(), "java");
    assertEquals(1, java.size(), "one Java block under Embedding");
    assertEquals(Files.readString(SOURCE), java.get(0),
        "README.md's Embedding example differs from " + SOURCE + ": copy the file into the README");
  }

  @Test
  void theCoordinatesAreThisBuildsGroupAModuleAndThisBuildsVersion() throws Exception {
    String version = System.getProperty("vigil.version");
    assertNotNull(version, "the build passes its version");
    String section = section();
    List<String> xml = blocks(section, "xml");
    assertEquals(1, xml.size(), "one dependency block under Embedding");
    String pom = Files.readString(PARENT_POM);
    assertEquals("dev.vigil", tag(xml.get(0), "groupId"));
    assertEquals(version, tag(xml.get(0), "version"));
    String artifact = tag(xml.get(0), "artifactId");
    assertTrue(pom.contains("<module>" + artifact + "</module>"), artifact + " is a module of the reactor");
    assertTrue(section.contains("Group `dev.vigil`, version `" + version + "`"), "the prose names this version too");
    for (String named : List.of("coordination-api", "coordination-h2", "supervisor-core", "worker-runtime")) {
      assertTrue(section.contains("`" + named + "`") && pom.contains("<module>" + named + "</module>"), named);
    }
  }

  @Test
  void theGuidesTestingSection_showsExcerptsOfTestsTheBuildRuns() throws Exception {
    List<String> java = blocks(testingSection(), "java");
    assertTrue(java.size() >= 2, "the section shows code: " + java.size());
    List<String> tests = new ArrayList<>();
    try (java.util.stream.Stream<Path> files = Files.walk(ROOT)) {
      for (Path f : files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/test/java/")
          && !f.toString().contains("/target/")).toList()) {
        tests.add(stripped(Files.readString(f)));
      }
    }
    assertTrue(tests.size() > 50, "the reactor's tests were read: " + tests.size());
    for (String block : java) {
      String excerpt = stripped(block).strip();
      assertTrue(tests.stream().anyMatch(t -> t.contains(excerpt)),
          "docs/GUIDE.md shows code that is in no test of the build:\n" + block);
    }
  }

  @Test
  void theGuidesTestJars_areBuilt_withTheContractsItNames() throws Exception {
    String version = System.getProperty("vigil.version");
    String section = testingSection();
    List<String> xml = blocks(section, "xml");
    assertEquals(1, xml.size());
    Matcher dep = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL).matcher(xml.get(0));
    List<String> modules = new ArrayList<>();
    while (dep.find()) {
      String d = dep.group(1);
      assertEquals("dev.vigil", tag(d, "groupId"));
      assertEquals(version, tag(d, "version"));
      assertEquals("test-jar", tag(d, "type"));
      assertEquals("test", tag(d, "scope"));
      String module = tag(d, "artifactId");
      assertTrue(Files.readString(ROOT.resolve(module).resolve("pom.xml")).contains("<goal>test-jar</goal>"),
          module + " builds its test jar");
      modules.add(module);
    }
    assertEquals(List.of("coordination-api", "supervisor-core"), modules);
    Map<String, String> contracts = Map.of(
        "CoordinationContract", "coordination-api/src/test/java/dev/vigil/coordination",
        "ProcessTableContract", "supervisor-core/src/test/java/dev/vigil/supervisor/engine",
        "QuestionContract", "coordination-api/src/test/java/dev/vigil/coordination",
        "TranscriptContract", "coordination-api/src/test/java/dev/vigil/coordination",
        "RunDirectoriesContract", "supervisor-core/src/test/java/dev/vigil/supervisor/engine",
        "WorkerChannelContract", "supervisor-core/src/test/java/dev/vigil/supervisor/engine");
    for (Map.Entry<String, String> c : contracts.entrySet()) {
      assertTrue(section.contains("`" + c.getKey() + "`"), "the guide names " + c.getKey());
      String source = Files.readString(ROOT.resolve(c.getValue()).resolve(c.getKey() + ".java"));
      assertTrue(source.contains("public abstract class " + c.getKey()), c.getKey() + " is a public abstract class");
    }
  }
}
