package dev.vigil.coordination.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.vigil.coordination.Claims;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Submission;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The server's word that a ticket became READY ({@link PostgresCoordination#onNewWork}): a store is told
 * of a submission made through another client of the same schema, of a rollback that makes a ticket
 * READY again, never of another schema's tickets; after the server restarted, the listener comes back
 * by itself and says so once, as the notifications of the outage were lost.
 */
class PostgresNotificationsTest {
  private static final Lane LANE = new Lane("notify");

  @Test
  void aTicketMadeReadyThroughAnotherClient_isNotified_andAnotherSchemasAreNot() throws Exception {
    PostgresServer server = PostgresServer.get();
    PostgresOptions o = server.freshOptions();
    PostgresOptions other = server.freshOptions();
    Semaphore told = new Semaphore(0);
    AtomicInteger toldOther = new AtomicInteger();
    try (PostgresCoordination daemon = PostgresCoordination.open(o);
         PostgresCoordination elsewhere = PostgresCoordination.open(o);
         PostgresCoordination otherStore = PostgresCoordination.open(other)) {
      daemon.onNewWork(told::release);
      otherStore.onNewWork(toldOther::incrementAndGet);
      Thread.sleep(500); // the listeners connect
      assertInstanceOf(Submission.Accepted.class, elsewhere.submit(NewTicket.of(LANE, "command", "{}"), 1));
      assertTrue(told.tryAcquire(10, TimeUnit.SECONDS), "a submission through another client is notified");

      List<Submission> batch = elsewhere.submitAll(List.of(NewTicket.of(LANE, "command", "{}"),
          NewTicket.of(LANE, "command", "{}")), 2);
      assertEquals(2, batch.size());
      assertTrue(told.tryAcquire(10, TimeUnit.SECONDS), "a batch is notified");

      OwnerId owner = new OwnerId("d-notify");
      Claims claims = elsewhere.claimNext(LANE, owner, 3, 60_000, 3);
      assertEquals(3, claims.granted().size(), claims.toString());
      told.drainPermits();
      elsewhere.abortClaim(claims.granted().get(0).run().id(), owner, "rolled back", 4);
      assertTrue(told.tryAcquire(10, TimeUnit.SECONDS), "a rollback that makes a ticket READY again is notified");
      Thread.sleep(1_500);
      assertEquals(0, toldOther.get(), "another schema's store hears nothing of this one's tickets");
    } finally {
      server.release(o.schema());
      server.release(other.schema());
    }
  }

  @Test
  void afterTheServerRestarted_theListenerIsBack_andSaysSoOnce() throws Exception {
    PostgresServer server = PostgresServer.get();
    assumeTrue(server.isEmbedded(), "the server is stopped only when the tests started it themselves");
    PostgresOptions o = server.freshOptions();
    Semaphore told = new Semaphore(0);
    try (PostgresCoordination daemon = PostgresCoordination.open(o);
         PostgresCoordination elsewhere = PostgresCoordination.open(o)) {
      daemon.onNewWork(told::release);
      Thread.sleep(500);
      server.stop();
      Thread.sleep(1_500);
      server.startAgain();
      assertTrue(told.tryAcquire(45, TimeUnit.SECONDS), "the listener came back and said what it may have missed");
      told.drainPermits();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      boolean submitted = false;
      while (!submitted && System.nanoTime() < deadline) { // the pool reconnects on its own
        try {
          elsewhere.submit(NewTicket.of(LANE, "command", "{}"), 5);
          submitted = true;
        } catch (PostgresUnavailableException e) {
          Thread.sleep(200);
        }
      }
      assertTrue(submitted, "the store is usable again");
      assertTrue(told.tryAcquire(10, TimeUnit.SECONDS), "a submission after the restart is notified");
    } finally {
      server.release(o.schema());
    }
  }
}
