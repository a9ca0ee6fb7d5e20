package dev.vigil.supervisor;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What a client does about the daemon it finds (S8 replacement, S9 relaunch and compatibility).
 *
 * <ol>
 *   <li>No daemon listens: {@link Verdict.Launch} one of the client's own build. This is also how
 *       an attached client relaunches a lost supervisor (S9).
 *   <li>The daemon is the client's build: {@link Verdict.Use}.
 *   <li>The client is newer, interactive, and the daemon advertises {@value #IDLE_SHUTDOWN}:
 *       {@link Verdict.ReplaceIfIdle}: send {@code shutdown{ifIdle:true}}; the daemon decides
 *       (S5), and on busy the client tells the user and replaces nothing.
 *   <li>Otherwise the client replaces nothing and tells the user why ({@link Verdict.UseAndTell}
 *       when the protocols agree, {@link Verdict.Refuse} when they do not): it is older than the
 *       daemon ({@link #olderMessage}), another build of the same version, a background client
 *       (it never replaces; an attached client's relaunch is a background start, so it never
 *       replaces a daemon another client started), or the daemon cannot shut down when idle.
 * </ol>
 *
 * <p>So a daemon is only replaced by a higher version, never goes back to a lower version by
 * replacement, and k builds cause at most k − 1 replacements. Protocols agree when their numbers
 * are equal. The hello exchange, capabilities and {@code shutdown} are assumed stable across
 * protocols, so a newer client can replace a daemon whose protocol it does not speak.
 */
public final class Replacement {
  /** The capability a daemon advertises when it can shut down only if idle (S5, S8). */
  public static final String IDLE_SHUTDOWN = "idle_shutdown";

  private Replacement() {}

  /**
   * The client deciding.
   *
   * @param version     its version
   * @param build       its build
   * @param protocol    its protocol number
   * @param interactive whether a human started it interactively ({@code vigil up} in a terminal);
   *                    a background client or an attached client's relaunch is not
   */
  public record Client(Version version, String build, int protocol, boolean interactive) {
    public Client {
      Objects.requireNonNull(version, "version");
      Objects.requireNonNull(build, "build");
    }
  }

  /**
   * The running daemon, from its hello (or daemon.json).
   *
   * @param version      its version
   * @param build        its build
   * @param protocol     its protocol number
   * @param capabilities the capabilities it advertises
   */
  public record Daemon(Version version, String build, int protocol, Set<String> capabilities) {
    public Daemon {
      Objects.requireNonNull(version, "version");
      Objects.requireNonNull(build, "build");
      capabilities = Set.copyOf(Objects.requireNonNull(capabilities, "capabilities"));
    }
  }

  /** What the client does. */
  public sealed interface Verdict {
    /** No daemon listens: launch one of the client's own build. */
    record Launch() implements Verdict {}

    /** Same build: use the daemon. */
    record Use() implements Verdict {}

    /**
     * Use the daemon and print {@code message}.
     *
     * @param message for the user
     */
    record UseAndTell(String message) implements Verdict {
      public UseAndTell {
        Objects.requireNonNull(message, "message");
      }
    }

    /** Send {@code shutdown{ifIdle:true}}; once the daemon is gone, launch the client's build. */
    record ReplaceIfIdle() implements Verdict {}

    /**
     * Stop with {@code message}: the protocols do not agree.
     *
     * @param message for the user
     */
    record Refuse(String message) implements Verdict {
      public Refuse {
        Objects.requireNonNull(message, "message");
      }
    }
  }

  /** Decides what {@code client} does about {@code daemon} (empty: no daemon listens). */
  public static Verdict decide(Client client, Optional<Daemon> daemon) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(daemon, "daemon");
    if (daemon.isEmpty()) {
      return new Verdict.Launch();
    }
    Daemon d = daemon.get();
    boolean agree = client.protocol() == d.protocol();
    int c = client.version().compareTo(d.version());
    String message;
    if (c < 0) {
      message = olderMessage(client.version(), d.version());
    } else if (c == 0 && !client.build().equals(d.build())) {
      message = "this vigil (" + v(client.version()) + ", build " + client.build()
          + ") is another build of the running daemon's version (" + v(d.version()) + ", build " + d.build()
          + "): run vigil down to switch builds";
    } else if (c == 0) {
      if (agree) {
        return new Verdict.Use();
      }
      message = "this vigil (" + v(client.version()) + ") speaks protocol " + client.protocol()
          + " but the running daemon (" + v(d.version()) + ") speaks " + d.protocol() + ": run vigil down";
    } else if (!client.interactive()) {
      message = "this vigil (" + v(client.version()) + ") is newer than the running daemon (" + v(d.version())
          + "): run vigil up to replace it when idle";
    } else if (!d.capabilities().contains(IDLE_SHUTDOWN)) {
      message = "this vigil (" + v(client.version()) + ") is newer than the running daemon (" + v(d.version())
          + "), which cannot shut down only when idle: run vigil down, then vigil up";
    } else {
      return new Verdict.ReplaceIfIdle();
    }
    return agree ? new Verdict.UseAndTell(message) : new Verdict.Refuse(message);
  }

  /**
   * The message of a client older than the daemon (S9), exactly: {@code this vigil (vX) is older
   * than the running daemon (vY): update or run vigil down}.
   */
  public static String olderMessage(Version client, Version daemon) {
    return "this vigil (" + v(client) + ") is older than the running daemon (" + v(daemon)
        + "): update or run vigil down";
  }

  private static String v(Version version) {
    return "v" + version;
  }
}
