package dev.vigil.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The typed worker example runs as written: a real daemon in this JVM, the word-count type in a worker process. */
class TypedWorkerMainTest {
  @TempDir
  Path tmp;

  @Test
  void theTypedResultIsReadBackFromTheRun_andAPayloadThatDoesNotBindFailsNamingTheField() throws Exception {
    List<String> out = Stdout.of(() -> TypedWorkerMain.main(new String[] {tmp.resolve("home").toString()}));
    assertEquals(2, out.size(), out.toString());
    assertEquals("t-1: SUCCEEDED, Counts[lines=3, words=8, chars=40]", out.get(0));
    assertTrue(out.get(1).startsWith("t-2: FAILED after 1 attempt(s): payload does not bind to "
        + WordCountWorker.Input.class.getCanonicalName() + ": field 'path'"),
        "a payload that does not bind is a permanent failure naming the field: " + out.get(1));
  }
}
