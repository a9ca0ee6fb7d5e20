package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.ProtocolClient;
import java.io.IOException;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.Optional;
import dev.vigil.supervisor.DaemonLiveness;
import dev.vigil.supervisor.Durations;
import dev.vigil.supervisor.Replacement;
import dev.vigil.supervisor.Version;

/**
 * A control client (DESIGN.md §6): connects to {@code <home>/vigil.sock}, says hello, reads the
 * daemon's capabilities, then sends commands one at a time and waits for each reply.
 */
public final class Client implements AutoCloseable {
  /** How long a client waits for a reply, ms (a shutdown's reply waits for a quiesce round). */
  static final long REPLY_WAIT_MS = 120_000;

  /** How long a client waits for the daemon's answer to its hello, ms. */
  static final long HELLO_WAIT_MS = 10_000;

  /** What one connection attempt found. */
  sealed interface Attempt {
    /** A daemon answered. */
    record Connected(Client client) implements Attempt {}

    /** No socket, or nobody accepted the connection. */
    record Absent() implements Attempt {}

    /** The connection was accepted, but no answer came within {@link #HELLO_WAIT_MS}. */
    record Silent() implements Attempt {}
  }

  /** A failure with the CLI's exit code and a one-line message. */
  public static class Failure extends RuntimeException {
    private final int exitCode;

    public Failure(int exitCode, String message) {
      super(message);
      this.exitCode = exitCode;
    }

    public int exitCode() {
      return exitCode;
    }
  }

  /** Exit 4: the daemon that holds the home does not answer ({@link DaemonWait.Decision.NotAnswering}). */
  public static final class NotAnswering extends Failure {
    public NotAnswering(String message) {
      super(4, message);
    }
  }

  private final ProtocolClient client;
  private final Message.Capabilities capabilities;
  private final Replacement.Verdict verdict;

  private Client(ProtocolClient client, Message.Capabilities capabilities, Replacement.Verdict verdict) {
    this.client = client;
    this.capabilities = capabilities;
    this.verdict = verdict;
  }

  /** What this client makes of the daemon's version (S8, S9). */
  public Replacement.Verdict verdict() {
    return verdict;
  }

  /**
   * S8/S9: the verdict on the daemon's capabilities. A client older than the daemon, or of another
   * build, uses it and says so on stderr; one whose protocol does not agree stops (exit 3).
   */
  static Replacement.Verdict judge(Message.Capabilities caps, boolean interactive) {
    Replacement.Verdict v;
    try {
      v = Replacement.decide(new Replacement.Client(Version.parse(BuildInfo.VERSION), BuildInfo.BUILD,
          BuildInfo.PROTOCOL, interactive), Optional.of(new Replacement.Daemon(Version.parse(caps.version()),
          caps.build(), (int) caps.protocol(), new HashSet<>(caps.capabilities()))));
    } catch (RuntimeException e) {
      return new Replacement.Verdict.Use();
    }
    if (v instanceof Replacement.Verdict.Refuse r) {
      throw new Failure(3, r.message());
    } else if (v instanceof Replacement.Verdict.UseAndTell t) {
      System.err.println("vigil: " + t.message());
    }
    return v;
  }

  /**
   * Connects to the daemon of {@code home}, waiting up to {@link DaemonWait#DEFAULT_MS} for one that
   * is starting or restarting.
   *
   * @throws Failure exit 4 when no daemon answers on the socket
   */
  public static Client connect(Home home, boolean interactive) {
    return connect(home, interactive, DaemonWait.DEFAULT_MS);
  }

  /**
   * Connects to the daemon of {@code home}. When none answers, it tries again every
   * {@value DaemonWait#RETRY_MS} ms for up to {@code waitMs} while the home shows a daemon starting
   * or restarting ({@link DaemonWait}); when it clearly has none, it fails at once. After a second
   * of waiting it says so on stderr, once.
   *
   * @param waitMs how long to wait for a daemon that is starting, ms (0: not at all)
   * @throws Failure exit 4 when no daemon answers, naming the daemon that holds the home but does
   *                 not answer when there is one
   */
  public static Client connect(Home home, boolean interactive, long waitMs) {
    long start = System.nanoTime();
    boolean told = false;
    DaemonLiveness liveness = DaemonWait.liveness();
    while (true) {
      Attempt a = attempt(home, interactive);
      if (a instanceof Attempt.Connected c) {
        return c.client();
      }
      long waited = (System.nanoTime() - start) / 1_000_000;
      DaemonWait.Decision d = DaemonWait.decide(DaemonWait.signs(home), liveness, System.currentTimeMillis(), waited,
          waitMs, a instanceof Attempt.Silent);
      if (d instanceof DaemonWait.Decision.NoDaemon) {
        throw new Failure(4, "no daemon running on " + home.dir());
      } else if (d instanceof DaemonWait.Decision.NotAnswering n) {
        throw new NotAnswering(DaemonWait.notAnswering(home, n, System.currentTimeMillis()));
      } else if (d instanceof DaemonWait.Decision.GaveUp g) {
        throw new Failure(4, "no daemon answered on " + home.dir() + " within " + Durations.format(waitMs) + " ("
            + g.why() + ")");
      } else if (d instanceof DaemonWait.Decision.Retry r) {
        if (!told && waited >= 1_000) {
          told = true;
          System.err.println("vigil: waiting up to " + Durations.format(waitMs) + " for the daemon on " + home.dir()
              + " to answer (it seems to be starting: " + r.why() + ")");
        }
        try {
          Thread.sleep(r.afterMs());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new Failure(1, "interrupted");
        }
      } else {
        throw new AssertionError(d);
      }
    }
  }

  /** Connects, or empty when no daemon answers. */
  public static Optional<Client> tryConnect(Home home, boolean interactive) {
    return attempt(home, interactive) instanceof Attempt.Connected c ? Optional.of(c.client()) : Optional.empty();
  }

  /** One connection attempt: hello, then the daemon's capabilities within {@link #HELLO_WAIT_MS}. */
  static Attempt attempt(Home home, boolean interactive) {
    if (!Files.exists(home.socket())) {
      return new Attempt.Absent();
    }
    ProtocolClient pc;
    try {
      pc = ProtocolClient.connect(home.socket());
    } catch (IOException | RuntimeException e) {
      return new Attempt.Absent();
    }
    long sent = System.nanoTime();
    try {
      pc.send(new Message.ClientHello(BuildInfo.VERSION, BuildInfo.BUILD, BuildInfo.PROTOCOL, interactive));
      Optional<Message.FromDaemon> m = pc.next(HELLO_WAIT_MS);
      if (m.isPresent() && m.get() instanceof Message.Capabilities caps) {
        try {
          return new Attempt.Connected(new Client(pc, caps, judge(caps, interactive)));
        } catch (Failure f) {
          pc.close();
          throw f;
        }
      }
    } catch (IOException e) {
      // no daemon
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    pc.close();
    return (System.nanoTime() - sent) / 1_000_000 >= HELLO_WAIT_MS ? new Attempt.Silent() : new Attempt.Absent();
  }

  public Message.Capabilities capabilities() {
    return capabilities;
  }

  /** Sends {@code op} with {@code args} and returns the reply's body. */
  public ObjectNode call(String op, ObjectNode args) {
    return send(new Message.Command(op, args));
  }

  /**
   * Asks the daemon to shut down: {@code shutdown{ifIdle:true}} only if every worker quiesces (S5);
   * {@code shutdown{ifIdle:false}} stops every worker gracefully first.
   */
  public ObjectNode shutdown(boolean ifIdle) {
    return send(new Message.Shutdown(ifIdle));
  }

  private ObjectNode send(Message.ToDaemon m) {
    try {
      client.send(m);
      Optional<Message.FromDaemon> r = client.next(REPLY_WAIT_MS);
      if (r.isEmpty()) {
        throw new Failure(1, "the daemon closed the connection without a reply");
      }
      if (r.get() instanceof Message.Reply reply) {
        return reply.body();
      } else if (r.get() instanceof Message.Error e) {
        throw new Failure(2, e.reason());
      }
      throw new Failure(1, "unexpected answer from the daemon: " + r.get().op());
    } catch (IOException e) {
      throw new Failure(4, "the daemon went away: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Failure(1, "interrupted");
    }
  }

  /** Exit 5: the daemon runs but its store is unavailable (D5); its work runs on, nothing new starts. */
  public static final int STORE_UNAVAILABLE = 5;
  /** The exit code when no daemon answers (4). */
  public static final int NO_DAEMON = 4;

  /** The CLI exit code of a reply kind: Failed 1, Invalid and NotFound 2, Denied and Busy 3, Unavailable 5, else 0. */
  public static int exitCodeOf(ObjectNode reply) {
    switch (reply.path("kind").asText()) {
      case "Failed":
        return 1;
      case "Invalid":
      case "NotFound":
        return 2;
      case "Denied":
      case "Busy":
        return 3;
      case "Unavailable":
        return STORE_UNAVAILABLE;
      default:
        return 0;
    }
  }

  /** Throws the reply's failure when it is one. */
  public static ObjectNode ok(ObjectNode reply) {
    int code = exitCodeOf(reply);
    if (code != 0) {
      String kind = reply.path("kind").asText();
      String prefix = kind.equals("Busy") ? "busy: " : kind.equals("Denied") ? "denied: " : "";
      String message = reply.path("message").asText();
      throw new Failure(code, message.startsWith(prefix) ? message : prefix + message);
    }
    return reply;
  }

  @Override
  public void close() {
    client.close();
  }
}
