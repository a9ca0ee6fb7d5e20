package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.Verdict;
import dev.vigil.supervisor.engine.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedding façade on a real daemon in this JVM: an H2 file home under a temporary directory and
 * real worker processes. Each public method of {@link Vigil} is used here at least once.
 */
class VigilFacadeTest {
  private static final Duration LONG = Duration.ofSeconds(90);

  @TempDir
  Path tmp;

  @Test
  void building_touchesNoFile_andStartsNoThread() throws Exception {
    Path home = tmp.resolve("home");
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    Vigil.Builder b = Vigil.builder().home(home).config(tmp.resolve("missing.json"))
        .workerType("probe", "com.example.NoSuchType", List.of());
    Set<Thread> after = new HashSet<>(Thread.getAllStackTraces().keySet());
    after.removeAll(before);
    assertTrue(after.stream().noneMatch(t -> t.getName().startsWith("vigil")), "no Vigil thread: " + after);
    assertFalse(Files.exists(home), "building creates no home");
    try (var files = Files.list(tmp)) {
      assertEquals(0, files.count(), "building writes nothing");
    }
    assertThrows(RuntimeException.class, b::start, "start reads the configuration, which is missing");
    assertFalse(Files.exists(home.resolve("vigil.mv.db")), "a refused start opens no store");
  }

  @Test
  void submit_recordsDirectoryEnvironmentAndOptions_andAwaitReturnsTheSettledTicket() throws Exception {
    Path work = Files.createDirectory(tmp.resolve("work"));
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).start()) {
      Task task = Task.command("sh", "-c", "pwd > out.txt; echo \"$GREETING\" >> out.txt")
          .workDir(work).env("GREETING", "hello").label("team", "a").priority(3).attempts(2)
          .timeout(Duration.ofMinutes(5)).build();
      assertFalse(task.toString().contains("hello"), "a task never shows a variable's value: " + task);
      assertThrows(UnsupportedOperationException.class, () -> task.env().put("X", "y"), "a task is immutable");
      assertEquals(task, task.toBuilder().build());
      Submitted s = v.submit(task);
      assertFalse(s.duplicate());
      Ticket done = v.await(s.id(), LONG);
      assertEquals(TicketState.SUCCEEDED, done.state());
      assertEquals(List.of(work.toRealPath().toString(), "hello"), Files.readAllLines(work.resolve("out.txt")));
      assertEquals(3, done.priority());
      assertEquals(2, done.maxAttempts());
      assertEquals(Map.of("team", "a"), done.labels());
      assertEquals(300_000, done.spec().timeoutMs());
      assertEquals(System.getenv("PATH"), done.spec().env().variables().get("PATH"), "the JVM's environment is recorded");
      List<Run> runs = v.runs(s.id());
      assertEquals(1, runs.size());
      assertEquals(Verdict.SUCCEEDED, runs.get(0).verdict());
      assertEquals(List.of(), v.runs(new TicketId(999_999)), "no such ticket: no runs");

      Submitted later = v.submit(Task.command("true").cleanEnv().env("ONLY", "this").in(Duration.ofHours(1)).build());
      Ticket t = v.ticket(later.id()).orElseThrow();
      Set<String> names = t.spec().env().variables().keySet();
      assertTrue(names.contains("ONLY") && Set.of("PATH", "HOME", "LANG", "USER", "ONLY").containsAll(names),
          "a clean environment keeps PATH, HOME, LANG and USER only: " + names);
      assertEquals(System.getProperty("user.dir"), t.spec().workDir(), "by default the JVM's working directory");
      long inAnHour = System.currentTimeMillis() + 3_600_000;
      assertTrue(Math.abs(t.notBeforeMs() - inAnHour) < 60_000, "in(1h) is due an hour after submission");
      Instant at = Instant.now().plus(Duration.ofDays(1));
      Ticket atTicket = v.ticket(v.submit(Task.command("true").at(at).build()).id()).orElseThrow();
      assertEquals(at.toEpochMilli(), atTicket.notBeforeMs());
      assertTrue(v.ticket(new TicketId(999_999)).isEmpty());
    }
  }

  /** The input of the probe worker type: the file it writes its classpath to. */
  public record ProbeInput(String out) {}

  @Test
  void aWorkerTask_carriesItsTypedPayload_toItsWorker() throws Exception {
    Path own = ProbeTypes.compileInto(tmp.resolve("probe-classes"));
    Path seen = tmp.resolve("probe.out");
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).workerType("probe", ProbeTypes.PROBE,
        List.of(own.toString())).start()) {
      Submitted s = v.submit(Task.worker("probe", new ProbeInput(seen.toString())).build());
      Ticket done = v.await(s.id(), LONG);
      assertEquals(TicketState.SUCCEEDED, done.state(), done.toString());
      assertEquals("{\"out\":\"" + seen + "\"}", done.payload());
      assertTrue(Files.readString(seen).contains(own.toString()), "the worker read the payload's file name");
    }
    IllegalArgumentException notAnObject = assertThrows(IllegalArgumentException.class,
        () -> Task.worker("probe", List.of(1, 2)));
    assertTrue(notAnObject.getMessage().contains("JSON object"), notAnObject.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Task.command("true").at(Instant.now()).in(Duration.ZERO)
        .timeout(Duration.ZERO).build(), "a time limit is longer than 0");
  }

  @Test
  void aKey_namesTheEarlierTicket_andSubmitAllQueuesInBatches() {
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).start()) {
      Task keyed = Task.command("true").key("report-2026-12").in(Duration.ofHours(1)).build();
      Submitted first = v.submit(keyed);
      Submitted again = v.submit(keyed);
      assertEquals(new Submitted(first.id(), true), again, "a duplicate names the earlier ticket and says so");

      List<Task> tasks = new ArrayList<>();
      for (int i = 0; i < Vigil.SUBMIT_BATCH + 2; i++) {
        tasks.add(Task.command("echo", "n" + i).label("batch", "b").in(Duration.ofHours(1)).build());
      }
      tasks.add(keyed);
      List<Submitted> all = v.submitAll(tasks);
      assertEquals(tasks.size(), all.size());
      assertEquals(new Submitted(first.id(), true), all.get(all.size() - 1));
      assertEquals(tasks.size() - 1, all.stream().filter(x -> !x.duplicate()).map(Submitted::id).distinct().count());

      int before = v.status().tickets().values().stream().mapToInt(Integer::intValue).sum();
      IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
          () -> v.submitAll(List.of(Task.command("true").build(), Task.command("true").lane("nope").build())));
      assertTrue(bad.getMessage().contains("nope"), bad.getMessage());
      assertThrows(IllegalArgumentException.class, () -> v.submit(Task.command("true").lane("nope").build()));
      assertThrows(IllegalArgumentException.class,
          () -> v.submit(Task.command("true").workDir(tmp.resolve("gone")).build()));
      assertEquals(before, v.status().tickets().values().stream().mapToInt(Integer::intValue).sum(),
          "a refused batch queues nothing");

      List<Ticket> seen = new ArrayList<>();
      int pages = 0;
      TicketQuery q = TicketQuery.all().withLabel("batch", "b").limit(400);
      while (true) {
        Page p = v.tasks(q);
        pages++;
        seen.addAll(p.tickets());
        if (p.next().isEmpty()) {
          break;
        }
        q = p.next().get();
      }
      assertEquals(Vigil.SUBMIT_BATCH + 2, seen.size());
      assertEquals(3, pages);
      assertEquals(seen.size(), seen.stream().map(Ticket::id).distinct().count(), "pages do not overlap");
    }
  }

  @Test
  void control_returnsDecisions_andCompletionsFollowThem() throws Exception {
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).start()) {
      TicketId later = v.submit(Task.command("true").in(Duration.ofHours(1)).build()).id();
      assertThrows(TimeoutException.class, () -> v.await(later, Duration.ofMillis(300)));
      ExecutionException none = assertThrows(ExecutionException.class,
          () -> v.completion(new TicketId(999_999)).get(10, TimeUnit.SECONDS));
      assertInstanceOf(IllegalArgumentException.class, none.getCause());

      CompletableFuture<Ticket> held = v.completion(later);
      assertFalse(held.isDone());
      Decision.Changed h = assertInstanceOf(Decision.Changed.class, v.hold(later, "waiting for the data"));
      assertEquals(TicketState.HELD, h.ticket().state());
      assertEquals(TicketState.HELD, held.get(30, TimeUnit.SECONDS).state(), "a hold completes the waiters");
      assertEquals(TicketState.HELD, v.completion(later).getNow(null).state(), "a held ticket completes at once");
      assertTrue(assertInstanceOf(Decision.Changed.class, v.hold(later, "again")).applied(), "already so");

      Decision.Changed rel = assertInstanceOf(Decision.Changed.class, v.release(later, 4));
      assertEquals(TicketState.READY, rel.ticket().state());
      assertEquals(4, rel.ticket().attemptsGranted());
      Decision.Refused refused = assertInstanceOf(Decision.Refused.class, v.release(later),
          "a READY ticket is not released");
      assertFalse(refused.applied());
      assertTrue(assertInstanceOf(Decision.Changed.class, v.park(later)).ticket().parked());
      assertFalse(assertInstanceOf(Decision.Changed.class, v.unpark(later)).ticket().parked());
      Decision.LaneChanged lane = assertInstanceOf(Decision.LaneChanged.class, v.parkLane("default"));
      assertTrue(lane.parked() && lane.changed());
      assertEquals(List.of("default"), v.status().parkedLanes().stream().map(Object::toString).toList());
      assertFalse(assertInstanceOf(Decision.LaneChanged.class, v.unparkLane("default")).parked());
      assertInstanceOf(Decision.Done.class, v.pause());
      assertEquals(Status.State.PAUSED, v.status().state());
      assertInstanceOf(Decision.Done.class, v.resume());
      assertEquals(Status.State.RUNNING, v.status().state());

      CompletableFuture<Ticket> cancelled = v.completion(later);
      Decision.Changed c = assertInstanceOf(Decision.Changed.class, v.cancel(later));
      assertEquals(TicketState.CANCELLED, c.ticket().state());
      assertEquals(TicketState.CANCELLED, cancelled.get(30, TimeUnit.SECONDS).state());
      Decision.Retried r = assertInstanceOf(Decision.Retried.class, v.retry(later));
      assertEquals(later, r.ticket().retryOf());
      assertInstanceOf(Decision.NotFound.class, v.cancel(new TicketId(999_999)));
      assertInstanceOf(Decision.Refused.class, v.kill(later, Vigil.AfterKill.CANCEL),
          "a ticket that is not running is not killed");
      assertInstanceOf(Decision.Refused.class, v.cancel(later), "a cancelled ticket is not cancelled again");
      assertEquals(TicketState.SUCCEEDED, v.await(r.ticket().id(), LONG).state(), "the retry runs at once");
    }
  }

  @Test
  void kill_andTimeOut_areSettledOnce_andReportedAsEvents() throws Exception {
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).start()) {
      BlockingQueue<VigilEvent> events = new LinkedBlockingQueue<>();
      List<String> threads = new CopyOnWriteArrayList<>();
      Subscription sub = v.events(e -> {
        threads.add(Thread.currentThread().getName());
        events.add(e);
      });
      TicketId sleeper = v.submit(Task.command("sleep", "120").build()).id();
      TicketId slow = v.submit(Task.command("sleep", "120").timeout(Duration.ofSeconds(1)).attempts(1).build()).id();
      awaitRunning(v, sleeper);
      Decision.Killing k = assertInstanceOf(Decision.Killing.class, v.kill(sleeper, Vigil.AfterKill.HOLD));
      assertEquals(sleeper, k.run().ticket());
      Ticket killed = v.await(sleeper, LONG);
      assertEquals(TicketState.HELD, killed.state());
      assertEquals(0, killed.attemptsUsed(), "a kill spends no attempt (Q13)");
      Ticket timedOut = v.await(slow, LONG);
      assertEquals(TicketState.HELD, timedOut.state(), "its only attempt spent by the time limit (Q1, Q12)");

      List<VigilEvent> got = take(events, 6);
      assertEquals(Set.of("vigil-events"), Set.copyOf(threads), "delivered on the event thread only");
      assertOrderedWithoutGaps(got);
      VigilEvent.Killed ke = (VigilEvent.Killed) got.stream().filter(VigilEvent.Killed.class::isInstance)
          .findFirst().orElseThrow();
      assertEquals(k.run().id(), ke.run());
      assertEquals(1, count(got, VigilEvent.Killed.class, null));
      assertEquals(1, count(got, VigilEvent.TimedOut.class, slow));
      assertEquals(1, count(got, VigilEvent.Settled.class, sleeper));
      assertEquals(1, count(got, VigilEvent.Settled.class, slow));
      assertEquals(2, count(got, VigilEvent.Held.class, null));
      VigilEvent.Settled ks = (VigilEvent.Settled) got.stream()
          .filter(e -> e instanceof VigilEvent.Settled s && s.ticket().equals(sleeper)).findFirst().orElseThrow();
      assertEquals(Verdict.KILLED, ks.verdict());
      assertEquals(got.get(got.size() - 1).id(), sub.lastId());
      sub.close();
      assertEquals(TicketState.SUCCEEDED, v.await(v.submit(Task.command("true").build()).id(), LONG).state());
      Thread.sleep(300);
      assertTrue(events.isEmpty(), "a closed subscription gets nothing more: " + events);
    }
  }

  @Test
  void events_arriveExactlyOnceAndInOrder_acrossACloseAndANewStart() throws Exception {
    Path home = tmp.resolve("home");
    List<VigilEvent> seen = new CopyOnWriteArrayList<>();
    long last;
    TicketId running;
    TicketId first;
    try (Vigil v = Vigil.builder().home(home).start()) {
      Subscription sub = v.events(0, seen::add);
      first = v.submit(Task.command("true").build()).id();
      assertEquals(TicketState.SUCCEEDED, v.await(first, LONG).state());
      running = v.submit(Task.command("sleep", "8").build()).id();
      awaitRunning(v, running);
      last = sub.lastId();
    } // the sleeper keeps running (D4) and settles under the next daemon
    assertEquals(1, seen.size(), "one settlement so far: " + seen);
    try (Vigil v = Vigil.builder().home(home).start()) {
      v.events(last, seen::add);
      List<VigilEvent> replay = new CopyOnWriteArrayList<>();
      v.events(0, replay::add);
      assertEquals(TicketState.SUCCEEDED, v.await(running, LONG).state(), "adopted and settled by the new daemon");
      TicketId failing = v.submit(Task.command("sh", "-c", "exit 3").attempts(1).build()).id();
      assertEquals(TicketState.HELD, v.await(failing, LONG).state());
      waitFor(() -> seen.size() >= 4);
      waitFor(() -> replay.size() >= 4);
      assertEquals(seen, replay, "a listener from 0 sees the same stream");
      assertEquals(1, count(seen, VigilEvent.Settled.class, first));
      assertEquals(1, count(seen, VigilEvent.Settled.class, running));
      assertEquals(1, count(seen, VigilEvent.Settled.class, failing));
      assertOrderedWithoutGaps(seen);
      assertEquals(1, seen.get(0).id());
      assertEquals(4, seen.size(), "settled, settled, settled, held: " + seen);
    }
  }

  @Test
  void aCancelByTheCli_completesTheWaitersOfAnEmbeddedVigil() throws Exception {
    Path home = tmp.resolve("home");
    try (Vigil v = Vigil.builder().home(home).start()) {
      TicketId later = v.submit(Task.command("true").in(Duration.ofHours(1)).build()).id();
      CompletableFuture<Ticket> done = v.completion(later);
      List<String> threads = new CopyOnWriteArrayList<>();
      CompletableFuture<Ticket> seen = done.thenApply(t -> {
        threads.add(Thread.currentThread().getName());
        return t;
      });
      CliEndToEndTest.Result r = CliEndToEndTest.vigil(home, "cancel", later.toString());
      assertEquals(0, r.code(), r.err());
      assertEquals(TicketState.CANCELLED, seen.get(60, TimeUnit.SECONDS).state(),
          "a cancel writes no event; its reply completes the waiters");
      assertEquals(List.of("vigil-events"), threads, "completed on the event thread");
    }
  }

  @Test
  void listenersAddedWhileEventsFlow_eachGetEveryEventAfterTheirId_onceAndInOrder() throws Exception {
    int n = Dispatcher.PAGE + 100; // more than one page per pass
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).start()) {
      List<Task> tasks = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        tasks.add(Task.command("true").in(Duration.ofHours(1)).build());
      }
      List<Submitted> queued = v.submitAll(tasks);
      List<List<VigilEvent>> heard = new ArrayList<>();
      List<Long> after = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (i % 100 == 0) { // one from the start, one from the middle of what is written so far
          for (long from : List.of(0L, i / 2L)) {
            List<VigilEvent> l = new CopyOnWriteArrayList<>();
            heard.add(l);
            after.add(from);
            v.events(from, l::add);
          }
        }
        assertInstanceOf(Decision.Changed.class, v.hold(queued.get(i).id(), "hold " + i)); // one HELD event each
      }
      for (int k = 0; k < heard.size(); k++) {
        List<VigilEvent> l = heard.get(k);
        long from = after.get(k);
        waitFor(() -> l.size() >= n - from);
        assertEquals(n - from, l.size(), "listener " + k + " from " + from);
        assertEquals(from + 1, l.get(0).id());
        assertOrderedWithoutGaps(l);
      }
    }
  }

  @Test
  void aServiceGivenUp_isAnEvent() throws Exception {
    Path config = tmp.resolve("vigil.json");
    Files.writeString(config, """
        {"services": [{"name": "crasher", "type": "command", "payload": {"argv": ["sh", "-c", "exit 1"]}}],
         "restartGiveUpCount": 0}
        """);
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).config(config).start()) {
      BlockingQueue<VigilEvent> events = new LinkedBlockingQueue<>();
      v.events(0, events::add);
      VigilEvent.ServiceGivenUp g = assertInstanceOf(VigilEvent.ServiceGivenUp.class, take(events, 1).get(0));
      assertEquals("crasher", g.service());
      assertEquals(1, g.id());
    }
  }

  @Test
  void aStoppedDaemon_isSaidSo_notWaitedFor() {
    Vigil v = Vigil.builder().home(tmp.resolve("home")).start();
    try {
      CompletableFuture<Ticket> pending = v.completion(v.submit(Task.command("true").in(Duration.ofHours(1)).build()).id());
      assertTrue(v.shutdownIfIdle());
      long t0 = System.nanoTime();
      IllegalStateException e = assertThrows(IllegalStateException.class, v::status);
      assertTrue(e.getMessage().contains("stopped"), e.getMessage());
      assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10), "answered at once");
      ExecutionException failed = assertThrows(ExecutionException.class, () -> pending.get(10, TimeUnit.SECONDS));
      assertInstanceOf(IllegalStateException.class, failed.getCause());
    } finally {
      v.close();
    }
  }

  private static void awaitRunning(Vigil v, TicketId id) throws InterruptedException {
    waitFor(() -> v.runs(id).stream().anyMatch(r -> r.state() == RunState.RUNNING));
  }

  private static void waitFor(java.util.function.BooleanSupplier cond) throws InterruptedException {
    long deadline = System.nanoTime() + LONG.toNanos();
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + LONG);
      }
      Thread.sleep(50);
    }
  }

  private static List<VigilEvent> take(BlockingQueue<VigilEvent> q, int n) throws InterruptedException {
    List<VigilEvent> out = new ArrayList<>();
    while (out.size() < n) {
      VigilEvent e = q.poll(LONG.toMillis(), TimeUnit.MILLISECONDS);
      if (e == null) {
        throw new AssertionError("only " + out.size() + " of " + n + " events: " + out);
      }
      out.add(e);
    }
    return out;
  }

  private static void assertOrderedWithoutGaps(List<VigilEvent> events) {
    for (int i = 1; i < events.size(); i++) {
      assertEquals(events.get(i - 1).id() + 1, events.get(i).id(), "ids in order, none twice, none missed: "
          + events.stream().map(VigilEvent::id).collect(Collectors.toList()));
    }
  }

  private static long count(List<VigilEvent> events, Class<? extends VigilEvent> kind, TicketId ticket) {
    return events.stream().filter(kind::isInstance).filter(e -> ticket == null || ticketOf(e).equals(ticket)).count();
  }

  private static TicketId ticketOf(VigilEvent e) {
    if (e instanceof VigilEvent.Settled s) {
      return s.ticket();
    } else if (e instanceof VigilEvent.Held h) {
      return h.ticket();
    } else if (e instanceof VigilEvent.Killed k) {
      return k.ticket();
    } else if (e instanceof VigilEvent.TimedOut t) {
      return t.ticket();
    }
    return null;
  }
}
