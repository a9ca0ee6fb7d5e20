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

  /** The start of a word, before a line's command, that names what the line waits for. */
  public static final String AFTER = "--after=";

  /**
   * The line without the {@value #AFTER} words it begins with.
   *
   * @throws IllegalArgumentException {@code --file NAME: line N: …} when nothing is left
   */
  public static Line withoutAfter(String name, Line line) {
    int n = leadingAfters(line);
    if (n == line.argv().size()) {
      throw bad(name, "line " + line.number() + ": a command needs a name after " + AFTER + "…");
    }
    return n == 0 ? line : new Line(line.number(), line.argv().subList(n, line.argv().size()));
  }

  private static int leadingAfters(Line line) {
    int n = 0;
    while (n < line.argv().size() && line.argv().get(n).startsWith(AFTER)) {
      n++;
    }
    return n;
  }

  /**
   * Adds what the line waits for to its submission: {@value #AFTER}N, the task of line N of the same
   * file, to {@code afterLines} (resolved when the file is sent, {@link SubmitBatches#send}), and
   * {@value #AFTER}TICKET to {@code after}.
   *
   * @param earlier the numbers of the file's lines with a command before this one
   * @throws IllegalArgumentException {@code --file NAME: line N: …} for a line number that is not an
   *                                  earlier line with a command, or a word that is neither
   */
  public static void after(String name, Line line, java.util.Set<Integer> earlier,
                           com.fasterxml.jackson.databind.node.ObjectNode submission) {
    int n = leadingAfters(line);
    for (String word : line.argv().subList(0, n)) {
      String ref = word.substring(AFTER.length());
      if (ref.matches("[0-9]{1,9}")) {
        int target = Integer.parseInt(ref);
        if (!earlier.contains(target)) {
          throw bad(name, "line " + line.number() + ": " + word + " names no earlier line of the file with a command "
              + "(a line waits only for lines above it)");
        }
        arrayOf(submission, "afterLines").add(target);
      } else {
        try {
          arrayOf(submission, "after").add(dev.vigil.coordination.TicketId.parse(ref).toString());
        } catch (RuntimeException e) {
          throw bad(name, "line " + line.number() + ": " + word + ": not a line number of the file or a ticket id "
              + "(like t-12)");
        }
      }
    }
  }

  private static com.fasterxml.jackson.databind.node.ArrayNode arrayOf(
      com.fasterxml.jackson.databind.node.ObjectNode o, String field) {
    return o.has(field) ? (com.fasterxml.jackson.databind.node.ArrayNode) o.get(field) : o.putArray(field);
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
