package dev.vigil.supervisor.engine;

import static dev.vigil.supervisor.engine.Simulation.LANE_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import org.junit.jupiter.api.Test;

/**
 * H1 on a store that two hosts share, as named examples: the daemon under test is of host-a.
 */
class HostsExamplesTest {
  private final Bench b = new Bench();

  HostsExamplesTest() {
    b.hostId = "host-a";
  }

  @Test
  void H1_aLanesConcurrencyCountsOnlyTheLiveRunsOfItsOwnHost() {
    OwnerId other = new OwnerId("host-b-d0");
    b.law.registerOwner(new Owner(other, "b", new ProcessIdentity("boot-b", 42, 1, 42), "b1",
        b.world.wallMs, "host-b"));
    for (int i = 0; i < 2; i++) { // lane a allows 2 live runs: host-b's daemon claims two of its tickets
      TicketId t = ((Submission.Accepted) b.law.submit(NewTicket.of(LANE_A, "cmd", "{}"), b.world.wallMs)).ticket().id();
      b.law.claim(t, other, b.world.wallMs, 60_000);
    }
    b.boot();
    TicketId mine = b.submit(LANE_A);
    TicketId mine2 = b.submit(LANE_A);
    b.until("both of this host's tickets run beside host-b's two", () -> b.law.runsOf(mine).size() == 1
        && b.law.runsOf(mine2).size() == 1, 2_000);
    b.run(Bench.ms(Timeout.HEARTBEAT));
    assertEquals(2, b.status().lanes().get(0).occupied(), "the lane's slots are this host's");
    assertEquals(4, b.law.tickets(dev.vigil.coordination.TicketQuery.all().inState(TicketState.LEASED)).size());
    assertTrue(b.recovered(EngineEvent.RecoveryAction.LEAVE_TO_ITS_HOST).size() >= 2, "host-b's claims are its own");
  }
}
