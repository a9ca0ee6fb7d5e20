package dev.vigil.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.supervisor.QuiesceRound.Round;
import dev.vigil.supervisor.WorkGate.Admission;
import dev.vigil.supervisor.WorkGate.Answer;
import dev.vigil.supervisor.WorkGate.StopAnswer;
import dev.vigil.supervisor.WorkSet.Kind;
import dev.vigil.supervisor.law.QuiesceLaw;
import dev.vigil.supervisor.law.SupervisorInvariants;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** S5 idle shutdown never aborts: the worker's {@link WorkGate} and the supervisor's {@link QuiesceRound}. */
class QuiesceTest {
  private static final long ANSWER = 2_000;
  private static final long HOLD = 30_000;
  private static final WorkSet ONE_RUN = WorkSet.EMPTY.plus(Kind.RUN, "r1");

  // ---- named examples ----

  @Test
  void S5_idleWorkerClosesItsGateAndAnswersQuiesced_busyWorkerAnswersBusy() {
    WorkGate g = WorkGate.open(HOLD);
    Step<WorkGate, Answer> idle = g.onQuiesce(WorkSet.EMPTY, 100);
    assertEquals(new Answer.Quiesced(), idle.decision());
    assertFalse(idle.next().isOpen());
    assertEquals(new Admission.Refuse(OptionalLong.of(100 + HOLD)), idle.next().admit(101).decision());
    Step<WorkGate, Answer> busy = g.onQuiesce(ONE_RUN, 100);
    assertEquals(new Answer.Busy(ONE_RUN), busy.decision());
    assertTrue(busy.next().isOpen());
  }

  @Test
  void S5_aQuiescedGateReopensAfterTheHoldWhenNeitherStopNorReleaseCame() {
    WorkGate closed = WorkGate.open(HOLD).onQuiesce(WorkSet.EMPTY, 1_000).next();
    assertFalse(closed.onTick(1_000 + HOLD - 1).isOpen());
    assertTrue(closed.onTick(1_000 + HOLD).isOpen());
    assertEquals(new Admission.Admit(), closed.admit(1_000 + HOLD).decision());
    assertTrue(closed.onRelease().isOpen());
  }

  @Test
  void S5_aStoppingWorkerAdmitsNothingAndAWorkerWithWorkRefusesTheStop() {
    WorkGate g = WorkGate.open(HOLD);
    assertEquals(new StopAnswer.Refuse(ONE_RUN), g.onIdleStop(ONE_RUN, 5).decision());
    Step<WorkGate, StopAnswer> stop = g.onQuiesce(WorkSet.EMPTY, 0).next().onIdleStop(WorkSet.EMPTY, 5);
    assertEquals(new StopAnswer.Comply(), stop.decision());
    assertEquals(new Admission.Refuse(OptionalLong.empty()), stop.next().admit(10 * HOLD).decision());
    assertFalse(stop.next().onRelease().isOpen());
  }

  @Test
  void S5_everyWorkerQuiescedInTheWindow_stopsAll() {
    QuiesceRound r = QuiesceRound.start(Set.of("w1", "w2"), ANSWER, 0);
    Step<QuiesceRound, Round> a = r.onAnswer("w1", new Answer.Quiesced(), 10);
    assertEquals(new Round.Waiting(ANSWER), a.decision());
    Step<QuiesceRound, Round> b = a.next().onAnswer("w2", new Answer.Quiesced(), ANSWER - 1);
    assertEquals(new Round.StopAll(Set.of("w1", "w2")), b.decision());
    assertEquals(new Round.Done(), b.next().onTick(ANSWER + 5).decision());
  }

  @Test
  void S5_aQuiesceAnswerArrivingAfterTheWindowIsIgnored_everyGateReopensAndTheClientIsToldBusy() {
    QuiesceRound r = QuiesceRound.start(Set.of("w1", "w2"), ANSWER, 0);
    r = r.onAnswer("w1", new Answer.Quiesced(), 1).next();
    Step<QuiesceRound, Round> late = r.onAnswer("w2", new Answer.Quiesced(), ANSWER);
    assertTrue(late.decision() instanceof Round.ReleaseAll, late.decision().toString());
    Round.ReleaseAll release = (Round.ReleaseAll) late.decision();
    assertEquals(Set.of("w1", "w2"), release.workers());
    assertEquals(Set.of("w2"), release.silent());
    assertEquals("busy: 1 worker has work: w2 (no answer within 2s)", release.message());
  }

  @Test
  void S5_aBusyAnswerReleasesEveryWorkerAtOnce() {
    QuiesceRound r = QuiesceRound.start(Set.of("w1", "w2", "w3"), ANSWER, 0);
    r = r.onAnswer("w1", new Answer.Quiesced(), 1).next();
    Round d = r.onAnswer("w2", new Answer.Busy(ONE_RUN), 2).decision();
    assertEquals("busy: 2 workers have work: w2 (1 run); w3 (no answer within 2s)", ((Round.ReleaseAll) d).message());
    assertEquals(Set.of("w1", "w2", "w3"), ((Round.ReleaseAll) d).workers());
  }

  // ---- model agreement ----

  @Test
  void S5_gateAgreesWithLawModel_eventByEvent() {
    Props.Coverage cov = new Props.Coverage("S5 gate", Answer.Quiesced.class, Answer.Busy.class, Admission.Admit.class,
        "refused while closed", "refused while stopping", StopAnswer.Comply.class, StopAnswer.Refuse.class,
        "reopened at hold exactly", "closed one ms before hold");
    Props.forSeeds(3_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      long hold = Props.pick(r, HOLD, 1L, 2L, 1 + r.nextLong(1_000));
      WorkGate impl = WorkGate.open(hold);
      QuiesceLaw.Gate law = new QuiesceLaw.Gate(hold);
      long now = r.nextLong(1_000_000);
      long lastClose = Long.MIN_VALUE;
      int steps = 1 + r.nextInt(30);
      for (int i = 0; i < steps; i++) {
        now = lastClose != Long.MIN_VALUE && r.nextBoolean() ? Math.max(now, Props.near(r, lastClose + hold, hold))
            : now + r.nextLong(hold + 2);
        WorkSet work = r.nextInt(3) == 0 ? ONE_RUN : WorkSet.EMPTY;
        String ctx = "seed " + seed + ", step " + i + " at " + now + ", hold " + hold + ", gate " + impl;
        switch (r.nextInt(5)) {
          case 0 -> {
            Step<WorkGate, Answer> s = impl.onQuiesce(work, now);
            assertEquals(law.onQuiesce(work, now), s.decision(), ctx);
            if (s.decision() instanceof Answer.Quiesced && s.next().reopensAtMonoMs().isPresent()) {
              lastClose = now;
            }
            impl = s.next();
            cov.saw(s.decision());
          }
          case 1 -> {
            impl = impl.onRelease();
            law.onRelease();
          }
          case 2 -> {
            Step<WorkGate, Admission> s = impl.admit(now);
            assertEquals(law.admit(now), s.decision(), ctx);
            impl = s.next();
            if (s.decision() instanceof Admission.Refuse f) {
              cov.label(f.reopensAtMonoMs().isPresent() ? "refused while closed" : "refused while stopping");
            } else {
              cov.saw(s.decision());
            }
          }
          case 3 -> {
            if (r.nextInt(4) == 0) {
              Step<WorkGate, StopAnswer> s = impl.onIdleStop(work, now);
              assertEquals(law.onIdleStop(work), s.decision(), ctx);
              SupervisorInvariants.s5NoStopWithWork(work, s.decision(), ctx);
              impl = s.next();
              cov.saw(s.decision());
            }
          }
          default -> {
            boolean wasClosed = !impl.isOpen();
            impl = impl.onTick(now);
            if (wasClosed && lastClose != Long.MIN_VALUE) {
              if (now - lastClose == hold && impl.isOpen()) {
                cov.label("reopened at hold exactly");
              }
              if (now - lastClose == hold - 1 && !impl.isOpen()) {
                cov.label("closed one ms before hold");
              }
            }
          }
        }
        assertEquals(law.isOpen(now), impl.onTick(now).isOpen(), ctx);
      }
    });
    cov.assertComplete();
  }

  @Test
  void S5_roundAgreesWithLawModel_answerByAnswer() {
    Props.Coverage cov = new Props.Coverage("S5 round", Round.Waiting.class, Round.StopAll.class, "released for busy",
        "released for silence", Round.Done.class, "answer at the deadline exactly", "answer one ms before the deadline",
        "no workers");
    Props.forSeeds(4_000, seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      int n = r.nextInt(5);
      Set<String> workers = new TreeSet<>();
      for (int i = 0; i < n; i++) {
        workers.add("w" + i);
      }
      if (n == 0) {
        cov.label("no workers");
      }
      long answer = Props.pick(r, ANSWER, 1L, 1 + r.nextLong(5_000));
      long start = r.nextLong(1_000_000);
      QuiesceRound impl = QuiesceRound.start(workers, answer, start);
      QuiesceLaw.RoundLaw law = new QuiesceLaw.RoundLaw(workers, answer, start);
      Set<String> quiescedInWindow = new HashSet<>();
      long now = start;
      int events = 1 + r.nextInt(3 * n + 2);
      for (int i = 0; i < events; i++) {
        now = Math.max(now, Props.near(r, start + answer, answer));
        String ctx = "seed " + seed + ", event " + i + " at " + now + ", start " + start + ", answer " + answer;
        Step<QuiesceRound, Round> s;
        Round expected;
        if (r.nextInt(4) == 0) {
          s = impl.onTick(now);
          expected = law.onTick(now);
        } else {
          String w = "w" + r.nextInt(n + 1);
          Answer a = r.nextInt(6) == 0 ? new Answer.Busy(ONE_RUN) : new Answer.Quiesced();
          if (now - start == answer) {
            cov.label("answer at the deadline exactly");
          } else if (now - start == answer - 1) {
            cov.label("answer one ms before the deadline");
          }
          boolean counts = !impl.decided() && now - start < answer && workers.contains(w);
          if (counts && a instanceof Answer.Quiesced) {
            quiescedInWindow.add(w);
          }
          s = impl.onAnswer(w, a, now);
          expected = law.onAnswer(w, a, now);
        }
        assertEquals(expected, s.decision(), ctx);
        SupervisorInvariants.s5StopOnlyWhenAllQuiesced(workers, quiescedInWindow, s.decision(), ctx);
        if (s.decision() instanceof Round.ReleaseAll rel) {
          cov.label(rel.busy().isEmpty() ? "released for silence" : "released for busy");
        } else {
          cov.saw(s.decision());
        }
        impl = s.next();
      }
    });
    cov.assertComplete();
  }

  // ---- the law itself: a simulation of rounds, workers, work and message delays ----

  private record Event(long at, int seq, Runnable action) {}

  @Test
  void S5_noInterleavingStopsAWorkerWithWork() {
    Props.Coverage cov = new Props.Coverage("S5 interleavings", Round.StopAll.class, "stop all with workers",
        "released for busy",
        "released for silence", StopAnswer.Comply.class, "stop refused (late delivery)", "work admitted after reopen",
        "work refused while closed");
    Props.forSeeds(3_000, seed -> new Simulation(seed, cov).run());
    cov.assertComplete();
  }

  /** One random history: 1–4 workers, work arriving and ending, 1–3 rounds, random delivery delays. */
  private static final class Simulation {
    final long seed;
    final Props.Coverage cov;
    final SplittableRandom r;
    final boolean boundedDelivery;
    final boolean promptDelivery;
    final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at)
        : Integer.compare(a.seq, b.seq));
    final Map<String, WorkGate> gates = new HashMap<>();
    final Map<String, WorkSet> work = new HashMap<>();
    final Set<String> stopped = new HashSet<>();
    final List<String> trace = new ArrayList<>();
    QuiesceRound round;
    Set<String> quiescedInWindow = new HashSet<>();
    Set<String> roundWorkers = Set.of();
    long roundStart;
    int seq;
    int item;
    long now;

    Simulation(long seed, Props.Coverage cov) {
      this.seed = seed;
      this.cov = cov;
      this.r = new SplittableRandom(seed);
      this.boundedDelivery = r.nextInt(3) != 0;
      this.promptDelivery = boundedDelivery && r.nextBoolean();
    }

    void at(long t, Runnable a) {
      queue.add(new Event(t, seq++, a));
    }

    String ctx() {
      return "seed " + seed + ", bounded " + boundedDelivery + ", trace " + trace;
    }

    /**
     * A delivery delay: bounded ones stay below quiesceHold − quiesceAnswer; unbounded ones make
     * late stops likely (a stop arriving after the worker's gate reopened).
     */
    long delay(boolean stop) {
      if (promptDelivery) {
        return Props.pick(r, 0L, 1L, r.nextLong(ANSWER / 4));
      }
      if (!boundedDelivery && stop) {
        return Props.pick(r, 0L, r.nextLong(3 * HOLD), HOLD + r.nextLong(HOLD));
      }
      long max = boundedDelivery ? HOLD - ANSWER - 1 : 3 * HOLD;
      return Props.pick(r, 0L, 1L, ANSWER - 1, ANSWER, r.nextLong(ANSWER), r.nextLong(max + 1), max);
    }

    void run() {
      int n = 1 + r.nextInt(4);
      for (int i = 0; i < n; i++) {
        String w = "w" + i;
        gates.put(w, WorkGate.open(HOLD));
        work.put(w, WorkSet.EMPTY);
      }
      for (int i = 0; i < 4 + r.nextInt(12); i++) {
        String w = "w" + r.nextInt(n);
        at(r.nextLong(4 * HOLD), () -> arrive(w));
      }
      long t = r.nextLong(HOLD);
      for (int i = 0; i < 1 + r.nextInt(3); i++) {
        long start = t;
        at(start, this::startRound);
        for (int j = 0; j < r.nextInt(4); j++) {
          String w = "w" + r.nextInt(n);
          at(start + HOLD + r.nextLong(HOLD), () -> arrive(w));
        }
        t += 4 * HOLD + r.nextLong(HOLD);
      }
      while (!queue.isEmpty()) {
        Event e = queue.poll();
        now = e.at;
        e.action.run();
      }
    }

    void arrive(String w) {
      if (stopped.contains(w)) {
        return;
      }
      Step<WorkGate, Admission> s = gates.get(w).admit(now);
      boolean wasReopenedByHold = !gates.get(w).isOpen() && s.decision() instanceof Admission.Admit;
      gates.put(w, s.next());
      if (s.decision() instanceof Admission.Admit) {
        String id = "i" + item++;
        work.put(w, work.get(w).plus(Kind.RUN, id));
        trace.add(now + " " + w + " admits " + id);
        if (wasReopenedByHold) {
          cov.label("work admitted after reopen");
        }
        long ends = now + Props.pick(r, 1L, ANSWER, HOLD, r.nextLong(3 * HOLD));
        at(ends, () -> {
          work.put(w, work.get(w).minus(Kind.RUN, id));
          trace.add(now + " " + w + " ends " + id);
        });
      } else {
        cov.label("work refused while closed");
        trace.add(now + " " + w + " refuses work");
      }
    }

    void startRound() {
      if (round != null && !round.decided()) {
        return;
      }
      Set<String> live = new TreeSet<>(gates.keySet());
      live.removeAll(stopped);
      roundStart = now;
      roundWorkers = live;
      quiescedInWindow = new HashSet<>();
      round = QuiesceRound.start(live, ANSWER, now);
      QuiesceRound mine = round;
      trace.add(now + " round over " + live);
      for (String w : live) {
        at(now + delay(false), () -> {
          Step<WorkGate, Answer> s = gates.get(w).onQuiesce(work.get(w), now);
          gates.put(w, s.next());
          trace.add(now + " " + w + " answers " + s.decision());
          Answer a = s.decision();
          at(now + delay(false), () -> answer(mine, w, a));
        });
      }
      at(now + ANSWER, () -> decide(mine, mine == round ? round.onTick(now) : null));
    }

    void answer(QuiesceRound of, String w, Answer a) {
      if (of != round) {
        return;
      }
      if (!round.decided() && now - roundStart < ANSWER && a instanceof Answer.Quiesced) {
        quiescedInWindow.add(w);
      }
      decide(of, round.onAnswer(w, a, now));
    }

    void decide(QuiesceRound of, Step<QuiesceRound, Round> s) {
      if (s == null || of != round) {
        return;
      }
      round = s.next();
      Round d = s.decision();
      SupervisorInvariants.s5StopOnlyWhenAllQuiesced(roundWorkers, quiescedInWindow, d, ctx());
      if (d instanceof Round.StopAll all) {
        cov.saw(d);
        if (!all.workers().isEmpty()) {
          cov.label("stop all with workers");
        }
        trace.add(now + " round stops " + all.workers());
        for (String w : all.workers()) {
          at(now + delay(true), () -> stop(w));
        }
      } else if (d instanceof Round.ReleaseAll rel) {
        cov.label(rel.busy().isEmpty() ? "released for silence" : "released for busy");
        trace.add(now + " round releases: " + rel.message());
        for (String w : rel.workers()) {
          at(now + delay(false), () -> gates.put(w, gates.get(w).onRelease()));
        }
      }
    }

    void stop(String w) {
      Step<WorkGate, StopAnswer> s = gates.get(w).onIdleStop(work.get(w), now);
      SupervisorInvariants.s5NoStopWithWork(work.get(w), s.decision(), ctx());
      gates.put(w, s.next());
      trace.add(now + " " + w + " stop: " + s.decision());
      if (s.decision() instanceof StopAnswer.Comply) {
        cov.saw(s.decision());
        stopped.add(w);
      } else {
        cov.label("stop refused (late delivery)");
        assertFalse(boundedDelivery, "S5: with delivery faster than quiesceHold − quiesceAnswer a quiesced worker "
            + "is still closed when its stop arrives; " + ctx());
      }
    }
  }
}
