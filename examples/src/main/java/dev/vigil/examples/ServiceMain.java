package dev.vigil.examples;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.launcher.Vigil;
import dev.vigil.supervisor.engine.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A service: Vigil keeps the {@link TickerService} worker running from the moment it starts; this
 * program shows it up with its process id, reads a few of its ticks, then stops Vigil with an idle
 * shutdown, which stops the worker only between two ticks, never during one (it asks again while a
 * tick is in flight). Arguments: {@code [HOME]} (else a new temporary directory).
 *
 * <p>A service is declared in the configuration file, with its worker type. The type's classpath is
 * where this class was loaded from (this module's jar or classes directory): a worker host gets
 * Vigil's own classpath plus the entries its type names, and nothing else of this JVM's.
 */
public final class ServiceMain {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    Path home = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("vigil-service-");
    Path work = Files.createTempDirectory("vigil-ticks-");
    Path ticks = work.resolve("ticks.txt");
    Path classes = Path.of(TickerService.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path config = Files.writeString(work.resolve("vigil.json"), """
        {
          "workerTypes": { "ticker": { "class": %s, "classpath": [%s] } },
          "services": [ { "name": "ticker", "type": "ticker", "payload": { "file": %s, "everyMs": 200 } } ]
        }
        """.formatted(json(TickerService.class.getName()), json(classes.toString()), json(ticks.toString())));

    try (Vigil vigil = Vigil.builder().home(home).config(config).start()) {
      Status.ServiceStatus up = awaitUp(vigil, "ticker");
      System.out.println("service " + up.name() + " is " + up.state() + ", worker pid " + up.pid());
      while (!Files.exists(ticks) || Files.readAllLines(ticks).size() < 3) {
        Thread.sleep(50);
      }
      System.out.println("it writes " + ticks + ": " + Files.readAllLines(ticks).subList(0, 3));
      for (int tries = 1; !vigil.shutdownIfIdle(); tries++) {
        System.out.println("the ticker had work in flight: nothing stopped; asking again");
        if (tries == 20) {
          throw new IllegalStateException("the ticker never was idle when asked");
        }
        Thread.sleep(70);
      }
      boolean gone = ProcessHandle.of(up.pid()).map(p -> !p.isAlive()).orElse(true);
      System.out.println("stopped when idle; worker pid " + up.pid() + (gone ? " has exited" : " is still running"));
    }
  }

  /** Waits until the daemon reports {@code name} up with its worker's pid. */
  private static Status.ServiceStatus awaitUp(Vigil vigil, String name) throws InterruptedException {
    for (int i = 0; i < 1_200; i++) {
      List<Status.ServiceStatus> services = vigil.status().services();
      for (Status.ServiceStatus s : services) {
        if (s.name().equals(name) && s.state() == Status.ServiceState.UP && s.pid() != null) {
          return s;
        }
        if (s.name().equals(name) && s.state() == Status.ServiceState.GIVEN_UP) {
          throw new IllegalStateException("service " + name + " was given up: " + s.note());
        }
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("service " + name + " did not come up within a minute");
  }

  private static String json(String text) throws Exception {
    return JSON.writeValueAsString(text);
  }
}
