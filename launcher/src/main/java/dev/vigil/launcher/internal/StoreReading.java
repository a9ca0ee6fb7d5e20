package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunState;
import dev.vigil.coordination.Store;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.h2.CoordinationStoreException;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.supervisor.StalledRuns;
import dev.vigil.supervisor.TimeoutLattice.Timeout;
import dev.vigil.supervisor.engine.Reads;
import dev.vigil.supervisor.engine.Reply;
import dev.vigil.worker.process.Processes;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The read commands ({@code tasks}, {@code runs}, {@code show}, {@code status}) while no daemon
 * runs: the store file itself is read, holding the daemon lock so that no daemon opens it meanwhile,
 * and nothing is written. Each live run, and each running ticket, says since when no daemon watches
 * it and whether that makes it stalled ({@link StalledRuns}, {@code stalledRunning} of the
 * configuration the last daemon ran with, else the default).
 */
public final class StoreReading {
  private StoreReading() {}

  /** A store read with no daemon: the reader of replies and what the views need. */
  public static final class Reader {
    private final Store store;
    private final long stalledRunningMs;
    private final long nowMs;
    private final Map<dev.vigil.coordination.OwnerId, Boolean> alive = new java.util.HashMap<>();

    private Reader(Store store, long stalledRunningMs, long nowMs) {
      this.store = store;
      this.stalledRunningMs = stalledRunningMs;
      this.nowMs = nowMs;
    }

    /** The reply a daemon would give to {@code op}, with each live run's and running ticket's watch. */
    public ObjectNode call(String op, ObjectNode args) {
      Reply r = Reads.answer(store, Wire.command(op, args, 3))
          .orElseThrow(() -> new IllegalArgumentException(op + " needs a running daemon"));
      ObjectNode reply = Wire.reply(r);
      watch(reply.path("tickets"));
      watch(reply.path("runs"));
      if (reply.path("ticket").isObject()) {
        watch(reply.path("ticket").path("runs"));
        watchTicket((ObjectNode) reply.path("ticket"));
      }
      return reply;
    }

    /** How many tickets are in each state. */
    public Map<TicketState, Integer> counts() {
      return store.countsByState();
    }

    /** Every live run, with its watch. */
    public List<JsonNode> liveRuns() {
      ArrayNode a = Wire.JSON.createArrayNode();
      store.liveRuns().forEach(r -> a.add(Wire.run(r)));
      watch(a);
      List<JsonNode> out = new ArrayList<>();
      a.forEach(out::add);
      return out;
    }

    private void watch(JsonNode items) {
      for (JsonNode n : items) {
        if (n.path("id").asText().contains(".")) {
          watchRun((ObjectNode) n);
        } else {
          watchTicket((ObjectNode) n);
        }
      }
    }

    private void watchRun(ObjectNode n) {
      if (RunState.SETTLED.name().equals(n.path("state").asText())) {
        return;
      }
      store.run(RunId.parse(n.path("id").asText())).flatMap(this::stalledSince).ifPresent(s -> n.put("stalledSinceMs", s));
    }

    private void watchTicket(ObjectNode n) {
      if (!TicketState.LEASED.name().equals(n.path("state").asText())) {
        return;
      }
      Optional<Ticket> t = store.ticket(dev.vigil.coordination.TicketId.parse(n.path("id").asText()));
      t.flatMap(x -> store.runsOf(x.id()).stream().filter(r -> r.state() != RunState.SETTLED).findFirst())
          .flatMap(this::stalledSince).ifPresent(s -> n.put("stalledSinceMs", s));
    }

    private Optional<Long> stalledSince(Run r) {
      StalledRuns.Watch w = StalledRuns.of(r, store.lease(r.id().ticket()), ownerAlive(r.owner()), stalledRunningMs, nowMs);
      return w instanceof StalledRuns.Watch.Stalled s ? Optional.of(s.sinceMs()) : Optional.empty();
    }

    /** Whether the daemon that owns a run lives: a process with its pid, start time and boot. */
    private boolean ownerAlive(dev.vigil.coordination.OwnerId owner) {
      return alive.computeIfAbsent(owner, o -> store.owner(o).map(Owner::identity).map(Processes::alive).orElse(false));
    }
  }

  /**
   * Runs {@code read} on the store of {@code home} when no daemon holds the home; empty when a
   * daemon does (or is starting), or when the home has no store yet: then the daemon is asked.
   *
   * @throws Client.Failure exit 1 when the store cannot be read (damaged, another version, …)
   */
  public static <T> Optional<T> withoutDaemon(Home home, Function<Reader, T> read) {
    if (!Files.isRegularFile(home.databaseFile())) {
      return Optional.empty();
    }
    Optional<DaemonLock> lock;
    try {
      lock = DaemonLock.tryAcquire(home.lockFile());
    } catch (java.io.IOException e) {
      return Optional.empty();
    }
    if (lock.isEmpty()) {
      return Optional.empty();
    }
    try (DaemonLock held = lock.get(); H2Coordination h2 = H2Coordination.openForReading(home.databaseFile())) {
      return Optional.of(read.apply(new Reader(h2.store(), stalledRunningMs(home), System.currentTimeMillis())));
    } catch (CoordinationStoreException e) {
      throw new Client.Failure(1, "no daemon is running and its store cannot be read: " + Wire.oneLine(e.getMessage()));
    } catch (java.io.IOException e) {
      throw new Client.Failure(1, "cannot release " + home.lockFile() + ": " + e.getMessage());
    }
  }

  /** {@code stalledRunning} of the configuration the last daemon ran with, when it is still readable; else the default. */
  static long stalledRunningMs(Home home) {
    try {
      Optional<java.nio.file.Path> config = new StatusFile(home.statusFile()).recorded()
          .flatMap(StatusFile.Recorded::config).filter(Files::isRegularFile);
      if (config.isPresent()) {
        return ConfigLoader.load(config.get()).timeouts().ms(Timeout.STALLED_RUNNING);
      }
    } catch (RuntimeException e) {
      // a configuration that no longer loads: the default
    }
    return Timeout.STALLED_RUNNING.defaultMs();
  }
}
