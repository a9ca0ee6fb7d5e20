package dev.vigil.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.supervisor.DaemonLiveness;
import dev.vigil.worker.process.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatusFileTest {
  @TempDir Path home;

  private ObjectNode status(long pid, long beat) {
    ObjectNode n = new ObjectMapper().createObjectNode();
    n.put("schema", StatusFile.SCHEMA).put("pid", pid).put("heartbeat_at", beat).put("build", "b1");
    return n;
  }

  /**
   * D1 and D5 on a real full disk: a tmpfs of its own, filled; the daemon must still be able to say
   * that it lives and that its store is unavailable.
   */
  @Test
  void D5_onAFullDisk_theStatusIsStillRewrittenEveryBeat_inPlace() throws Exception {
    Path mnt = Files.createDirectory(home.resolve("small"));
    Process m = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt.toString())
        .redirectErrorStream(true).start();
    String why = new String(m.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
    boolean mounted = m.waitFor() == 0;
    if (!mounted) {
      System.out.println("skipped: cannot mount a tmpfs here (" + why + ")");
    }
    org.junit.jupiter.api.Assumptions.assumeTrue(mounted, "cannot mount a tmpfs here: " + why);
    try {
      StatusFile f = new StatusFile(mnt.resolve("daemon.json"));
      ObjectNode first = status(4242, 1_000);
      first.put("state", "RUNNING").put("padding", "x".repeat(600));
      f.write(first);
      Path filler = mnt.resolve("filler");
      try (java.io.OutputStream out = Files.newOutputStream(filler)) {
        byte[] block = new byte[4096];
        while (true) {
          out.write(block);
        }
      } catch (java.io.IOException full) {
        assertTrue(String.valueOf(full.getMessage()).contains("No space left"), full.toString());
      }
      ObjectNode unavailable = status(4242, 6_000);
      unavailable.put("state", "STORE_UNAVAILABLE");
      f.write(unavailable);
      assertEquals(Optional.of(new DaemonLiveness.Status(4242, 6_000)), f.read());
      assertEquals("STORE_UNAVAILABLE", f.readJson().orElseThrow().path("state").asText());
      assertFalse(Files.exists(mnt.resolve("daemon.json.tmp")), "no empty temporary file is left behind");
      ObjectNode large = status(4242, 11_000);
      large.put("padding", "y".repeat(9_000));
      assertThrowsIo(() -> f.write(large));
      assertEquals(6_000, f.read().orElseThrow().heartbeatAtWallMs(), "content that does not fit leaves the file");
      Files.delete(filler);
      f.write(status(4242, 16_000));
      assertEquals(16_000, f.read().orElseThrow().heartbeatAtWallMs(), "with room again it is replaced as before");
    } finally {
      new ProcessBuilder("umount", "-l", mnt.toString()).start().waitFor();
    }
  }

  private interface IoCall {
    void run() throws java.io.IOException;
  }

  private static void assertThrowsIo(IoCall c) {
    try {
      c.run();
    } catch (java.io.IOException e) {
      return;
    }
    throw new AssertionError("expected an IOException");
  }

  @Test
  void D1_aWrittenStatusReadsBack_owner0600_andADeleteRemovesIt() throws Exception {
    StatusFile f = new StatusFile(home.resolve("daemon.json"));
    f.write(status(4242, 1_000));
    assertEquals(Optional.of(new DaemonLiveness.Status(4242, 1_000)), f.read());
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f.path())));
    f.write(status(4242, 2_000));
    assertEquals(2_000, f.read().orElseThrow().heartbeatAtWallMs());
    assertFalse(Files.exists(home.resolve("daemon.json.tmp")), "the temporary file is renamed over the status");
    f.delete();
    assertTrue(f.read().isEmpty());
  }

  @Test
  void D2_theWriterSeesAnotherDaemonsFileRenamedOverItsOwn_aRewriteInPlace_andADelete() throws Exception {
    Path path = home.resolve("daemon.json");
    StatusFile mine = new StatusFile(path);
    mine.write(status(4242, 1_000));
    assertEquals(Optional.of(new DaemonLiveness.Status(4242, 1_000)), mine.read());
    new StatusFile(path).write(status(777, 2_000));
    assertEquals(Optional.of(new DaemonLiveness.Status(777, 2_000)), mine.read(), "another writer's file");
    mine.write(status(4242, 3_000));
    assertEquals(Optional.of(new DaemonLiveness.Status(4242, 3_000)), mine.read());
    Files.writeString(path, "{\"pid\":7,\"heartbeat_at\":9}");
    assertEquals(Optional.of(new DaemonLiveness.Status(7, 9)), mine.read(), "rewritten in place");
    mine.write(status(4242, 4_000));
    Files.delete(path);
    assertTrue(mine.read().isEmpty(), "deleted");
  }

  @Test
  void D3_missingPartialCorruptOrOddFilesReadAsNoDaemon_neverAsAnError() throws Exception {
    StatusFile f = new StatusFile(home.resolve("daemon.json"));
    assertTrue(f.read().isEmpty(), "missing");
    String whole = "{\"schema\":1,\"pid\":4242,\"heartbeat_at\":1000}";
    for (int cut = 0; cut < whole.length(); cut++) {
      Files.writeString(f.path(), whole.substring(0, cut));
      assertTrue(f.read().isEmpty(), "partial file of " + cut + " bytes reads as no daemon");
    }
    for (String odd : List.of("[]", "null", "42", "{\"pid\":\"x\",\"heartbeat_at\":1}", "{\"pid\":-1,\"heartbeat_at\":1}",
        "{\"heartbeat_at\":1}", "\u0000\u0001binary")) {
      Files.writeString(f.path(), odd);
      assertTrue(f.read().isEmpty(), "odd content reads as no daemon: " + odd);
    }
    Files.write(f.path(), new byte[] {(byte) 0xff, (byte) 0xfe, 0x7b});
    assertTrue(f.read().isEmpty());
  }

  @Test
  void D3_unknownFieldsAreIgnored() throws Exception {
    StatusFile f = new StatusFile(home.resolve("daemon.json"));
    Files.writeString(f.path(), "{\"pid\":7,\"heartbeat_at\":9,\"from_the_future\":{\"x\":[1,2]}}");
    assertEquals(Optional.of(new DaemonLiveness.Status(7, 9)), f.read());
  }

  @Test
  void S9_theRecordedDaemonNamesItsBuildAndConfiguration_readPermissively() throws Exception {
    StatusFile f = new StatusFile(home.resolve("daemon.json"));
    Path config = home.resolve("vigil.json");
    f.write(status(4242, 1_000).put("pid_start", 77).put("version", "1.0.0").put("config", config.toString()));
    assertEquals(Optional.of(new StatusFile.Recorded(4242, 77, "b1", Optional.of(config))), f.recorded());
    f.write(status(4242, 1_000).putNull("config"));
    assertEquals(Optional.of(new StatusFile.Recorded(4242, -1, "b1", Optional.empty())), f.recorded(),
        "no configuration: the defaults; unrecorded fields read as unknown");
    for (String odd : List.of("\"relative.json\"", "42", "{}", "[\"/a\"]", "\"\"")) {
      Files.writeString(f.path(), "{\"pid\":7,\"heartbeat_at\":9,\"config\":" + odd + "}");
      assertEquals(Optional.empty(), f.recorded().orElseThrow().config(), "an odd config reads as none: " + odd);
    }
    Files.writeString(f.path(), "{\"pid\":7,\"heartbeat_at\":9,\"config\":\"/x\"");
    assertTrue(f.recorded().isEmpty(), "a partial file reads as no daemon (D3)");
  }

  @Test
  void S9_aRecordedDaemonIsAliveOnlyWhileAProcessHasItsPidAndStartTicks() {
    long self = ProcessHandle.current().pid();
    long ticks = Processes.self().startTicks();
    assertTrue(new StatusFile.Recorded(self, ticks, "b", Optional.empty()).alive());
    assertTrue(new StatusFile.Recorded(self, -1, "b", Optional.empty()).alive());
    assertFalse(new StatusFile.Recorded(self, ticks + 1, "b", Optional.empty()).alive(), "a reused pid");
  }

  @Test
  void D2_theSingletonLockIsExclusiveWhileHeld_andFreeAfterClose() throws Exception {
    Path lock = home.resolve("daemon.lock");
    try (DaemonLock held = DaemonLock.tryAcquire(lock).orElseThrow()) {
      assertTrue(DaemonLock.tryAcquire(lock).isEmpty(), "a second daemon on the same home is refused");
    }
    DaemonLock.tryAcquire(lock).orElseThrow().close();
  }

  /**
   * A heartbeat that shows what the last one showed is written from the last one's text with its own
   * heartbeat: the file must then hold, byte for byte, what serializing the whole status gives, and read
   * back with that heartbeat. Generated runs of beats: what they show (texts with quotes, backslashes,
   * line breaks, non-ASCII and a decoy {@code "heartbeat_at" : N} inside a string), any heartbeat
   * (negative, zero, the decoy's), failed writes between them (the temporary file's name taken by a
   * directory and no file to rewrite in place) and other writes between them.
   */
  @Test
  void D1_aBeatThatShowsTheSameAsTheLast_writesTheWholeStatusText_withItsOwnHeartbeat() throws Exception {
    ObjectMapper json = new ObjectMapper();
    int[] counts = new int[4]; // rebuilt, reused, other write, failed write
    String[] shows = {"idle", "a \"quoted\" \\ name", "line\nbreak \u00e9 \u2211 \ud83d\ude00",
        "\"heartbeat_at\" : 17", "17"};
    org.quicktheories.QuickTheory.qt().withExamples(150).withShrinkCycles(0)
        .forAll(org.quicktheories.generators.SourceDSL.longs().all()).checkAssert(seed -> {
          java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
          try {
            Path dir = Files.createTempDirectory(home, "beats");
            Path file = dir.resolve("daemon.json");
            StatusFile f = new StatusFile(file);
            for (int i = 0; i < 12; i++) {
              String shown = shows[r.nextInt(shows.length)];
              long beat = switch (r.nextInt(4)) {
                case 0 -> r.nextLong();
                case 1 -> 17;
                case 2 -> -r.nextInt(1000);
                default -> 1_700_000_000_000L + r.nextInt(1_000_000);
              };
              int act = r.nextInt(10);
              if (act == 0) {
                f.write(status(99, beat).put("state", "STORE_UNAVAILABLE"));
                counts[2]++;
                continue;
              }
              boolean failing = act == 1;
              Path blocker = dir.resolve("daemon.json.tmp");
              if (failing) {
                Files.deleteIfExists(file);
                Files.createDirectories(blocker.resolve("x"));
              }
              int[] built = {0};
              try {
                f.writeBeat(List.of(shown), beat, hb -> {
                  built[0]++;
                  return status(4242, hb).put("state", "RUNNING").put("note", shown);
                });
                assertFalse(failing, "no file can be written");
              } catch (java.io.IOException e) {
                assertTrue(failing, e.toString());
                assertTrue(f.read().isEmpty(), "nothing written");
                counts[3]++;
                continue;
              } finally {
                if (failing) {
                  Files.delete(blocker.resolve("x"));
                  Files.delete(blocker);
                }
              }
              counts[built[0] == 1 ? 0 : 1]++;
              ObjectNode whole = status(4242, beat).put("state", "RUNNING").put("note", shown);
              assertEquals(new String(json.writerWithDefaultPrettyPrinter().writeValueAsBytes(whole),
                      java.nio.charset.StandardCharsets.UTF_8),
                  Files.readString(file), "the file is the status's whole text");
              assertEquals(Optional.of(new DaemonLiveness.Status(4242, beat)), f.read());
            }
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
    assertTrue(counts[0] > 0 && counts[1] > 0 && counts[2] > 0 && counts[3] > 0,
        "rebuilt, reused, other writes and failed writes all occurred: " + java.util.Arrays.toString(counts));
  }
}
