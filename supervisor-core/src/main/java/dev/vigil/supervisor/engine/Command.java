package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunQuery;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketQuery;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/** A client command (DESIGN.md §6, §8), answered by exactly one {@link Reply}. */
public sealed interface Command {
  /** Queue a ticket; refused when its lane or worker type is not configured. */
  record Submit(NewTicket ticket) implements Command {
    public Submit {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /**
   * Queue many tickets at once, in one transaction, all or nothing: refused whole (nothing queued)
   * when one ticket's lane or worker type is not configured.
   */
  record SubmitAll(List<NewTicket> tickets) implements Command {
    public SubmitAll {
      tickets = List.copyOf(tickets);
    }
  }

  /** The daemon's status, as published every heartbeat. */
  record StatusQuery() implements Command {}

  /** Tickets matching a query, in id order. */
  record ListTickets(TicketQuery query) implements Command {
    public ListTickets {
      Objects.requireNonNull(query, "query");
    }
  }

  /** One ticket with its runs. */
  record Show(TicketId ticket) implements Command {
    public Show {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /** Runs matching a query, in id order (one page: see {@link RunQuery#after}). */
  record ListRuns(RunQuery query) implements Command {
    public ListRuns {
      Objects.requireNonNull(query, "query");
    }
  }

  /** Q9: never claim the ticket again until unparked; a live worker is told to stop at a safe point. */
  record Park(TicketId ticket) implements Command {
    public Park {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  record Unpark(TicketId ticket) implements Command {
    public Unpark {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /** Q9: claim nothing from the lane until unparked; its live workers are told to stop at a safe point. */
  record ParkLane(Lane lane) implements Command {
    public ParkLane {
      Objects.requireNonNull(lane, "lane");
    }
  }

  record UnparkLane(Lane lane) implements Command {
    public UnparkLane {
      Objects.requireNonNull(lane, "lane");
    }
  }

  /** READY → HELD with a reason. */
  record Hold(TicketId ticket, String reason) implements Command {
    public Hold {
      Objects.requireNonNull(ticket, "ticket");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * HELD → READY (Q8: the only way out of a hold), granting {@code attempts} more attempts (Q1);
   * when empty, one when none remain.
   *
   * @throws IllegalArgumentException when {@code attempts} is not 1-{@value NewTicket#MAX_ATTEMPTS} (before
   *                                  the command reaches the engine, which would refuse it as a programming error)
   */
  record Release(TicketId ticket, OptionalInt attempts) implements Command {
    public Release {
      Objects.requireNonNull(ticket, "ticket");
      Objects.requireNonNull(attempts, "attempts");
      if (attempts.isPresent() && (attempts.getAsInt() < 1 || attempts.getAsInt() > NewTicket.MAX_ATTEMPTS)) {
        throw new IllegalArgumentException("attempts (" + attempts.getAsInt() + ") must be 1-" + NewTicket.MAX_ATTEMPTS);
      }
    }

    public Release(TicketId ticket) {
      this(ticket, OptionalInt.empty());
    }
  }

  /**
   * Q13: stop a running ticket's run now (TERM to its group, KILL after the grace); it settles KILLED,
   * no attempt spent, and the ticket goes where {@code intent} says (CANCELLED, READY or HELD).
   *
   * @param ticket the ticket whose live run is killed
   * @param run    the run named, or null when the ticket was named (its live run)
   * @param intent a kill ({@link StopIntent#kill()})
   */
  record Kill(TicketId ticket, RunId run, StopIntent intent) implements Command {
    public Kill {
      Objects.requireNonNull(ticket, "ticket");
      Objects.requireNonNull(intent, "intent");
      if (!intent.kill()) {
        throw new IllegalArgumentException("a kill's intent is a kill, not " + intent);
      }
      if (run != null && !run.ticket().equals(ticket)) {
        throw new IllegalArgumentException("run " + run + " is not of ticket " + ticket);
      }
    }
  }

  /** Queue a finished ticket again as a new ticket of the same work (SUCCEEDED, FAILED, CANCELLED or HELD). */
  record Retry(TicketId ticket) implements Command {
    public Retry {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /** The events after {@code afterId}, in id order: at most {@code limit}. */
  record Events(long afterId, int limit) implements Command {
    public Events {
      if (afterId < 0) {
        throw new IllegalArgumentException("after (" + afterId + ") must be >= 0");
      }
      if (limit < 1) {
        throw new IllegalArgumentException("limit (" + limit + ") must be >= 1");
      }
    }
  }

  /**
   * S7: the kept transcript entries of {@code service} after {@code afterId}, in id order: at most {@code limit}.
   */
  record Transcript(String service, long afterId, int limit) implements Command {
    public Transcript {
      Objects.requireNonNull(service, "service");
      if (afterId < 0) {
        throw new IllegalArgumentException("after (" + afterId + ") must be >= 0");
      }
      if (limit < 1) {
        throw new IllegalArgumentException("limit (" + limit + ") must be >= 1");
      }
    }
  }

  /** Q15: store a new recurring schedule; refused when its lane or worker type is not configured. */
  record ScheduleAdd(dev.vigil.coordination.schedule.ScheduleSpec spec) implements Command {
    public ScheduleAdd {
      Objects.requireNonNull(spec, "spec");
    }
  }

  /** Every schedule, with its next fire and its last fire's ticket and verdict. */
  record ScheduleList() implements Command {}

  /** A schedule decides no fire until resumed. */
  record SchedulePause(dev.vigil.coordination.schedule.ScheduleName name) implements Command {
    public SchedulePause {
      Objects.requireNonNull(name, "name");
    }
  }

  /** A paused schedule fires again from now (the fires of the pause are dropped). */
  record ScheduleResume(dev.vigil.coordination.schedule.ScheduleName name) implements Command {
    public ScheduleResume {
      Objects.requireNonNull(name, "name");
    }
  }

  /** Remove a schedule added by command (a configured one is removed from the configuration); its tickets stay. */
  record ScheduleRemove(dev.vigil.coordination.schedule.ScheduleName name) implements Command {
    public ScheduleRemove {
      Objects.requireNonNull(name, "name");
    }
  }

  /** READY or HELD → CANCELLED. */
  record Cancel(TicketId ticket) implements Command {
    public Cancel {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /**
   * Q8: start the READY ticket now, by hand, outside the scheduler: a hand-started claim in a free
   * slot of its lane (a pause and priorities do not apply; parking, holds and {@code notBefore} do),
   * launched and supervised like any run. A run that leaves the ticket runnable holds it (Q8).
   * With {@code resume}, only when the attempt would resume from a checkpoint (Q17): a ticket whose type
   * is not resumable, or that keeps no checkpoint, is refused and nothing changes.
   */
  record RunByHand(TicketId ticket, boolean resume) implements Command {
    public RunByHand {
      Objects.requireNonNull(ticket, "ticket");
    }

    /** A hand start whether or not the attempt resumes. */
    public RunByHand(TicketId ticket) {
      this(ticket, false);
    }
  }

  /** Stop dispatching new work now; not durable (a restarted daemon dispatches). Workers are untouched. */
  record Pause() implements Command {}

  record Resume() implements Command {}

  /** Start a service's worker (after a give-up, with a fresh restart budget). */
  record StartService(String service) implements Command {
    public StartService {
      Objects.requireNonNull(service, "service");
    }
  }

  /** Stop a service's worker (TERM, then KILL after the grace) and leave the session down. */
  record StopService(String service) implements Command {
    public StopService {
      Objects.requireNonNull(service, "service");
    }
  }

  /**
   * Shut the daemon down. {@link Mode#IF_IDLE} runs a quiesce round over every worker (S5) and
   * stops only if all quiesced, else answers {@link Reply.Busy}; {@link Mode#STOP_WORKERS} stops
   * every worker (their runs settle without spending attempts) and then the daemon.
   * {@link Mode#LEAVE_WORKERS} stops the daemon at once and sends no worker anything: every worker
   * runs on, untouched, for the next daemon to adopt (D4; {@code vigil restart}). None parks anything
   * (Q9). The reply comes when the shutdown is decided, possibly from a later tick.
   */
  record Shutdown(Mode mode) implements Command {
    public Shutdown {
      Objects.requireNonNull(mode, "mode");
    }

    public enum Mode {
      IF_IDLE,
      STOP_WORKERS,
      LEAVE_WORKERS
    }
  }

  /** Q16: the questions in any of {@code states} (all when empty), in id order. */
  record Questions(java.util.Set<dev.vigil.coordination.Question.State> states) implements Command {
    public Questions {
      states = java.util.Set.copyOf(states);
    }
  }

  /** Q16: records a person's answer (ANSWERED); the daemon applies it on its next step, never in this command. */
  record Answer(dev.vigil.coordination.QuestionId question, String option) implements Command {
    public Answer {
      java.util.Objects.requireNonNull(question, "question");
      java.util.Objects.requireNonNull(option, "option");
    }
  }

  /**
   * Q18: prunes the finished tickets that ended more than {@code olderThanMs} before now (a dry run only
   * decides), recorded under {@code job}. Asked by a maintenance job's worker, or read by {@code vigil prune
   * --dry-run}.
   */
  record Prune(String job, long olderThanMs, boolean dryRun) implements Command {
    public Prune {
      new dev.vigil.coordination.Pruning.Request(job, 0, dryRun); // checks the job's name
      if (olderThanMs < 0) {
        throw new IllegalArgumentException("olderThanMs (" + olderThanMs + ") must be >= 0");
      }
    }
  }

  /** Q18: a maintenance job's worker removed the directories of {@code runs}; {@code summary} is its line. */
  record DirectoriesRemoved(String job, List<RunId> runs, String summary) implements Command {
    public DirectoriesRemoved {
      new dev.vigil.coordination.MaintenanceRecord(job, 0, summary); // checks both
      runs = List.copyOf(runs);
    }
  }

  /** Q18: compacts the store at a safe point (between the engine's decisions, no verb in flight). */
  record Compact(String job) implements Command {
    public Compact {
      new dev.vigil.coordination.MaintenanceRecord(job, 0, ""); // checks the job's name
    }
  }

  /** Q18: each maintenance job's last line. */
  record Maintenance() implements Command {}

  /** H1: the hosts whose daemons have used the store, with their live runs. */
  record Hosts() implements Command {}

  /**
   * H1: an operator says host {@code hostId} will never come back: its live runs are rolled back or settled
   * LOST through the retry policy by this daemon.
   */
  record ReleaseHost(String hostId) implements Command {
    public ReleaseHost {
      dev.vigil.coordination.Owner.checkHostId(hostId);
    }
  }
}
