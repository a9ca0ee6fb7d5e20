package dev.vigil.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
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
import java.util.concurrent.ConcurrentHashMap;
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

    IllegalStateException noClass = assertThrows(IllegalStateException.class,
        () -> Vigil.builder().home(home).workerType("probe", "com.example.NoSuchType", List.of()).start());
    assertTrue(noClass.getMessage().contains("com.example.NoSuchType"), noClass.getMessage());
    assertFalse(Files.exists(home), "a start refused for a worker type it cannot run touches no home");
    assertThrows(IllegalArgumentException.class, () -> Vigil.builder().workerType("no spaces", "a.B", List.of()));
    NullPointerException noHome = assertThrows(NullPointerException.class, () -> Vigil.builder().start());
    assertEquals("home", noHome.getMessage());
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

  @Test
  void Q14_aTaskAfterOthers_startsOnlyOnceTheySucceeded_isHeldNamingOneThatFailed_andAnUnknownOneIsRefused()
      throws Exception {
    Path work = Files.createDirectory(tmp.resolve("work"));
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).start()) {
      TicketId slow = v.submit(Task.command("sh", "-c", "sleep 1; echo first >> log").workDir(work).build()).id();
      Task then = Task.command("sh", "-c", "echo second >> log").workDir(work).after(slow).build();
      assertEquals(List.of(slow), then.after());
      assertEquals(then, then.toBuilder().build());
      TicketId second = v.submit(then).id();
      assertEquals(List.of(slow), v.ticket(second).orElseThrow().after());
      assertEquals(TicketState.SUCCEEDED, v.await(second, LONG).state());
      assertEquals(List.of("first", "second"), Files.readAllLines(work.resolve("log")), "the second ran after the first");

      TicketId fails = v.submit(Task.command("false").attempts(1).build()).id();
      TicketId held = v.submit(Task.command("true").after(fails, slow).build()).id();
      Ticket t = v.await(held, LONG);
      assertEquals(TicketState.HELD, t.state());
      assertEquals("waits for " + fails + ", which is held", t.holdReason());
      assertEquals(0, v.runs(held).size(), "it never ran");

      int before = v.tasks(TicketQuery.all()).tickets().size();
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> v.submit(Task.command("true").after(new TicketId(999_999)).build()));
      assertEquals("no ticket t-999999 to wait for", e.getMessage());
      assertEquals(before, v.tasks(TicketQuery.all()).tickets().size(), "nothing was queued");
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
  void control_returnsDecisions_refusalsAsValues_andCompletionsFollowTheEventsThatReportThem() throws Exception {
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).start()) {
      List<VigilEvent> events = new CopyOnWriteArrayList<>();
      v.events(0, events::add);
      TicketId none = new TicketId(999_999);
      TicketId later = v.submit(Task.command("true").in(Duration.ofHours(1)).build()).id();
      assertThrows(TimeoutException.class, () -> v.await(later, Duration.ofMillis(300)));
      ExecutionException missing = assertThrows(ExecutionException.class,
          () -> v.completion(none).get(10, TimeUnit.SECONDS));
      assertInstanceOf(IllegalArgumentException.class, missing.getCause());
      assertThrows(IllegalArgumentException.class, () -> v.await(none, LONG), "no such ticket");

      CompletableFuture<Ticket> held = v.completion(later);
      assertFalse(held.isDone());
      Decision.Changed h = assertInstanceOf(Decision.Changed.class, v.hold(later, "waiting for the data"));
      assertEquals(TicketState.HELD, h.ticket().state());
      assertEquals(TicketState.HELD, held.get(30, TimeUnit.SECONDS).state(), "a hold completes the waiters");
      assertEquals(TicketState.HELD, v.completion(later).getNow(null).state(), "a held ticket completes at once");
      assertTrue(assertInstanceOf(Decision.Changed.class, v.hold(later, "again")).applied(), "already so");
      Decision.Refused tooMany = assertInstanceOf(Decision.Refused.class, v.release(later, NewTicket.MAX_ATTEMPTS));
      assertTrue(tooMany.reason().contains("attempts"), tooMany.reason());
      assertThrows(IllegalArgumentException.class, () -> v.release(later, 0), "a grant is at least one attempt");
      assertEquals(TicketState.HELD, v.ticket(later).orElseThrow().state(), "neither changed anything");

      Decision.Changed rel = assertInstanceOf(Decision.Changed.class, v.release(later, 4));
      assertEquals(TicketState.READY, rel.ticket().state());
      assertEquals(4, rel.ticket().attemptsGranted());
      Decision.Refused refused = assertInstanceOf(Decision.Refused.class, v.release(later),
          "a READY ticket is not released");
      assertFalse(refused.applied());
      assertTrue(assertInstanceOf(Decision.Changed.class, v.park(later)).ticket().parked());
      assertFalse(assertInstanceOf(Decision.Changed.class, v.unpark(later)).ticket().parked());
      assertInstanceOf(Decision.Refused.class, v.retry(later), "a waiting ticket is not retried");

      Decision.LaneChanged lane = assertInstanceOf(Decision.LaneChanged.class, v.parkLane("default"));
      assertTrue(lane.parked() && lane.changed());
      assertFalse(assertInstanceOf(Decision.LaneChanged.class, v.parkLane("default")).changed(), "already parked");
      assertEquals(List.of("default"), v.status().parkedLanes().stream().map(Object::toString).toList());
      Decision.LaneChanged unparked = assertInstanceOf(Decision.LaneChanged.class, v.unparkLane("default"));
      assertFalse(unparked.parked());
      assertTrue(unparked.changed());
      assertTrue(v.status().parkedLanes().isEmpty());
      Decision.Invalid nope = assertInstanceOf(Decision.Invalid.class, v.parkLane("nope"));
      assertTrue(nope.reason().contains("nope"), nope.reason());
      assertFalse(nope.applied());
      assertFalse(assertInstanceOf(Decision.LaneChanged.class, v.unparkLane("nope")).changed(), "it was not parked");

      assertTrue(assertInstanceOf(Decision.Done.class, v.pause()).message().startsWith("paused"));
      assertEquals(Status.State.PAUSED, v.status().state());
      assertTrue(assertInstanceOf(Decision.Done.class, v.pause()).message().startsWith("already paused"));
      assertEquals("resumed", assertInstanceOf(Decision.Done.class, v.resume()).message());
      assertEquals(Status.State.RUNNING, v.status().state());
      assertEquals("not paused", assertInstanceOf(Decision.Done.class, v.resume()).message());

      CompletableFuture<Ticket> cancelled = v.completion(later);
      List<String> completedOn = new CopyOnWriteArrayList<>();
      CompletableFuture<Ticket> seen = cancelled.thenApply(t -> {
        completedOn.add(Thread.currentThread().getName());
        return t;
      });
      Decision.Changed c = assertInstanceOf(Decision.Changed.class, v.cancel(later));
      assertEquals(TicketState.CANCELLED, c.ticket().state());
      assertEquals(TicketState.CANCELLED, seen.get(30, TimeUnit.SECONDS).state());
      assertEquals(List.of(Dispatcher.THREAD), completedOn, "completed by the cancel's event, on the completions thread");
      for (Decision d : List.of(v.cancel(later), v.hold(later, "x"), v.release(later), v.park(later), v.unpark(later),
          v.kill(later, Vigil.AfterKill.CANCEL))) {
        assertInstanceOf(Decision.Refused.class, d, "a cancelled ticket stays so: " + d);
      }
      Decision.Retried r = assertInstanceOf(Decision.Retried.class, v.retry(later));
      assertEquals(later, r.ticket().retryOf());
      assertEquals(r.ticket().id(), r.original().retriedAs());
      assertEquals(TicketState.CANCELLED, r.original().state(), "a finished original stays as it ended");
      Decision.Refused twice = assertInstanceOf(Decision.Refused.class, v.retry(later), "a ticket is retried once");
      assertTrue(twice.reason().contains(r.ticket().id().toString()), twice.reason());
      for (Decision d : List.of(v.cancel(none), v.hold(none, "x"), v.release(none), v.release(none, 2), v.retry(none),
          v.park(none), v.unpark(none), v.kill(none, Vigil.AfterKill.HOLD))) {
        assertFalse(assertInstanceOf(Decision.NotFound.class, d, "no such ticket: " + d).applied());
      }
      assertEquals(TicketState.SUCCEEDED, v.await(r.ticket().id(), LONG).state(), "the retry runs at once");

      TicketId other = v.submit(Task.command("true").in(Duration.ofHours(1)).build()).id();
      assertInstanceOf(Decision.Changed.class, v.hold(other, "by hand"));
      Decision.Retried fromHeld = assertInstanceOf(Decision.Retried.class, v.retry(other));
      assertEquals(TicketState.CANCELLED, fromHeld.original().state(), "a held original never runs beside its retry");
      assertEquals(TicketState.CANCELLED, v.await(other, LONG).state());
      assertEquals(TicketState.SUCCEEDED, v.await(fromHeld.ticket().id(), LONG).state());

      TicketId raw = v.submit(new NewTicket(Lane.DEFAULT, "command", "{\"argv\":[\"true\"]}", 2, 5,
          System.currentTimeMillis() + 3_600_000, null));
      Ticket queued = v.ticket(raw).orElseThrow();
      assertEquals(List.of(TicketState.READY, 2, 5), List.of(queued.state(), queued.maxAttempts(), queued.priority()));
      assertThrows(IllegalArgumentException.class, () -> v.submit(NewTicket.of(new Lane("nope"), "command", "{}")));

      waitFor(() -> withoutQuestions(events).size() >= 6);
      List<VigilEvent> moves = withoutQuestions(events); // a held ticket may also be asked about (Q16) before it moves on
      assertEquals(List.of("Held " + later, "Cancelled " + later, "Settled " + r.ticket().id(), "Held " + other,
              "Cancelled " + other, "Settled " + fromHeld.ticket().id()),
          moves.stream().map(e -> e.getClass().getSimpleName() + " " + ticketOf(e)).toList(),
          "holds, cancellations and settlements are reported, each once; the other verbs report nothing");
      assertOrderedWithoutGaps(events);
      VigilEvent.Cancelled byCancel = (VigilEvent.Cancelled) moves.get(1);
      assertEquals("cancelled by an operator", byCancel.note());
      assertEquals(null, byCancel.run());
      assertEquals("retried as " + fromHeld.ticket().id(), ((VigilEvent.Cancelled) moves.get(4)).note());
    }
  }

  @Test
  void kill_andTimeOut_areSettledOnce_andReportedAsEvents_andARunningTicketRefusesTheOtherVerbs() throws Exception {
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).start()) {
      BlockingQueue<VigilEvent> events = new LinkedBlockingQueue<>();
      Set<String> threads = ConcurrentHashMap.newKeySet();
      Subscription sub = v.events(e -> {
        threads.add(Thread.currentThread().getName());
        events.add(e);
      });
      TicketId sleeper = v.submit(Task.command("sleep", "120").build()).id();
      TicketId slow = v.submit(Task.command("sleep", "120").timeout(Duration.ofSeconds(1)).attempts(1).build()).id();
      awaitRunning(v, sleeper);
      for (Decision d : List.of(v.cancel(sleeper), v.hold(sleeper, "x"), v.release(sleeper), v.retry(sleeper))) {
        assertFalse(assertInstanceOf(Decision.Refused.class, d, "a running ticket: " + d).applied());
      }
      assertFalse(v.shutdownIfIdle(), "a worker has work: nothing stops (S5)");
      assertEquals(Status.State.RUNNING, v.status().state());
      assertEquals(RunState.RUNNING, v.runs(sleeper).get(0).state(), "and its run goes on");
      Decision.Killing k = assertInstanceOf(Decision.Killing.class, v.kill(sleeper, Vigil.AfterKill.HOLD));
      assertEquals(sleeper, k.run().ticket());
      Ticket killed = v.await(sleeper, LONG);
      assertEquals(TicketState.HELD, killed.state());
      assertEquals(0, killed.attemptsUsed(), "a kill spends no attempt (Q13)");
      Ticket timedOut = v.await(slow, LONG);
      assertEquals(TicketState.HELD, timedOut.state(), "its only attempt spent by the time limit (Q1, Q12)");

      List<VigilEvent> got = take(events, 8); // and the two holds asked about (Q16)
      assertOrderedWithoutGaps(got);
      assertEquals(2, count(got, VigilEvent.Asked.class, null));
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

      // the two other places a kill sends its ticket: queued again at once, then cancelled
      assertInstanceOf(Decision.Changed.class, v.release(sleeper));
      waitFor(() -> runningRuns(v, sleeper) == 1 && v.runs(sleeper).size() == 2);
      assertInstanceOf(Decision.Killing.class, v.kill(sleeper, Vigil.AfterKill.RETRY));
      waitFor(() -> runningRuns(v, sleeper) == 1 && v.runs(sleeper).size() == 3);
      assertInstanceOf(Decision.Killing.class, v.kill(sleeper, Vigil.AfterKill.CANCEL));
      Ticket cancelled = v.await(sleeper, LONG);
      assertEquals(TicketState.CANCELLED, cancelled.state());
      assertEquals(0, cancelled.attemptsUsed(), "three kills, no attempt spent");
      assertEquals(List.of(Verdict.KILLED, Verdict.KILLED, Verdict.KILLED),
          v.runs(sleeper).stream().map(Run::verdict).toList());
      List<VigilEvent> more = take(events, 4);
      assertEquals(List.of("Killed", "Settled READY", "Killed", "Settled CANCELLED"), more.stream()
          .map(e -> e instanceof VigilEvent.Settled st ? "Settled " + st.ticketState() : e.getClass().getSimpleName())
          .toList());
      List<VigilEvent> all = new ArrayList<>(got);
      all.addAll(more);
      assertOrderedWithoutGaps(all);

      assertEquals(1, threads.size(), "one thread for the subscription: " + threads);
      assertTrue(threads.iterator().next().matches(Dispatcher.THREAD + "-\\d+"),
          "delivered on the subscription's own thread, never the daemon's scheduling thread: " + threads);
      assertEquals(all.get(all.size() - 1).id(), sub.lastId());
      sub.close();
      assertEquals(TicketState.SUCCEEDED, v.await(v.submit(Task.command("true").build()).id(), LONG).state());
      Thread.sleep(300);
      assertTrue(events.isEmpty(), "a closed subscription gets nothing more: " + events);
    }
  }

  /**
   * A close in the middle of the stream and a new start on the same home: tasks settling as the first
   * daemon closes, a run that ends while no daemon is up (settled by the next one's recovery from the
   * outcome its worker left) and one that outlives the close (adopted). A listener resumed from the
   * last id it saw gets every event once, in id order, and each settled run is reported exactly once.
   */
  @Test
  void events_arriveExactlyOnceAndInOrder_acrossACloseAndANewStart_withRunsInFlight() throws Exception {
    Path home = tmp.resolve("home");
    List<VigilEvent> seen = new CopyOnWriteArrayList<>();
    Set<String> threads = ConcurrentHashMap.newKeySet();
    long last;
    TicketId first;
    TicketId ender;
    TicketId outliver;
    List<TicketId> batch;
    long enderPid;
    Path work = Files.createDirectory(tmp.resolve("work"));
    Path config = Files.writeString(tmp.resolve("vigil.json"), "{\"lanes\": {\"default\": {\"concurrency\": 4}}}");
    try (Vigil v = Vigil.builder().home(home).config(config).start()) {
      Subscription sub = v.events(0, e -> {
        threads.add(Thread.currentThread().getName());
        seen.add(e);
      });
      first = v.submit(Task.command("true").build()).id();
      assertEquals(TicketState.SUCCEEDED, v.await(first, LONG).state());
      // each ends once the test makes its file: the first while no daemon is up, the second under the next
      ender = v.submit(Task.command("sh", "-c", "while [ ! -e end1 ]; do sleep 0.1; done").workDir(work).build()).id();
      outliver = v.submit(Task.command("sh", "-c", "while [ ! -e end2 ]; do sleep 0.1; done").workDir(work).build())
          .id();
      awaitRunning(v, ender);
      awaitRunning(v, outliver);
      enderPid = v.runs(ender).get(0).start().identity().pid();
      List<Task> quick = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        quick.add(Task.command("true").build());
      }
      batch = v.submitAll(quick).stream().map(Submitted::id).toList();
      waitFor(() -> seen.size() >= 2); // close while the stream flows: at least one batch task settled
      v.close();
      last = sub.lastId();
      assertEquals(seen.get(seen.size() - 1).id(), last, "the listener saw up to its last id");
    }
    Files.createFile(work.resolve("end1"));
    waitFor(() -> !ProcessHandle.of(enderPid).map(ProcessHandle::isAlive).orElse(false));
    // the first ended while no daemon was up; its worker wrote its outcome and exited
    List<VigilEvent> replay = new CopyOnWriteArrayList<>();
    try (Vigil v = Vigil.builder().home(home).config(config).start()) {
      v.events(last, e -> {
        threads.add(Thread.currentThread().getName());
        seen.add(e);
      });
      v.events(0, replay::add);
      assertEquals(TicketState.SUCCEEDED, v.await(ender, LONG).state(), "settled by the new daemon from its outcome");
      assertEquals(ExitOwner.Role.RECOVERY, v.runs(ender).get(0).exitOwner().role(), "its end was found by recovery");
      Files.createFile(work.resolve("end2"));
      assertEquals(TicketState.SUCCEEDED, v.await(outliver, LONG).state(), "adopted and settled by the new daemon");
      assertEquals(v.runs(ender).get(0).exitOwner().owner(), v.runs(outliver).get(0).exitOwner().owner(),
          "both ends were taken by the new daemon");
      for (TicketId t : batch) {
        assertEquals(TicketState.SUCCEEDED, v.await(t, LONG).state());
      }
      TicketId failing = v.submit(Task.command("sh", "-c", "exit 3").attempts(1).build()).id();
      assertEquals(TicketState.HELD, v.await(failing, LONG).state());

      List<Run> settled = new ArrayList<>();
      for (Ticket t : v.tasks(TicketQuery.all()).tickets()) {
        v.runs(t.id()).stream().filter(r -> r.state() == RunState.SETTLED && r.verdict() != Verdict.ABANDONED)
            .forEach(settled::add);
      }
      assertEquals(8, settled.size(), "one run per ticket settled: " + settled);
      int expected = settled.size() + 2; // and the hold of the failing one, and the question about it (Q16)
      waitFor(() -> seen.size() >= expected && replay.size() >= expected);
      Thread.sleep(300);
      assertEquals(expected, seen.size(), "nothing twice: " + seen);
      assertEquals(seen, replay, "a listener from 0 sees the same stream");
      assertEquals(1, seen.get(0).id());
      assertOrderedWithoutGaps(seen);
      for (Run r : settled) {
        assertEquals(1, seen.stream().filter(e -> e instanceof VigilEvent.Settled st && st.run().equals(r.id())).count(),
            "the settlement of " + r.id() + " is reported exactly once");
      }
      assertEquals(1, count(seen, VigilEvent.Held.class, failing));
      assertTrue(threads.stream().allMatch(n -> n.matches(Dispatcher.THREAD + "-\\d+")), threads.toString());
    }
  }

  @Test
  void aCancelByTheCli_isAnEvent_thatCompletesTheWaitersOfAnEmbeddedVigil_andTheCliPrintsIt() throws Exception {
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
          "the cancel's event completes the waiters");
      assertEquals(List.of(Dispatcher.THREAD), threads, "completed on the completions thread");
      CliEndToEndTest.Result plain = CliEndToEndTest.vigil(home, "events");
      assertEquals(0, plain.code(), plain.err());
      assertTrue(plain.line().matches("1 +\\S+ " + later + " +cancelled: cancelled by an operator"), plain.out());
      CliEndToEndTest.Result json = CliEndToEndTest.vigil(home, "events", "--json");
      JsonNode e = new ObjectMapper().readTree(json.line());
      assertEquals("CANCELLED", e.path("kind").asText());
      assertEquals(later.toString(), e.path("ticket").asText());
      assertEquals("CANCELLED", e.path("ticketState").asText());
      assertFalse(e.has("run") || e.has("verdict"), e.toString());
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
      for (int k = 0; k < heard.size(); k++) { // and one question about each hold (Q16): 2n events in all
        List<VigilEvent> l = heard.get(k);
        long from = after.get(k);
        waitFor(() -> l.size() >= 2L * n - from);
        Thread.sleep(100);
        assertEquals(2L * n - from, l.size(), "listener " + k + " from " + from);
        assertEquals(from + 1, l.get(0).id());
        assertOrderedWithoutGaps(l);
      }
    }
  }

  /**
   * The delivery policy: each subscription reads the stream on its own thread at its own pace, so a
   * listener that blocks falls behind alone, one that throws has the event counted as delivered, and
   * one that throws an error loses its subscription; the daemon, completions and other listeners go on.
   */
  @Test
  void aBlockedListener_andThrowingOnes_holdUpNeitherTheDaemonNorCompletionsNorOtherListeners() throws Exception {
    try (Vigil v = Vigil.builder().home(tmp.resolve("home")).start()) {
      assertThrows(IllegalArgumentException.class, () -> v.events(-1, e -> { }));
      java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
      List<VigilEvent> slow = new CopyOnWriteArrayList<>();
      Subscription blocked = v.events(0, e -> {
        slow.add(e);
        try {
          gate.await();
        } catch (InterruptedException x) {
          Thread.currentThread().interrupt();
        }
      });
      List<Long> thrown = new CopyOnWriteArrayList<>();
      Subscription throwing = v.events(0, e -> {
        thrown.add(e.id());
        throw new IllegalStateException("a listener's own bug");
      });
      List<Long> errored = new CopyOnWriteArrayList<>();
      Subscription erroring = v.events(0, e -> {
        errored.add(e.id());
        throw new AssertionError("a listener's own error");
      });
      List<VigilEvent> good = new CopyOnWriteArrayList<>();
      v.events(0, good::add);

      TicketId t = v.submit(Task.command("true").build()).id();
      assertEquals(TicketState.SUCCEEDED, v.await(t, LONG).state(), "a completion while a listener is blocked");
      List<TicketId> held = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        TicketId h = v.submit(Task.command("true").in(Duration.ofHours(1)).build()).id();
        assertInstanceOf(Decision.Changed.class, v.hold(h, "hold " + i));
        held.add(h);
      }
      assertEquals(TicketState.HELD, v.await(held.get(2), LONG).state());
      // a settlement, three holds and a question about each hold (Q16)
      waitFor(() -> good.size() == 7 && thrown.size() == 7);
      assertEquals(Status.State.RUNNING, v.status().state(), "the daemon answers");
      assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L), good.stream().map(VigilEvent::id).toList());
      assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L), thrown, "a listener that throws gets each event once, and the next");
      assertEquals(7, throwing.lastId());
      assertEquals(List.of(1L), errored, "an error ends the subscription");
      assertEquals(1, erroring.lastId());
      assertEquals(1, slow.size(), "the blocked listener is still at its first event");
      assertEquals(1, blocked.lastId());

      gate.countDown();
      waitFor(() -> slow.size() == 7);
      assertOrderedWithoutGaps(slow);
      assertEquals(good, slow, "once unblocked it catches up, in order, missing nothing");
      Thread.sleep(300);
      assertEquals(List.of(1L), errored, "an ended subscription gets nothing more");
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
      assertThrows(IllegalStateException.class, () -> v.events(0, ev -> { }), "nothing to listen to");
    } finally {
      v.close();
    }
  }

  private static long runningRuns(Vigil v, TicketId id) {
    return v.runs(id).stream().filter(r -> r.state() == RunState.RUNNING).count();
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

  /** The events other than questions asked (Q16), in order. */
  private static List<VigilEvent> withoutQuestions(List<VigilEvent> events) {
    return events.stream().filter(e -> !(e instanceof VigilEvent.Asked)).toList();
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
    } else if (e instanceof VigilEvent.Cancelled c) {
      return c.ticket();
    } else if (e instanceof VigilEvent.Killed k) {
      return k.ticket();
    } else if (e instanceof VigilEvent.TimedOut t) {
      return t.ticket();
    }
    return null;
  }
}
