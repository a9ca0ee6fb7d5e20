package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * docs/CLI.md cannot drift from the code: its command part is made from the picocli model of
 * {@link Main}, and this test fails with the difference when the file holds another. Run it with
 * {@code -Dvigil.cli.rewrite=true} to write the part anew.
 */
class CliReferenceTest {
  static final Path CLI_MD = Path.of("..", "docs", "CLI.md");
  static final String BEGIN = "<!-- BEGIN COMMANDS: made from the code by CliReferenceTest; do not edit by hand "
      + "(rewrite: mvn -pl launcher -am verify -Dtest=CliReferenceTest -Dsurefire.failIfNoSpecifiedTests=false "
      + "-Dvigil.cli.rewrite=true) -->";
  static final String END = "<!-- END COMMANDS -->";

  /** The command part of CLI.md: every command with its synopsis, description, parameters, options and examples. */
  static String commands() {
    StringBuilder b = new StringBuilder();
    CommandLine root = Main.commandLine();
    List<CommandLine> all = new ArrayList<>();
    walk(root, all);
    for (CommandLine c : all) {
      CommandSpec spec = c.getCommandSpec();
      b.append("### `").append(spec.qualifiedName()).append("`\n\n");
      for (String d : spec.usageMessage().description()) {
        b.append(d.replace("%n", "").strip()).append("\n\n");
      }
      b.append("```\n").append(c.getHelp().synopsis(0).stripTrailing()).append("\n```\n\n");
      List<PositionalParamSpec> params = spec.positionalParameters();
      List<OptionSpec> options = spec.options().stream().filter(o -> !o.inherited()).toList();
      if (!params.isEmpty() || !options.isEmpty()) {
        b.append("| parameter or option | meaning |\n|---|---|\n");
        for (PositionalParamSpec p : params) {
          b.append("| `").append(p.paramLabel()).append("` | ").append(cell(p.description())).append(" |\n");
        }
        for (OptionSpec o : options) {
          String names = String.join(", ", o.names()) + (o.arity().max() > 0 ? " " + o.paramLabel() : "");
          b.append("| `").append(names).append("` | ").append(cell(o.description()))
              .append(o.scopeType() == CommandLine.ScopeType.INHERIT ? " (every command takes it)" : "").append(" |\n");
        }
        b.append('\n');
      }
      List<String> footer = new ArrayList<>(List.of(spec.usageMessage().footer()));
      footer.removeIf(String::isBlank);
      if (!footer.isEmpty()) {
        boolean examples = footer.get(0).equals("Examples:");
        if (examples) {
          b.append("Examples:\n\n```\n");
          footer.subList(1, footer.size()).forEach(l -> b.append(l.strip()).append('\n'));
          b.append("```\n\n");
        } else {
          footer.forEach(l -> b.append(l.strip()).append("\n\n"));
        }
      }
    }
    return b.toString();
  }

  /** {@code c} and its subcommands, depth first, each command before its own subcommands. */
  private static void walk(CommandLine c, List<CommandLine> out) {
    out.add(c);
    c.getSubcommands().values().stream().distinct().forEach(s -> walk(s, out));
  }

  private static String cell(String[] description) {
    return String.join(" ", description).strip().replace("|", "\\|");
  }

  @Test
  void theCommandPartOfCliMdIsTheCodes() throws Exception {
    String text = Files.readString(CLI_MD, StandardCharsets.UTF_8);
    int begin = text.indexOf(BEGIN);
    int end = text.indexOf(END);
    assertTrue(begin >= 0 && end > begin, "docs/CLI.md holds the markers " + BEGIN + " ... " + END);
    String now = text.substring(begin + BEGIN.length(), end);
    String made = "\n\n" + commands();
    if (Boolean.getBoolean("vigil.cli.rewrite")) {
      Files.writeString(CLI_MD, text.substring(0, begin + BEGIN.length()) + made + text.substring(end),
          StandardCharsets.UTF_8);
      return;
    }
    assertEquals(made, now, "docs/CLI.md differs from the commands in the code; rewrite it with "
        + "-Dvigil.cli.rewrite=true and review the change");
  }
}
