package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lane;
import dev.vigil.coordination.OwnerId;
import dev.vigil.supervisor.TimeoutLattice;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Everything the engine needs to know that is not in the store: who this daemon incarnation is,
 * what it runs, and every timeout. Immutable; the compact constructor rejects (never repairs) a bad
 * value, naming the field.
 *
 * @param owner       this incarnation's owner id; must be new for every daemon start
 * @param host        the host name registered with the owner
 * @param build       this daemon's build; workers report it back (S6)
 * @param version     this daemon's version, for status (S8)
 * @param protocol    the socket protocol number, for status
 * @param lanes       the lanes this daemon claims from, each with its concurrency limit
 * @param workerTypes the worker types this daemon can launch; submissions of other types are refused
 * @param services    the service sessions, in configuration order
 * @param timeouts    every timeout, validated by {@link TimeoutLattice} (S2)
 */
public record EngineConfig(OwnerId owner, String host, String build, String version, int protocol,
                           List<LaneLimit> lanes, SortedSet<String> workerTypes, List<ServiceSpec> services,
                           TimeoutLattice timeouts) {
  private static final Pattern TYPE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  /**
   * A lane and how many of its runs may be live at once (CLAIMED, RUNNING or EXITED, by any owner).
   *
   * @param lane        the lane
   * @param concurrency its limit, 1-10000
   */
  public record LaneLimit(Lane lane, int concurrency) {
    public LaneLimit {
      Objects.requireNonNull(lane, "lane");
      if (concurrency < 1 || concurrency > 10_000) {
        throw new IllegalArgumentException("lanes." + lane + ".concurrency (" + concurrency + ") must be 1-10000");
      }
    }
  }

  public EngineConfig {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(build, "build");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(lanes, "lanes");
    Objects.requireNonNull(workerTypes, "workerTypes");
    Objects.requireNonNull(services, "services");
    Objects.requireNonNull(timeouts, "timeouts");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank");
    }
    if (build.isBlank()) {
      throw new IllegalArgumentException("build must not be blank");
    }
    if (version.isBlank()) {
      throw new IllegalArgumentException("version must not be blank");
    }
    if (protocol < 1) {
      throw new IllegalArgumentException("protocol (" + protocol + ") must be >= 1");
    }
    lanes = List.copyOf(lanes);
    Set<Lane> seen = new HashSet<>();
    for (LaneLimit l : lanes) {
      if (!seen.add(l.lane())) {
        throw new IllegalArgumentException("lanes: lane '" + l.lane() + "' is configured twice");
      }
    }
    workerTypes = new TreeSet<>(workerTypes);
    for (String t : workerTypes) {
      if (!TYPE.matcher(t).matches()) {
        throw new IllegalArgumentException("workerTypes: '" + t + "' must be 1-64 letters, digits, . _ or -");
      }
    }
    services = List.copyOf(services);
    Set<String> names = new HashSet<>();
    for (ServiceSpec s : services) {
      if (!names.add(s.name())) {
        throw new IllegalArgumentException("services: service '" + s.name() + "' is configured twice");
      }
      if (!workerTypes.contains(s.workerType())) {
        throw new IllegalArgumentException("services." + s.name() + ".workerType '" + s.workerType()
            + "' is not one of workerTypes " + workerTypes);
      }
    }
  }

  /** The limit of {@code lane}, or 0 when this daemon does not serve it. */
  int concurrency(Lane lane) {
    for (LaneLimit l : lanes) {
      if (l.lane().equals(lane)) {
        return l.concurrency();
      }
    }
    return 0;
  }

  long ms(TimeoutLattice.Timeout t) {
    return timeouts.ms(t);
  }
}
