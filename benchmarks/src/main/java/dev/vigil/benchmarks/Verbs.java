package dev.vigil.benchmarks;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.OwnerId;
import java.util.List;

/**
 * The one place where the benchmarks read a verb's decision whose shape is expected to change
 * ({@code claimNext} returning a typed value instead of a list): adapt here only.
 */
final class Verbs {
  private Verbs() {}

  /** The claims {@code claimNext} granted. */
  static List<Claim.Granted> claimNext(Coordination c, Lane lane, OwnerId owner, long nowMs, long ttlMs, int max) {
    return c.claimNext(lane, owner, nowMs, ttlMs, max);
  }
}
