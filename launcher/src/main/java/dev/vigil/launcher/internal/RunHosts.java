package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Store;
import dev.vigil.coordination.TicketId;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Names the host of each run in a reply, on a store that several hosts share (H1): every run (and
 * every live run of a status) gets {@code host}, the host id its daemon registered, and every running
 * ticket gets the host of the run that holds it. On a store of one host the field stays {@code null}.
 * One instance per scheduling thread: it remembers each daemon's host, which never changes.
 */
final class RunHosts {
  private final Map<String, Optional<String>> hostOfOwner = new HashMap<>();

  /** Fills {@code host} in {@code reply}, reading owners and leases from {@code store}. */
  void fill(JsonNode reply, Store store) {
    if (reply instanceof ObjectNode o) {
      if (o.has("host") && o.get("host").isNull()) {
        host(o, store).ifPresent(h -> o.put("host", h));
      }
      o.forEach(child -> fill(child, store));
    } else if (reply != null && reply.isArray()) {
      reply.forEach(child -> fill(child, store));
    }
  }

  private Optional<String> host(ObjectNode o, Store store) {
    if (o.path("owner").isTextual()) { // a run, or a live run of a status
      return ownerHost(o.path("owner").asText(), store);
    }
    if (o.path("state").asText().equals("LEASED") && o.path("id").isTextual()) { // a running ticket
      try {
        return store.lease(TicketId.parse(o.path("id").asText())).map(Lease::owner)
            .flatMap(owner -> ownerHost(owner.value(), store));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  private Optional<String> ownerHost(String owner, Store store) {
    Optional<String> known = hostOfOwner.get(owner);
    if (known != null && known.isPresent()) {
      return known;
    }
    Optional<String> host = store.owner(new OwnerId(owner)).map(Owner::hostId);
    hostOfOwner.put(owner, host);
    return host;
  }
}
