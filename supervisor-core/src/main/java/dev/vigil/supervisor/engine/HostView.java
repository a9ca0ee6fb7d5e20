package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Lease;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.Store;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * One host whose daemons have used the store (H1), as {@code vigil hosts} shows it.
 *
 * @param hostId           its id; null for the host of a store that one host uses (its daemons register without
 *                         one), and daemons registered without an id count as the answering daemon's host's
 * @param names            the host names its daemons reported, in name order
 * @param latestOwner      its latest daemon incarnation
 * @param latestStartedAtMs when that incarnation registered, wall-clock ms
 * @param liveRuns         its runs not settled yet
 * @param leasesUntilMs    the latest expiry of its leases (each renewal moves it on: its daemon's heartbeat in
 *                         the store), 0 when it holds none
 * @param thisHost         whether it is the host of the daemon that answered
 */
public record HostView(String hostId, List<String> names, OwnerId latestOwner, long latestStartedAtMs, int liveRuns,
                       long leasesUntilMs, boolean thisHost) {
  public HostView {
    names = List.copyOf(names);
    Objects.requireNonNull(latestOwner, "latestOwner");
  }

  /** Every host of {@code store}'s owners, {@code myHostId}'s first, then by id. */
  public static List<HostView> of(Store store, String myHostId) {
    Map<String, List<Owner>> byHost = new LinkedHashMap<>();
    Map<OwnerId, String> hostOf = new HashMap<>();
    for (Owner o : store.owners()) {
      String key = o.ofHost(myHostId) ? myHostId : o.hostId();
      byHost.computeIfAbsent(key, k -> new ArrayList<>()).add(o);
      hostOf.put(o.id(), key);
    }
    Map<String, Integer> live = new HashMap<>();
    for (Run r : store.liveRuns()) {
      live.merge(hostOf.getOrDefault(r.owner(), myHostId), 1, Integer::sum);
    }
    Map<String, Long> until = new HashMap<>();
    for (Lease l : store.leases()) {
      until.merge(hostOf.getOrDefault(l.owner(), myHostId), l.expiresAtMs(), Math::max);
    }
    List<HostView> out = new ArrayList<>();
    for (Map.Entry<String, List<Owner>> e : byHost.entrySet()) {
      Owner latest = e.getValue().stream().max(Comparator.comparingLong(Owner::startedAtMs)
          .thenComparing(o -> o.id().value())).orElseThrow();
      TreeSet<String> names = new TreeSet<>();
      e.getValue().forEach(o -> names.add(o.host()));
      out.add(new HostView(e.getKey(), List.copyOf(names), latest.id(), latest.startedAtMs(),
          live.getOrDefault(e.getKey(), 0), until.getOrDefault(e.getKey(), 0L), Objects.equals(e.getKey(), myHostId)));
    }
    out.sort(Comparator.comparing((HostView h) -> !h.thisHost())
        .thenComparing(HostView::hostId, Comparator.nullsFirst(Comparator.naturalOrder())));
    return out;
  }
}
