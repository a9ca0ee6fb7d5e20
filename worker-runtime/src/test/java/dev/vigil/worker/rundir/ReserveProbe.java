package dev.vigil.worker.rundir;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Another process for reservation tests: {@code hold HOME RUN} takes the reservation, prints
 * {@code held} and waits to be killed; {@code try HOME RUN} exits 0 when it could take the
 * reservation and 1 when it could not.
 */
public final class ReserveProbe {
  private ReserveProbe() {}

  public static void main(String[] args) throws Exception {
    RunDirectory dir = RunDirectory.of(Path.of(args[1]), args[2]);
    Optional<Reservation> r = dir.tryReserve();
    if (args[0].equals("try")) {
      System.exit(r.isPresent() ? 0 : 1);
    }
    System.out.println(r.isPresent() ? "held" : "not held");
    System.out.flush();
    Thread.sleep(600_000);
  }
}
