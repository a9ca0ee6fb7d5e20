package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Control;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Retry;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.StopRequest;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Prerequisites;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import java.util.List;
import java.util.Optional;

/**
 * The answers to client commands other than {@link Command.Shutdown}, which {@link Lifecycle}
 * answers when the shutdown is decided. Queries are answered in every phase; a stopped daemon
 * changes nothing more.
 */
final class Commands {
  private final Ctx ctx;
  private final Tasks tasks;
  private final Services services;
  private final Scheduler scheduler;
  private final Lifecycle lifecycle;
  private final StatusView status;
  private final Firing firing;

  Commands(Ctx ctx, Tasks tasks, Services services, Scheduler scheduler, Lifecycle lifecycle, StatusView status,
           Firing firing) {
    this.firing = firing;
    this.ctx = ctx;
    this.tasks = tasks;
    this.services = services;
    this.scheduler = scheduler;
    this.lifecycle = lifecycle;
    this.status = status;
  }

  /** Q18: the store decides and records; the cutoff is this daemon's wall clock less the age asked for. */
  private Reply prune(Command.Prune p, long nowWallMs) {
    long cutoff = nowWallMs - p.olderThanMs();
    return new Reply.Pruned(ctx.coordination.prune(new dev.vigil.coordination.Pruning.Request(p.job(), cutoff, p.dryRun()),
        nowWallMs));
  }

  Reply answer(Command command, long nowMonoMs, long nowWallMs) {
    if (command instanceof Command.StatusQuery) {
      return new Reply.StatusReport(status.status(nowMonoMs, nowWallMs, lifecycle.state()));
    } else if (command instanceof Command.ScheduleList) {
      return new Reply.Schedules(ctx.schedules.list());
    } else if (command instanceof Command.Questions q) {
      return new Reply.QuestionList(ctx.store.questions(q.states()));
    } else if (command instanceof Command.Maintenance) {
      return new Reply.MaintenanceLines(ctx.coordination.maintenanceRecords());
    } else if (command instanceof Command.Hosts) {
      return new Reply.HostList(HostView.of(ctx.store, ctx.config.hostId()));
    } else if (command instanceof Command.Prune p && p.dryRun()) {
      return prune(p, nowWallMs);
    }
    if (command instanceof Command.Transcript t
        && ctx.config.services().stream().noneMatch(s -> s.name().equals(t.service()))) {
      return new Reply.NotFound("service " + t.service());
    }
    Optional<Reply> read = Reads.answer(ctx.store, command);
    if (read.isPresent()) {
      return read.get();
    }
    if (lifecycle.stopped()) {
      return new Reply.Denied("the daemon is shutting down");
    }
    if (command instanceof Command.Submit s) {
      return submit(s.ticket(), nowMonoMs, nowWallMs);
    } else if (command instanceof Command.SubmitAll s) {
      return submitAll(s.tickets(), nowMonoMs, nowWallMs);
    } else if (command instanceof Command.Park p) {
      return control(ctx.coordination.park(p.ticket()), p.ticket().toString(), nowMonoMs, null);
    } else if (command instanceof Command.Unpark u) {
      return control(ctx.coordination.unpark(u.ticket()), u.ticket().toString(), nowMonoMs, null);
    } else if (command instanceof Command.Hold h) {
      return control(ctx.coordination.hold(h.ticket(), h.reason(), nowWallMs), h.ticket().toString(), nowMonoMs,
          "vigil kill " + h.ticket() + " --hold");
    } else if (command instanceof Command.Release r) {
      return control(ctx.coordination.release(r.ticket(), r.attempts()), r.ticket().toString(), nowMonoMs, null);
    } else if (command instanceof Command.Cancel c) {
      return control(ctx.coordination.cancel(c.ticket(), nowWallMs), c.ticket().toString(), nowMonoMs,
          "vigil kill " + c.ticket());
    } else if (command instanceof Command.Kill k) {
      return kill(k, nowMonoMs, nowWallMs);
    } else if (command instanceof Command.Retry r) {
      return retry(r, nowMonoMs, nowWallMs);
    } else if (command instanceof Command.ParkLane p) {
      Optional<Reply.Invalid> unknown = unknownLane(p.lane());
      if (unknown.isPresent()) {
        return unknown.get();
      }
      boolean changed = ctx.coordination.parkLane(p.lane());
      return new Reply.LaneChanged(p.lane(), true, changed, tasks.stopParked(nowMonoMs));
    } else if (command instanceof Command.UnparkLane u) {
      return new Reply.LaneChanged(u.lane(), false, ctx.coordination.unparkLane(u.lane()), 0);
    } else if (command instanceof Command.RunByHand h) {
      if (lifecycle.shuttingDown()) {
        return new Reply.Denied("the daemon is shutting down: ticket " + h.ticket() + " is not started");
      }
      return scheduler.runByHand(h.ticket(), h.resume(), nowMonoMs, nowWallMs);
    } else if (command instanceof Command.Answer a) {
      return answer(a, nowWallMs);
    } else if (command instanceof Command.Pause) {
      return new Reply.Acknowledged((lifecycle.pause(true) ? "paused" : "already paused")
          + ": no new work is dispatched until resume or restart; running workers are untouched");
    } else if (command instanceof Command.Resume) {
      return new Reply.Acknowledged(lifecycle.pause(false) ? "resumed" : "not paused");
    } else if (command instanceof Command.StartService s) {
      if (lifecycle.shuttingDown()) {
        return new Reply.Denied("the daemon is shutting down: service " + s.service() + " is not started");
      }
      return services.start(s.service(), nowMonoMs);
    } else if (command instanceof Command.StopService s) {
      return services.stop(s.service(), nowMonoMs);
    } else if (command instanceof Command.ScheduleAdd a) {
      return scheduleAdd(a.spec(), nowWallMs);
    } else if (command instanceof Command.Prune p) {
      return prune(p, nowWallMs);
    } else if (command instanceof Command.DirectoriesRemoved d) {
      return new Reply.DirectoriesRecorded(ctx.coordination.directoriesRemoved(d.job(), d.runs(), d.summary(), nowWallMs));
    } else if (command instanceof Command.ReleaseHost h) {
      return releaseHost(h.hostId(), nowWallMs);
    } else if (command instanceof Command.Compact k) {
      // a safe point: the engine decides nothing else meanwhile, and the store pauses every other verb
      return new Reply.Compacted(ctx.coordination.compact(k.job(), nowWallMs));
    } else if (command instanceof Command.SchedulePause p) {
      return scheduleChanged(ctx.schedules.pause(p.name()), "paused: it starts nothing until resumed",
          "was paused already");
    } else if (command instanceof Command.ScheduleResume r) {
      return scheduleChanged(ctx.schedules.resume(r.name(), nowWallMs),
          "resumed: fires from now on start tasks; those it missed while paused do not", "was not paused");
    } else if (command instanceof Command.ScheduleRemove r) {
      return scheduleChanged(ctx.schedules.remove(r.name()), "removed: it starts nothing more; its tasks stay", "");
    } else {
      throw new AssertionError(command);
    }
  }

  /**
   * Q14: why a batch cannot wait for what it names (a ticket that does not exist, a later one of the
   * batch), if it cannot. Tickets are never deleted, so what exists now exists when the batch is queued.
   */
  private Optional<Reply.Invalid> unknownPrerequisite(List<NewTicket> batch) {
    try {
      Prerequisites.check(batch, ctx.store::ticket);
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(new Reply.Invalid(e.getMessage()));
    }
  }

  /** Q16: records the answer only; the engine's next step applies it ({@link QuestionDesk}). */
  private Reply answer(Command.Answer a, long nowWallMs) {
    dev.vigil.coordination.Answering r = ctx.coordination.answer(a.question(), a.option(), nowWallMs);
    if (r instanceof dev.vigil.coordination.Answering.Answered done) {
      return new Reply.QuestionAnswered(done.question());
    } else if (r instanceof dev.vigil.coordination.Answering.Denied d) {
      return switch (d.reason()) {
        case NOT_FOUND -> new Reply.NotFound("question " + a.question());
        case ALREADY_ANSWERED -> new Reply.Denied(d.line(a.question(), a.option()));
        case UNKNOWN_OPTION -> new Reply.Invalid(d.line(a.question(), a.option()));
      };
    }
    throw new AssertionError(r);
  }

  private Reply submit(NewTicket n, long nowMonoMs, long nowWallMs) {
    Optional<Reply.Invalid> refused = refusal(n).or(() -> unknownPrerequisite(List.of(n)));
    if (refused.isPresent()) {
      return refused.get();
    }
    Reply r = submitted(ctx.coordination.submit(n, nowWallMs));
    dispatchAfterSubmit(nowMonoMs, nowWallMs);
    return r;
  }

  /** All or nothing: every ticket is checked before any is queued, then one {@code submitAll}. */
  private Reply submitAll(List<NewTicket> tickets, long nowMonoMs, long nowWallMs) {
    for (NewTicket n : tickets) {
      Optional<Reply.Invalid> refused = refusal(n);
      if (refused.isPresent()) {
        return new Reply.Invalid(refused.get().reason() + "; nothing was queued");
      }
    }
    Optional<Reply.Invalid> unknown = unknownPrerequisite(tickets);
    if (unknown.isPresent()) {
      return new Reply.Invalid(unknown.get().reason() + "; nothing was queued");
    }
    List<Reply.Submitted> out = ctx.coordination.submitAll(tickets, nowWallMs).stream().map(Commands::submitted).toList();
    dispatchAfterSubmit(nowMonoMs, nowWallMs);
    return new Reply.SubmittedAll(out);
  }

  /** Why a lane cannot be parked: this daemon has no such lane (a typo would otherwise park nothing real). */
  private Optional<Reply.Invalid> unknownLane(Lane lane) {
    if (ctx.config.concurrency(lane) > 0) {
      return Optional.empty();
    }
    List<Lane> lanes = ctx.config.lanes().stream().map(EngineConfig.LaneLimit::lane).toList();
    return Optional.of(new Reply.Invalid("lane '" + lane + "' is not configured (lanes: " + lanes + "); nothing was parked"));
  }

  /** Why this daemon cannot run the ticket (its lane or worker type is not configured), if it cannot. */
  private Optional<Reply.Invalid> refusal(NewTicket n) {
    if (ctx.config.concurrency(n.lane()) == 0) {
      List<Lane> lanes = ctx.config.lanes().stream().map(EngineConfig.LaneLimit::lane).toList();
      return Optional.of(new Reply.Invalid("lane '" + n.lane() + "' is not configured (lanes: " + lanes + ")"));
    }
    if (!ctx.config.workerTypes().contains(n.type())) {
      return Optional.of(new Reply.Invalid("worker type '" + n.type() + "' is not configured (workerTypes: "
          + ctx.config.workerTypes() + ")"));
    }
    return Optional.empty();
  }

  private static Reply.Submitted submitted(Submission s) {
    if (s instanceof Submission.Accepted a) {
      return new Reply.Submitted(a.ticket(), false);
    } else if (s instanceof Submission.Duplicate d) {
      return new Reply.Submitted(d.existing(), true);
    } else {
      throw new AssertionError(s);
    }
  }

  private void dispatchAfterSubmit(long nowMonoMs, long nowWallMs) {
    if (lifecycle.dispatches()) {
      scheduler.dispatch(nowMonoMs, nowWallMs);
    }
  }

  /** An operator verb's answer; {@code killHint} is the command that stops a running ticket instead, if any. */
  private Reply control(Control c, String ticket, long nowMonoMs, String killHint) {
    if (c instanceof Control.Done d) {
      String note = "";
      if (d.ticket().parked() && d.ticket().state() == TicketState.LEASED && tasks.stopParked(nowMonoMs) > 0) {
        note = "its worker was asked to stop where it can stop safely; it runs again once unparked";
      }
      return new Reply.TicketChanged(d.ticket(), note);
    } else if (c instanceof Control.Denied d) {
      return switch (d.reason()) {
        case NOT_FOUND -> new Reply.NotFound("ticket " + ticket);
        case TERMINAL -> new Reply.Denied("ticket " + ticket + " is finished (succeeded, failed or cancelled)");
        case LEASED -> new Reply.Denied("ticket " + ticket + " is running"
            + (killHint == null ? ": wait for it to settle, or park it" : ": stop it with " + killHint));
        case NOT_HELD -> new Reply.Denied("ticket " + ticket + " is not held");
        case ATTEMPTS_LIMIT -> new Reply.Denied("ticket " + ticket + " would have more than "
            + NewTicket.MAX_ATTEMPTS + " attempts: ask for fewer");
        case WAITING -> new Reply.Denied("ticket " + ticket + " " + waitingFor(ticket) + ": it goes on by itself once"
            + " that one is released or retried (or cancel it)");
      };
    } else {
      throw new AssertionError(c);
    }
  }

  /** Q14: what a ticket held by a prerequisite waits for, in its hold reason's words. */
  private String waitingFor(String ticket) {
    return ctx.store.ticket(TicketId.parse(ticket)).map(Ticket::holdReason).filter(r -> r != null)
        .filter(r -> r.startsWith("waits for ")).orElse("waits for a task that did not succeed");
  }

  /** Q13: a kill of the ticket's live run (or of the run named, which must be it). */
  private Reply kill(Command.Kill k, long nowMonoMs, long nowWallMs) {
    Optional<Ticket> ticket = ctx.store.ticket(k.ticket());
    if (ticket.isEmpty()) {
      return new Reply.NotFound("ticket " + k.ticket());
    }
    Optional<RunId> live = ctx.store.lease(k.ticket()).map(Lease::run);
    RunId run = k.run() != null ? k.run() : live.orElse(null);
    if (run == null) {
      return new Reply.Denied("ticket " + k.ticket() + " is not running (it is " + ticket.get().state() + ")"
          + (ticket.get().state() == TicketState.READY || ticket.get().state() == TicketState.HELD
              ? ": cancel or hold it instead" : ""));
    }
    Optional<Run> stored = ctx.store.run(run);
    if (stored.isEmpty()) {
      return new Reply.NotFound("run " + run);
    }
    if (!live.map(run::equals).orElse(false)) {
      return new Reply.Denied("run " + run + " has ended (" + (stored.get().verdict() == null ? stored.get().state()
          : stored.get().verdict()) + "): there is nothing to kill");
    }
    String then = switch (k.intent()) {
      case KILL -> "the ticket will be cancelled";
      case KILL_RETRY -> "the ticket will be queued again";
      case KILL_HOLD -> "the ticket will be held";
      case TIMEOUT -> throw new AssertionError(k);
    };
    StopRequest s = tasks.kill(run, k.intent(), "killed by an operator; " + then, nowMonoMs, nowWallMs);
    if (s instanceof StopRequest.Recorded r) {
      String how = r.run().state() == RunState.CLAIMED ? "is starting: it will be stopped before it begins"
          : tasks.supervises(run) ? "is being stopped (TERM now, KILL after the stop grace)"
          : "will be stopped by the daemon that runs it";
      return new Reply.Killing(r.run(), run + " " + how + "; " + then
          + (r.run().stopIntent() != k.intent() ? " (as an earlier kill said)" : ""));
    } else if (s instanceof StopRequest.Denied d) {
      return switch (d.reason()) {
        case NOT_FOUND -> new Reply.NotFound("run " + run);
        case ENDED -> new Reply.Denied("run " + run + " has ended and is being settled: there is nothing to kill");
        case NOT_STARTED -> throw new AssertionError(d);
      };
    } else {
      throw new AssertionError(s);
    }
  }

  /** H1: another host's live runs rolled back or settled LOST, at an operator's word that it never comes back. */
  private Reply releaseHost(String hostId, long nowWallMs) {
    if (hostId.equals(ctx.config.hostId())) {
      return new Reply.Denied("host " + hostId + " is this daemon's own: its runs are watched here and need no"
          + " release; nothing changed");
    }
    if (ctx.store.owners().stream().noneMatch(o -> hostId.equals(o.hostId()))) {
      return new Reply.NotFound("host " + hostId + " (vigil hosts lists the hosts that used this store)");
    }
    return new Reply.HostReleased(hostId, tasks.releaseHost(hostId, nowWallMs));
  }

  /** Q15: a new schedule, if this daemon can run its tickets (its lane and worker type are configured). */
  private Reply scheduleAdd(dev.vigil.coordination.schedule.ScheduleSpec spec, long nowWallMs) {
    Optional<Reply.Invalid> refused = refusal(spec.template());
    if (refused.isPresent()) {
      return new Reply.Invalid(refused.get().reason() + "; the schedule was not added");
    }
    dev.vigil.coordination.schedule.ScheduleChange c = ctx.schedules.add(spec, nowWallMs);
    if (c instanceof dev.vigil.coordination.schedule.ScheduleChange.Exists e) {
      return new Reply.Denied("schedule " + spec.name() + " exists already (vigil schedule rm " + spec.name()
          + " first to replace it); nothing changed");
    }
    return scheduleChanged(c, "added", "");
  }

  /** The reply to a schedule verb's decision; {@code did} and {@code already} say what it did or found. */
  private Reply scheduleChanged(dev.vigil.coordination.schedule.ScheduleChange c, String did, String already) {
    if (c instanceof dev.vigil.coordination.schedule.ScheduleChange.Done d) {
      firing.changed();
      dev.vigil.coordination.schedule.Schedule s = d.schedule();
      Optional<Ticket> last = s.lastTicket() == null ? Optional.empty() : ctx.store.ticket(s.lastTicket());
      dev.vigil.coordination.schedule.ScheduleView v = dev.vigil.coordination.schedule.ScheduleView.of(s,
          last.orElse(null), last.isPresent() ? ctx.store.runsOf(s.lastTicket()) : List.of());
      return new Reply.ScheduleChanged(v, "schedule " + s.name() + " " + (d.changed() ? did : already));
    } else if (c instanceof dev.vigil.coordination.schedule.ScheduleChange.NotFound n) {
      return new Reply.NotFound("schedule " + n.name());
    } else if (c instanceof dev.vigil.coordination.schedule.ScheduleChange.Configured k) {
      return new Reply.Denied("schedule " + k.schedule().name() + " is defined in the daemon's configuration file: "
          + "remove it there and restart the daemon (or pause it); nothing changed");
    } else if (c instanceof dev.vigil.coordination.schedule.ScheduleChange.Exists e) {
      return new Reply.Denied("schedule " + e.existing().name() + " exists already; nothing changed");
    } else {
      throw new AssertionError(c);
    }
  }

  /** A finished ticket queued again as a new ticket of the same work, if its lane and type are still configured. */
  private Reply retry(Command.Retry r, long nowMonoMs, long nowWallMs) {
    Optional<Ticket> original = ctx.store.ticket(r.ticket());
    if (original.isEmpty()) {
      return new Reply.NotFound("ticket " + r.ticket());
    }
    Ticket t = original.get();
    if (ctx.config.concurrency(t.lane()) == 0) {
      return new Reply.Invalid("ticket " + r.ticket() + " is in lane '" + t.lane() + "', which is not configured");
    }
    if (!ctx.config.workerTypes().contains(t.type())) {
      return new Reply.Invalid("ticket " + r.ticket() + " needs worker type '" + t.type() + "', which is not configured");
    }
    Retry d = ctx.coordination.retry(r.ticket(), nowWallMs);
    if (d instanceof Retry.Retried ok) {
      if (lifecycle.dispatches()) {
        scheduler.dispatch(nowMonoMs, nowWallMs);
      }
      return new Reply.Retried(ok.ticket(), ok.original());
    } else if (d instanceof Retry.Denied no) {
      return switch (no.reason()) {
        case NOT_FOUND -> new Reply.NotFound("ticket " + r.ticket());
        case NOT_FINISHED -> new Reply.Denied("ticket " + r.ticket() + " is " + t.state()
            + ": it has not finished, so it may still run as it is");
        case ALREADY_RETRIED -> new Reply.Denied("ticket " + r.ticket() + " was retried already as " + no.retriedAs()
            + ": retry that one");
      };
    } else {
      throw new AssertionError(d);
    }
  }
}
