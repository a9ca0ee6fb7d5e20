package dev.vigil.supervisor.engine.port;

import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.schedule.Schedules;
import java.util.Objects;

/**
 * Everything the engine acts through. The engine does nothing else: no I/O, no threads, no clock.
 *
 * @param coordination the store's verbs and, through {@code store()}, its queries
 * @param processes    launch, identity, liveness, identity-gated group signals
 * @param directories  run and service directories: reservation, identity, outcome, busy evidence
 * @param channel      frames to workers
 * @param statusBoard  where status is published every heartbeat
 * @param journal      where events are recorded
 * @param schedules    the recurring schedules of the same store (Q15)
 */
public record Ports(Coordination coordination, ProcessTable processes, RunDirectories directories,
                    WorkerChannel channel, StatusBoard statusBoard, Journal journal, Schedules schedules) {
  public Ports {
    Objects.requireNonNull(schedules, "schedules");
    Objects.requireNonNull(coordination, "coordination");
    Objects.requireNonNull(processes, "processes");
    Objects.requireNonNull(directories, "directories");
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(statusBoard, "statusBoard");
    Objects.requireNonNull(journal, "journal");
  }
}
