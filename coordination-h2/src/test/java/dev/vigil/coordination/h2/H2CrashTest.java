package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Lease;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.coordination.law.CoordinationInvariants;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durability across {@code kill -9}: a child JVM ({@link ChildDatabase}) submits (some tickets
 * waiting for others, Q14), claims, starts,
 * takes exits and finishes (some with a result) in a loop, printing each acknowledged decision; the test kills it with
 * SIGKILL at a random moment, reopens the database and requires every acknowledged decision to be
 * there and no partial transaction to be visible (the invariants, and a LEASED ticket always has
 * its one CLAIMED or RUNNING run and its lease: C1, C7). Every round continues the same file;
 * odd rounds go flat out, even rounds pause up to {@value #PACE_MS} ms between decisions.
 *
 * <p>To see what the durable settings prevent, run it with other {@link Tuning}s, e.g.
 * {@code -Dvigil.h2.crash.tuning=500,45000,false,1} (H2's defaults) or
 * {@code -Dvigil.h2.crash.tuning=0,0,false,1} (no write delay, but freed space reused): the test
 * then fails, naming the decisions lost in each round.
 */
@Tag("slow")
class H2CrashTest {
  private static final int ROUNDS = Integer.getInteger("vigil.h2.crash.rounds", 10);
  private static final long MAX_LIFE_MS = Long.getLong("vigil.h2.crash.maxLifeMs", 1_500);
  private static final int PACE_MS = 40;
  /** The durable settings, compacting from 256 KiB of growth on, so that kills also land in compactions. */
  private static final Tuning TUNING = Tuning.parse(System.getProperty("vigil.h2.crash.tuning", "0,0,true,262144"));

  @TempDir
  Path dir;

  @Test
  void C1_C7_Q14_everyAcknowledgedDecisionSurvivesKill9_andNoPartialTransactionIsVisible() throws Exception {
    Path file = dir.resolve("crash.mv.db");
    long seed = Long.getLong("vigil.h2.crash.seed", System.nanoTime());
    SplittableRandom rnd = new SplittableRandom(seed);
    List<String> acknowledged = new ArrayList<>();
    List<String> report = new ArrayList<>();
    report.add("tuning " + TUNING + ", seed " + seed);
    int totalLost = 0;
    for (int round = 1; round <= ROUNDS; round++) {
      List<String> lines;
      long lifeMs = rnd.nextLong(MAX_LIFE_MS * (round % 2 == 0 ? 2 : 1));
      try (Children child = Children.start(dir, "work", file.toString(), Integer.toString(round), TUNING.toString(),
          Integer.toString(round % 2 == 0 ? PACE_MS : 0))) {
        assertTrue(child.awaitLine("SUBMIT", 60_000), "round " + round + ": the child never worked (see " + dir + ")");
        Thread.sleep(lifeMs);
        lines = child.kill9();
      }
      List<String> acks = lines.stream().filter(l -> !l.startsWith("OPEN") && !l.startsWith("COMPACTIONS")).toList();
      String compactions = lines.stream().filter(l -> l.startsWith("COMPACTIONS")).reduce((a, b) -> b)
          .map(l -> l.substring("COMPACTIONS ".length())).orElse("0");
      acknowledged.addAll(acks);
      try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
        Snapshot s = h2.store().snapshot();
        List<String> lost = missing(acknowledged, s);
        totalLost += lost.size();
        long finishes = acks.stream().filter(l -> l.startsWith("FINISH")).count();
        report.add("round " + round + ": killed " + lifeMs + " ms after its first decision, " + acks.size()
            + " decisions acknowledged (" + finishes + " finishes, " + compactions + " compactions), " + lost.size()
            + " of all acknowledged missing"
            + (lost.isEmpty() ? "" : ", e.g. " + lost.subList(0, Math.min(4, lost.size()))));
        List<String> broken = CoordinationInvariants.violations(s);
        assertTrue(broken.isEmpty(), "round " + round + ": a partial transaction is visible after kill -9: " + broken);
        for (Ticket t : s.tickets()) {
          if (t.state() == TicketState.LEASED) {
            List<Run> live = s.runs().stream().filter(r -> r.ticket().equals(t.id()) && r.state().holdsLease())
                .toList();
            assertEquals(1, live.size(), "round " + round + ": LEASED " + t.id() + " has unsettled runs " + live);
            assertTrue(live.get(0).state() != RunState.EXITED || live.get(0).exitOwner() != null);
            assertTrue(s.leases().stream().map(Lease::run).anyMatch(live.get(0).id()::equals),
                "round " + round + ": LEASED " + t.id() + " has no lease for " + live.get(0).id());
          }
        }
      }
    }
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      // Q14 across kill -9: the invariants held after every round; here, that they were about something
      List<Ticket> dependents = h2.store().snapshot().tickets().stream().filter(t -> !t.after().isEmpty()).toList();
      long ran = dependents.stream().filter(t -> !h2.store().runsOf(t.id()).isEmpty()).count();
      long held = dependents.stream().filter(t -> t.heldFor() != null).count();
      report.add("dependents: " + dependents.size() + ", " + ran + " claimed after their prerequisite succeeded, "
          + held + " held for it");
      assertTrue(ran > 0 && held > 0, "Q14: dependents both ran and were held:\n" + String.join("\n", report));
    }
    System.out.println(String.join("\n", report));
    assertEquals(0, totalLost, "acknowledged decisions lost across kill -9:\n" + String.join("\n", report));
    assertTrue(acknowledged.stream().filter(l -> l.startsWith("FINISH")).count() >= ROUNDS,
        "too few finishes to prove anything:\n" + String.join("\n", report));
  }

  /** Every acknowledged line whose effect the snapshot does not show. */
  private static List<String> missing(List<String> acknowledged, Snapshot s) {
    Map<TicketId, Ticket> tickets = s.tickets().stream().collect(Collectors.toMap(Ticket::id, Function.identity()));
    Map<RunId, Run> runs = s.runs().stream().collect(Collectors.toMap(Run::id, Function.identity()));
    List<String> lost = new ArrayList<>();
    for (String line : acknowledged) {
      String[] f = line.split(" ", 3);
      boolean there = switch (f[0]) {
        case "SUBMIT" -> {
          Ticket t = tickets.get(TicketId.parse(f[1]));
          yield t != null && t.payload().equals(f[2]);
        }
        case "CLAIM" -> runs.containsKey(RunId.parse(f[1]));
        case "ABORT" -> has(runs, f[1], r -> r.verdict() == Verdict.ABANDONED);
        case "START" -> has(runs, f[1], r -> r.start() != null);
        case "EXIT" -> has(runs, f[1], r -> r.exitOwner() != null);
        case "FINISH" -> has(runs, f[1], r -> r.state() == RunState.SETTLED
            && java.util.Objects.equals(r.result(), f.length > 2 ? f[2] : null));
        default -> throw new AssertionError("unknown line from the child: " + line);
      };
      if (!there) {
        lost.add(line);
      }
    }
    return lost;
  }

  private static boolean has(Map<RunId, Run> runs, String id, Predicate<Run> p) {
    Run r = runs.get(RunId.parse(id));
    return r != null && p.test(r);
  }
}
