package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every {@code vigil} command line shown in docs/GUIDE.md and README.md parses on the real command
 * line model of {@link Main}: the commands and options exist and take the values shown. The lines are
 * those of code blocks (GUIDE.md's {@code $ …} lines, README.md's {@code ./vigil …} lines) and inline
 * code that starts with {@code vigil }, with the placeholders of the text (TICKET, NAME…) filled in.
 * Every command of the CLI is shown in the guide.
 */
class GuideCommandsTest {
  private static final Path GUIDE = Path.of("..", "docs", "GUIDE.md");
  private static final Path README = Path.of("..", "README.md");

  /** Placeholders of the text, in the order they are replaced, with a value of their kind. */
  private static final Map<String, String> PLACEHOLDERS = new LinkedHashMap<>();

  static {
    PLACEHOLDERS.put("TICKET|RUN", "t-1");
    PLACEHOLDERS.put("RUN|TICKET", "t-1.1");
    PLACEHOLDERS.put("NAME=VALUE", "team=data");
    PLACEHOLDERS.put("DURATION", "30s");
    PLACEHOLDERS.put("COMMAND...", "true");
    PLACEHOLDERS.put("TICKET", "t-1");
    PLACEHOLDERS.put("RUN", "t-1.1");
    PLACEHOLDERS.put("NAME", "clock");
    PLACEHOLDERS.put("FILE", "jobs.txt");
    PLACEHOLDERS.put("DIR", "/tmp");
    PLACEHOLDERS.put("ID", "7");
    PLACEHOLDERS.put("N", "2");
    PLACEHOLDERS.put("K", "nightly");
    PLACEHOLDERS.put("L", "batch");
  }

  private static final Pattern INLINE = Pattern.compile("`(vigil [^`]+)`");
  private static final Pattern FENCE = Pattern.compile("^```.*$", Pattern.MULTILINE);

  /** The lines of {@code file}'s code blocks. */
  private static List<String> blockLines(String text) {
    List<String> out = new ArrayList<>();
    boolean in = false;
    for (String line : text.split("\n", -1)) {
      if (FENCE.matcher(line).matches()) {
        in = !in;
      } else if (in) {
        out.add(line);
      }
    }
    return out;
  }

  /**
   * Splits a shell line into commands (at unquoted {@code ;}, {@code |}, {@code &&}) of words, as a
   * POSIX shell would, without expanding anything.
   */
  static List<List<String>> commands(String line) {
    List<List<String>> out = new ArrayList<>();
    List<String> words = new ArrayList<>();
    StringBuilder w = null;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '\'') {
        int end = line.indexOf('\'', i + 1);
        w = w == null ? new StringBuilder() : w;
        w.append(line, i + 1, end);
        i = end;
      } else if (c == '"') {
        w = w == null ? new StringBuilder() : w;
        for (i++; line.charAt(i) != '"'; i++) {
          if (line.charAt(i) == '\\' && "\"\\$`".indexOf(line.charAt(i + 1)) >= 0) {
            i++;
          }
          w.append(line.charAt(i));
        }
      } else if (c == '\\') {
        w = w == null ? new StringBuilder() : w;
        w.append(line.charAt(++i));
      } else if (c == ' ' || c == '\t' || c == ';' || c == '|' || c == '&') {
        if (w != null) {
          words.add(w.toString());
          w = null;
        }
        if (c != ' ' && c != '\t' && !words.isEmpty()) {
          out.add(words);
          words = new ArrayList<>();
        }
      } else {
        w = w == null ? new StringBuilder() : w;
        w.append(c);
      }
    }
    if (w != null) {
      words.add(w.toString());
    }
    if (!words.isEmpty()) {
      out.add(words);
    }
    return out;
  }

  /** Words that may stand before a command: shell keywords, and variable assignments besides. */
  private static final Set<String> LEADERS = Set.of("do", "then", "else", "time", "exec", "!");

  /** The arguments of each {@code vigil} invocation in a shell line: where vigil is the command word. */
  static List<List<String>> invocations(String line) {
    List<List<String>> out = new ArrayList<>();
    for (List<String> words : commands(line)) {
      int i = 0;
      while (i < words.size() && (words.get(i).matches("[A-Za-z_][A-Za-z0-9_]*=.*") || LEADERS.contains(words.get(i)))) {
        i++;
      }
      if (i < words.size() && (words.get(i).equals("vigil") || words.get(i).equals("./vigil"))) {
        out.add(words.subList(i + 1, words.size()));
      }
    }
    return out;
  }

  private static String fill(String text) {
    String s = text;
    for (Map.Entry<String, String> e : PLACEHOLDERS.entrySet()) {
      s = s.replaceAll("(?<![A-Za-z_-])" + Pattern.quote(e.getKey()) + "(?![A-Za-z_])", e.getValue());
    }
    return s;
  }

  /** Parses one invocation on the real model; returns the problem, or null when it parses. */
  private static String problem(List<String> args) {
    try {
      CommandLine.ParseResult r = Main.commandLine().parseArgs(args.toArray(String[]::new));
      if (!r.hasSubcommand() && !r.isUsageHelpRequested() && !r.isVersionHelpRequested()) {
        return "names no command";
      }
      return null;
    } catch (CommandLine.ParameterException e) {
      return e.getMessage();
    }
  }

  private record Shown(String where, List<String> args) {}

  private static List<Shown> shown(Path file, boolean dollarLinesOnly) throws IOException {
    String text = Files.readString(file);
    List<Shown> out = new ArrayList<>();
    for (String line : blockLines(text)) {
      String cmd = line;
      if (dollarLinesOnly) {
        if (!line.startsWith("$ ")) {
          continue;
        }
        cmd = line.substring(2);
      } else {
        cmd = line.replaceFirst("\\s+#.*$", "");
      }
      for (List<String> args : invocations(cmd)) {
        out.add(new Shown(file.getFileName() + ": " + line, args));
      }
    }
    Matcher m = INLINE.matcher(text);
    while (m.find()) {
      for (List<String> args : invocations(fill(m.group(1)))) {
        if (args.size() == 1 && !args.get(0).startsWith("-")) {
          // the name of a command in prose ("`vigil kill` does"): the command must exist
          if (!Main.commandLine().getSubcommands().containsKey(args.get(0))) {
            out.add(new Shown(file.getFileName() + ": `" + m.group(1) + "`", args));
          }
          continue;
        }
        out.add(new Shown(file.getFileName() + ": `" + m.group(1) + "`", args));
      }
    }
    return out;
  }

  private static void assertAllParse(List<Shown> shown) {
    List<String> bad = new ArrayList<>();
    for (Shown s : shown) {
      String p = problem(s.args());
      if (p != null) {
        bad.add(s.where() + " -> " + p);
      }
    }
    assertEquals(List.of(), bad, "command lines in the documents that the CLI does not take");
  }

  @Test
  void everyCommandLineOfTheGuideParses() throws IOException {
    List<Shown> shown = shown(GUIDE, true);
    assertTrue(shown.size() > 80, "vigil command lines found in GUIDE.md: " + shown.size());
    assertAllParse(shown);
  }

  @Test
  void everyCommandLineOfTheReadmeParses() throws IOException {
    List<Shown> shown = shown(README, false);
    assertTrue(shown.size() > 8, "vigil command lines found in README.md: " + shown.size());
    assertAllParse(shown);
  }

  @Test
  void theGuideShowsEveryCommand() throws IOException {
    String guide = Files.readString(GUIDE);
    Set<String> commands = new TreeSet<>();
    for (CommandLine c : Main.commandLine().getSubcommands().values()) {
      commands.add(c.getCommandName());
      c.getSubcommands().values().forEach(s -> commands.add(c.getCommandName() + " " + s.getCommandName()));
    }
    commands.remove("help");
    assertTrue(commands.size() >= 20, "commands: " + commands);
    Set<String> missing = new TreeSet<>();
    for (String c : commands) {
      if (!Pattern.compile("vigil " + Pattern.quote(c) + "\\b").matcher(guide).find()) {
        missing.add(c);
      }
    }
    assertEquals(Set.of(), missing, "commands of the CLI that docs/GUIDE.md never shows");
  }

  @Test
  void theSplitterReadsShellLinesAsAShellDoes() {
    assertEquals(List.of(List.of("GREETING=hi", "vigil", "submit", "--", "sh", "-c", "echo $GREETING from $(pwd)")),
        commands("GREETING=hi vigil submit -- sh -c \"echo \\$GREETING from \\$(pwd)\""));
    assertEquals(List.of(List.of("events", "--follow")),
        invocations("vigil events --follow | while read -r e; do notify-send vigil \"$e\"; done"));
    assertEquals(List.of(List.of("submit", "--lane", "batch", "--", "sleep", "5")),
        invocations("for i in 1 2 3; do vigil submit --lane batch -- sleep 5; done"));
    assertEquals("vigil kill t-1 --retry", fill("vigil kill TICKET|RUN --retry"));
    assertTrue(problem(List.of("submit", "--no-such-option")) != null, "an unknown option is caught");
    assertTrue(problem(List.of("no-such-command")) != null, "an unknown command is caught");
    assertTrue(problem(List.of("--wait-daemon", "soon", "status")) != null, "a bad duration is caught");
    assertTrue(problem(List.of("kill")) != null, "a missing parameter is caught");
  }
}
