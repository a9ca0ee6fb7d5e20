package dev.vigil.worker.rundir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The end of a worker's stderr on one line, as a diagnosis carries it. */
class LastWordsTest {
  @TempDir
  Path tmp;

  @Test
  void aJvmThatFindsNoMainClass_saysSoInItsLastWords() throws Exception {
    RunDirectory dir = RunDirectory.create(tmp, "t-1.1");
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        tmp.resolve("nothing-here").toString(), "dev.vigil.worker.host.WorkerMain")
        .redirectErrorStream(false).redirectOutput(dir.stdoutLog().toFile()).redirectError(dir.stderrLog().toFile())
        .start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    String words = dir.lastWords().orElseThrow();
    assertEquals("Error: Could not find or load main class dev.vigil.worker.host.WorkerMain / Caused by: "
        + "java.lang.ClassNotFoundException: dev.vigil.worker.host.WorkerMain", words);
  }

  @Test
  void stackFramesAndBlankLinesAreLeftOut_andOnlyTheLastLinesAreKept() throws IOException {
    Path log = write("""
        first line, too early to be kept
        vigil-worker[7]: starting
        Exception in thread "main" java.lang.NoClassDefFoundError: com/fasterxml/jackson/databind/JsonNode
        \tat dev.vigil.worker.host.WorkerMain.main(WorkerMain.java:40)

        Caused by: java.lang.ClassNotFoundException: com.fasterxml.jackson.databind.JsonNode
        \tat java.base/jdk.internal.loader.BuiltinClassLoader.loadClass(BuiltinClassLoader.java:641)
        \t... 1 more
        vigil-worker[7]: gave up
        """);
    assertEquals(Optional.of("vigil-worker[7]: starting / Exception in thread \"main\" java.lang.NoClassDefFoundError: "
        + "com/fasterxml/jackson/databind/JsonNode / Caused by: java.lang.ClassNotFoundException: "
        + "com.fasterxml.jackson.databind.JsonNode / vigil-worker[7]: gave up"), LastWords.of(log));
  }

  @Test
  void longWordsAreCutFromTheFront_andOnlyTheEndOfALongLogIsRead() throws IOException {
    String longLine = "x".repeat(LastWords.MAX_CHARS) + " the end";
    String words = LastWords.of(write(longLine + "\n")).orElseThrow();
    assertEquals(LastWords.MAX_CHARS + 1, words.length());
    assertTrue(words.startsWith("…") && words.endsWith(" the end"), words);

    StringBuilder big = new StringBuilder();
    for (int i = 0; i < 100_000; i++) {
      big.append("line ").append(i).append('\n');
    }
    assertEquals(Optional.of("line 99996 / line 99997 / line 99998 / line 99999"), LastWords.of(write(big.toString())));
  }

  @Test
  void aMissingEmptyOrBlankLog_hasNoLastWords() throws IOException {
    assertEquals(Optional.empty(), LastWords.of(tmp.resolve("missing.log")));
    for (String text : List.of("", "\n\n  \n", "\tat a.B.c(B.java:1)\n")) {
      assertEquals(Optional.empty(), LastWords.of(write(text)), "'" + text + "'");
    }
  }

  private int logs;

  private Path write(String text) throws IOException {
    return Files.writeString(tmp.resolve("stderr-" + ++logs + ".log"), text, StandardCharsets.UTF_8);
  }
}
