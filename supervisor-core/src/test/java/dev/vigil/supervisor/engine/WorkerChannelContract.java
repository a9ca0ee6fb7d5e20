package dev.vigil.supervisor.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.StopKind;
import dev.vigil.supervisor.engine.port.WorkerChannel;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link WorkerChannel} keeps, as its javadoc states it: a connection belongs to
 * a key once the engine welcomed its hello, a newer welcome of the key replaces (and closes) the
 * older connection, and {@code send} reports whether a welcomed connection of the key took the
 * frame. The simulation's fake and worker-runtime's socket adapter extend this class.
 *
 * <p>Time passes only through {@link #await}; a fake that delivers at once may check the condition
 * once.
 */
public abstract class WorkerChannelContract {
  /** The build of the daemon in every welcome. */
  protected static final String BUILD = "1.0.0+contract";

  /** A worker's end of one connection. */
  protected interface Connection {
    /** The frames this connection received after its welcome, in order. */
    List<ToWorker> received();

    /** Whether the connection is open, as the worker sees it. */
    boolean open();

    /** The worker closes the connection. */
    void close();
  }

  /** The channel under test, fresh for each test. */
  protected abstract WorkerChannel channel();

  /**
   * A connection of {@code key} that said hello, which the adapter bound to {@code key} as it wrote
   * the engine's {@code Welcome(BUILD, false)}; returns once the worker has that welcome.
   */
  protected abstract Connection welcomed(WorkerKey key);

  /** Lets time pass until {@code condition} holds; fails naming {@code what} when it does not in time. */
  protected abstract void await(String what, BooleanSupplier condition);

  // ---- helpers ----

  private static final WorkerKey RUN = new WorkerKey.Task(RunId.parse("t-1.1"));
  private static final WorkerKey SERVICE = new WorkerKey.Service("indexer");

  private void awaitReceived(Connection c, List<ToWorker> frames, String what) {
    await(what + ": " + frames, () -> c.received().size() >= frames.size());
    assertEquals(frames, c.received(), what);
  }

  // ---- tests ----

  @Test
  void send_isFalse_whileNoConnectionOfTheKeyWasWelcomed() {
    assertFalse(channel().send(RUN, new ToWorker.Quiesce()), "no connection: the frame is not delivered");
    assertFalse(channel().send(SERVICE, new ToWorker.Release()));
    welcomed(SERVICE);
    assertFalse(channel().send(RUN, new ToWorker.Quiesce()), "another key's connection does not take the frame");
  }

  @Test
  void framesSentToAWelcomedKey_arriveOnItsConnection_inOrder() {
    Connection c = welcomed(SERVICE);
    List<ToWorker> frames = List.of(new ToWorker.Quiesce(), new ToWorker.Release(), new ToWorker.Welcome(BUILD, true),
        new ToWorker.Stop(5_000, StopKind.IDLE_SHUTDOWN));
    for (ToWorker f : frames) {
      assertTrue(channel().send(SERVICE, f), "a welcomed connection takes " + f);
    }
    awaitReceived(c, frames, "the frames arrive in the order sent");
    assertTrue(c.open());
  }

  @Test
  void framesGoOnlyToTheConnectionOfTheirKey() {
    Connection run = welcomed(RUN);
    Connection service = welcomed(SERVICE);
    assertTrue(channel().send(RUN, new ToWorker.Quiesce()));
    awaitReceived(run, List.of(new ToWorker.Quiesce()), "the run's worker has its frame");
    assertTrue(channel().send(SERVICE, new ToWorker.Release()));
    awaitReceived(service, List.of(new ToWorker.Release()),
        "the service's worker has only its own frame (frames arrive in order, so the run's never came)");
  }

  @Test
  void aNewerWelcomeOfTheKey_replacesTheOlderConnection_andClosesIt() {
    Connection older = welcomed(RUN);
    Connection newer = welcomed(RUN);
    await("the older connection of the key is closed", () -> !older.open());
    assertTrue(channel().send(RUN, new ToWorker.Quiesce()), "the newer connection takes frames");
    awaitReceived(newer, List.of(new ToWorker.Quiesce()), "the newer connection has the frame");
    assertEquals(List.of(), older.received(), "the older connection has nothing after its welcome");
  }

  @Test
  void send_isFalse_onceTheWorkerClosedItsConnection() {
    Connection c = welcomed(RUN);
    assertTrue(channel().send(RUN, new ToWorker.Quiesce()));
    awaitReceived(c, List.of(new ToWorker.Quiesce()), "the open connection has the frame");
    c.close();
    await("a frame for a closed connection is reported undelivered", () -> !channel().send(RUN, new ToWorker.Release()));
    assertFalse(channel().send(RUN, new ToWorker.Quiesce()), "and stays undelivered until a new welcome");
    Connection again = welcomed(RUN);
    assertTrue(channel().send(RUN, new ToWorker.Quiesce()), "the worker's next welcomed connection takes frames");
    awaitReceived(again, List.of(new ToWorker.Quiesce()), "the new connection has the frame");
  }
}
