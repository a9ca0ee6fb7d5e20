package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Exit;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.law.CoordinationInvariants;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code WRITE_DELAY=0} every commit appends a chunk (and {@code REUSE_SPACE=FALSE} keeps
 * it appending, see {@link Compaction}); the adapter's periodic compaction keeps a long-running
 * daemon's file bounded by its live data, not by its commit count. Without it, 25,000 cycles
 * grew the file to 187 MB with space reuse (and 120,000 plain-JDBC commits to 1.9 GB without).
 */
@Tag("slow")
class H2FileGrowthTest {
  /** Commits in the run: claim, start, takeExit and finish are one commit each. */
  static final int COMMITS = 100_000;
  /** The file may not grow past this while it works, bytes. */
  static final long MAX_BYTES_WHILE_OPEN = 32L << 20;
  /** Nor past this after the compaction at a clean close, bytes. */
  static final long MAX_BYTES_AFTER_CLOSE = 8L << 20;
  static final int TICKETS = 50;

  @TempDir
  Path dir;

  @Test
  void hundredThousandCommits_keepTheFileBounded_andACleanCloseCompactsIt() {
    Path file = dir.resolve("growth.mv.db");
    OwnerId owner = new OwnerId("d-growth");
    RunStart start = new RunStart(new ProcessIdentity("boot", 4242, 1, 4242), "1.0.0", "ab".repeat(32), 0);
    long maxWhileOpen = 0;
    int compactions;
    long t0 = System.nanoTime();
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults().withRetryPolicy(new RetryPolicy(0, 0)))) {
      List<TicketId> tickets = new ArrayList<>();
      for (int i = 0; i < TICKETS; i++) {
        tickets.add(((Submission.Accepted) h2.submit(new NewTicket(Lane.DEFAULT, "command", "{\"i\":" + i + "}", 3, 0,
            0, null), 1)).ticket().id());
      }
      long now = 1;
      for (int cycle = 0; cycle < COMMITS / 4; cycle++) {
        now++;
        TicketId t = tickets.get(cycle % TICKETS);
        RunId run = assertInstanceOf(Claim.Granted.class, h2.claim(t, owner, now, 30_000)).run().id();
        assertInstanceOf(Start.Started.class, h2.start(run, owner, start));
        assertInstanceOf(Exit.Taken.class, h2.takeExit(run, ExitOwner.supervisor(owner), RunExit.code(75, now)));
        // A stall spends no attempt and makes the ticket due again at once (Q2), so it cycles forever.
        Settlement.Settled s = assertInstanceOf(Settlement.Settled.class,
            h2.finish(Finish.stalled(ExitOwner.supervisor(owner), run, now, "quota"), now));
        assertEquals(TicketState.READY, s.ticket().state());
        if (cycle % 1_000 == 0) {
          maxWhileOpen = Math.max(maxWhileOpen, size(file));
        }
      }
      maxWhileOpen = Math.max(maxWhileOpen, size(file));
      CoordinationInvariants.check(h2.store());
      assertEquals(COMMITS / 4, h2.store().runs().size());
      compactions = h2.compactions();
    }
    long afterClose = size(file);
    double seconds = (System.nanoTime() - t0) / 1e9;
    System.out.printf("%d commits in %.1f s (%.0f/s): file at most %.1f MB while open, %.1f MB after close,"
        + " %d compactions%n", COMMITS, seconds, COMMITS / seconds, maxWhileOpen / 1e6, afterClose / 1e6, compactions);
    assertTrue(compactions > 0, "the file never grew enough to compact");
    assertTrue(maxWhileOpen <= MAX_BYTES_WHILE_OPEN, "file grew to " + maxWhileOpen + " bytes while open");
    assertTrue(afterClose <= MAX_BYTES_AFTER_CLOSE, "file is " + afterClose + " bytes after a clean close");
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
