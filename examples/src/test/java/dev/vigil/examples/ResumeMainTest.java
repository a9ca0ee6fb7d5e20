package dev.vigil.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.testing.FakeWorkContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The resume example runs as written (a real daemon in this JVM, the type in worker processes), and on the fake context. */
class ResumeMainTest {
  @TempDir
  Path tmp;

  @Test
  void theSecondAttemptCarriesOnFromTheLastCheckpoint_ofTheFirst() throws Exception {
    List<String> out = Stdout.of(() -> ResumeMain.main(new String[] {tmp.resolve("home").toString()}));
    assertEquals(List.of("t-1.1: FAILED (failed on purpose after chunk 3)", "t-1.2: SUCCEEDED (sum 5050)",
        "t-1: SUCCEEDED, Sum[sum=5050, resumedAfterChunk=3]"), out);
  }

  @Test
  void onTheFakeContext_aResumeIsTheLastCheckpointOfTheAttemptBefore() throws Exception {
    Path numbers = Files.writeString(tmp.resolve("n.txt"), "1\n2\n3\n4\n5\n");
    Map<String, Object> input = Map.of("file", numbers.toString(), "chunk", 2, "failOnceAt", 2,
        "marker", tmp.resolve("m").toString());
    FakeWorkContext first = FakeWorkContext.task().payloadOf(input).build();
    assertEquals(new Outcome.Failed("failed on purpose after chunk 2"), first.run(new ChunkedSumWorker()));
    JsonNode last = first.lastCheckpoint().orElseThrow();
    assertEquals(2, last.path("chunks").asInt());
    assertEquals(10, last.path("sum").asLong());
    FakeWorkContext second = FakeWorkContext.task().attempt(2).payloadOf(input).previousCheckpoint(last).build();
    Outcome o = second.run(new ChunkedSumWorker());
    assertEquals("sum 15", o.detail());
    assertEquals(1, second.checkpoints().size(), "only the chunk left was done again: " + second.checkpoints());
  }
}
