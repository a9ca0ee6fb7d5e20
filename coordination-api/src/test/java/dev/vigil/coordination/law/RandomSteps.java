package dev.vigil.coordination.law;

import dev.vigil.coordination.Environment;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Prerequisite;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunSpec;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Seeded random step sequences over many owners, tickets, runs and forward clock jumps. The
 * generator steers by a shadow {@link LeaseLaw}, so most steps target tickets and runs in the
 * state a verb needs (and some deliberately do not), and clock jumps land exactly on, just
 * before and just after lease expiries and due times.
 */
public final class RandomSteps {
  public static final List<OwnerId> OWNERS =
      List.of(new OwnerId("d-alpha"), new OwnerId("d-beta"), new OwnerId("d-gamma"), new OwnerId("d-delta"));
  public static final List<Lane> LANES = List.of(Lane.DEFAULT, new Lane("batch"));
  public static final long START_MS = 1_700_000_000_000L;
  public static final long TTL_MS = 30_000;
  /** Weighted so that successes after stalls (Q7) and exhausted attempts (Q1) both occur often. */
  private static final Verdict[] FINISHABLE = {Verdict.SUCCEEDED, Verdict.SUCCEEDED, Verdict.SUCCEEDED,
      Verdict.FAILED, Verdict.FAILED, Verdict.PERMANENT_FAILURE, Verdict.STALLED, Verdict.STALLED, Verdict.BLOCKED,
      Verdict.LOST};

  private final SplittableRandom rnd;
  private final LeaseLaw shadow;
  private long now = START_MS;

  private RandomSteps(long seed, LeaseLaw shadow) {
    this.rnd = new SplittableRandom(seed);
    this.shadow = shadow;
  }

  /** A sequence of {@code length} steps for {@code seed}; equal seeds give equal sequences. */
  public static List<Step> generate(long seed, int length) {
    return generate(seed, length, new LeaseLaw());
  }

  /** As {@link #generate(long, int)}, steering by the given fresh model (with its retry policy). */
  public static List<Step> generate(long seed, int length, LeaseLaw freshShadow) {
    RandomSteps g = new RandomSteps(seed, freshShadow);
    List<Step> steps = new ArrayList<>(length);
    for (int i = 0; i < length; i++) {
      Step s = g.next();
      s.apply(g.shadow);
      steps.add(s);
    }
    return steps;
  }

  private Step next() {
    advanceClock();
    if (rnd.nextInt(40) == 0) {
      long pid = 100 + rnd.nextInt(50_000);
      return new Step.RegisterOwner(new Owner(owner(), "host-" + rnd.nextInt(3),
          new ProcessIdentity("boot-" + rnd.nextInt(2), pid, rnd.nextLong(1, 1L << 40), pid), "b" + rnd.nextInt(3), now,
          rnd.nextInt(3) == 0 ? null : "machine-" + rnd.nextInt(2)));
    }
    int dice = rnd.nextInt(112);
    if (dice < 14 || shadow.tickets(TicketQuery.all()).isEmpty()) {
      return submit();
    } else if (dice < 22) {
      return new Step.Claim(ticketId(), owner(), now, ttl());
    } else if (dice < 24) {
      return new Step.ClaimByHand(ticketId(), owner(), now, ttl());
    } else if (dice < 34) {
      return new Step.ClaimNext(pick(LANES), owner(), now, ttl(), 1 + rnd.nextInt(3));
    } else if (dice < 44) {
      Run r = runIn(RunState.CLAIMED);
      return new Step.Start(r.id(), rnd.nextInt(5) == 0 ? owner() : r.owner(), runStart(r.id()));
    } else if (dice < 47) {
      Run r = runIn(RunState.CLAIMED);
      return new Step.AbortClaim(r.id(), rnd.nextInt(5) == 0 ? owner() : r.owner(), "launch timed out", now);
    } else if (dice < 54) {
      Run r = leasedRun();
      return new Step.Renew(r.id(), rnd.nextInt(4) == 0 ? owner() : r.owner(), now, ttl());
    } else if (dice < 57) {
      return new Step.RenewAll(owner(), now, ttl());
    } else if (dice < 61) {
      return rnd.nextInt(3) == 0 ? readoptAll() : new Step.Readopt(anyRun().id(), owner(), now, ttl());
    } else if (dice < 72) {
      Run r = rnd.nextInt(6) == 0 ? anyRun() : runIn(RunState.RUNNING);
      ExitOwner who = rnd.nextBoolean() ? ExitOwner.supervisor(r.owner()) : ExitOwner.recovery(owner());
      RunExit exit = switch (rnd.nextInt(3)) {
        case 0 -> RunExit.code(rnd.nextInt(3) == 0 ? 75 : rnd.nextInt(2), now);
        case 1 -> RunExit.signal(9, now);
        default -> RunExit.unknown(now);
      };
      return new Step.TakeExit(r.id(), who, exit);
    } else if (dice < 84) {
      Run r = rnd.nextInt(6) == 0 ? anyRun() : runIn(RunState.EXITED);
      ExitOwner claimant = r.exitOwner() != null && rnd.nextInt(5) != 0
          ? r.exitOwner()
          : ExitOwner.recovery(owner());
      boolean killed = r.stopIntent() != null && r.stopIntent().kill();
      Verdict v = killed && rnd.nextInt(6) != 0 ? Verdict.KILLED
          : !killed && rnd.nextInt(25) == 0 ? Verdict.KILLED : pick(List.of(FINISHABLE));
      long stallUntil = v == Verdict.STALLED ? now + rnd.nextInt(3) * 60_000L : 0;
      String result = v == Verdict.SUCCEEDED && rnd.nextBoolean() ? "{\"n\":" + rnd.nextInt(100) + "}" : null;
      Finish f = new Finish(r.id(), claimant, v, rnd.nextBoolean() ? null : "exit " + r.exit(), stallUntil,
          rnd.nextInt(8) == 0, result);
      return new Step.Finish(f, now);
    } else if (dice < 87) {
      return new Step.Park(ticketId());
    } else if (dice < 90) {
      return new Step.Unpark(ticketId());
    } else if (dice < 92) {
      return new Step.Hold(ticketId(), "operator hold", now);
    } else if (dice < 95) {
      List<Ticket> held = shadow.tickets(TicketQuery.all().inState(dev.vigil.coordination.TicketState.HELD));
      TicketId t = held.isEmpty() || rnd.nextBoolean() ? ticketId() : pick(held).id();
      return new Step.Release(t, rnd.nextInt(3) == 0 ? OptionalInt.of(rnd.nextInt(3) == 0 ? 1000 : 1 + rnd.nextInt(3))
          : OptionalInt.empty());
    } else if (dice < 96) {
      return new Step.Cancel(ticketId(), now);
    } else if (dice < 98) {
      return new Step.ParkLane(pick(LANES));
    } else if (dice < 100) {
      return new Step.UnparkLane(pick(LANES));
    } else if (dice >= 103 && dice < 107) {
      Run r = rnd.nextInt(3) == 0 ? anyRun() : rnd.nextInt(4) == 0 ? runIn(RunState.CLAIMED) : runIn(RunState.RUNNING);
      StopIntent intent = pick(List.of(StopIntent.values()));
      return new Step.RequestStop(r.id(), intent, intent == StopIntent.TIMEOUT ? "timed out after 30s" : "killed", now);
    } else if (dice >= 107 && dice < 110) {
      return new Step.Retry(ticketId(), now);
    } else if (dice >= 110) {
      return new Step.ServiceGivenUp(rnd.nextBoolean() ? "indexer" : "chat", "failed 6 times within 15m", now);
    } else {
      // recovery adopting a claim from the owner it found dead: usually the one on the claim
      Run r = runIn(RunState.CLAIMED);
      RunId run = rnd.nextInt(8) == 0 ? unknownRun() : r.id();
      return new Step.AdoptClaim(run, owner(), rnd.nextInt(4) == 0 ? owner() : r.owner(), now, ttl());
    }
  }

  /**
   * Recovery's batch: 1-6 runs, mostly the RUNNING runs of one owner (as a new daemon readopts a dead
   * one's), with now and then a run of another state, a run named twice or a run the store does not have.
   */
  private Step readoptAll() {
    List<Run> running = shadow.runs(RunState.RUNNING);
    OwnerId of = running.isEmpty() ? owner() : pick(running).owner();
    List<RunId> batch = new ArrayList<>();
    for (Run r : running) {
      if (r.owner().equals(of) && batch.size() < 4 && rnd.nextInt(4) != 0) {
        batch.add(r.id());
      }
    }
    while (batch.isEmpty() || (batch.size() < 6 && rnd.nextInt(3) == 0)) {
      int dice = rnd.nextInt(4);
      batch.add(rnd.nextInt(batch.size() + 1), dice == 0 && !batch.isEmpty() ? pick(batch)
          : dice == 1 ? unknownRun() : anyRun().id());
    }
    return new Step.ReadoptAll(batch, owner(), now, ttl());
  }

  /** One submission, or now and then a batch of 0-4 whose keys often meet each other or earlier ones. */
  private Step submit() {
    if (rnd.nextInt(5) == 0) {
      int size = rnd.nextInt(5);
      List<NewTicket> batch = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        batch.add(withPrerequisites(newTicket(2), i));
      }
      return new Step.SubmitAll(batch, now);
    }
    return new Step.Submit(withPrerequisites(newTicket(5), 0), now);
  }

  /**
   * Q14: often waits for one or two tickets that exist (of any state, so that some are finished,
   * held or retried already) and, in a batch, now and then for an earlier ticket of the batch.
   */
  private NewTicket withPrerequisites(NewTicket n, int index) {
    List<Ticket> all = shadow.tickets(TicketQuery.all());
    if (rnd.nextInt(5) < 2) {
      return n;
    }
    List<Prerequisite> after = new ArrayList<>();
    if (!all.isEmpty()) {
      for (int k = rnd.nextInt(1, 3); k > 0; k--) {
        after.add(new Prerequisite.Existing(rnd.nextInt(3) == 0 ? all.get(all.size() - 1 - rnd.nextInt(Math.min(3,
            all.size()))).id() : pick(all).id()));
      }
    }
    if (index > 0 && rnd.nextBoolean()) {
      after.add(new Prerequisite.Earlier(rnd.nextInt(index)));
    }
    return n.withAfter(after);
  }

  /** A ticket with an idempotency key one time in {@code keyOdds}. */
  private NewTicket newTicket(int keyOdds) {
    long notBefore = switch (rnd.nextInt(4)) {
      case 0 -> now + 1 + rnd.nextInt(60_000);
      case 1 -> now - rnd.nextInt(1_000);
      default -> 0;
    };
    String key = rnd.nextInt(keyOdds) == 0 ? "key-" + rnd.nextInt(4) : null;
    NewTicket n = new NewTicket(pick(LANES), "command", "{\"n\":" + rnd.nextInt(1000) + "}", 1 + rnd.nextInt(3),
        rnd.nextInt(3), notBefore, key);
    if (rnd.nextInt(3) == 0) {
      Map<String, String> env = new TreeMap<>(Map.of("PATH", "/usr/bin:/bin", "SECRET", "s3cr=t " + rnd.nextInt(9)));
      n = n.withSpec(new RunSpec(rnd.nextBoolean() ? "/tmp/work dir" : null, rnd.nextBoolean() ? Environment.of(env)
          : null, rnd.nextInt(3) * 30_000L));
    }
    if (rnd.nextInt(3) == 0) {
      n = n.withLabels(rnd.nextBoolean() ? Map.of("team", "a") : Map.of("team", "b", "prio", "high"));
    }
    return n;
  }

  /** Moves the clock forward: often not at all, sometimes exactly onto a lease expiry or due time. */
  private void advanceClock() {
    int dice = rnd.nextInt(10);
    if (dice < 4) {
      return;
    }
    if (dice < 7) {
      now += 1 + rnd.nextInt(5_000);
      return;
    }
    if (dice < 9) {
      List<Long> edges = new ArrayList<>();
      for (Lease l : shadow.leases()) {
        edges.add(l.expiresAtMs());
      }
      for (Ticket t : shadow.tickets(TicketQuery.all())) {
        edges.add(t.notBeforeMs());
      }
      if (!edges.isEmpty()) {
        long edge = pick(edges) + rnd.nextInt(3) - 1;
        now = Math.max(now, edge);
        return;
      }
    }
    now += TTL_MS + rnd.nextInt(600_000);
  }

  private long ttl() {
    return rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(10_000) : TTL_MS;
  }

  private TicketId ticketId() {
    List<Ticket> all = shadow.tickets(TicketQuery.all());
    if (all.isEmpty() || rnd.nextInt(12) == 0) {
      return new TicketId(1 + rnd.nextInt(all.size() + 3));
    }
    return pick(all).id();
  }

  private Run anyRun() {
    List<Run> all = shadow.runs();
    if (all.isEmpty() || rnd.nextInt(12) == 0) {
      return Run.claimed(new RunId(ticketId(), 1 + rnd.nextInt(3)), 1, owner(), now, false);
    }
    return pick(all);
  }

  /** A run id the store does not have: the next number of some ticket's runs. */
  private RunId unknownRun() {
    TicketId t = ticketId();
    return new RunId(t, shadow.runsOf(t).size() + 1);
  }

  private Run runIn(RunState state) {
    List<Run> in = shadow.runs(state);
    return in.isEmpty() || rnd.nextInt(10) == 0 ? anyRun() : pick(in);
  }

  private Run leasedRun() {
    List<Run> live = shadow.liveRuns();
    return live.isEmpty() ? anyRun() : pick(live);
  }

  private RunStart runStart(RunId run) {
    long pid = 1000 + rnd.nextInt(30_000);
    ProcessIdentity id = new ProcessIdentity("3f1c0a52-boot", pid, 10_000 + rnd.nextInt(1_000_000), pid);
    String hash = String.format("%064x", (long) run.hashCode() & 0xffffffffL);
    return new RunStart(id, rnd.nextInt(4) == 0 ? "0.9.0" : "1.0.0", hash, now);
  }

  private OwnerId owner() {
    return pick(OWNERS);
  }

  private <T> T pick(List<T> xs) {
    return xs.get(rnd.nextInt(xs.size()));
  }
}
