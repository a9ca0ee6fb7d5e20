package dev.vigil.coordination;

import java.util.List;

/**
 * The verbs of maintenance (Q18), part of {@link Coordination}: the store's side of the finite maintenance
 * jobs. A job's worker process does the slow file work (removing run directories); the store decides and
 * records, each verb one transaction.
 *
 * <ol>
 *   <li>{@link #prune} decides by {@link Retention#decide} and, unless it is a dry run, deletes the chosen
 *       tickets with their runs, results, labels, links and events, lists their runs as directories to
 *       remove, and records the job's line, all in one transaction: a prune's effect and its record are
 *       never split.
 *   <li>A directory is removed only after its rows are gone, and stays listed ({@link Pruning#directories})
 *       until {@link #directoriesRemoved} records it removed. A job cut by a crash runs again; its prune
 *       returns the directories still listed, and removing a directory already gone is no error.
 *   <li>{@link #compact} compacts the store's file at a safe point: no other verb is in flight while it
 *       runs, and it is asked only by the daemon's engine, between its decisions.
 * </ol>
 */
public interface MaintenanceVerbs {
  /** Prunes (or, in a dry run, only decides) what {@link Retention} allows for {@code request}. */
  Pruning prune(Pruning.Request request, long nowMs);

  /**
   * Records that the directories of {@code runs} are removed: they leave the list of directories to
   * remove (runs not on it are ignored), and {@code job}'s line becomes {@code summary}.
   *
   * @return how many runs left the list
   */
  int directoriesRemoved(String job, List<RunId> runs, String summary, long nowMs);

  /**
   * Compacts the store's file now, at a safe point (no verb in flight, none starts meanwhile), and
   * records the job's line. A store without a file to compact records the line and reports no change.
   */
  Compacted compact(String job, long nowMs);

  /** The line each maintenance job last recorded, by job name. */
  List<MaintenanceRecord> maintenanceRecords();
}
