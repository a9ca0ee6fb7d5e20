package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link CommandFile}: which lines are commands, their numbers, and the one-line refusals. */
class CommandFileTest {
  @TempDir
  Path dir;

  @Test
  void blankAndCommentLinesAreSkipped_andEachCommandKeepsItsLineNumber() {
    List<CommandFile.Line> lines = CommandFile.parse("jobs.txt",
        "# nightly jobs\n\nmake release\r\n  \t\n  # indented comment\nsh -c 'echo \"a b\"' # why\nlast");
    assertEquals(List.of(new CommandFile.Line(3, List.of("make", "release")),
        new CommandFile.Line(6, List.of("sh", "-c", "echo \"a b\"")), new CommandFile.Line(7, List.of("last"))), lines);
  }

  @Test
  void theFirstBadLineRefusesTheFile_namingTheFileAndTheLine() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CommandFile.parse("jobs.txt", "true\n\n# fine\ntrue\ntrue\ntrue\necho 'oops\necho \"also bad"));
    assertEquals("--file jobs.txt: line 7: unbalanced single quote (opened at column 6)", e.getMessage());
    assertEquals("--file jobs.txt: line 2: the command name is empty",
        assertThrows(IllegalArgumentException.class, () -> CommandFile.parse("jobs.txt", "true\n'' arg")).getMessage());
    assertEquals("--file jobs.txt: line 1: '>' is a shell operator: pipes, redirections and lists need a shell "
        + "(write sh -c '...'), or quote it",
        assertThrows(IllegalArgumentException.class, () -> CommandFile.parse("jobs.txt", "echo a > b")).getMessage());
  }

  @Test
  void aFileThatCannotBeRead_orIsNotText_isRefusedInOneLine() throws Exception {
    assertEquals("--file " + dir.resolve("nope") + ": no such file", assertThrows(IllegalArgumentException.class,
        () -> CommandFile.read(dir.resolve("nope").toString(), System.in)).getMessage());
    assertEquals("--file " + dir + ": is a directory", assertThrows(IllegalArgumentException.class,
        () -> CommandFile.read(dir.toString(), System.in)).getMessage());
    Path binary = dir.resolve("binary");
    Files.write(binary, new byte[] {'t', 'r', 'u', 'e', '\n', (byte) 0xff, (byte) 0xfe});
    assertEquals("--file " + binary + ": is not UTF-8 text", assertThrows(IllegalArgumentException.class,
        () -> CommandFile.read(binary.toString(), System.in)).getMessage());
    assertEquals("--file - (standard input): line 1: contains a NUL character", assertThrows(
        IllegalArgumentException.class, () -> CommandFile.read("-", new ByteArrayInputStream("a\0b".getBytes(
            StandardCharsets.UTF_8)))).getMessage());
    assertEquals(List.of(new CommandFile.Line(1, List.of("echo", "日本"))),
        CommandFile.read("-", new ByteArrayInputStream("echo 日本\n".getBytes(StandardCharsets.UTF_8))));
  }
}
