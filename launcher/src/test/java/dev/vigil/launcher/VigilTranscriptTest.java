package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.TranscriptEntry;
import dev.vigil.supervisor.engine.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedding API's transcript (S7): a real service worker killed with {@code kill -9} restarts over its snapshot. */
@Tag("slow")
class VigilTranscriptTest {
  @TempDir Path tmp;

  @Test
  void transcript_namesTheLaunches_theExit_andOneNoticeOfTheRestore() throws Exception {
    Path classes = Path.of(SnapshotCounterType.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path config = Files.writeString(tmp.resolve("vigil.json"), """
        {"workerTypes": {"snapshot-counter": {"class": "%s", "classpath": ["%s"]}},
         "services": [{"name": "counter", "type": "snapshot-counter", "payload": {}}]}
        """.formatted(SnapshotCounterType.class.getName(), classes));
    Path home = Files.createDirectory(tmp.resolve("home"), java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
        java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
    try (Vigil vigil = Vigil.builder().home(home).config(config).start()) {
      long first = upPid(vigil, -1);
      Path snapshot = home.resolve("runs").resolve("s-counter").resolve("counter.snapshot");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!Files.exists(snapshot)) {
        assertTrue(System.nanoTime() < deadline, "the worker saved a snapshot");
        Thread.sleep(50);
      }
      assertEquals(0, new ProcessBuilder("kill", "-9", Long.toString(first)).start().waitFor());
      upPid(vigil, first);
      List<TranscriptEntry> t = vigil.transcript("counter");
      while (t.stream().noneMatch(e -> e.kind() == TranscriptEntry.Kind.RESTORED)) {
        assertTrue(System.nanoTime() < deadline, "the restore was noted: " + t);
        Thread.sleep(100);
        t = vigil.transcript("counter");
      }
      List<TranscriptEntry.Kind> kinds = t.stream().map(TranscriptEntry::kind).toList();
      assertEquals(List.of(TranscriptEntry.Kind.LAUNCHED, TranscriptEntry.Kind.EXITED, TranscriptEntry.Kind.RESTARTING,
          TranscriptEntry.Kind.LAUNCHED, TranscriptEntry.Kind.RESTORED), kinds, t.toString());
      assertTrue(t.get(4).text().startsWith("counter-"), t.toString());
      assertThrows(IllegalArgumentException.class, () -> vigil.transcript("nosuch"));
    }
  }

  private static long upPid(Vigil vigil, long not) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      for (Status.ServiceStatus s : vigil.status().services()) {
        if (s.state() == Status.ServiceState.UP && s.pid() != null && s.pid() != not) {
          return s.pid();
        }
      }
      assertTrue(System.nanoTime() < deadline, "the service came up");
      Thread.sleep(100);
    }
  }
}
