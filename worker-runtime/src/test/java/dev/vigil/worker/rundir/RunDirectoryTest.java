package dev.vigil.worker.rundir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.testkit.Poll;
import dev.vigil.worker.testkit.Workers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunDirectoryTest {
  @TempDir Path tmp;

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void directoriesAre0700_andEveryFile0600() throws Exception {
    Path home = tmp.resolve("home");
    RunDirectory dir = RunDirectory.create(home, "t-1.1");
    dir.writeIdentity(IdentityRecord.Written.bare(new ProcessIdentity("boot", 42, 7, 42)));
    dir.writePayload(new ObjectMapper().readTree("{\"a\":1}"));
    dir.writeBusy(new BusyEvidence(true, 1, WorkSet.EMPTY.plus(WorkSet.Kind.RUN, "t-1.1")));
    dir.writeOutcome(new RecordedOutcome("t-1.1", new Outcome.Succeeded("ok"), 5));
    assertEquals("rwx------", mode(home));
    assertEquals("rwx------", mode(RunDirectory.runsOf(home)));
    assertEquals("rwx------", mode(dir.path()));
    List<String> names;
    try (Stream<Path> files = Files.list(dir.path())) {
      names = files.map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertEquals(List.of("busy.json", "identity.json", "outcome.json", "payload.json", "reservation.lock", "stderr.log",
        "stdout.log"), names, "no temporary file is left behind");
    for (String n : names) {
      assertEquals("rw-------", mode(dir.file(n)), n);
    }
  }

  @Test
  void aRunIdThatIsNotASafeDirectoryNameIsRefused() {
    for (String bad : List.of("", "..", "a/b", "../x", ".hidden", "t-1..2", "a b")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RunDirectory.of(tmp, bad), bad);
      assertFalse(e.getMessage().contains("\n"));
    }
  }

  @Test
  void identityPayloadAndBusyEvidenceRoundTrip() throws Exception {
    RunDirectory dir = RunDirectory.create(tmp, "t-2.1");
    assertEquals(new IdentityRecord.Absent(), dir.readIdentity());
    assertEquals(new ObjectMapper().createObjectNode(), dir.readPayload(), "no payload reads as {}");
    IdentityRecord.Written id = new IdentityRecord.Written(new ProcessIdentity("b00t", 4242, 99, 4242), "1.0.0+b7",
        "0f".repeat(32));
    dir.writeIdentity(id);
    assertEquals(id, dir.readIdentity());
    IdentityRecord.Written bare = IdentityRecord.Written.bare(new ProcessIdentity("b00t", 4243, 99, 4243));
    dir.writeIdentity(bare);
    assertEquals(bare, dir.readIdentity(), "a record without build and token hash reads as such");
    WorkSet work = WorkSet.EMPTY.plus(WorkSet.Kind.RUN, "t-2.1").plus(WorkSet.Kind.UNSETTLED_CHILD, "pid 7");
    dir.writeBusy(new BusyEvidence(true, 123, work));
    assertEquals(Optional.of(new BusyEvidence(true, 123, work)), dir.readBusy());
    Files.writeString(dir.file(RunDirectory.PAYLOAD), "{\"a\":");
    IOException e = assertThrows(IOException.class, dir::readPayload);
    assertTrue(e.getMessage().startsWith("payload.json is not JSON"), e.getMessage());
    for (String bad : List.of("{\"v\":1,\"pid\":\"x\"}", "{\"v\":1,\"bootId\":\"b\",\"pid\":1,\"startTicks\":2,\"pgid\":1,"
        + "\"tokenHash\":\"not-a-hash\"}", "{\"v\":1,\"bootId\":\"b\",\"pi", "")) {
      Files.writeString(dir.file(RunDirectory.IDENTITY), bad);
      IdentityRecord.Corrupt c = assertInstanceOf(IdentityRecord.Corrupt.class, dir.readIdentity(), bad);
      assertTrue(c.diagnosis().startsWith("identity.json in " + dir.path()), c.diagnosis());
    }
  }

  @Test
  void everyOutcomeRoundTrips() throws Exception {
    RunDirectory dir = RunDirectory.create(tmp, "t-3.1");
    qt().withExamples(300)
        .forAll(integers().between(0, 4), strings().allPossible().ofLengthBetween(0, 60), longs().between(0, Long.MAX_VALUE))
        .checkAssert((v, detail, at) -> {
          Verdict verdict = List.of(Verdict.SUCCEEDED, Verdict.FAILED, Verdict.PERMANENT_FAILURE, Verdict.STALLED,
              Verdict.BLOCKED).get(v);
          RecordedOutcome o = new RecordedOutcome("t-3.1", Outcome.of(verdict, detail, at), at);
          try {
            dir.writeOutcome(o);
          } catch (IOException e) {
            throw new AssertionError(e);
          }
          assertEquals(new OutcomeRead.Recorded(o), dir.readOutcome());
        });
  }

  @Test
  void aSuccessWithAResult_roundTripsThroughOutcomeJson_asTheSameJsonValue() throws Exception {
    RunDirectory dir = RunDirectory.create(tmp, "t-3.2");
    ObjectMapper json = new ObjectMapper();
    for (String result : List.of("{\"primes\":9592,\"below\":100000,\"sample\":[2,3,5]}", "[1,2.5,\"caf\u00e9\",null]",
        "\"a string\"", "42", "false", "{\"amount\":12345678901234567890.12,\"tiny\":1e-400,\"big\":123456789012345678901234}",
        "{\"nested\":{\"deeper\":{\"deepest\":[{}]}}}")) {
      RecordedOutcome o = new RecordedOutcome("t-3.2", new Outcome.Succeeded("counted", json.readTree(result)), 7,
          dev.vigil.coordination.RunExit.code(0, 0));
      dir.writeOutcome(o);
      OutcomeRead.Recorded read = assertInstanceOf(OutcomeRead.Recorded.class, dir.readOutcome(), result);
      assertEquals(o, read.outcome(), result);
      assertEquals(json.readTree(result).toString(), ((Outcome.Succeeded) read.outcome().outcome()).result().toString(),
          "no digit lost: " + result);
      assertEquals(json.readTree(result), json.readTree(Files.readString(dir.file(RunDirectory.OUTCOME))).path("result"),
          "the result is a JSON value in the file, not a string holding JSON");
    }
  }

  @Test
  void anOutcomeWrittenBeforeResults_readsAsASuccessWithoutOne() throws Exception {
    RunDirectory dir = RunDirectory.create(tmp, "t-3.3");
    Files.writeString(dir.file(RunDirectory.OUTCOME),
        "{\"v\":1,\"run\":\"t-3.3\",\"verdict\":\"SUCCEEDED\",\"detail\":\"exit code 0\",\"atMs\":5,\"exitCode\":0}");
    assertEquals(new OutcomeRead.Recorded(new RecordedOutcome("t-3.3", new Outcome.Succeeded("exit code 0"), 5,
        dev.vigil.coordination.RunExit.code(0, 0))), dir.readOutcome());
    dir.writeOutcome(new RecordedOutcome("t-3.3", new Outcome.Succeeded("no result"), 6));
    assertFalse(Files.readString(dir.file(RunDirectory.OUTCOME)).contains("\"result\""),
        "a success without a result writes none: older readers see the file they know");
  }

  @Test
  void aResultOnAnotherVerdict_orOverTheBound_makesTheFileInvalid() throws Exception {
    RunDirectory dir = RunDirectory.create(tmp, "t-3.4");
    Files.writeString(dir.file(RunDirectory.OUTCOME),
        "{\"v\":1,\"run\":\"t-3.4\",\"verdict\":\"FAILED\",\"detail\":\"\",\"atMs\":1,\"result\":{\"n\":1}}");
    assertNone(dir, "outcome.json is invalid: field 'result' is only for SUCCEEDED");
    Files.writeString(dir.file(RunDirectory.OUTCOME), "{\"v\":1,\"run\":\"t-3.4\",\"verdict\":\"SUCCEEDED\","
        + "\"detail\":\"\",\"atMs\":1,\"result\":\"" + "x".repeat(Outcome.MAX_RESULT_BYTES) + "\"}");
    assertNone(dir, "outcome.json is invalid: result refused: it is 65538 bytes");
  }

  @Test
  void aMissingTruncatedOrCorruptOutcomeReadsAsNoOutcome_withADiagnosis() throws Exception {
    RunDirectory dir = RunDirectory.create(tmp, "t-4.1");
    assertNone(dir, "no outcome.json");
    dir.writeOutcome(new RecordedOutcome("t-4.1", new Outcome.Stalled(99, "quota"), 5));
    byte[] whole = Files.readAllBytes(dir.file(RunDirectory.OUTCOME));
    for (int cut = 0; cut < whole.length - 1; cut++) {
      Files.write(dir.file(RunDirectory.OUTCOME), java.util.Arrays.copyOf(whole, cut));
      assertNone(dir, "outcome.json");
    }
    for (String corrupt : List.of("garbage", "[]", "null", "{\"v\":1}", "\0\0\0\0",
        "{\"v\":2,\"run\":\"t-4.1\",\"verdict\":\"FAILED\",\"detail\":\"\",\"atMs\":1}",
        "{\"v\":1,\"run\":\"t-9.1\",\"verdict\":\"FAILED\",\"detail\":\"\",\"atMs\":1}",
        "{\"v\":1,\"run\":\"t-4.1\",\"verdict\":\"LOST\",\"detail\":\"\",\"atMs\":1}",
        "{\"v\":1,\"run\":\"t-4.1\",\"verdict\":\"BOGUS\",\"detail\":\"\",\"atMs\":1}",
        "{\"v\":1,\"run\":\"t-4.1\",\"verdict\":\"STALLED\",\"detail\":\"\",\"atMs\":1}",
        "{\"v\":1,\"run\":\"t-4.1\",\"verdict\":\"FAILED\",\"detail\":7,\"atMs\":1}",
        "{\"v\":1,\"run\":\"t-4.1\",\"verdict\":\"FAILED\",\"detail\":\"\",\"atMs\":1} trailing",
        "{\"v\":1,\"v\":1,\"run\":\"t-4.1\",\"verdict\":\"FAILED\",\"detail\":\"\",\"atMs\":1}")) {
      Files.writeString(dir.file(RunDirectory.OUTCOME), corrupt);
      assertNone(dir, "outcome.json");
    }
    Files.delete(dir.file(RunDirectory.OUTCOME));
    Files.createDirectory(dir.file(RunDirectory.OUTCOME));
    assertNone(dir, "outcome.json");
  }

  @Test
  void randomBytesNeverMakeReadingAnOutcomeThrow() throws Exception {
    RunDirectory dir = RunDirectory.create(tmp, "t-5.1");
    AtomicInteger recorded = new AtomicInteger();
    qt().withExamples(500).forAll(strings().allPossible().ofLengthBetween(0, 200)).checkAssert(s -> {
      try {
        Files.write(dir.file(RunDirectory.OUTCOME), s.getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      if (dir.readOutcome() instanceof OutcomeRead.Recorded) {
        recorded.incrementAndGet();
      }
    });
    assertEquals(0, recorded.get());
  }

  private static void assertNone(RunDirectory dir, String diagnosisStart) {
    OutcomeRead r = dir.readOutcome();
    OutcomeRead.None none = assertInstanceOf(OutcomeRead.None.class, r);
    assertTrue(none.diagnosis().startsWith(diagnosisStart), none.diagnosis());
  }

  @Test
  void oneReservationPerRunWithinAJvm_andAProbeByTheHolderKeepsTheLock() throws Exception {
    RunDirectory dir = RunDirectory.create(tmp, "t-6.1");
    assertFalse(dir.isReserved());
    try (Reservation r = dir.tryReserve().orElseThrow()) {
      assertTrue(r.isValid());
      assertEquals(Optional.empty(), dir.tryReserve());
      for (int i = 0; i < 50; i++) {
        assertTrue(dir.isReserved());
      }
      assertEquals(1, probe("try", dir), "the lock survives probes by its holder: another process cannot take it");
    }
    assertFalse(dir.isReserved());
    assertEquals(0, probe("try", dir), "a released reservation can be taken by another process");
  }

  @Test
  void C5_aReservationIsSeenFromAnotherProcess_andFreedByTheKill9OfItsHolder() throws Exception {
    RunDirectory dir = RunDirectory.create(tmp, "t-7.1");
    Process holder = new ProcessBuilder(Workers.java().toString(), "-cp", Workers.classpath(), ReserveProbe.class.getName(),
        "hold", tmp.toString(), "t-7.1").redirectErrorStream(true).start();
    try {
      String line = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8)).readLine();
      assertEquals("held", line);
      assertTrue(dir.isReserved(), "a live holder in another process is seen");
      assertEquals(Optional.empty(), dir.tryReserve());
      assertTrue(dir.isReserved(), "probing does not take the holder's lock");
    } finally {
      holder.destroyForcibly();
      holder.waitFor();
    }
    Poll.until("the lock of a killed holder is free", () -> {
      try {
        return !dir.isReserved();
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    });
    try (Reservation r = dir.tryReserve().orElseThrow()) {
      assertTrue(r.isValid());
    }
  }

  private int probe(String mode, RunDirectory dir) throws Exception {
    Process p = new ProcessBuilder(Workers.java().toString(), "-cp", Workers.classpath(), ReserveProbe.class.getName(), mode,
        tmp.toString(), dir.runId()).inheritIO().start();
    return p.waitFor();
  }
}
