package dev.vigil.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.launcher.internal.ConfigLoader;
import dev.vigil.launcher.internal.Daemon;
import dev.vigil.launcher.internal.Home;
import dev.vigil.launcher.internal.VigilConfig;
import dev.vigil.launcher.internal.Wire;
import dev.vigil.supervisor.engine.Command;
import dev.vigil.supervisor.engine.Reply;
import dev.vigil.supervisor.engine.Status;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.JsonBinding;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Vigil embedded: a running daemon in this JVM (H2 file store under the home, real worker
 * processes, the socket {@code <home>/vigil.sock} that the {@code vigil} CLI talks to). Every method
 * goes through the engine's commands, as the CLI does, with the same guarantees.
 *
 * <pre>{@code
 * try (Vigil v = Vigil.builder().home(Path.of("/var/lib/app/vigil")).start()) {
 *   Submitted s = v.submit(Task.command("sh", "-c", "make report").timeout(Duration.ofHours(1)).build());
 *   Ticket done = v.await(s.id(), Duration.ofHours(2));
 * }
 * }</pre>
 *
 * <p>Building is free of side effects: nothing is touched and no thread is started before
 * {@link Builder#start()}. A started Vigil has the daemon's scheduling thread, one thread for
 * completions ({@link #completion}, {@code vigil-events}) and one per subscription ({@link #events},
 * {@code vigil-events-N}), each woken by the daemon whenever it may have written an event, never by a
 * timer; no listener or completion runs on the scheduling thread. Control verbs return a
 * {@link Decision}; a refusal is a value, not an exception.
 *
 * <p>{@link #close()} stops the daemon and leaves its workers running for the next daemon to adopt
 * (D4); {@link #shutdownIfIdle()} stops it only when every worker quiesced (S5). Logs go through
 * SLF4J only.
 */
public final class Vigil implements AutoCloseable {
  private static final long CALL_WAIT_S = 120;
  /** Tickets per transaction of {@link #submitAll}. */
  public static final int SUBMIT_BATCH = 1000;
  /** The most tickets one page of {@link #tasks} holds. */
  public static final int MAX_PAGE = Wire.MAX_PAGE;

  private final Daemon daemon;
  private final VigilConfig config;
  private final Dispatcher dispatcher;

  private Vigil(Daemon daemon, VigilConfig config, Dispatcher.Waker waker) {
    this.daemon = daemon;
    this.config = config;
    this.dispatcher = new Dispatcher(this::call, headId());
    waker.to(dispatcher);
    dispatcher.start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** How to start an embedded daemon; nothing happens until {@link #start()}. */
  public static final class Builder {
    private Path home;
    private Path configFile;
    private final List<WorkerTypeSpec> types = new ArrayList<>();

    private Builder() {}

    /** The home directory (created 0700 when missing). Required. */
    public Builder home(Path dir) {
      this.home = Objects.requireNonNull(dir, "home").toAbsolutePath();
      return this;
    }

    /** A configuration file (DESIGN.md §9); the defaults when none is given. */
    public Builder config(Path file) {
      this.configFile = Objects.requireNonNull(file, "config");
      return this;
    }

    /**
     * A custom worker type called {@code name} (in place of a configured type of that name): the
     * {@code dev.vigil.worker.WorkerType} class {@code className}, with a public no-argument constructor,
     * which each worker host of this type loads from Vigil's own jars (those this JVM loaded Vigil
     * from, not its {@code java.class.path}) plus {@code classpath} (no other type's entries): a class
     * in the application's own jar needs that jar here. {@link #start} refuses to start when the class
     * is not found there or is no worker type.
     *
     * @throws IllegalArgumentException naming the field, when the name or the class name is malformed
     */
    public Builder workerType(String name, String className, List<String> classpath) {
      types.add(WorkerTypeSpec.declared(name, className, classpath));
      return this;
    }

    /**
     * {@link #workerType} for a resumable type: each attempt of its tickets receives the ticket's latest
     * checkpoint ({@code WorkContext.previousCheckpoint()}), saved by an earlier attempt with
     * {@code WorkContext.checkpoint(value)}; the configuration's {@code "resumable": true}.
     */
    public Builder resumableWorkerType(String name, String className, List<String> classpath) {
      types.add(WorkerTypeSpec.declared(name, className, classpath).resumable(true));
      return this;
    }

    /**
     * Starts the daemon and returns once it serves.
     *
     * @throws IllegalStateException with a one-line message when it is refused (another daemon on
     *                               the home, D2), a worker type's class cannot be run, Vigil's
     *                               classes came from something a worker JVM cannot be given (a jar
     *                               inside a jar), or the home or store cannot be opened; for a
     *                               damaged store the line names it, what is damaged and the
     *                               {@code vigil store} commands to run
     */
    public Vigil start() {
      Objects.requireNonNull(home, "home");
      VigilConfig c = configFile == null ? VigilConfig.defaults() : ConfigLoader.load(configFile);
      for (WorkerTypeSpec t : types) {
        c = c.withWorkerType(t);
      }
      Dispatcher.Waker waker = new Dispatcher.Waker();
      Daemon d;
      try {
        d = Daemon.start(new Home(home), c, waker);
      } catch (Daemon.Refused e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
      try {
        return new Vigil(d, c, waker);
      } catch (RuntimeException e) {
        d.close();
        throw e;
      }
    }
  }

  // ---- submitting

  /**
   * Queues a task, or names the earlier ticket with the same idempotency key.
   *
   * @throws IllegalArgumentException one line naming what is wrong (a lane or worker type this
   *                                  daemon does not have, a directory that is missing); nothing queued
   */
  public Submitted submit(Task task) {
    Reply r = call(new Command.Submit(placed(task)));
    if (r instanceof Reply.Submitted s) {
      return new Submitted(s.ticket().id(), s.duplicate());
    }
    throw new IllegalArgumentException(message(r));
  }

  /**
   * Queues many tasks, {@value #SUBMIT_BATCH} per transaction, each batch all or nothing; the answers
   * are in the order of the tasks.
   *
   * @throws IllegalArgumentException when a task is wrong: every task is checked before anything is
   *                                  queued; a batch the daemon refuses names how many were queued before
   */
  public List<Submitted> submitAll(List<Task> tasks) {
    List<NewTicket> all = new ArrayList<>(tasks.size());
    for (int i = 0; i < tasks.size(); i++) {
      try {
        all.add(placed(tasks.get(i)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("task " + (i + 1) + " of " + tasks.size() + ": " + e.getMessage(), e);
      }
    }
    List<Submitted> out = new ArrayList<>(all.size());
    for (int from = 0; from < all.size(); from += SUBMIT_BATCH) {
      List<NewTicket> batch = all.subList(from, Math.min(all.size(), from + SUBMIT_BATCH));
      Reply r = call(new Command.SubmitAll(batch));
      if (!(r instanceof Reply.SubmittedAll s)) {
        throw new IllegalArgumentException("tasks " + (from + 1) + "-" + (from + batch.size()) + " of " + all.size()
            + " were refused (" + message(r) + "); " + from + " were queued before them");
      }
      s.tickets().forEach(t -> out.add(new Submitted(t.ticket().id(), t.duplicate())));
    }
    return out;
  }

  /** Queues a ticket as the engine takes it. */
  public TicketId submit(NewTicket ticket) {
    Reply r = call(new Command.Submit(ticket));
    if (r instanceof Reply.Submitted s) {
      return s.ticket().id();
    }
    throw new IllegalArgumentException(message(r));
  }

  /**
   * Queues an OS command on the {@code default} lane (the built-in {@code command} type), with the
   * configured attempts, in the JVM's working directory and environment: {@code submit(Task.command(argv).build())}.
   */
  public TicketId submit(List<String> argv) {
    return submit(Task.command(argv).build()).id();
  }

  private NewTicket placed(Task task) {
    return task.toNewTicket(config.maxAttempts(), System.currentTimeMillis(), Path.of(System.getProperty("user.dir")),
        System.getenv());
  }

  // ---- waiting

  /**
   * A future completed with the ticket once it has settled (SUCCEEDED, FAILED, CANCELLED) or is HELD:
   * on the completions thread ({@code vigil-events}), by the event that reports it (a settlement, a
   * hold, a cancellation), or at once, on the calling thread, when it already is. It fails with
   * {@link IllegalArgumentException} when there is no such ticket, and with
   * {@link IllegalStateException} when this Vigil closes first. Cancelling the future stops waiting.
   */
  public CompletableFuture<Ticket> completion(TicketId id) {
    Objects.requireNonNull(id, "id");
    CompletableFuture<Ticket> f = dispatcher.register(id);
    f.whenComplete((t, e) -> dispatcher.forget(id, f));
    Optional<Ticket> now = ticket(id);
    if (now.isEmpty()) {
      f.completeExceptionally(new IllegalArgumentException("no ticket " + id));
    } else {
      dispatcher.offer(now.get());
    }
    return f;
  }

  /**
   * Waits until the ticket has settled or is HELD ({@link #completion}).
   *
   * @throws TimeoutException         when it has not within {@code timeout}
   * @throws IllegalArgumentException when there is no such ticket
   * @throws IllegalStateException    on a thread of this Vigil's (a listener or a completion must not
   *                                  wait), or when this Vigil closes
   */
  public Ticket await(TicketId id, Duration timeout) throws TimeoutException, InterruptedException {
    if (dispatcher.onThisThread()) {
      throw new IllegalStateException("await on a thread of this Vigil's would hold up its events; use completion(id)");
    }
    CompletableFuture<Ticket> f = completion(id);
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      f.cancel(false);
      throw new TimeoutException(id + " has not settled within " + timeout);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  // ---- control

  /** READY or HELD → CANCELLED, reported by a {@link VigilEvent.Cancelled} (a running ticket: {@link #kill}). */
  public Decision cancel(TicketId id) {
    return control(new Command.Cancel(id));
  }

  /** Where a killed ticket goes. */
  public enum AfterKill {
    /** CANCELLED. */
    CANCEL,
    /** READY again, to run anew. */
    RETRY,
    /** HELD for a person. */
    HOLD
  }

  /**
   * Q13: stops the ticket's running run now (TERM to its process group, KILL after the stop grace); it
   * settles KILLED once, spends no attempt, and the ticket goes where {@code then} says.
   */
  public Decision kill(TicketId id, AfterKill then) {
    StopIntent intent = switch (then) {
      case CANCEL -> StopIntent.KILL;
      case RETRY -> StopIntent.KILL_RETRY;
      case HOLD -> StopIntent.KILL_HOLD;
    };
    return control(new Command.Kill(id, null, intent));
  }

  /** READY → HELD with a reason (a running ticket is not held: park or kill it). */
  public Decision hold(TicketId id, String reason) {
    return control(new Command.Hold(id, reason));
  }

  /** HELD → READY, with one more attempt when none remain (Q1, Q8). */
  public Decision release(TicketId id) {
    return control(new Command.Release(id));
  }

  /**
   * HELD → READY, granting {@code attempts} more attempts (Q1); refused when the ticket would have more
   * than {@value NewTicket#MAX_ATTEMPTS} attempts.
   *
   * @throws IllegalArgumentException when {@code attempts} is not 1-{@value NewTicket#MAX_ATTEMPTS}; nothing is asked
   */
  public Decision release(TicketId id, int attempts) {
    return control(new Command.Release(id, OptionalInt.of(attempts)));
  }

  /**
   * Queues a finished (or HELD) ticket again as a new ticket of the same work; a HELD original is
   * cancelled, reported by a {@link VigilEvent.Cancelled}.
   */
  public Decision retry(TicketId id) {
    return control(new Command.Retry(id));
  }

  /** Q9: never claim the ticket until unparked; a running worker is stopped at a safe point, spending nothing. */
  public Decision park(TicketId id) {
    return control(new Command.Park(id));
  }

  public Decision unpark(TicketId id) {
    return control(new Command.Unpark(id));
  }

  /** Q9: claim nothing from the lane until unparked; its running workers are stopped at a safe point. */
  public Decision parkLane(String lane) {
    return control(new Command.ParkLane(new Lane(lane)));
  }

  public Decision unparkLane(String lane) {
    return control(new Command.UnparkLane(new Lane(lane)));
  }

  /** Stop starting new work (not durable: a restarted daemon dispatches); running work is untouched. */
  public Decision pause() {
    return control(new Command.Pause());
  }

  public Decision resume() {
    return control(new Command.Resume());
  }

  // ---- questions (Q16)

  /**
   * The questions waiting for a person, in id order: asked by a task's worker ({@code WorkContext.ask}) or by
   * the daemon (a task held, a service given up).
   */
  public List<dev.vigil.coordination.Question> questions() {
    return questions(java.util.Set.of(dev.vigil.coordination.Question.State.OPEN));
  }

  /**
   * A service's kept transcript entries, in id order (S7): its workers' launches, takeovers, exits, restarts, a
   * give-up, stops, and one notice per restore of a snapshot ({@code WorkContext.restored}). Its output is not
   * in it: each entry's {@code outputAt} says how much of the service's {@code stdout.log} came before it.
   *
   * @throws IllegalArgumentException when no service {@code service} is configured
   */
  public List<dev.vigil.coordination.TranscriptEntry> transcript(String service) {
    List<dev.vigil.coordination.TranscriptEntry> out = new java.util.ArrayList<>();
    long after = 0;
    while (true) {
      Reply r = call(new Command.Transcript(java.util.Objects.requireNonNull(service, "service"), after, 1_000));
      if (r instanceof Reply.NotFound) {
        throw new IllegalArgumentException("no service '" + service + "' is configured");
      } else if (!(r instanceof Reply.TranscriptPage p)) {
        throw new IllegalStateException("the daemon answered a transcript with " + r);
      } else {
        out.addAll(p.entries());
        if (p.entries().size() < 1_000) {
          return out;
        }
        after = p.entries().get(p.entries().size() - 1).id();
      }
    }
  }

  /** Every question, in id order; an applied one says what the daemon did and what it skipped. */
  public List<dev.vigil.coordination.Question> allQuestions() {
    return questions(java.util.Set.of());
  }

  private List<dev.vigil.coordination.Question> questions(java.util.Set<dev.vigil.coordination.Question.State> states) {
    Reply r = call(new Command.Questions(states));
    if (r instanceof Reply.QuestionList l) {
      return l.questions();
    }
    throw new IllegalStateException(message(r));
  }

  /**
   * Q16: records a person's answer to a question, {@code option} being one of its options' names; the daemon
   * applies it next, exactly once ({@link Decision.Answered}). A second answer is refused, and so is an
   * option the question does not offer ({@link Decision.Invalid}).
   */
  public Decision answer(dev.vigil.coordination.QuestionId question, String option) {
    return control(new Command.Answer(question, option));
  }

  private Decision control(Command c) {
    return Decision.of(call(c));
  }

  // ---- reading

  /** One ticket, or empty when there is no such ticket. */
  public Optional<Ticket> ticket(TicketId id) {
    Reply r = call(new Command.Show(id));
    return r instanceof Reply.TicketDetail d ? Optional.of(d.ticket()) : Optional.empty();
  }

  /** The runs of a ticket, in order (empty when there is no such ticket). */
  public List<Run> runs(TicketId id) {
    Reply r = call(new Command.Show(id));
    return r instanceof Reply.TicketDetail d ? d.runs() : List.of();
  }

  /**
   * What the worker of {@code runId} returned with its success ({@code Outcome.succeeded(result)}), as
   * JSON; empty when the run has no result: it has not settled, did not succeed, its worker returned
   * none (the built-in command type never does), or there is no such run.
   */
  public Optional<JsonNode> runResult(RunId runId) {
    Objects.requireNonNull(runId, "runId");
    return runs(runId.ticket()).stream().filter(r -> r.id().equals(runId)).findFirst()
        .map(Run::result).map(Wire::json);
  }

  /**
   * {@link #runResult(RunId)} bound to {@code type} (a record, a bean, a map…) with the configuration
   * the worker wrote it with ({@code dev.vigil.worker.JsonBinding}: records and {@code java.time} as they
   * are, unknown fields refused).
   *
   * @throws IllegalArgumentException one line naming the run, the type, the field and why, when the
   *                                  stored result does not bind to {@code type}
   */
  public <T> Optional<T> runResult(RunId runId, Class<T> type) {
    Objects.requireNonNull(type, "type");
    return runResult(runId).map(json -> {
      try {
        return JsonBinding.fromJson(json, type);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("the result of " + runId + ": " + e.getMessage(), e);
      }
    });
  }

  /**
   * One page of the tickets matching {@code query}, in id order: at most its limit, and at most
   * {@value #MAX_PAGE}; {@link Page#next()} is the query of the next page.
   */
  public Page tasks(TicketQuery query) {
    TicketQuery q = query.limit() > MAX_PAGE ? query.limit(MAX_PAGE) : query;
    Reply r = call(new Command.ListTickets(q));
    if (!(r instanceof Reply.TicketList l)) {
      throw new IllegalArgumentException(message(r));
    }
    List<Ticket> ts = l.tickets();
    return new Page(ts, ts.size() < q.limit() ? Optional.empty()
        : Optional.of(query.after(ts.get(ts.size() - 1).id())));
  }

  /** The daemon's status, as {@code daemon.json} shows it (D1). */
  public Status status() {
    Reply r = call(new Command.StatusQuery());
    if (r instanceof Reply.StatusReport s) {
      return s.status();
    }
    throw new AssertionError(r);
  }

  // ---- listening

  /** {@link #events(long, Consumer)} from the events written after this call. */
  public Subscription events(Consumer<VigilEvent> listener) {
    return events(headId(), listener);
  }

  /**
   * Delivers every event with an id above {@code afterId} to {@code listener}, in id order, each once,
   * on a thread of this subscription's own ({@code vigil-events-N}), as soon as the daemon wrote it.
   * Pass the last id a listener saw ({@link Subscription#lastId()}, stored by the application) to
   * resume after a restart without missing an event or seeing one twice; 0 replays from the first.
   *
   * <p>A slow listener falls behind on its own: the store keeps the stream, which it reads a page at a
   * time when it is ready, so it holds up neither the daemon nor other listeners nor completions (but
   * {@link #close()} waits for it to take what was written). A listener that throws a runtime exception
   * is logged and the event counts as delivered to it; one that throws an {@link Error} is logged and
   * its subscription ends. A listener must not {@link #await} (use {@link #completion}).
   *
   * @throws IllegalStateException when this Vigil is closed
   */
  public Subscription events(long afterId, Consumer<VigilEvent> listener) {
    if (afterId < 0) {
      throw new IllegalArgumentException("afterId (" + afterId + ") must be >= 0");
    }
    return dispatcher.listen(afterId, Objects.requireNonNull(listener, "listener"));
  }

  // ---- lifecycle

  /** S5: stops the daemon if every worker quiesces; false (nothing stopped) when some had work. */
  public boolean shutdownIfIdle() {
    Reply r = call(new Command.Shutdown(Command.Shutdown.Mode.IF_IDLE));
    if (r instanceof Reply.ShuttingDown) {
      daemon.done().join();
      dispatcher.stop();
      return true;
    }
    return false;
  }

  /**
   * Delivers the events already written (completions, then each listener, which may take its time),
   * then stops the daemon; every worker keeps running for the next daemon to adopt (D4). Pending
   * completions fail with {@link IllegalStateException}. Events written after (a run that ends while
   * no daemon is up is settled by the next one) reach a listener of the next Vigil that resumes
   * from the last id this one's listener saw.
   */
  @Override
  public void close() {
    dispatcher.stop();
    daemon.close();
  }

  /** The id of the last event in the store: the stream is gap-free, so found by halving. */
  private long headId() {
    if (!eventAfter(0)) {
      return 0;
    }
    long lo = 0; // an event after lo exists
    long hi = 1; // none after hi (once the doubling stops)
    while (eventAfter(hi)) {
      lo = hi;
      hi *= 2;
    }
    while (hi - lo > 1) {
      long mid = lo + (hi - lo) / 2;
      if (eventAfter(mid)) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return hi;
  }

  private boolean eventAfter(long id) {
    Reply r = call(new Command.Events(id, 1));
    return r instanceof Reply.EventList l && !l.events().isEmpty();
  }

  private Reply call(Command c) {
    CompletableFuture<Reply> f = daemon.call(c);
    try {
      CompletableFuture.anyOf(f, daemon.done()).get(CALL_WAIT_S, TimeUnit.SECONDS);
      if (!f.isDone()) {
        throw new IllegalStateException("the daemon has stopped");
      }
      return f.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Daemon.Unavailable u) {
        throw new UnavailableException(u.getMessage(), u);
      }
      throw new IllegalStateException("the daemon did not answer: " + e, e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("the daemon did not answer: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static String message(Reply r) {
    JsonNode n = Wire.reply(r);
    return n.path("message").asText(n.path("kind").asText());
  }
}
