package dev.vigil.launcher.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A file of commands for {@code vigil submit --file}: UTF-8 text, one command per line, each line
 * split into words by {@link ShellWords}. Blank lines and lines that are only a comment
 * ({@code #…}) are skipped; a line may end in {@code \r\n}. One bad line refuses the whole file,
 * naming the line, so that nothing of it is queued.
 */
public final class CommandFile {
  /** The name that reads standard input. */
  public static final String STDIN = "-";

  private CommandFile() {}

  /**
   * One command of the file.
   *
   * @param number its line number, from 1
   * @param argv   its words; the first is the command and is not empty
   */
  public record Line(int number, List<String> argv) {
    public Line {
      argv = List.copyOf(argv);
      if (argv.isEmpty() || argv.get(0).isEmpty()) {
        throw new IllegalArgumentException("line " + number + ": a command needs a name");
      }
    }
  }

  /**
   * Reads and splits the file {@code name} ({@value #STDIN}: {@code stdin}).
   *
   * @throws IllegalArgumentException one line, {@code --file NAME: …}, when the file cannot be read,
   *                                  is not UTF-8 text, or one of its lines cannot be split
   */
  public static List<Line> read(String name, InputStream stdin) {
    byte[] bytes;
    try {
      bytes = name.equals(STDIN) ? stdin.readAllBytes() : Files.readAllBytes(Path.of(name));
    } catch (NoSuchFileException e) {
      throw bad(name, "no such file");
    } catch (AccessDeniedException e) {
      throw bad(name, "permission denied");
    } catch (InvalidPathException e) {
      throw bad(name, "not a file name");
    } catch (IOException e) {
      throw bad(name, Files.isDirectory(Path.of(name)) ? "is a directory" : "cannot be read: " + e.getMessage());
    }
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw bad(name, "is not UTF-8 text");
    }
    return parse(name, text);
  }

  /**
   * Splits {@code text}, the content of the file {@code name}, into its commands.
   *
   * @throws IllegalArgumentException {@code --file NAME: line N: why} for the first bad line
   */
  public static List<Line> parse(String name, String text) {
    Objects.requireNonNull(text, "text");
    List<Line> out = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      if (line.endsWith("\r")) {
        line = line.substring(0, line.length() - 1);
      }
      int number = i + 1;
      if (line.indexOf('\0') >= 0) {
        throw bad(name, "line " + number + ": contains a NUL character");
      }
      ShellWords.Split split = ShellWords.split(line);
      if (split instanceof ShellWords.Split.Bad b) {
        throw bad(name, "line " + number + ": " + b.reason());
      } else if (split instanceof ShellWords.Split.Words w) {
        if (w.words().isEmpty()) {
          continue; // blank, or only a comment
        }
        if (w.words().get(0).isEmpty()) {
          throw bad(name, "line " + number + ": the command name is empty");
        }
        out.add(new Line(number, w.words()));
      } else {
        throw new AssertionError(split);
      }
    }
    return out;
  }

  private static IllegalArgumentException bad(String name, String why) {
    return new IllegalArgumentException("--file " + (name.equals(STDIN) ? "- (standard input)" : name) + ": " + why);
  }
}
