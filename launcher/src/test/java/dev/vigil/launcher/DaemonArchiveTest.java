package dev.vigil.launcher;

import static dev.vigil.launcher.CliEndToEndTest.ownerOnlyHome;
import static dev.vigil.launcher.CliEndToEndTest.poll;
import static dev.vigil.launcher.CliEndToEndTest.vigil;
import static dev.vigil.launcher.TaskControlCliTest.vigilIn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.launcher.CliEndToEndTest.Result;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's class archive with real daemons of {@code vigil up}: the first daemon writes it in the
 * background without leaving a process behind, the next daemon maps it and works, a damaged one is never
 * mapped, and {@code VIGIL_CDS=off} neither maps nor writes one, nor a class archive of the worker hosts.
 */
class DaemonArchiveTest {
  private static final Map<String, String> ON = Map.of("VIGIL_CDS", "on");
  private static final Map<String, String> OFF = Map.of("VIGIL_CDS", "off");

  @TempDir
  Path tmp;

  private final List<Path> homes = new ArrayList<>();

  @AfterEach
  void stopDaemons() throws Exception {
    for (Path h : homes) {
      vigil(h, "down", "--stop-workers");
    }
  }

  @Test
  void theFirstDaemonWritesIt_theNextMapsIt_aDamagedOneIsNeverMapped_andOffMeansNone() throws Exception {
    Path home = ownerOnlyHome(tmp, "home", homes);
    Path without = ownerOnlyHome(tmp, "without", homes);
    long first = up(home, ON);
    up(without, OFF);
    assertFalse(commandOf(first).stream().anyMatch(a -> a.startsWith("-XX:SharedArchiveFile")),
        "no archive exists yet: " + commandOf(first));

    Path archive = await(home);
    String sum = Files.readString(archive.resolveSibling(archive.getFileName() + ".sum"), StandardCharsets.UTF_8);
    assertTrue(sum.startsWith(Files.size(archive) + " "), sum);
    assertTrue(Files.readString(home.resolve("logs/daemon.log")).contains("the daemon now starts with the class archive "
        + archive), "the daemon says where its archive is");
    awaitNoTraining();
    try (java.util.stream.Stream<Path> tmps = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      assertEquals(List.of(), tmps.filter(p -> p.getFileName().toString().startsWith("vigil-cds-")
          && Files.isDirectory(p.resolve("home"))).toList(), "the training daemon's temporary home is deleted");
    }
    assertEquals(0, vigil(home, "down").code());

    long second = up(home, ON);
    assertTrue(commandOf(second).contains("-XX:SharedArchiveFile=" + archive), commandOf(second).toString());
    assertTrue(maps(second, archive), "the new daemon maps the archive");
    Result submitted = vigilIn(home, tmp, ON, "submit", "--", "true");
    assertEquals(0, submitted.code(), submitted.err());
    assertEquals("SUCCEEDED", poll(home, submitted.line(), t -> t.path("state").asText().equals("SUCCEEDED"))
        .path("state").asText());
    assertEquals(0, vigil(home, "down").code());

    long plain = up(home, OFF);
    assertFalse(maps(plain, archive), "VIGIL_CDS=off: not mapped");
    assertFalse(commandOf(plain).stream().anyMatch(a -> a.startsWith("-XX:SharedArchiveFile")), commandOf(plain).toString());
    assertEquals(0, vigil(home, "down").code());

    archive.toFile().setWritable(true);
    try (RandomAccessFile f = new RandomAccessFile(archive.toFile(), "rw")) {
      f.setLength(f.length() / 2);
    }
    long afterDamage = up(home, ON);
    assertFalse(commandOf(afterDamage).stream().anyMatch(a -> a.startsWith("-XX:SharedArchiveFile")),
        "a damaged archive is never mapped: " + commandOf(afterDamage));
    assertFalse(Files.exists(archive), "the damaged archive is deleted, to be written again");
    assertEquals(0, vigil(home, "status").code(), "the daemon serves without it");

    assertTrue(archiveIn(without).isEmpty(), "VIGIL_CDS=off: no archive written");
    assertFalse(Files.exists(without.resolve("cds")) && Files.list(without.resolve("cds"))
        .anyMatch(p -> p.getFileName().toString().startsWith("daemon-")), "nor begun");
    try (java.util.stream.Stream<Path> cds = Files.list(home.resolve("cds"))) {
      assertTrue(cds.anyMatch(p -> p.getFileName().toString().matches("host-.*\\.jsa")),
          "with archives on, the worker hosts have theirs");
    }
    Result ran = vigilIn(without, tmp, OFF, "submit", "--", "true");
    assertEquals(0, ran.code(), ran.err());
    assertEquals("SUCCEEDED", poll(without, ran.line(), t -> t.path("state").asText().equals("SUCCEEDED"))
        .path("state").asText());
    assertFalse(Files.exists(without.resolve("cds")) && Files.list(without.resolve("cds"))
        .anyMatch(p -> p.getFileName().toString().startsWith("host-")), "VIGIL_CDS=off: nor the worker hosts'");
  }

  private long up(Path home, Map<String, String> env) throws Exception {
    Result r = vigilIn(home, tmp, env, "up");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.line().startsWith("pid "), r.out());
    return Long.parseLong(r.line().substring(4).trim());
  }

  /** Waits for the home's daemon archive; the training begins about 10 s after the daemon serves. */
  private static Path await(Path home) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
    while (System.nanoTime() < deadline) {
      Optional<Path> a = archiveIn(home);
      if (a.isPresent()) {
        return a.get();
      }
      Thread.sleep(200);
    }
    throw new AssertionError("no daemon class archive in " + home.resolve("cds") + " within 150 s; log: "
        + Files.readString(home.resolve("logs/daemon.log")));
  }

  private static Optional<Path> archiveIn(Path home) throws IOException {
    Path cds = home.resolve("cds");
    if (!Files.isDirectory(cds)) {
      return Optional.empty();
    }
    try (DirectoryStream<Path> s = Files.newDirectoryStream(cds, "daemon-*.jsa")) {
      for (Path p : s) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** The daemon that wrote the archive has exited by the time the archive is in place. */
  private static void awaitNoTraining() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (ProcessHandle.allProcesses().anyMatch(p -> p.info().arguments().map(List::of).orElse(List.of()).stream()
        .anyMatch(a -> a.startsWith("-Dvigil.archive.training")))) {
      assertTrue(System.nanoTime() < deadline, "the training daemon is still running");
      Thread.sleep(100);
    }
  }

  private static List<String> commandOf(long pid) throws IOException {
    byte[] raw = Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline"));
    return List.of(new String(raw, StandardCharsets.UTF_8).split("\0"));
  }

  private static boolean maps(long pid, Path file) throws IOException {
    return Files.readAllLines(Path.of("/proc/" + pid + "/maps")).stream().anyMatch(l -> l.endsWith(file.toString()));
  }
}
