package dev.vigil.coordination.postgres;

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

/**
 * Q15 on the PostgreSQL store: the same decisions as the reference model under random looks, pauses,
 * resumes and ticket ends, and one ticket per fire when threads race for the same fires (each thread
 * on its own connection of the pool, as daemons of several hosts would be).
 */
class PostgresSchedulesTest {
  /** 2026-03-28T12:00Z, a day before Berlin's clocks go forward. */
  private static final long START = 1_774_699_200_000L;

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
  void Q15_postgresDecidesEveryLookAsTheModelDoes() {
    Coverage seen = new Coverage("Q15");
    AtomicInteger example = new AtomicInteger();
    qt().withExamples(25).withShrinkCycles(0).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom rnd = new SplittableRandom(seed);
      LeaseLaw law = new LeaseLaw();
      ScheduleLaw model = new ScheduleLaw(law);
      int ex = example.incrementAndGet();
      PostgresOptions options = PostgresServer.get().freshOptions();
      try (PostgresCoordination pg = PostgresCoordination.open(options)) {
        Schedules store = pg.schedules();
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
                assertEquals(law.cancel(t.id(), now).getClass(), pg.cancel(t.id(), now).getClass(), why);
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
        assertEquals(law.tickets(TicketQuery.all()), pg.store().tickets(TicketQuery.all()), "seed " + seed);
      }
      PostgresServer.get().release(options.schema());
    });
    System.out.println("Q15 decisions: " + seen);
    seen.assertSaw("Submit", "Wait", "skip MISSED", "skip STILL_LIVE");
  }

  @Test
  void Q15_threadsRacingForTheSameFires_submitOneTicketPerFire() throws Exception {
    try (PostgresCoordination pg = PostgresCoordination.open(PostgresServer.get().freshOptions().withPoolSize(4))) {
      Schedules store = pg.schedules();
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
      List<Ticket> tickets = pg.store().tickets(TicketQuery.all());
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
}
