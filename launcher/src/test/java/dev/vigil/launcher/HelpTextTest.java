package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The help a newcomer reads: every command of the tree takes {@code --help} and {@code -h}, every
 * option and parameter says what it is, and no help text speaks in law ids or internal words.
 */
class HelpTextTest {
  /** A law id (C1, Q9, S5, D4, H2...). */
  static final Pattern LAW_ID = Pattern.compile("\\b[CQSDH][0-9]{1,2}\\b");
  /** Words of the implementation that mean nothing to a user unless explained. */
  static final Pattern JARGON = Pattern.compile("(?i)\\b(quiesc\\w*|reservation|handoff|unsettled|safe point|lease[sd]? "
      + "(?!\\())");

  record Out(int code, String out, String err) {}

  static Out run(String... args) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(o, true, StandardCharsets.UTF_8), new PrintStream(e, true,
        StandardCharsets.UTF_8));
    return new Out(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
  }

  /** Every command of the tree, the root first. */
  static List<CommandLine> tree() {
    List<CommandLine> out = new ArrayList<>();
    walk(Main.commandLine(), out);
    return out;
  }

  private static void walk(CommandLine c, List<CommandLine> out) {
    out.add(c);
    c.getSubcommands().values().stream().distinct().forEach(s -> walk(s, out));
  }

  @Test
  void everyOptionAndParameterIsDescribed() {
    List<String> missing = new ArrayList<>();
    int seen = 0;
    for (CommandLine c : tree()) {
      CommandSpec spec = c.getCommandSpec();
      for (OptionSpec o : spec.options()) {
        seen++;
        if (blank(o)) {
          missing.add(spec.qualifiedName() + " " + o.longestName());
        }
      }
      for (PositionalParamSpec p : spec.positionalParameters()) {
        seen++;
        if (blank(p)) {
          missing.add(spec.qualifiedName() + " " + p.paramLabel());
        }
      }
      if (String.join("", spec.usageMessage().description()).isBlank()) {
        missing.add(spec.qualifiedName() + " (the command itself)");
      }
    }
    assertTrue(seen > 80, "the walk saw the tree's options: " + seen);
    assertEquals(List.of(), missing, "options, parameters and commands without a description");
  }

  private static boolean blank(ArgSpec a) {
    return String.join("", a.description()).isBlank();
  }

  @Test
  void everyCommandTakesHelpAndDashH() {
    int commands = 0;
    for (CommandLine c : tree()) {
      if (c.getCommand() instanceof Main) {
        continue;
      }
      commands++;
      String name = c.getCommandSpec().qualifiedName(" ").substring("vigil ".length()); // like "store check"
      for (String flag : List.of("--help", "-h")) {
        List<String> args = new ArrayList<>(List.of(name.split(" ")));
        args.add(flag);
        Out r = run(args.toArray(String[]::new));
        assertEquals(0, r.code(), "vigil " + name + " " + flag + ": " + r.err());
        assertTrue(r.out().contains("Usage: vigil " + name), "vigil " + name + " " + flag + " prints its usage: "
            + r.out());
        assertEquals("", r.err(), "vigil " + name + " " + flag);
      }
    }
    assertTrue(commands >= 26, "every subcommand was asked: " + commands);
    Out root = run("--help");
    assertEquals(0, root.code());
    assertTrue(root.out().contains("completion") && root.out().contains("Exit codes"), root.out());
  }

  @Test
  void helpSpeaksPlainWords() {
    List<String> found = new ArrayList<>();
    for (CommandLine c : tree()) {
      String usage = c.getUsageMessage(CommandLine.Help.Ansi.OFF);
      for (Pattern p : List.of(LAW_ID, JARGON)) {
        Matcher m = p.matcher(usage);
        while (m.find()) {
          found.add(c.getCommandSpec().qualifiedName() + ": '" + m.group() + "' in ..." + around(usage, m.start()));
        }
      }
    }
    assertEquals(List.of(), found, "law ids or internal words in help text");
  }

  /** A string literal on one line of Java source. */
  private static final Pattern LITERAL = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

  /**
   * The strings the launcher and the engine hand to people (replies, diagnoses, service notes, status
   * words, errors) carry no law ids: every string literal of their main sources, except comments,
   * log statements, the invariants' own texts (package {@code law}) and a literal that is only a law
   * id (a field naming the law an edge serves).
   */
  @Test
  void userVisibleStringsOfTheLauncherAndTheEngineCarryNoLawIds() throws Exception {
    List<Path> roots = List.of(Path.of("src", "main", "java"),
        Path.of("..", "supervisor-core", "src", "main", "java", "dev", "vigil", "supervisor"));
    List<String> found = new ArrayList<>();
    int literals = 0;
    for (Path root : roots) {
      List<Path> files;
      try (var s = Files.walk(root)) {
        files = s.filter(f -> f.toString().endsWith(".java") && !f.toString().contains("/law/")).toList();
      }
      for (Path f : files) {
        List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
          String line = lines.get(i).strip();
          if (line.startsWith("*") || line.startsWith("//") || line.startsWith("/*") || line.contains("LOG.")
              || line.contains("HostLog.")) {
            continue;
          }
          Matcher m = LITERAL.matcher(line);
          while (m.find()) {
            literals++;
            String text = m.group(1);
            if (!text.matches("[CQSDH][0-9]{1,2}") && LAW_ID.matcher(text).find()) {
              found.add(f.getFileName() + ":" + (i + 1) + ": \"" + text + "\"");
            }
          }
        }
      }
    }
    assertTrue(literals > 500, "the scan read the sources: " + literals + " literals");
    assertEquals(List.of(), found, "law ids in strings a person reads");
  }

  /** The pattern finds what it is meant to find (no vacuous pass). */
  @Test
  void thePatternsFindWhatTheyLookFor() {
    assertTrue(LAW_ID.matcher("leave workers running (D4).").find());
    assertTrue(LAW_ID.matcher("restart budgets (S1); ").find());
    assertTrue(JARGON.matcher("every worker quiesces").find());
    assertTrue(!LAW_ID.matcher("like 30s, 5m, 2h; t-12.1; S-mode").find());
  }

  private static String around(String s, int at) {
    return s.substring(Math.max(0, at - 30), Math.min(s.length(), at + 30)).replace('\n', ' ') + "...";
  }

  @Test
  void examplesOnTheCommandsPeopleStartWith() {
    for (String c : List.of("submit", "wait", "logs", "run", "up")) {
      Out r = run(c, "--help");
      assertTrue(r.out().contains("Examples:") && r.out().contains("  vigil " + c), "vigil " + c + " --help: " + r.out());
    }
  }

  @Test
  void anUnknownCommandIsNamed() {
    Out r = run("frobnicate");
    assertEquals(2, r.code());
    assertEquals("vigil: unknown command 'frobnicate' (see vigil --help)\n", r.err());
    Out o = run("status", "--frob");
    assertEquals(2, o.code());
    assertEquals("vigil: unknown option '--frob' for vigil status (see vigil status --help)\n", o.err());
  }

  @Test
  void bashCompletionNamesTheCommandsAndParses(@TempDir Path tmp) throws Exception {
    Out r = run("completion", "bash");
    assertEquals(0, r.code(), r.err());
    for (String c : List.of("submit", "status", "logs", "completion", "--lane", "--max-attempts")) {
      assertTrue(r.out().contains(c), "the script names " + c);
    }
    Path script = Files.writeString(tmp.resolve("vigil.bash"), r.out());
    Process p = new ProcessBuilder("bash", "-n", script.toString()).redirectErrorStream(true).start();
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), "bash -n accepts it: " + said);
    Out z = run("completion", "zsh");
    assertEquals(0, z.code(), z.err());
    assertTrue(z.out().startsWith("autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n"));
    Out bad = run("completion", "fish");
    assertEquals(2, bad.code());
    assertTrue(bad.err().startsWith("vigil: completion: 'fish'"), bad.err());
  }
}
