package dev.vigil.coordination.h2;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A quick measurement, run by hand (not a test): single-thread claim → start → takeExit → finish
 * cycles per second in each durability mode, on a fresh file in a temporary directory.
 * {@code java -cp <test classpath> dev.vigil.coordination.h2.CycleRate [seconds]}
 */
public final class CycleRate {
  private CycleRate() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    for (H2Options.Durability mode : H2Options.Durability.values()) {
      Path dir = Files.createTempDirectory("vigil-cycle-rate");
      Path file = dir.resolve("rate.mv.db");
      try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults().withDurability(mode))) {
        run(h2, 2);
        double rate = run(h2, seconds);
        System.out.printf("%-7s %7.0f cycles/s (%.0f verb commits/s; CHECKPOINT SYNC per claim, start, finish: %s)%n",
            mode, rate, rate * 4, mode == H2Options.Durability.POWER ? "yes" : "no");
      } finally {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
      }
    }
  }

  /** Cycles per second over {@code seconds}, on 100 tickets that a stall makes due again at once. */
  private static double run(H2Coordination h2, int seconds) {
    OwnerId owner = new OwnerId("d-rate");
    RunStart start = new RunStart(new ProcessIdentity("boot", 4242, 1, 4242), "1.0.0", "ab".repeat(32), 0);
    List<TicketId> tickets = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      tickets.add(((Submission.Accepted) h2.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), 0)).ticket().id());
    }
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    long t0 = System.nanoTime();
    int cycles = 0;
    while (System.nanoTime() < end) {
      long now = System.currentTimeMillis();
      RunId run = ((Claim.Granted) h2.claim(tickets.get(cycles % tickets.size()), owner, now, 30_000)).run().id();
      h2.start(run, owner, start);
      h2.takeExit(run, ExitOwner.supervisor(owner), RunExit.code(75, now));
      if (!(h2.finish(Finish.stalled(ExitOwner.supervisor(owner), run, now, "quota"), now)
          instanceof Settlement.Settled)) {
        throw new AssertionError("finish of " + run);
      }
      cycles++;
    }
    return cycles / ((System.nanoTime() - t0) / 1e9);
  }
}
