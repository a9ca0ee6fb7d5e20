package dev.vigil.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.testing.FakeWorkContext;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The typed example type in a unit test: a typed payload in, a typed result out, and a payload that does not bind. */
class WordCountWorkerOnTheFakeContextTest {
  @TempDir
  Path tmp;

  @Test
  void aTypedPayloadBinds_andTheResultIsTheCountsRecord() throws Exception {
    Path file = Files.writeString(tmp.resolve("poem.txt"), "so much depends\nupon\na red wheel barrow\n");
    Outcome o = FakeWorkContext.task().payloadOf(new WordCountWorker.Input(file.toString())).build()
        .run(new WordCountWorker());
    Outcome.Succeeded s = assertInstanceOf(Outcome.Succeeded.class, o);
    assertEquals(new ObjectMapper().readTree("{\"lines\": 3, \"words\": 8, \"chars\": 40}"), s.result());
  }

  @Test
  void aPayloadThatDoesNotBind_isAPermanentFailureNamingTheField() {
    Outcome o = FakeWorkContext.task().payload("{\"path\": \"poem.txt\"}").build().run(new WordCountWorker());
    assertInstanceOf(Outcome.PermanentFailure.class, o, o.toString());
    assertTrue(o.detail().contains("path"), o.detail());
  }

  @Test
  void aFileThatIsNotThere_isAPermanentFailure() {
    Outcome o = FakeWorkContext.task().payloadOf(new WordCountWorker.Input(tmp.resolve("none.txt").toString())).build()
        .run(new WordCountWorker());
    assertEquals(new Outcome.PermanentFailure("no such file: " + tmp.resolve("none.txt")), o);
  }
}
