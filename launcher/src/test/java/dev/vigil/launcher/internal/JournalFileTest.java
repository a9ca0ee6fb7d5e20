package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.engine.EngineEvent;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.engine.WorkerKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalFileTest {
  @TempDir
  Path logs;

  private final RunId run = new RunId(new TicketId(3), 1);

  private List<JsonNode> lines(Path f) throws Exception {
    return Files.readAllLines(f).stream().map(l -> {
      try {
        return Wire.JSON.readTree(l);
      } catch (Exception e) {
        throw new AssertionError(l, e);
      }
    }).toList();
  }

  @Test
  void eachEventIsOneJsonLine_withItsTimeNameAndFields_idsAsText_andIsOnDiskBeforeTheNextDecision() throws Exception {
    JournalFile j = new JournalFile(logs, JournalFile.MAX_BYTES, () -> 1_234L, new OwnerId("d-7"));
    j.record(new EngineEvent.Claimed(run, new Lane("batch")));
    j.record(new EngineEvent.ExitTaken(run, ExitOwner.Role.RECOVERY, RunExit.unknown(99)));
    j.record(new EngineEvent.Settled(run, Verdict.FAILED, "exit code 1", TicketState.READY));
    j.record(new EngineEvent.StopBegun(new WorkerKey.Service("idx"), StopKind.LOST));
    j.record(new EngineEvent.Launched(new WorkerKey.Task(run), new ProcessIdentity("boot", 12, 34, 12)));
    Path f = logs.resolve(JournalFile.NAME);
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
    List<JsonNode> l = lines(f); // not closed: every line was flushed as it was written
    assertEquals(5, l.size());
    assertEquals("{\"at\":1234,\"by\":\"d-7\",\"event\":\"Claimed\",\"run\":\"t-3.1\",\"lane\":\"batch\"}",
        l.get(0).toString());
    assertEquals("RECOVERY", l.get(1).path("role").asText());
    assertEquals("FAILED", l.get(2).path("verdict").asText());
    assertEquals("READY", l.get(2).path("ticketState").asText());
    assertEquals("service:idx", l.get(3).path("key").asText());
    assertEquals("LOST", l.get(3).path("kind").asText());
    assertEquals("t-3.1", l.get(4).path("key").asText());
    assertEquals(12, l.get(4).path("identity").path("pid").asLong());
    j.close();
    j.record(new EngineEvent.ShutdownComplete("every worker stopped"));
    assertEquals(6, lines(f).size(), "a record after close opens the file again and appends");
  }

  @Test
  void theJournalIsBounded_oneFileRotatesIntoThePreviousOne() throws Exception {
    long max = 2_000;
    JournalFile j = new JournalFile(logs, max, () -> 1L, new OwnerId("d-7"));
    for (int i = 0; i < 500; i++) {
      j.record(new EngineEvent.Settled(new RunId(new TicketId(i + 1), 1), Verdict.SUCCEEDED, "exit code 0",
          TicketState.SUCCEEDED));
    }
    Path f = logs.resolve(JournalFile.NAME);
    Path previous = logs.resolve(JournalFile.PREVIOUS);
    assertTrue(Files.size(f) <= max, "the file stays within its bound: " + Files.size(f));
    assertTrue(Files.size(previous) <= max, "and so does the previous one: " + Files.size(previous));
    List<JsonNode> current = lines(f);
    assertEquals("t-500.1", current.get(current.size() - 1).path("run").asText(), "the newest event is in the file");
    assertTrue(lines(previous).size() > 0);
    assertEquals(2, Files.list(logs).count(), "two files at most");
  }
}
