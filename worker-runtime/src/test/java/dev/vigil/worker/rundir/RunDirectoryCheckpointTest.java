package dev.vigil.worker.rundir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.vigil.coordination.Checkpoint;
import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.engine.port.RunDirectories.SavedCheckpoint;
import dev.vigil.worker.internal.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Q17 in a real run directory: {@code checkpoint.json} as the worker writes it, {@code resume-from.json} as the daemon does. */
class RunDirectoryCheckpointTest {
  @TempDir
  Path tmp;

  @Test
  void Q17_theLatestCheckpointIsReadBack_andAMissingCorruptOrForeignFileReadsAsNone() throws IOException {
    RunDirectory dir = RunDirectory.create(tmp, "t-1.1");
    assertEquals(Optional.empty(), dir.readCheckpoint(), "none saved yet");
    dir.writeCheckpoint(1, JsonNodeFactory.instance.objectNode().put("frame", 10));
    dir.writeCheckpoint(2, JsonNodeFactory.instance.objectNode().put("frame", 20));
    assertEquals(Optional.of(new SavedCheckpoint(2, "{\"frame\":20}")), dir.readCheckpoint(), "each replaces the one before");
    assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
        Files.getPosixFilePermissions(dir.file(RunDirectory.CHECKPOINT))));

    Files.writeString(dir.file(RunDirectory.CHECKPOINT), "{\"v\":1,\"run\":\"t-1.1\",\"seq\":3,\"val");
    assertEquals(Optional.empty(), dir.readCheckpoint(), "a cut file is none (the worker's write is atomic)");
    RunDirectory other = RunDirectory.create(tmp, "t-2.1");
    other.writeCheckpoint(1, JsonNodeFactory.instance.numberNode(5));
    Files.copy(other.file(RunDirectory.CHECKPOINT), dir.file(RunDirectory.CHECKPOINT),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    assertEquals(Optional.empty(), dir.readCheckpoint(), "Q17: another run's file is never this run's checkpoint");
  }

  @Test
  void aCheckpointOverTheBound_isRefused_andTheOneBeforeStays() throws IOException {
    RunDirectory dir = RunDirectory.create(tmp, "t-1.1");
    dir.writeCheckpoint(1, JsonNodeFactory.instance.textNode("small"));
    String big = "x".repeat(Checkpoint.MAX_BYTES);
    assertThrows(IllegalArgumentException.class, () -> dir.writeCheckpoint(2, JsonNodeFactory.instance.textNode(big)));
    assertEquals(Optional.of(new SavedCheckpoint(1, "\"small\"")), dir.readCheckpoint());
  }

  @Test
  void Q17_theCheckpointToResumeFrom_isReadBackAsItsValue() throws IOException {
    RunDirectory dir = RunDirectory.create(tmp, "t-1.2");
    assertEquals(Optional.empty(), dir.readResumeFrom(), "a first attempt, or a type that is not resumable");
    dir.writeResumeFrom(new Checkpoint(RunId.parse("t-1.1"), 3, "{\"frame\":30}", 1_700_000_000_000L));
    assertEquals(Optional.of(Json.parse("{\"frame\":30}".getBytes(StandardCharsets.UTF_8))), dir.readResumeFrom());
    Files.writeString(dir.file(RunDirectory.RESUME_FROM), "{not json");
    IOException e = assertThrows(IOException.class, dir::readResumeFrom);
    assertEquals(true, e.getMessage().startsWith("resume-from.json is not JSON"), e.getMessage());
  }
}
