package dev.vigil.bridge;

import dev.vigil.coordination.Run;
import dev.vigil.coordination.Ticket;
import dev.vigil.launcher.Submitted;
import dev.vigil.launcher.Task;
import dev.vigil.launcher.Vigil;
import dev.vigil.launcher.VigilEvent;
import dev.vigil.worker.engine.HostClasspath;
import dev.vigil.worker.host.WorkerArgs;
import dev.vigil.worker.process.StartArchive;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An application that embeds Vigil, started by {@link EmbeddedClasspathTest} in a JVM of its own on
 * each kind of classpath: {@code EmbeddingApp HOME TYPE_CLASSPATH MODE}. It starts a daemon on HOME
 * with the example {@code prime-count} type (its class on TYPE_CLASSPATH only), and prints one line
 * per fact for the test to read:
 *
 * <ul>
 *   <li>{@code hosts CLASSPATH}: Vigil's own classpath, which its worker hosts get;
 *   <li>mode {@code run}: {@code command STATE} and {@code prime-count STATE} of a command task and
 *       a task of the Java type; then {@code archive PATH} once the hosts' class archive for Vigil's
 *       own classpath is in place ({@code archive none} when that classpath has a directory);
 *   <li>mode {@code break}: deletes the jar its worker hosts start from, after the daemon started,
 *       and prints {@code held REASON} of a command task, {@code run DIAGNOSIS} of each of its runs
 *       and {@code event REASON} of the held event.
 * </ul>
 *
 * <p>It returns once every process it started has ended.
 */
public final class EmbeddingApp {
  private static final Duration WAIT = Duration.ofMinutes(3);

  private EmbeddingApp() {}

  public static void main(String[] args) throws Exception {
    try {
      run(args);
    } finally {
      // the class archive's JVM may still run: let it end before the home goes away
      for (ProcessHandle child : ProcessHandle.current().children().toList()) {
        child.onExit().get(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      }
    }
  }

  private static void run(String[] args) throws Exception {
    Path home = Path.of(args[0]);
    String typeClasspath = args[1];
    String mode = args[2];
    List<VigilEvent> events = new CopyOnWriteArrayList<>();
    try (Vigil v = Vigil.builder().home(home)
        .workerType("prime-count", "dev.vigil.examples.PrimeCountWorker", List.of(typeClasspath)).start()) {
      v.events(0, events::add);
      HostClasspath.Resolution.Found hosts = (HostClasspath.Resolution.Found) HostClasspath.host();
      System.out.println("hosts " + hosts.classpath());
      if (mode.equals("break")) {
        Files.delete(hosts.entries().get(0)); // the daemon keeps it open; a new JVM finds no worker host
        Submitted s = v.submit(Task.command("true").build());
        Ticket t = v.await(s.id(), WAIT);
        System.out.println("held " + t.holdReason());
        for (Run r : v.runs(s.id())) {
          System.out.println("run " + r.diagnosis());
        }
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (events.stream().noneMatch(e -> e instanceof VigilEvent.Held) && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        events.stream().filter(e -> e instanceof VigilEvent.Held).forEach(e ->
            System.out.println("event " + ((VigilEvent.Held) e).reason()));
        return;
      }
      Submitted command = v.submit(Task.command("sh", "-c", "echo from a command").build());
      Submitted primes = v.submit(Task.worker("prime-count", Map.of("below", 1000)).build());
      Ticket c = v.await(command.id(), WAIT);
      Ticket p = v.await(primes.id(), WAIT);
      System.out.println("command " + c.state() + (c.holdReason() == null ? "" : " " + c.holdReason()));
      System.out.println("prime-count " + p.state() + (p.holdReason() == null ? "" : " " + p.holdReason()));
      StartArchive archive = new StartArchive(home.resolve("cds"), "host", StartArchive.currentJava());
      Path a = archive.archiveOf(WorkerArgs.FAST_START_FLAGS, hosts.classpath()).orElse(null);
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (a != null && !Files.exists(a) && System.nanoTime() < deadline) {
        Thread.sleep(50); // written beside the hosts by a JVM of its own, put in place by this one
      }
      System.out.println("archive " + (a == null ? "none" : a));
    }
  }
}
