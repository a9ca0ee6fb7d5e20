package dev.vigil.coordination.schedule;

import java.util.List;
import java.util.OptionalLong;

/**
 * Q15, the fire rule: given the due fires of a schedule, its waiting fire, whether its previous fire's
 * ticket is still live, and now, what to submit. One pure function, used by the reference model and by
 * every store; time is an argument.
 *
 * <ol>
 *   <li>A due fire is one after the schedule's last decided fire and at or before now. The latest due
 *       fire is on time when now is at most {@link #LATE_MS} after it; every other due fire was missed.
 *   <li>Catch-up picks the candidates: {@code none} the latest fire only if it is on time;
 *       {@code latest} the latest fire; {@code all} every due fire, at most {@link #CATCH_UP_ALL_MAX}
 *       (the latest; older ones are dropped).
 *   <li>A waiting fire (overlap {@code queue}) goes first: while the previous ticket is live it keeps
 *       waiting and due fires fold into it; once that ticket has ended it submits alone, and due fires
 *       fold into it.
 *   <li>Otherwise, with no candidate, the due fires are skipped as missed. With candidates and a live
 *       previous ticket: {@code skip} passes them over, {@code queue} makes the latest candidate wait
 *       (the others fold into it), {@code parallel} submits them. With no live previous ticket they
 *       submit.
 * </ol>
 *
 * Every decision but {@link FireDecision.Idle} moves the schedule's last decided fire to the latest due
 * fire, so the same fire is never decided twice, and a store that applies the decision in the
 * transaction that reads the schedule submits each fire at most once (with the fire's idempotency key as
 * a second guard).
 */
public final class FireRule {
  /** How late (ms) the daemon may reach a fire for it to count as on time rather than missed: 1 minute. */
  public static final long LATE_MS = 60_000;
  /** The most missed fires catch-up {@code all} submits at one look: the latest 100. */
  public static final int CATCH_UP_ALL_MAX = 100;

  private FireRule() {}

  /**
   * The decision for one look at a schedule.
   *
   * @param due           the due fires (at most {@link #CATCH_UP_ALL_MAX}, oldest first)
   * @param pendingMs     the fire waiting behind a live ticket (overlap {@code queue}), if any
   * @param previousLive  whether the ticket of the previous fire is still live (READY, LEASED or HELD)
   * @param nowMs         now, wall-clock ms
   */
  public static FireDecision decide(Cron.Due due, OptionalLong pendingMs, boolean previousLive, long nowMs,
                                    CatchUp catchUp, Overlap overlap) {
    if (pendingMs.isPresent()) {
      if (due.isEmpty() && previousLive) {
        return new FireDecision.Idle();
      }
      long through = due.isEmpty() ? pendingMs.getAsLong() : due.latest();
      int folded = due.firesMs().size();
      return previousLive ? new FireDecision.Wait(pendingMs.getAsLong(), folded, through)
          : new FireDecision.Submit(List.of(pendingMs.getAsLong()), folded, through);
    }
    if (due.isEmpty()) {
      return new FireDecision.Idle();
    }
    List<Long> fires = due.firesMs();
    long latest = due.latest();
    List<Long> candidates = switch (catchUp) {
      case NONE -> nowMs - latest <= LATE_MS ? List.of(latest) : List.of();
      case LATEST -> List.of(latest);
      case ALL -> fires.subList(Math.max(0, fires.size() - CATCH_UP_ALL_MAX), fires.size());
    };
    if (candidates.isEmpty()) {
      return new FireDecision.Skip(fires.size(), latest, FireDecision.Reason.MISSED);
    }
    int notCandidates = fires.size() - candidates.size();
    if (!previousLive) {
      return new FireDecision.Submit(candidates, notCandidates, latest);
    }
    return switch (overlap) {
      case SKIP -> new FireDecision.Skip(fires.size(), latest, FireDecision.Reason.STILL_LIVE);
      case QUEUE -> new FireDecision.Wait(candidates.get(candidates.size() - 1), fires.size() - 1, latest);
      case PARALLEL -> new FireDecision.Submit(candidates, notCandidates, latest);
    };
  }
}
