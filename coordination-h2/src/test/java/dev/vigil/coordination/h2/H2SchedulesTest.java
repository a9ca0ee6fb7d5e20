package dev.vigil.coordination.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.law.Coverage;
import dev.vigil.coordination.law.LeaseLaw;
import dev.vigil.coordination.law.ScheduleLaw;
import dev.vigil.coordination.schedule.CatchUp;
import dev.vigil.coordination.schedule.Cron;
import dev.vigil.coordination.schedule.FireDecision;
import dev.vigil.coordination.schedule.Overlap;
import dev.vigil.coordination.schedule.Schedule;
import dev.vigil.coordination.schedule.ScheduleName;
import dev.vigil.coordination.schedule.ScheduleSpec;
import dev.vigil.coordination.schedule.ScheduleView;
import dev.vigil.coordination.schedule.Schedules;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Q15 on the H2 store: the same decisions as the reference model under random looks, pauses,
 * resumes and ticket ends; one ticket per fire when threads race for the same fires; and one ticket per
 * fire, with nothing lost, across {@code kill -9} of a JVM looking at its schedules.
 */
class H2SchedulesTest {
  /** 2026-03-28T12:00Z, a day before Berlin's clocks go forward. */
  private static final long START = 1_774_699_200_000L;

  @TempDir
  Path dir;

  private static ScheduleSpec spec(String name, String cron, String zone, CatchUp c, Overlap o) {
    return new ScheduleSpec(new ScheduleName(name), Cron.parse(cron), ZoneId.of(zone),
        NewTicket.of(Lane.DEFAULT, "command", "{\"argv\":[\"true\"]}"), c, o);
  }

  /** What a look decided and submitted, comparable between stores. */
  private static List<String> summary(Schedules.FireRound r) {
    List<String> out = new ArrayList<>();
    for (Schedules.Fired f : r.fired()) {
      out.add(f.name() + " " + f.decision() + " " + f.submissions().stream()
          .map(s -> s instanceof Submission.Accepted a ? "new " + a.ticket().id() : "dup").toList());
    }
    out.add("next " + r.nextFireMs() + " waiting " + r.waiting());
    return out;
  }

  private static List<String> views(List<ScheduleView> vs) {
    return vs.stream().map(v -> v.schedule() + " next " + v.nextFireMs() + " last "
        + (v.lastTicket() == null ? null : v.lastTicket().id() + " " + v.lastTicket().state())).toList();
  }

  @Test
  void Q15_h2DecidesEveryLookAsTheModelDoes() {
    Coverage seen = new Coverage("Q15");
    AtomicInteger example = new AtomicInteger();
    qt().withExamples(25).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom rnd = new SplittableRandom(seed);
      LeaseLaw law = new LeaseLaw();
      ScheduleLaw model = new ScheduleLaw(law);
      int ex = example.incrementAndGet();
      try (H2Coordination h2 = H2Coordination.open(dir.resolve("diff-" + ex + ".mv.db"), H2Options.defaults())) {
        Schedules store = h2.schedules();
        long now = START;
        List<ScheduleSpec> specs = List.of(
            spec("minutely", "* * * * *", "UTC", CatchUp.values()[rnd.nextInt(3)], Overlap.values()[rnd.nextInt(3)]),
            // the nightly one takes each catch-up policy in turn, so a missed fire (catch-up none after a
            // long pause) occurs in every run of the property, not only in lucky ones
            spec("night", "30 2 * * *", "Europe/Berlin", CatchUp.values()[ex % 3], Overlap.values()[rnd.nextInt(3)]),
            spec("seconds", "0/20 * * * * ?", "UTC", CatchUp.values()[rnd.nextInt(3)], Overlap.values()[rnd.nextInt(3)]));
        for (ScheduleSpec s : specs) { // the nightly one exists from the start, the others mostly do
          if (s.name().name().equals("night") || rnd.nextInt(4) > 0) {
            assertEquals(model.add(s, now).getClass(), store.add(s, now).getClass(), "seed " + seed + " add");
          }
        }
        for (int step = 0; step < 40; step++) {
          String why = "seed " + seed + " step " + step;
          int op = rnd.nextInt(12);
          if (op == 0) {
            ScheduleSpec s = specs.get(rnd.nextInt(specs.size()));
            assertEquals(model.add(s, now).getClass(), store.add(s, now).getClass(), why);
          } else if (op == 1) {
            ScheduleName n = specs.get(rnd.nextInt(specs.size())).name();
            assertEquals(model.pause(n), store.pause(n), why);
          } else if (op == 2) {
            ScheduleName n = specs.get(rnd.nextInt(specs.size())).name();
            assertEquals(model.resume(n, now), store.resume(n, now), why);
          } else if (op == 3) {
            for (Ticket t : law.tickets(TicketQuery.all().inState(TicketState.READY))) { // the previous tickets end
              if (rnd.nextBoolean()) {
                assertEquals(law.cancel(t.id(), now).getClass(), h2.cancel(t.id(), now).getClass(), why);
              }
            }
          } else {
            now += switch (rnd.nextInt(6)) {
              case 0 -> -rnd.nextLong(60_000);
              case 1 -> rnd.nextLong(3_600_000, 2 * 86_400_000L);
              default -> rnd.nextLong(90_000);
            };
            Schedules.FireRound m = model.fireDue(now);
            Schedules.FireRound h = store.fireDue(now);
            assertEquals(summary(m), summary(h), why);
            for (Schedules.Fired f : h.fired()) {
              FireDecision d = f.decision();
              seen.saw(d instanceof FireDecision.Skip k ? "skip " + k.reason() : d.getClass().getSimpleName());
            }
          }
          assertEquals(views(model.list()), views(store.list()), why);
        }
        assertEquals(law.tickets(TicketQuery.all()), h2.store().tickets(TicketQuery.all()), "seed " + seed);
      }
    });
    System.out.println("Q15 decisions: " + seen);
    seen.assertSaw("Submit", "Wait", "skip MISSED", "skip STILL_LIVE");
  }

  @Test
  void Q15_threadsRacingForTheSameFires_submitOneTicketPerFire() throws Exception {
    try (H2Coordination h2 = H2Coordination.open(dir.resolve("race.mv.db"), H2Options.defaults())) {
      Schedules store = h2.schedules();
      for (int i = 0; i < 4; i++) {
        store.add(spec("race-" + i, "0/5 * * * * ?", "UTC", CatchUp.ALL, Overlap.PARALLEL), START);
      }
      int threads = 4;
      Map<String, Integer> submittedBy = new HashMap<>();
      List<String> fires = new CopyOnWriteArrayList<>();
      for (int look = 1; look <= 15; look++) {
        long now = START + look * 7_000L;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        List<Throwable> failed = new CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++) {
          String who = "thread " + t;
          Thread th = new Thread(() -> {
            try {
              go.await();
              for (Schedules.Fired f : store.fireDue(now).fired()) {
                for (Submission s : f.submissions()) {
                  fires.add(f.name() + " " + ((Submission.Accepted) s).ticket().id() + " " + who);
                }
              }
            } catch (Throwable e) {
              failed.add(e);
            }
          });
          ts.add(th);
          th.start();
        }
        go.countDown();
        for (Thread th : ts) {
          th.join(60_000);
        }
        assertTrue(failed.isEmpty(), "a racing look failed: " + failed);
      }
      fires.forEach(f -> submittedBy.merge(f.substring(f.lastIndexOf(" thread ") + 1), 1, Integer::sum));
      List<Ticket> tickets = h2.store().tickets(TicketQuery.all());
      long expected = 4 * ((15 * 7_000L) / 5_000); // every 5 s from START to START + 105 s, for 4 schedules
      assertEquals(expected, tickets.size(), "Q15 one ticket per fire: " + tickets.size() + " tickets for " + expected + " fires");
      assertEquals(expected, fires.size(), "Q15 each fire acknowledged to exactly one of the racing looks: " + fires);
      assertEquals(4, tickets.stream().map(t -> t.labels().get(Schedule.LABEL)).distinct().count(),
          "each ticket is labelled with its schedule");
      assertEquals(tickets.size(), tickets.stream().map(t -> t.labels().get(Schedule.LABEL) + " "
          + t.labels().get(Schedule.FIRE_LABEL)).distinct().count(), "Q15 no fire has two tickets: " + tickets.size());
      assertTrue(submittedBy.size() >= 2, "the race had one winner only, so it proved little: " + submittedBy);
    }
  }

  // ---- kill -9 ----

  /** The schedules the child looks at: per second, every catch-up and overlap policy. */
  static void addSchedules(Schedules store, long nowMs) {
    int i = 0;
    for (CatchUp c : CatchUp.values()) {
      for (Overlap o : Overlap.values()) {
        store.add(spec("k" + i++ + "-" + c.word() + "-" + o.word(), "* * * * * ?", "UTC", c, o), nowMs);
      }
    }
  }

  /** The child's loop ({@link ChildDatabase} {@code fire}): never returns. */
  static void fireUntilKilled(Path file, int round, PrintStream out) {
    H2Coordination h2 = H2Coordination.open(file, H2Options.defaults());
    Schedules store = h2.schedules();
    long now = store.list().stream().mapToLong(v -> v.schedule().lastFireMs()).max().orElse(START);
    if (round == 1) {
      addSchedules(store, now);
    }
    out.println("OPEN round " + round);
    out.flush();
    SplittableRandom rnd = new SplittableRandom(round);
    while (true) {
      now += rnd.nextInt(8) == 0 ? -rnd.nextLong(3_000) : rnd.nextLong(2_500); // seconds on, sometimes set back
      for (Schedules.Fired f : store.fireDue(now).fired()) {
        for (int k = 0; k < f.submissions().size(); k++) {
          Submission s = f.submissions().get(k);
          if (s instanceof Submission.Accepted a) {
            long fire = ((FireDecision.Submit) f.decision()).firesMs().get(k);
            out.println("FIRE " + f.name() + " " + fire + " " + a.ticket().id());
          }
        }
      }
      out.flush();
      for (Ticket t : h2.store().tickets(TicketQuery.all().inState(TicketState.READY).limit(50))) {
        if (rnd.nextInt(3) == 0) {
          h2.cancel(t.id(), now); // the previous fire's ticket ends, so skip and queue have work
        }
      }
    }
  }

  @Test
  void Q15_oneTicketPerFire_andEveryAcknowledgedFireKept_acrossKill9() throws Exception {
    Path file = dir.resolve("fire.mv.db");
    SplittableRandom rnd = new SplittableRandom(Long.getLong("vigil.h2.crash.seed", System.nanoTime()));
    List<String> acknowledged = new ArrayList<>();
    for (int round = 1; round <= 6; round++) {
      try (Children child = Children.start(dir, "fire", file.toString(), Integer.toString(round))) {
        assertTrue(child.awaitLine("FIRE", 60_000), "round " + round + ": the child never fired (see " + dir + ")");
        Thread.sleep(rnd.nextLong(50, 400));
        child.kill9().stream().filter(l -> l.startsWith("FIRE ")).forEach(acknowledged::add);
      }
    }
    try (H2Coordination h2 = H2Coordination.open(file, H2Options.defaults())) {
      List<Ticket> tickets = h2.store().tickets(TicketQuery.all());
      Map<String, Ticket> byKey = new HashMap<>();
      for (String line : acknowledged) {
        String[] w = line.split(" ");
        Ticket t = h2.store().ticket(dev.vigil.coordination.TicketId.parse(w[3])).orElse(null);
        assertTrue(t != null, "Q15 an acknowledged fire's ticket was lost across kill -9: " + line);
        assertEquals(w[1], t.labels().get(Schedule.LABEL), line);
        assertTrue(byKey.put(w[1] + " " + w[2], t) == null, "Q15 a fire acknowledged twice: " + line);
      }
      for (ScheduleView v : h2.schedules().list()) {
        Schedule s = v.schedule();
        List<Ticket> mine = tickets.stream().filter(t -> s.name().name().equals(t.labels().get(Schedule.LABEL))).toList();
        if (s.spec().catchUp() == CatchUp.ALL && s.spec().overlap() == Overlap.PARALLEL) {
          long fires = (s.lastFireMs() - s.createdAtMs()) / 1_000;
          assertEquals(fires, mine.size(), "Q15 " + s.name() + ": every second from its creation to its last decided "
              + "fire has exactly one ticket, across " + acknowledged.size() + " acknowledged fires and 6 kills");
        }
        if (s.lastTicket() != null) {
          assertTrue(mine.stream().anyMatch(t -> t.id().equals(s.lastTicket())), s.name() + ": its last ticket is its own");
        }
        assertTrue(mine.size() > 0, s.name() + " never fired");
      }
    }
  }
}
