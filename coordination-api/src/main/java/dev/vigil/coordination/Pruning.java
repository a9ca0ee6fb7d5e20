package dev.vigil.coordination;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a prune decided (Q18).
 *
 * @param dryRun      true when nothing was deleted: the lists say what would have been
 * @param cutoffMs    finished tickets that ended before this wall-clock ms could go
 * @param tickets     the tickets pruned (or that would be), in id order
 * @param runs        their runs, in id order
 * @param directories every run whose directory is still to be removed, in id order: the runs of this
 *                    prune and those of earlier prunes whose removal is not recorded yet (a dry run
 *                    lists what it would be)
 * @param kept        how many tickets stay, for each reason (every reason present)
 */
public record Pruning(boolean dryRun, long cutoffMs, List<TicketId> tickets, List<RunId> runs,
                      List<RunId> directories, Map<Retention.Reason, Integer> kept) {
  public Pruning {
    tickets = List.copyOf(tickets);
    runs = List.copyOf(runs);
    directories = List.copyOf(directories);
    Map<Retention.Reason, Integer> k = new EnumMap<>(Retention.Reason.class);
    for (Retention.Reason r : Retention.Reason.values()) {
      k.put(r, Objects.requireNonNull(kept.get(r), () -> "kept has no count for " + r));
    }
    kept = java.util.Collections.unmodifiableMap(k);
  }

  /**
   * What a prune is asked.
   *
   * @param job      the job's name, under which the store records its line ({@code retention}, {@code prune})
   * @param cutoffMs finished tickets that ended before this wall-clock ms may go
   * @param dryRun   decide and report only
   */
  public record Request(String job, long cutoffMs, boolean dryRun) {
    public Request {
      MaintenanceRecord.checkJob(job);
    }
  }

  /** The record line of a prune that deleted something (or nothing). */
  public String summary() {
    return tickets.size() + (tickets.size() == 1 ? " task" : " tasks") + " and " + runs.size()
        + (runs.size() == 1 ? " run" : " runs") + " deleted; " + directories.size()
        + (directories.size() == 1 ? " run directory" : " run directories") + " to remove";
  }
}
