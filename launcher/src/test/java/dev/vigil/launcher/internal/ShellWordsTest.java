package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.vigil.coordination.law.Coverage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link ShellWords}: words written with every kind of quoting read back as written; every kind of
 * bad line is refused at the right column; and on lines with nothing to expand, the words equal
 * those a real {@code /bin/sh} makes of the same line.
 */
class ShellWordsTest {
  private static final String BARE = "abcxyzABCXYZ0189_-./,:=+%@{}!é日";
  private static final String BARE_SH = "abcxyzABCXYZ0189_-./,:=+%@{}!";
  /** Printable ASCII and a few others: what quoted and escaped text may hold. */
  private static final String ANY = " \tabcXYZ019!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~é日";
  private static final String ANY_SH = " abcXYZ019!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

  /** A line and the words it must split into, built from pieces whose kinds are counted. */
  private record Case(String line, List<String> words) {}

  /** Builds random lines from known pieces; {@code sh} restricts them to what a shell does not expand. */
  private static final class Lines {
    private final SplittableRandom rnd;
    private final boolean sh;
    private final Coverage cov;

    Lines(long seed, boolean sh, Coverage cov) {
      this.rnd = new SplittableRandom(seed);
      this.sh = sh;
      this.cov = cov;
    }

    Case next() {
      StringBuilder line = new StringBuilder();
      List<String> words = new ArrayList<>();
      if (rnd.nextInt(4) == 0) {
        line.append(separator());
      }
      int n = rnd.nextInt(6);
      for (int w = 0; w < n; w++) {
        if (w > 0) {
          line.append(separator());
        }
        StringBuilder value = new StringBuilder();
        int pieces = 1 + rnd.nextInt(4);
        for (int p = 0; p < pieces; p++) {
          piece(line, value, p == 0);
        }
        words.add(value.toString());
      }
      boolean separated = n == 0;
      if (rnd.nextInt(4) == 0) {
        line.append(separator());
        separated = true;
      }
      if (rnd.nextInt(6) == 0) {
        if (!separated) {
          line.append(separator()); // a # that ends a word (even after an escaped blank) is part of it
        }
        line.append('#').append(text(sh ? ANY_SH : ANY, 0, 12));
        cov.saw("comment");
      }
      cov.saw(n == 0 ? "no words" : "words");
      return new Case(line.toString(), words);
    }

    private String separator() {
      StringBuilder b = new StringBuilder();
      for (int i = 1 + rnd.nextInt(3); i > 0; i--) {
        boolean tab = rnd.nextInt(4) == 0;
        b.append(tab ? '\t' : ' ');
        if (tab) {
          cov.saw("tab");
        }
      }
      return b.toString();
    }

    private void piece(StringBuilder line, StringBuilder value, boolean first) {
      switch (rnd.nextInt(first ? 6 : 7)) {
        case 0, 1 -> {
          String t = text(sh ? BARE_SH : BARE, 1, 6);
          line.append(t);
          value.append(t);
          cov.saw("bare");
        }
        case 2 -> {
          char c = pick(sh ? ANY_SH : ANY);
          line.append('\\').append(c);
          value.append(c);
          cov.saw("backslash outside quotes");
        }
        case 3 -> {
          String t = text(sh ? ANY_SH : ANY, 0, 8).replace("'", "");
          line.append('\'').append(t).append('\'');
          value.append(t);
          cov.saw(t.isEmpty() ? "empty single quotes" : "single quotes");
        }
        case 4 -> doubleQuoted(line, value);
        case 5 -> {
          // a quote that ends a word in the middle of the text around it
          String a = text(sh ? BARE_SH : BARE, 1, 3);
          String b = text(sh ? BARE_SH : BARE, 1, 3);
          line.append(a).append("\"\"").append(b);
          value.append(a).append(b);
          cov.saw("empty double quotes");
        }
        default -> {
          line.append('#');
          value.append('#');
          cov.saw("# inside a word");
        }
      }
    }

    private void doubleQuoted(StringBuilder line, StringBuilder value) {
      line.append('"');
      for (int i = rnd.nextInt(8); i > 0; i--) {
        char c = pick(sh ? ANY_SH : ANY);
        if ("$`\"\\".indexOf(c) >= 0) {
          if (c == '\\' && rnd.nextBoolean()) {
            // a backslash before a character it does not escape stays
            char other = pick("ab #'|");
            line.append('\\').append(other);
            value.append('\\').append(other);
            cov.saw("double quotes: backslash kept");
            continue;
          }
          line.append('\\').append(c);
          value.append(c);
          cov.saw("double quotes: escaped " + (c == '\\' ? "backslash" : c == '"' ? "quote" : "$ or `"));
        } else {
          line.append(c);
          value.append(c);
        }
      }
      line.append('"');
      cov.saw("double quotes");
    }

    private String text(String alphabet, int min, int max) {
      StringBuilder b = new StringBuilder();
      for (int i = min + rnd.nextInt(max - min + 1); i > 0; i--) {
        b.append(pick(alphabet));
      }
      return b.toString();
    }

    private char pick(String alphabet) {
      return alphabet.charAt(rnd.nextInt(alphabet.length()));
    }
  }

  @Test
  void wordsWrittenWithAnyQuoting_splitBackIntoExactlyThoseWords() {
    Coverage cov = new Coverage("round trip");
    int[] cases = {0};
    qt().withExamples(2_000).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> {
      Case c = new Lines(seed, false, cov).next();
      assertEquals(new ShellWords.Split.Words(c.words()), ShellWords.split(c.line()),
          "seed " + seed + ": [" + c.line() + "]");
      cases[0]++;
    });
    assertEquals(2_000, cases[0]);
    cov.assertSaw("bare", "backslash outside quotes", "single quotes", "empty single quotes", "double quotes",
        "double quotes: escaped backslash", "double quotes: escaped quote", "double quotes: escaped $ or `",
        "double quotes: backslash kept", "empty double quotes", "# inside a word", "comment", "tab", "words", "no words");
    assertTrue(cov.count("double quotes: backslash kept") >= 50, cov.toString());
    System.out.println(cov);
  }

  @Test
  void everyKindOfBadLine_isRefused_namingTheColumnWhereItGoesWrong() {
    Coverage cov = new Coverage("bad lines");
    qt().withExamples(1_000).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> {
      Case c = new Lines(seed, false, new Coverage("unused")).next();
      String good = c.line().contains("#") ? "a" : c.line(); // a comment would hide the defect
      SplittableRandom rnd = new SplittableRandom(seed);
      String prefix = good + " x";
      int column = prefix.length() + 1;
      String line;
      String reason;
      switch (rnd.nextInt(4)) {
        case 0 -> {
          line = prefix + "'never closed";
          reason = "unbalanced single quote (opened at column " + column + ")";
          cov.saw("single");
        }
        case 1 -> {
          line = prefix + "\"never \\\" closed\\";
          reason = "unbalanced double quote (opened at column " + column + ")";
          cov.saw("double");
        }
        case 2 -> {
          line = prefix + "\\";
          reason = "ends with a backslash (a command is one line; it cannot continue on the next)";
          cov.saw("backslash");
        }
        default -> {
          char op = "|&;<>()".charAt(rnd.nextInt(7));
          line = prefix + op + "y";
          reason = "'" + op + "' is a shell operator: pipes, redirections and lists need a shell (write sh -c '...'), "
              + "or quote it";
          cov.saw("operator " + op);
        }
      }
      assertEquals(new ShellWords.Split.Bad(reason, column), ShellWords.split(line), "seed " + seed + ": [" + line + "]");
    });
    cov.assertSaw("single", "double", "backslash", "operator |", "operator &", "operator ;", "operator <",
        "operator >", "operator (", "operator )");
  }

  @Test
  void examples_readAsTheyWouldInATerminal() {
    assertEquals(words("echo", "it's", "a b", "$HOME", "*.txt", "~", "`date`"),
        ShellWords.split("echo it\\'s 'a b' $HOME *.txt ~ `date`"));
    assertEquals(words("sh", "-c", "echo \"$X\" | wc -l"), ShellWords.split("sh -c 'echo \"$X\" | wc -l'"));
    assertEquals(words("printf", "a\\b", "c\"d", "e$f"), ShellWords.split("printf \"a\\b\" \"c\\\"d\" \"e\\$f\""));
    assertEquals(words("a", ""), ShellWords.split("a ''"));
    assertEquals(words("a#b"), ShellWords.split("a#b # a comment"));
    assertEquals(words(), ShellWords.split("   # only a comment"));
    assertEquals(words(), ShellWords.split(" \t "));
    assertEquals(words("make", "-j4", "release"), ShellWords.split("  make\t-j4   release  "));
    assertEquals(words("a;b", "x>y"), ShellWords.split("'a;b' x\\>y"));
  }

  private static ShellWords.Split words(String... w) {
    return new ShellWords.Split.Words(List.of(w));
  }

  /**
   * The oracle: {@code /bin/sh} reads each line after {@code set --} and prints its words. Only lines a
   * shell would not expand are given to it (no unquoted {@code $ ` * ? [ ~}, nothing unquoted in
   * double quotes that expands), so that its words are the words as written.
   */
  @Test
  void onLinesWithNothingToExpand_theWordsAreThoseOfARealShell() throws Exception {
    Coverage cov = new Coverage("sh");
    List<Case> cases = new ArrayList<>();
    qt().withExamples(400).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> {
      Case c = new Lines(seed, true, cov).next();
      assertEquals(new ShellWords.Split.Words(c.words()), ShellWords.split(c.line()), "seed " + seed);
      cases.add(c);
    });
    StringBuilder script = new StringBuilder();
    for (Case c : cases) {
      script.append("set -- ").append(c.line()).append('\n');
      script.append("printf '%s\\036' \"$#\" \"$@\"; printf '\\035\\n'\n");
    }
    List<List<String>> shell = runSh(script.toString());
    assertEquals(cases.size(), shell.size(), "one answer per line from sh");
    for (int i = 0; i < cases.size(); i++) {
      assertEquals(cases.get(i).words(), shell.get(i), "sh split [" + cases.get(i).line() + "] otherwise");
    }
    cov.assertSaw("bare", "backslash outside quotes", "single quotes", "double quotes", "double quotes: escaped quote",
        "double quotes: backslash kept", "empty double quotes", "# inside a word", "comment", "tab");
  }

  private static List<List<String>> runSh(String script) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("/bin/sh", "-s").redirectErrorStream(true).start();
    p.getOutputStream().write(script.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    List<List<String>> answers = new ArrayList<>();
    for (String record : out.split("\035\n", -1)) {
      if (record.isEmpty()) {
        continue;
      }
      String[] fields = record.split("\036", -1);
      int count = Integer.parseInt(fields[0]);
      List<String> words = new ArrayList<>();
      for (int i = 1; i <= count; i++) {
        words.add(fields[i]);
      }
      answers.add(words);
    }
    return answers;
  }
}
