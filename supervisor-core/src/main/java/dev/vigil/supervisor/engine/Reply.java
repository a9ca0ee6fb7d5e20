package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Event;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The engine's answer to a {@link Command}. The CLI maps {@link Invalid} and {@link NotFound} to
 * exit 2, {@link Denied} and {@link Busy} to exit 3, everything else to 0.
 */
public sealed interface Reply {
  /** A ticket was queued, or an earlier one with the same idempotency key is named. */
  record Submitted(Ticket ticket, boolean duplicate) implements Reply {
    public Submitted {
      Objects.requireNonNull(ticket, "ticket");
    }
  }

  /** The tickets of a {@link Command.SubmitAll}, one per ticket submitted and in its order. */
  record SubmittedAll(List<Submitted> tickets) implements Reply {
    public SubmittedAll {
      tickets = List.copyOf(tickets);
    }
  }

  record StatusReport(Status status) implements Reply {
    public StatusReport {
      Objects.requireNonNull(status, "status");
    }
  }

  /**
   * Tickets, with the state of every ticket they wait for (Q14), so that a view can say what each
   * still waits for.
   */
  record TicketList(List<Ticket> tickets, Map<TicketId, TicketState> prerequisites) implements Reply {
    public TicketList {
      tickets = List.copyOf(tickets);
      prerequisites = Map.copyOf(prerequisites);
    }

    public TicketList(List<Ticket> tickets) {
      this(tickets, Map.of());
    }
  }

  /**
   * A ticket, its runs, the state of every ticket it waits for (Q14), and the latest checkpoint it keeps
   * (Q17), or null.
   */
  record TicketDetail(Ticket ticket, List<Run> runs, Map<TicketId, TicketState> prerequisites,
                      dev.vigil.coordination.Checkpoint checkpoint) implements Reply {
    public TicketDetail {
      Objects.requireNonNull(ticket, "ticket");
      runs = List.copyOf(runs);
      prerequisites = Map.copyOf(prerequisites);
    }

    public TicketDetail(Ticket ticket, List<Run> runs, Map<TicketId, TicketState> prerequisites) {
      this(ticket, runs, prerequisites, null);
    }

    public TicketDetail(Ticket ticket, List<Run> runs) {
      this(ticket, runs, Map.of());
    }
  }

  record RunList(List<Run> runs) implements Reply {
    public RunList {
      runs = List.copyOf(runs);
    }
  }

  /** The events asked for, in id order. */
  record EventList(List<Event> events) implements Reply {
    public EventList {
      events = List.copyOf(events);
    }
  }

  /**
   * S7: a service's transcript entries, in id order.
   *
   * @param service the service
   * @param entries its kept entries asked for
   */
  record TranscriptPage(String service, List<dev.vigil.coordination.TranscriptEntry> entries) implements Reply {
    public TranscriptPage {
      Objects.requireNonNull(service, "service");
      entries = List.copyOf(entries);
    }
  }

  /**
   * Q13: a kill is on record and its run is being stopped (or will be instead of starting).
   *
   * @param run     the run as the store has it after the kill was recorded
   * @param message what happens next, in plain words
   */
  record Killing(Run run, String message) implements Reply {
    public Killing {
      Objects.requireNonNull(run, "run");
      Objects.requireNonNull(message, "message");
    }
  }

  /**
   * A finished ticket was queued again.
   *
   * @param ticket   the new ticket
   * @param original the original after the retry (a HELD one is CANCELLED)
   */
  record Retried(Ticket ticket, Ticket original) implements Reply {
    public Retried {
      Objects.requireNonNull(ticket, "ticket");
      Objects.requireNonNull(original, "original");
    }
  }

  /**
   * An operator verb on a ticket applied (or already so).
   *
   * @param ticket the ticket after the verb
   * @param note   what else happened, e.g. that its worker was told to stop at a safe point
   */
  record TicketChanged(Ticket ticket, String note) implements Reply {
    public TicketChanged {
      Objects.requireNonNull(ticket, "ticket");
      Objects.requireNonNull(note, "note");
    }
  }

  /**
   * A lane was parked or unparked.
   *
   * @param lane          the lane
   * @param parked        whether it is parked now
   * @param changed       whether this command changed it
   * @param workersTold   how many live workers of the lane were told to stop at a safe point
   */
  record LaneChanged(Lane lane, boolean parked, boolean changed, int workersTold) implements Reply {
    public LaneChanged {
      Objects.requireNonNull(lane, "lane");
    }
  }

  /**
   * A hand-started run was claimed and its worker launched (Q8), or its claim was rolled back at
   * once; {@code run} is the run as the store has it after the launch; {@code resumedFrom} is the
   * checkpoint its worker was handed (Q17), or null when it starts over.
   */
  record HandStarted(Run run, dev.vigil.coordination.Checkpoint resumedFrom) implements Reply {
    public HandStarted {
      Objects.requireNonNull(run, "run");
    }

    /** A run that starts over. */
    public HandStarted(Run run) {
      this(run, null);
    }
  }

  /** Q15: every schedule, by name. */
  record Schedules(List<dev.vigil.coordination.schedule.ScheduleView> schedules) implements Reply {
    public Schedules {
      schedules = List.copyOf(schedules);
    }
  }

  /**
   * A schedule was added, paused, resumed or removed (or already so).
   *
   * @param schedule the schedule after the command (as it was, for a removal)
   * @param message  what changed, in plain words
   */
  record ScheduleChanged(dev.vigil.coordination.schedule.ScheduleView schedule, String message) implements Reply {
    public ScheduleChanged {
      Objects.requireNonNull(schedule, "schedule");
      Objects.requireNonNull(message, "message");
    }
  }

  /** Done; the message says what changed. */
  record Acknowledged(String message) implements Reply {
    public Acknowledged {
      Objects.requireNonNull(message, "message");
    }
  }

  /** The daemon is shutting down (after an idle round in which every worker quiesced, or stopping workers). */
  record ShuttingDown(String message) implements Reply {
    public ShuttingDown {
      Objects.requireNonNull(message, "message");
    }
  }

  /** S5: not every worker quiesced; every gate was released and nothing was stopped. */
  record Busy(String message) implements Reply {
    public Busy {
      Objects.requireNonNull(message, "message");
    }
  }

  /** Refused by the state of things (a leased ticket cannot be held, a terminal one cannot be parked…). */
  record Denied(String reason) implements Reply {
    public Denied {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** The command itself is wrong (a lane, worker type or service this daemon does not have). */
  record Invalid(String reason) implements Reply {
    public Invalid {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** No such ticket (or service). */
  record NotFound(String what) implements Reply {
    public NotFound {
      Objects.requireNonNull(what, "what");
    }
  }

  /** Q16: the questions asked for, in id order. */
  record QuestionList(List<dev.vigil.coordination.Question> questions) implements Reply {
    public QuestionList {
      questions = List.copyOf(questions);
    }
  }

  /** Q16: the answer is recorded; the daemon applies it next. */
  record QuestionAnswered(dev.vigil.coordination.Question question) implements Reply {
    public QuestionAnswered {
      java.util.Objects.requireNonNull(question, "question");
    }
  }

  /** Q18: what a prune deleted (or, in a dry run, would delete). */
  record Pruned(dev.vigil.coordination.Pruning pruning) implements Reply {
    public Pruned {
      java.util.Objects.requireNonNull(pruning, "pruning");
    }
  }

  /** Q18: how many directories left the list of those to remove. */
  record DirectoriesRecorded(int removed) implements Reply {}

  /** Q18: what a compaction did. */
  record Compacted(dev.vigil.coordination.Compacted compacted) implements Reply {
    public Compacted {
      java.util.Objects.requireNonNull(compacted, "compacted");
    }
  }

  /** H1: the hosts whose daemons have used the store, this daemon's first. */
  record HostList(List<HostView> hosts) implements Reply {
    public HostList {
      hosts = List.copyOf(hosts);
    }
  }

  /** H1: the runs of a released host that were rolled back or settled LOST. */
  record HostReleased(String hostId, List<dev.vigil.coordination.RunId> runs) implements Reply {
    public HostReleased {
      java.util.Objects.requireNonNull(hostId, "hostId");
      runs = List.copyOf(runs);
    }
  }

  /** Q18: each maintenance job's last line, by job name. */
  record MaintenanceLines(List<dev.vigil.coordination.MaintenanceRecord> lines) implements Reply {
    public MaintenanceLines {
      lines = List.copyOf(lines);
    }
  }
}
