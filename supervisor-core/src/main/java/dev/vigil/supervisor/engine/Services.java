package dev.vigil.supervisor.engine;

import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.supervisor.Adoption;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.RestartBudget;
import dev.vigil.supervisor.RevivalGate;
import dev.vigil.supervisor.Step;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.port.IdentityRecord;
import dev.vigil.supervisor.engine.port.Launch;
import dev.vigil.supervisor.engine.port.LaunchRequest;
import dev.vigil.supervisor.engine.port.Prepared;
import dev.vigil.supervisor.engine.port.ProcessExit;
import dev.vigil.supervisor.engine.port.Signal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The service sessions of the configuration, one worker each (DESIGN.md §7): launched through a
 * handoff (reservation and hello), restarted under {@link RestartBudget} through
 * {@link Adoption.Relaunch} (S1, and S6's survivor rule: never launch beside a survivor), adopted at
 * boot by build through {@link Adoption} (S6), revived at boot through {@link RevivalGate} (S3).
 * Orphaned workers follow S4 on their own side. Only {@link #transition} changes a service's phase.
 */
final class Services {
  /** Where a service is. */
  sealed interface Phase {
    /** No worker. */
    record Down() implements Phase {}

    /** Launched; waiting for its reservation and hello within launchHandoff. */
    record Launching(ProcessIdentity identity, String tokenHash, long deadlineMonoMs) implements Phase {}

    /**
     * Found alive at boot (by identity or reservation); adoption waits for its hello (S6).
     *
     * @param identity    from its identity record, or null when it wrote none
     * @param tokenHash   from its identity record, or null when the record carries none
     */
    record Adopting(ProcessIdentity identity, String tokenHash) implements Phase {}

    /** Its worker serves. */
    record Up(ProcessIdentity identity, String tokenHash, String build) implements Phase {}

    /**
     * Its worker is being stopped.
     *
     * @param identity     the worker (null when unknown: only its reservation speaks)
     * @param kind         why
     * @param delivered    whether the stop reached its connection
     * @param nextSignal   TERM, then KILL (null for kinds that do not escalate)
     * @param signalAtMonoMs when the next signal is due
     * @param kills        how many KILLs were sent
     * @param then         what follows its death
     * @param was          the serving phase it left (to resume an abandoned idle shutdown), or null
     */
    record Stopping(ProcessIdentity identity, StopKind kind, boolean delivered, Signal nextSignal, long signalAtMonoMs,
                    int kills, Then then, Up was) implements Phase {
      Stopping delivered(boolean d) {
        return new Stopping(identity, kind, d, nextSignal, signalAtMonoMs, kills, then, was);
      }
    }

    /** Waiting out a restart pause (S1). */
    record Backoff(long dueMonoMs) implements Phase {}

    /** The restart budget gave up (S1). */
    record GivenUp() implements Phase {}
  }

  /** What follows a stopped worker's death. */
  enum Then {
    /** Launch on this build (S6). */
    RELAUNCH,
    /** Leave the session down (an operator stop, an idle shutdown). */
    DOWN
  }

  /** One service. */
  static final class Svc {
    final ServiceSpec spec;
    private Phase phase = new Phase.Down();
    private Adoption.Relaunch relaunch;
    private ProcessExit exitSeen;
    private String note;

    Svc(ServiceSpec spec, RestartBudget.Policy policy) {
      this.spec = spec;
      this.relaunch = Adoption.Relaunch.start(RestartBudget.fresh(policy));
    }

    Phase phase() {
      return phase;
    }

    String note() {
      return note;
    }

    Adoption.Relaunch relaunch() {
      return relaunch;
    }

    WorkerKey.Service key() {
      return spec.key();
    }
  }

  private final Ctx ctx;
  private final Map<String, Svc> services = new LinkedHashMap<>();
  /** Services whose worker complied with an idle-shutdown stop: started again if the shutdown is abandoned. */
  private final Set<String> idleStopped = new HashSet<>();
  /** Services serving again after an abandoned idle shutdown whose stop may still arrive. */
  private final Set<String> idleStopInFlight = new HashSet<>();
  /** Set by {@link #stopAll}: the daemon is stopping its workers, so no service launches or restarts again. */
  private boolean stoppingAll;

  Services(Ctx ctx) {
    this.ctx = ctx;
    for (ServiceSpec s : ctx.config.services()) {
      services.put(s.name(), new Svc(s, ctx.restartPolicy));
    }
  }

  // ---- the one place where a service's phase changes ----

  private void transition(Svc s, Phase next, String note) {
    s.phase = next;
    s.note = note;
    if (!(next instanceof Phase.Launching || next instanceof Phase.Up || next instanceof Phase.Stopping
        || next instanceof Phase.Adopting)) {
      s.exitSeen = null;
    }
  }

  List<Svc> all() {
    return List.copyOf(services.values());
  }

  Optional<Svc> get(String name) {
    return Optional.ofNullable(services.get(name));
  }

  private static ProcessIdentity identityOf(Phase p) {
    if (p instanceof Phase.Launching l) {
      return l.identity();
    } else if (p instanceof Phase.Adopting a) {
      return a.identity();
    } else if (p instanceof Phase.Up u) {
      return u.identity();
    } else if (p instanceof Phase.Stopping st) {
      return st.identity();
    } else {
      return null;
    }
  }

  private static boolean hasWorker(Phase p) {
    return p instanceof Phase.Launching || p instanceof Phase.Adopting || p instanceof Phase.Up
        || p instanceof Phase.Stopping;
  }

  /** Every service with a worker process: the members of an idle-shutdown round (S5). */
  List<WorkerKey> workers() {
    List<WorkerKey> out = new ArrayList<>();
    for (Svc s : services.values()) {
      if (hasWorker(s.phase)) {
        out.add(s.key());
      }
    }
    return out;
  }

  /** Whether no service has a worker any more. */
  boolean allDown() {
    return workers().isEmpty();
  }

  // ---- boot: adoption (S6) or revival (S3) ----

  void boot(long nowMonoMs, long nowWallMs) {
    for (Svc s : services.values()) {
      WorkerKey key = s.key();
      IdentityRecord rec = ctx.directories.identity(key);
      ProcessIdentity recorded = rec instanceof IdentityRecord.Written w ? w.identity() : null;
      if (!Liveness.dead(ctx.processes, ctx.directories, key, recorded)) {
        String token = rec instanceof IdentityRecord.Written w ? w.tokenHash() : null;
        transition(s, new Phase.Adopting(recorded, token), "found alive at boot; waiting for its hello (S6)");
        continue;
      }
      RevivalGate.Revival r = ctx.revival.atBoot(ctx.directories.latestBusy(key), nowWallMs);
      if (r instanceof RevivalGate.Revival.Revive rv) {
        ctx.record(new EngineEvent.ServiceRevival(s.spec.name(), true,
            "busy record " + Durations.format(Math.max(0, rv.ageMs())) + " old"));
        launch(s, nowMonoMs, "revived (S3)");
      } else if (r instanceof RevivalGate.Revival.Stay st) {
        ctx.record(new EngineEvent.ServiceRevival(s.spec.name(), false, st.reason().toString()));
        if (s.spec.activation() == ServiceSpec.Activation.ALWAYS) {
          launch(s, nowMonoMs, "started at boot");
        } else {
          transition(s, new Phase.Down(), "not revived: " + st.reason());
        }
      } else {
        throw new AssertionError(r);
      }
    }
  }

  // ---- launch and failure under the restart budget (S1, S6) ----

  private void launch(Svc s, long nowMonoMs, String why) {
    if (stoppingAll) {
      transition(s, new Phase.Down(), "daemon shutting down: not launched (" + why + ")");
      return;
    }
    WorkerKey key = s.key();
    idleStopInFlight.remove(s.spec.name());
    if (ctx.directories.isReserved(key)) {
      failure(s, "a previous worker still holds the reservation: no launch beside a survivor (S6)", Optional.empty(),
          nowMonoMs);
      return;
    }
    Prepared p = ctx.directories.prepare(key);
    if (p instanceof Prepared.Failed f) {
      failure(s, "directory: " + f.why(), Optional.empty(), nowMonoMs);
      return;
    } else if (!(p instanceof Prepared.Ready)) {
      throw new AssertionError(p);
    }
    Launch l = ctx.processes.launch(new LaunchRequest(key, s.spec.workerType(), s.spec.spec(), 0, ctx.config.build()));
    if (l instanceof Launch.Failed f) {
      ctx.record(new EngineEvent.LaunchFailed(key, f.why()));
      failure(s, "launch failed: " + f.why(), Optional.empty(), nowMonoMs);
    } else if (l instanceof Launch.Started st) {
      ctx.record(new EngineEvent.Launched(key, st.identity()));
      transition(s, new Phase.Launching(st.identity(), st.tokenHash(), nowMonoMs + ctx.ms(Timeout.LAUNCH_HANDOFF)), why);
    } else {
      throw new AssertionError(l);
    }
  }

  /** One failure (S1): a pause before the next launch, or give up. */
  private void failure(Svc s, String why, Optional<ProcessIdentity> survivor, long nowMonoMs) {
    if (stoppingAll && survivor.isEmpty()) {
      transition(s, new Phase.Down(), "daemon shutting down: not restarted (" + why + ")");
      return;
    }
    Step<Adoption.Relaunch, Adoption.Relaunch.Retry> st = s.relaunch.onLaunchFailed(survivor, nowMonoMs);
    s.relaunch = st.next();
    Adoption.Relaunch.Retry r = st.decision();
    if (r instanceof Adoption.Relaunch.Retry.RetryAfter ra) {
      ctx.record(new EngineEvent.ServiceRestartScheduled(s.spec.name(), ra.delayMs(), why));
      transition(s, new Phase.Backoff(nowMonoMs + ra.delayMs()), why);
    } else if (r instanceof Adoption.Relaunch.Retry.GiveUp g) {
      giveUp(s, g, why);
    } else {
      throw new AssertionError(r);
    }
  }

  private void giveUp(Svc s, Adoption.Relaunch.Retry.GiveUp g, String why) {
    String note = g.why().why() + "; last: " + why;
    ctx.record(new EngineEvent.ServiceGivenUp(s.spec.name(), note));
    transition(s, new Phase.GivenUp(), note);
    g.survivor().ifPresent(id -> ctx.record(new EngineEvent.Signalled(s.key(), Signal.TERM,
        ctx.processes.signalGroup(id, Signal.TERM))));
  }

  // ---- the tick ----

  /**
   * Moves every service on: restarts that are due, handoffs (a dead launch fails at once, a silent
   * one is KILLed after launchHandoff), adoption verdicts, stops; on a reconcile pass, finds dead
   * workers by identity and reservation (C5).
   */
  void tick(boolean reconcile, long nowMonoMs, long nowWallMs) {
    for (Svc s : services.values()) {
      advance(s, reconcile, nowMonoMs, nowWallMs);
    }
  }

  private void advance(Svc s, boolean reconcile, long nowMonoMs, long nowWallMs) {
    Phase p = s.phase;
    if (p instanceof Phase.Backoff b) {
      if (nowMonoMs >= b.dueMonoMs()) {
        retryDue(s, nowMonoMs);
      }
    } else if (p instanceof Phase.Launching l) {
      if (deadNow(s, l.identity())) {
        failure(s, "worker died during its handoff" + how(s), Optional.empty(), nowMonoMs);
      } else if (nowMonoMs >= l.deadlineMonoMs()) {
        ctx.record(new EngineEvent.HandoffTimedOut(s.key(), "no reservation and hello within launchHandoff"));
        ctx.record(new EngineEvent.Signalled(s.key(), Signal.KILL, ctx.processes.signalGroup(l.identity(), Signal.KILL)));
        failure(s, "no reservation and hello within launchHandoff (" + Durations.format(ctx.ms(Timeout.LAUNCH_HANDOFF))
            + ")", Optional.of(l.identity()), nowMonoMs);
      }
    } else if (p instanceof Phase.Adopting a) {
      if (a.identity() == null && ctx.directories.identity(s.key()) instanceof IdentityRecord.Written w) {
        transition(s, new Phase.Adopting(w.identity(), w.tokenHash()), s.note);
        a = (Phase.Adopting) s.phase;
      }
      boolean alive = !Liveness.dead(ctx.processes, ctx.directories, s.key(), a.identity());
      Adoption.Verdict v = ctx.adoption.verdict(alive, Optional.empty(), ctx.bootMonoMs, nowMonoMs);
      if (v instanceof Adoption.Verdict.NotAlive) {
        died(s, nowMonoMs, nowWallMs);
      } else if (v instanceof Adoption.Verdict.StopAsLost lost) {
        ctx.record(new EngineEvent.ServiceExited(s.spec.name(), "not adopted: " + lost.reason()));
        beginStop(s, StopKind.LOST, false, Then.RELAUNCH, nowMonoMs);
      } else if (!(v instanceof Adoption.Verdict.AwaitHello)) {
        throw new AssertionError(v);
      }
    } else if (p instanceof Phase.Up u) {
      if ((reconcile || s.exitSeen != null) && deadNow(s, u.identity())) {
        died(s, nowMonoMs, nowWallMs);
      }
    } else if (p instanceof Phase.Stopping st) {
      advanceStop(s, st, nowMonoMs);
    } else if (!(p instanceof Phase.Down || p instanceof Phase.GivenUp)) {
      throw new AssertionError(p);
    }
  }

  private boolean deadNow(Svc s, ProcessIdentity identity) {
    return Liveness.dead(ctx.processes, ctx.directories, s.key(), identity);
  }

  private String how(Svc s) {
    return s.exitSeen == null ? "" : " (" + s.exitSeen + ")";
  }

  private void retryDue(Svc s, long nowMonoMs) {
    boolean survivorAlive = s.relaunch.survivor().map(id -> !deadNow(s, id)).orElse(false);
    Step<Adoption.Relaunch, Adoption.Relaunch.Retry> st = s.relaunch.onRetryDue(survivorAlive, nowMonoMs);
    s.relaunch = st.next();
    Adoption.Relaunch.Retry r = st.decision();
    if (r instanceof Adoption.Relaunch.Retry.Launch) {
      launch(s, nowMonoMs, "restarted (S1)");
    } else if (r instanceof Adoption.Relaunch.Retry.StopAgain again) {
      ctx.record(new EngineEvent.ServiceRestartScheduled(s.spec.name(), again.retryAfterMs(),
          "survivor " + again.survivor() + " lives on: stopped again, counted as a failure (S6)"));
      transition(s, new Phase.Backoff(nowMonoMs + again.retryAfterMs()), "survivor lives on");
      ctx.record(new EngineEvent.Signalled(s.key(), Signal.TERM, ctx.processes.signalGroup(again.survivor(), Signal.TERM)));
    } else if (r instanceof Adoption.Relaunch.Retry.GiveUp g) {
      giveUp(s, g, "survivor lives on");
    } else {
      throw new AssertionError(r);
    }
  }

  /**
   * The worker is dead by identity and reservation. An ALWAYS service restarts under its budget; an
   * ON_DEMAND one restarts only when its busy evidence says it died with work (S3), else its session
   * is left down.
   */
  private void died(Svc s, long nowMonoMs, long nowWallMs) {
    String how = s.exitSeen == null ? "found dead by identity and reservation" : "exited (" + s.exitSeen + ")";
    ctx.record(new EngineEvent.ServiceExited(s.spec.name(), how));
    if (idleStopInFlight.remove(s.spec.name()) && s.exitSeen != null && s.exitSeen.clean()) {
      // it complied with the late idle stop of an abandoned shutdown: idle, not a failure (S1)
      if (s.spec.activation() == ServiceSpec.Activation.ALWAYS) {
        launch(s, nowMonoMs, "restarted after a late idle stop");
      } else {
        transition(s, new Phase.Down(), "stopped idle");
      }
      return;
    }
    if (s.spec.activation() == ServiceSpec.Activation.ALWAYS) {
      failure(s, "worker " + how, Optional.empty(), nowMonoMs);
      return;
    }
    RevivalGate.Revival r = ctx.revival.atBoot(ctx.directories.latestBusy(s.key()), nowWallMs);
    if (r instanceof RevivalGate.Revival.Revive) {
      failure(s, "worker " + how + " with work in flight", Optional.empty(), nowMonoMs);
    } else if (r instanceof RevivalGate.Revival.Stay st) {
      ctx.record(new EngineEvent.ServiceDown(s.spec.name(), "worker " + how + " without work (" + st.reason() + ")"));
      transition(s, new Phase.Down(), "closed: " + how);
    } else {
      throw new AssertionError(r);
    }
  }

  // ---- stops ----

  private void beginStop(Svc s, StopKind kind, boolean delivered, Then then, long nowMonoMs) {
    long graceMs = ctx.ms(Timeout.STOP_GRACE);
    if (!delivered) {
      delivered = ctx.channel.send(s.key(), new ToWorker.Stop(graceMs, kind));
    }
    Signal next = kind.escalates() ? Signal.TERM : null;
    Phase.Up was = s.phase instanceof Phase.Up u ? u : null;
    ctx.record(new EngineEvent.StopBegun(s.key(), kind));
    transition(s, new Phase.Stopping(identityOf(s.phase), kind, delivered, next, nowMonoMs + graceMs, 0, then, was),
        kind + " stop");
    advanceStop(s, (Phase.Stopping) s.phase, nowMonoMs);
  }

  /**
   * Moves a stop on: done when the worker is dead by identity and reservation; else resend an
   * undelivered stop, TERM after the grace and KILL one grace later (identity-gated). A worker that
   * outlives a KILL by a grace is a survivor: before a relaunch it counts as one more failure and is
   * stopped again before each retry (S6); otherwise KILL is repeated every grace.
   */
  private void advanceStop(Svc s, Phase.Stopping st, long nowMonoMs) {
    if (deadNow(s, st.identity())) {
      ctx.record(new EngineEvent.ServiceExited(s.spec.name(), "stopped (" + st.kind() + ")" + how(s)));
      if (st.then() == Then.RELAUNCH) {
        launch(s, nowMonoMs, "relaunched on build " + ctx.config.build() + " (S6)");
      } else {
        if (st.kind() == StopKind.IDLE_SHUTDOWN) {
          idleStopped.add(s.spec.name());
        }
        ctx.record(new EngineEvent.ServiceDown(s.spec.name(), st.kind() + " stop"));
        transition(s, new Phase.Down(), "stopped (" + st.kind() + ")");
      }
      return;
    }
    long graceMs = ctx.ms(Timeout.STOP_GRACE);
    if (!st.delivered() && ctx.channel.send(s.key(), new ToWorker.Stop(graceMs, st.kind()))) {
      st = st.delivered(true);
      transition(s, st, s.note);
    }
    if (st.nextSignal() == null || nowMonoMs < st.signalAtMonoMs()) {
      return;
    }
    if (st.kills() > 0 && st.then() == Then.RELAUNCH) {
      failure(s, "worker " + st.identity() + " survived its stop", Optional.ofNullable(st.identity()), nowMonoMs);
      return;
    }
    boolean sent = st.identity() != null && ctx.processes.signalGroup(st.identity(), st.nextSignal());
    ctx.record(new EngineEvent.Signalled(s.key(), st.nextSignal(), sent));
    int kills = st.kills() + (st.nextSignal() == Signal.KILL ? 1 : 0);
    transition(s, new Phase.Stopping(st.identity(), st.kind(), st.delivered(), Signal.KILL, nowMonoMs + graceMs, kills,
        st.then(), st.was()), s.note);
  }

  // ---- events ----

  /** The shell's exit report for a worker it launched; false when it is no service's worker. */
  boolean onExit(ProcessExit exit, long nowMonoMs, long nowWallMs) {
    for (Svc s : services.values()) {
      if (exit.identity().equals(identityOf(s.phase))) {
        s.exitSeen = exit;
        advance(s, false, nowMonoMs, nowWallMs);
        return true;
      }
    }
    return false;
  }

  ToWorker onHello(WorkerMessage.Hello hello, String name, long nowMonoMs, long nowWallMs) {
    Svc s = services.get(name);
    if (s == null) {
      return deny(hello, "no service '" + name + "' is configured");
    }
    Optional<ProcessIdentity> pid = ctx.processes.identity(hello.pid());
    Phase p = s.phase;
    String build = ctx.config.build();
    if (p instanceof Phase.Launching l) {
      if (!Ctx.sameToken(hello.tokenHash(), l.tokenHash())) {
        return deny(hello, "wrong token for service " + name);
      }
      if (!hello.build().equals(build) || !pid.map(l.identity()::equals).orElse(false)) {
        return deny(hello, "not the worker launched for service " + name);
      }
      if (!ctx.directories.isReserved(s.key())) {
        return deny(hello, "service " + name + ": the worker does not hold its reservation");
      }
      transition(s, new Phase.Up(l.identity(), l.tokenHash(), build), "up");
      ctx.record(new EngineEvent.ServiceUp(name, false));
      ctx.record(new EngineEvent.Welcomed(s.key(), true));
      return new ToWorker.Welcome(build, true);
    } else if (p instanceof Phase.Adopting a) {
      if (a.identity() == null) {
        return deny(hello, "service " + name + ": no identity record to check the worker against");
      }
      // the record's token hash when it carries one; else the recorded identity proves the worker
      if (a.tokenHash() != null && !Ctx.sameToken(hello.tokenHash(), a.tokenHash())) {
        return deny(hello, "service " + name + ": token does not match its identity record");
      }
      if (!pid.map(a.identity()::equals).orElse(false)) {
        return deny(hello, "pid " + hello.pid() + " is not the recorded worker of service " + name);
      }
      String token = a.tokenHash() != null ? a.tokenHash() : hello.tokenHash();
      Adoption.Verdict v = ctx.adoption.verdict(true, Optional.of(hello.build()), ctx.bootMonoMs, nowMonoMs);
      if (v instanceof Adoption.Verdict.Adopt) {
        transition(s, new Phase.Up(a.identity(), token, hello.build()), "adopted (S6)");
        ctx.record(new EngineEvent.ServiceUp(name, true));
        ctx.record(new EngineEvent.Welcomed(s.key(), true));
        return new ToWorker.Welcome(build, true);
      } else if (v instanceof Adoption.Verdict.StopAsLost lost) {
        String reason = "build " + hello.build() + " is not this daemon's build " + build
            + ": stop as a lost worker (S6)";
        ctx.record(new EngineEvent.ServiceExited(name, "not adopted: " + lost.reason()));
        ctx.record(new EngineEvent.HelloDenied(s.key(), reason));
        beginStop(s, StopKind.LOST, true, Then.RELAUNCH, nowMonoMs);
        return new ToWorker.AdoptDenied(reason);
      } else {
        throw new AssertionError("a worker that said hello is alive and reported a build: " + v);
      }
    } else if (p instanceof Phase.Up u) {
      if (!Ctx.sameToken(hello.tokenHash(), u.tokenHash()) || !pid.map(u.identity()::equals).orElse(false)) {
        return deny(hello, "not the worker of service " + name);
      }
      ctx.record(new EngineEvent.Welcomed(s.key(), true));
      return new ToWorker.Welcome(build, true);
    } else if (p instanceof Phase.Stopping st) {
      if (st.identity() == null || !pid.map(st.identity()::equals).orElse(false)) {
        return deny(hello, "not the worker of service " + name);
      }
      transition(s, st.delivered(false), s.note);
      ctx.record(new EngineEvent.Welcomed(s.key(), false));
      return new ToWorker.Welcome(build, false);
    } else {
      return deny(hello, "service " + name + " has no worker starting or running");
    }
  }

  private ToWorker deny(WorkerMessage.Hello hello, String reason) {
    ctx.record(new EngineEvent.HelloDenied(hello.key(), reason));
    return new ToWorker.AdoptDenied(reason);
  }

  // ---- commands and shutdown ----

  Reply start(String name, long nowMonoMs) {
    Svc s = services.get(name);
    if (s == null) {
      return new Reply.NotFound("service " + name);
    }
    if (s.phase instanceof Phase.GivenUp) {
      s.relaunch = Adoption.Relaunch.start(RestartBudget.fresh(ctx.restartPolicy));
    } else if (!(s.phase instanceof Phase.Down || s.phase instanceof Phase.Backoff)) {
      return new Reply.Acknowledged("service " + name + " already has a worker");
    }
    launch(s, nowMonoMs, "started by an operator");
    return new Reply.Acknowledged("service " + name + " starting");
  }

  Reply stop(String name, long nowMonoMs) {
    Svc s = services.get(name);
    if (s == null) {
      return new Reply.NotFound("service " + name);
    }
    if (hasWorker(s.phase)) {
      if (!(s.phase instanceof Phase.Stopping)) {
        beginStop(s, StopKind.OPERATOR, false, Then.DOWN, nowMonoMs);
      }
      return new Reply.Acknowledged("service " + name + " stopping");
    }
    transition(s, new Phase.Down(), "stopped by an operator");
    return new Reply.Acknowledged("service " + name + " is down");
  }

  /** The idle-shutdown stop of one service whose worker quiesced (S5): no signal follows. */
  void stopIdle(String name, long nowMonoMs) {
    Svc s = services.get(name);
    if (s != null && hasWorker(s.phase)) {
      beginStop(s, StopKind.IDLE_SHUTDOWN, false, Then.DOWN, nowMonoMs);
    }
  }

  /**
   * An idle shutdown was abandoned (a worker refused the stop, S5): workers still stopping are
   * released and serve again; ALWAYS services whose worker already stopped start again (not a
   * failure).
   */
  void resumeAfterIdleStop(long nowMonoMs) {
    for (Svc s : services.values()) {
      if (s.phase instanceof Phase.Stopping st && st.kind() == StopKind.IDLE_SHUTDOWN && st.was() != null) {
        ctx.channel.send(s.key(), new ToWorker.Release());
        transition(s, st.was(), "idle shutdown abandoned");
        idleStopInFlight.add(s.spec.name()); // the stop may still reach it; an idle worker then complies
      } else if (s.phase instanceof Phase.Down && idleStopped.contains(s.spec.name())
          && s.spec.activation() == ServiceSpec.Activation.ALWAYS) {
        launch(s, nowMonoMs, "idle shutdown abandoned");
      }
    }
    idleStopped.clear();
  }

  /** A STOP_WORKERS shutdown: every worker stops (TERM, then KILL) and its session stays down. */
  void stopAll(long nowMonoMs) {
    stoppingAll = true;
    for (Svc s : services.values()) {
      if (hasWorker(s.phase)) {
        if (!(s.phase instanceof Phase.Stopping st && st.kind().kills())) {
          beginStop(s, StopKind.OPERATOR, false, Then.DOWN, nowMonoMs);
        }
      } else {
        transition(s, new Phase.Down(), "daemon shutting down");
      }
    }
  }
}
