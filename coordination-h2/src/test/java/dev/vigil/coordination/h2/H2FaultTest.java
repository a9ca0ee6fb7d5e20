package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Claims;
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
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.law.LeaseLaw;
import dev.vigil.coordination.law.RandomSteps;
import dev.vigil.coordination.law.Step;
import dev.vigil.coordination.law.Transcript;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults a real database can show: a duplicate key under a claim (injected by plain SQL), row locks
 * held past the lock timeout by another session, and the POWER durability mode.
 */
class H2FaultTest {
  private static final OwnerId A = new OwnerId("d-alpha");
  private static final RunStart START = new RunStart(new ProcessIdentity("b", 9, 9, 9), "1.0.0", "1".repeat(64), 1);

  @TempDir
  Path dir;

  private static TicketId submit(H2Coordination h2) {
    return ((Submission.Accepted) h2.submit(NewTicket.of(Lane.DEFAULT, "command", "{}"), 1)).ticket().id();
  }

  @Test
  void C1_aDuplicateKeyUnderAClaim_isADenial_neverAnException_andChangesNothing() throws Exception {
    Path file = dir.resolve("dup.mv.db");
    H2Options options = H2Options.defaults().withRetryPolicy(new RetryPolicy(0, 0));
    TicketId t;
    try (H2Coordination h2 = H2Coordination.open(file, options)) {
      t = submit(h2);
      RunId run = ((Claim.Granted) h2.claim(t, A, 1, 1_000)).run().id();
      h2.start(run, A, START);
      h2.takeExit(run, ExitOwner.supervisor(A), RunExit.code(1, 1));
      h2.finish(Finish.as(ExitOwner.supervisor(A), run, Verdict.FAILED, null), 1);
      assertEquals(TicketState.READY, h2.store().ticket(t).orElseThrow().state());
      // The fault: a stale lease row survives for the settled run, which the schema cannot tell.
      try (Connection c = DatabaseFile.connect(h2.url()); Statement s = c.createStatement()) {
        s.executeUpdate("INSERT INTO leases VALUES (1, 't-1.1', 'd-ghost', 5)");
      }
      Snapshot before = h2.store().snapshot();
      assertEquals(new Claim.Denied(Claim.Reason.LEASED), h2.claim(t, A, 2, 1_000));
      assertEquals(Claims.NONE, h2.claimNext(Lane.DEFAULT, A, 2, 1_000, 3));
      assertEquals(before, h2.store().snapshot(), "the refused claim changed nothing");
    }
  }

  @Test
  void lockTimeouts_areRetried_thenReportedAsAnInfrastructureFailure_andTheVerbWorksOnceTheLockIsGone()
      throws Exception {
    Duration timeout = Duration.ofMillis(100);
    try (H2Coordination h2 = H2Coordination.open(dir.resolve("locks.mv.db"),
        H2Options.defaults().withLockTimeout(timeout))) {
      TicketId t = submit(h2);
      try (Connection other = DatabaseFile.connect(h2.url())) {
        other.setAutoCommit(false);
        try (Statement s = other.createStatement()) {
          s.executeUpdate("UPDATE tickets SET priority = priority WHERE id = " + t.seq());
        }
        long start = System.nanoTime();
        CoordinationStoreException e = assertThrows(CoordinationStoreException.class, () -> h2.claim(t, A, 1, 1_000));
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(e.getMessage().contains("claim gave up after " + H2Coordination.LOCK_TIMEOUT_ATTEMPTS
            + " lock conflicts (lock timeout 100ms)"), e.getMessage());
        assertTrue(e.getMessage().contains("locks.mv.db") && !e.getMessage().contains("\n"), e.getMessage());
        assertTrue(tookMs >= H2Coordination.LOCK_TIMEOUT_ATTEMPTS * timeout.toMillis(), "retried: " + tookMs + " ms");
        other.rollback();
      }
      assertInstanceOf(Claim.Granted.class, h2.claim(t, A, 1, 1_000));
    }
  }

  @Test
  void aLockReleasedWhileTheVerbRetries_letsItSucceed() throws Exception {
    try (H2Coordination h2 = H2Coordination.open(dir.resolve("release.mv.db"),
        H2Options.defaults().withLockTimeout(Duration.ofMillis(400)))) {
      TicketId t = submit(h2);
      Connection other = DatabaseFile.connect(h2.url());
      other.setAutoCommit(false);
      try (Statement s = other.createStatement()) {
        s.executeUpdate("UPDATE tickets SET priority = priority WHERE id = " + t.seq());
      }
      Thread releaser = new Thread(() -> {
        try {
          Thread.sleep(500);
          other.rollback();
          other.close();
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      releaser.start();
      assertInstanceOf(Claim.Granted.class, h2.claim(t, A, 1, 1_000));
      releaser.join();
    }
  }

  @Test
  void powerDurability_decidesExactlyAsLeaseLaw() {
    RetryPolicy policy = new RetryPolicy(1_000, 60_000);
    for (long seed = 1; seed <= 5; seed++) {
      List<Step> steps = RandomSteps.generate(seed, 80, new LeaseLaw(policy));
      try (H2Coordination h2 = H2Coordination.open(dir.resolve("power-" + seed + ".mv.db"),
          H2Options.defaults().withDurability(H2Options.Durability.POWER).withRetryPolicy(policy))) {
        Transcript expected = Transcript.of(new LeaseLaw(policy), steps);
        Transcript actual = Transcript.of(h2, steps);
        String diff = expected.firstDifference(actual);
        assertFalse(diff != null, "seed " + seed + ": " + diff);
      }
    }
  }
}
