package dev.vigil.examples;

import dev.vigil.coordination.Ticket;
import dev.vigil.launcher.Submitted;
import dev.vigil.launcher.Task;
import dev.vigil.launcher.Vigil;
import dev.vigil.launcher.VigilEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * An embedded queue: Vigil runs inside this JVM on a home directory (the first argument, else a new
 * temporary one), three commands are queued, every settlement is printed as it happens, and each
 * ticket is awaited. The third command fails on its only attempt, so its ticket is held for a person.
 */
public final class EmbeddedQueueMain {
  public static void main(String[] args) throws Exception {
    Path home = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("vigil-queue-");
    try (Vigil vigil = Vigil.builder().home(home).start()) {
      vigil.events(event -> {
        if (event instanceof VigilEvent.Settled s) {
          System.out.println("settled: " + s.ticket() + " " + s.verdict());
        }
      });
      List<Submitted> queued = vigil.submitAll(List.of(
          Task.command("sh", "-c", "echo hello from a worker").build(),
          Task.command("sleep", "1").label("kind", "nap").build(),
          Task.command("sh", "-c", "exit 3").attempts(1).build()));
      for (Submitted s : queued) {
        Ticket t = vigil.await(s.id(), Duration.ofMinutes(2));
        System.out.println(t.id() + ": " + t.state() + " after " + t.attemptsUsed() + " attempt(s)");
      }
    }
  }
}
