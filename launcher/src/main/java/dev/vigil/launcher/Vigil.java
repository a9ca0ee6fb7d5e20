package dev.vigil.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.launcher.internal.ConfigLoader;
import dev.vigil.launcher.internal.Daemon;
import dev.vigil.launcher.internal.Home;
import dev.vigil.launcher.internal.VigilConfig;
import dev.vigil.launcher.internal.Wire;
import dev.vigil.supervisor.engine.Command;
import dev.vigil.supervisor.engine.Reply;
import dev.vigil.supervisor.engine.Status;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Vigil embedded: a running daemon in this JVM (H2 file store under the home, real worker
 * processes, the socket {@code <home>/vigil.sock} that the {@code vigil} CLI talks to).
 *
 * <pre>{@code
 * try (Vigil v = Vigil.builder().home(Path.of("/var/lib/app/vigil")).start()) {
 *   TicketId t = v.submit(List.of("sh", "-c", "make report"));
 *   ...
 * }
 * }</pre>
 *
 * <p>{@link #close()} stops the daemon and leaves its workers running for the next daemon to adopt
 * (D4); {@link #shutdownIfIdle()} stops it only when every worker quiesced (S5). Logs go through
 * SLF4J only.
 */
public final class Vigil implements AutoCloseable {
  private static final long CALL_WAIT_S = 120;

  private final Daemon daemon;
  private final VigilConfig config;

  private Vigil(Daemon daemon, VigilConfig config) {
    this.daemon = daemon;
    this.config = config;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** How to start an embedded daemon. */
  public static final class Builder {
    private Path home;
    private Path configFile;
    private final List<WorkerTypeSpec> types = new ArrayList<>();

    private Builder() {}

    /** The home directory (created 0700 when missing). Required. */
    public Builder home(Path dir) {
      this.home = Objects.requireNonNull(dir, "home").toAbsolutePath();
      return this;
    }

    /** A configuration file (DESIGN.md §9); the defaults when none is given. */
    public Builder config(Path file) {
      this.configFile = Objects.requireNonNull(file, "config");
      return this;
    }

    /**
     * A custom worker type called {@code name} (in place of a configured type of that name): the
     * {@code dev.vigil.worker.WorkerType} class {@code className}, with a public no-argument constructor,
     * which each worker host of this type loads from this JVM's classpath plus {@code classpath} (no
     * other type's entries). {@link #start} refuses to start when the class is not found there or is
     * no worker type.
     *
     * @throws IllegalArgumentException naming the field, when the name or the class name is malformed
     */
    public Builder workerType(String name, String className, List<String> classpath) {
      types.add(WorkerTypeSpec.declared(name, className, classpath));
      return this;
    }

    /**
     * Starts the daemon and returns once it serves.
     *
     * @throws IllegalStateException with a one-line message when it is refused (another daemon on
     *                               the home, D2), a worker type's class cannot be run, or the home
     *                               or store cannot be opened
     */
    public Vigil start() {
      Objects.requireNonNull(home, "home");
      VigilConfig c = configFile == null ? VigilConfig.defaults() : ConfigLoader.load(configFile);
      for (WorkerTypeSpec t : types) {
        c = c.withWorkerType(t);
      }
      try {
        return new Vigil(Daemon.start(new Home(home), c), c);
      } catch (Daemon.Refused e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    }
  }

  /** Queues a ticket. */
  public TicketId submit(NewTicket ticket) {
    Reply r = call(new Command.Submit(ticket));
    if (r instanceof Reply.Submitted s) {
      return s.ticket().id();
    }
    throw new IllegalArgumentException(message(r));
  }

  /**
   * Queues an OS command on the {@code default} lane (the built-in {@code command} type), with the
   * configured attempts; its exit code that means stalled is the type's configured one.
   */
  public TicketId submit(List<String> argv) {
    var payload = Wire.JSON.createObjectNode();
    var a = payload.putArray("argv");
    argv.forEach(a::add);
    return submit(new NewTicket(Lane.DEFAULT, WorkerTypeSpec.COMMAND, payload.toString(), config.maxAttempts(), 0, 0,
        null));
  }

  /** One ticket, or empty when there is no such ticket. */
  public Optional<Ticket> ticket(TicketId id) {
    Reply r = call(new Command.Show(id));
    return r instanceof Reply.TicketDetail d ? Optional.of(d.ticket()) : Optional.empty();
  }

  /** The daemon's status, as {@code daemon.json} shows it (D1). */
  public Status status() {
    Reply r = call(new Command.StatusQuery());
    if (r instanceof Reply.StatusReport s) {
      return s.status();
    }
    throw new AssertionError(r);
  }

  /** S5: stops the daemon if every worker quiesces; false (nothing stopped) when some had work. */
  public boolean shutdownIfIdle() {
    Reply r = call(new Command.Shutdown(Command.Shutdown.Mode.IF_IDLE));
    if (r instanceof Reply.ShuttingDown) {
      daemon.done().join();
      return true;
    }
    return false;
  }

  /** Stops the daemon; every worker keeps running for the next daemon to adopt (D4). */
  @Override
  public void close() {
    daemon.close();
  }

  private Reply call(Command c) {
    try {
      return daemon.call(c).get(CALL_WAIT_S, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("the daemon did not answer: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static String message(Reply r) {
    JsonNode n = Wire.reply(r);
    return n.path("message").asText(n.path("kind").asText());
  }
}
