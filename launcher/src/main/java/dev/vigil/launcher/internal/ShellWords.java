package dev.vigil.launcher.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Splits one line into words as a POSIX shell does (XCU 2.2 quoting, 2.3 token recognition), but
 * without any expansion, so that a file of commands reads as it would in a terminal, and each
 * word reaches the command exactly as written:
 *
 * <ol>
 *   <li>Unquoted spaces and tabs separate words; several in a row count as one.
 *   <li>A backslash outside quotes keeps the next character as it is and is itself removed
 *       ({@code a\ b} is one word {@code a b}). A backslash that ends the line is refused: a
 *       command is one line, it does not continue on the next.
 *   <li>Single quotes keep every character up to the next single quote as it is, backslashes
 *       included; there is no way to write a single quote inside them ({@code 'it'\''s'}).
 *   <li>Double quotes keep every character up to the next unescaped double quote, except that a
 *       backslash followed by {@code $}, {@code `}, {@code "} or {@code \} stands for that
 *       character; before any other character the backslash stays.
 *   <li>Quotes join the text around them into one word ({@code a"b c"d} is {@code ab cd}); an
 *       empty pair makes an empty word ({@code ''}).
 *   <li>An unquoted {@code #} at the start of a word begins a comment that runs to the end of the
 *       line.
 *   <li>Nothing is expanded: {@code $HOME}, {@code *.txt}, {@code ~} and {@code `cmd`} reach the
 *       command as those characters. Pipes, redirections and lists ({@code | & ; < > ( )}
 *       unquoted) are refused rather than passed on as words, because what they would do in a shell
 *       cannot happen here; {@code sh -c '…'} runs them.
 *   <li>An unterminated quote is refused, naming where it opened.
 * </ol>
 */
public final class ShellWords {
  private static final String OPERATORS = "|&;<>()";

  private ShellWords() {}

  /** The words of a line, or why the line cannot be split. */
  public sealed interface Split {
    /** The words, in order; none for a blank line or one that is only a comment. */
    record Words(List<String> words) implements Split {
      public Words {
        words = List.copyOf(words);
      }
    }

    /**
     * The line cannot be split.
     *
     * @param reason what is wrong, in plain words
     * @param column where, counting characters from 1
     */
    record Bad(String reason, int column) implements Split {
      public Bad {
        Objects.requireNonNull(reason, "reason");
      }
    }
  }

  /** Splits {@code line} (without its line end) into words. */
  public static Split split(String line) {
    Objects.requireNonNull(line, "line");
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false; // a word has begun (an empty quoted pair begins one too)
    int i = 0;
    int n = line.length();
    while (i < n) {
      char ch = line.charAt(i);
      if (ch == ' ' || ch == '\t') {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
        i++;
      } else if (ch == '#' && !inWord) {
        break; // a comment runs to the end of the line
      } else if (ch == '\\') {
        if (i + 1 == n) {
          return new Split.Bad("ends with a backslash (a command is one line; it cannot continue on the next)", i + 1);
        }
        word.append(line.charAt(i + 1));
        inWord = true;
        i += 2;
      } else if (ch == '\'') {
        int close = line.indexOf('\'', i + 1);
        if (close < 0) {
          return new Split.Bad("unbalanced single quote (opened at column " + (i + 1) + ")", i + 1);
        }
        word.append(line, i + 1, close);
        inWord = true;
        i = close + 1;
      } else if (ch == '"') {
        int open = i;
        i++;
        while (true) {
          if (i == n) {
            return new Split.Bad("unbalanced double quote (opened at column " + (open + 1) + ")", open + 1);
          }
          char q = line.charAt(i);
          if (q == '"') {
            i++;
            break;
          }
          if (q == '\\' && i + 1 < n && "$`\"\\".indexOf(line.charAt(i + 1)) >= 0) {
            word.append(line.charAt(i + 1));
            i += 2;
          } else {
            word.append(q);
            i++;
          }
        }
        inWord = true;
      } else if (OPERATORS.indexOf(ch) >= 0) {
        return new Split.Bad("'" + ch + "' is a shell operator: pipes, redirections and lists need a shell"
            + " (write sh -c '...'), or quote it", i + 1);
      } else {
        word.append(ch);
        inWord = true;
        i++;
      }
    }
    if (inWord) {
      words.add(word.toString());
    }
    return new Split.Words(words);
  }
}
