package dev.vigil.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.Snapshot;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A whole Vigil as a scenario drives it: the simulation (engine, {@code LeaseLaw}, fake processes
 * and clock) or the real stack (the daemon of {@code vigil.jar} on an H2 file, real worker hosts,
 * real signals, real time). Each realises the same step its own way; {@link ScenarioRun} turns what
 * both report into one normalised transcript.
 *
 * <p>Commands and replies are the control protocol's JSON ({@code Wire.command} and
 * {@code Wire.reply}), and events the daemon journal's JSON lines ({@code JournalFile.toJson}), on
 * both: the simulation goes through the same code as the daemon.
 */
public interface Stack extends AutoCloseable {
  /** Which runner this is, for messages. */
  String name();

  /** Starts a daemon of build {@code build} (a label of the scenario); returns once it serves. */
  void boot(String build);

  /** {@code kill -9} of the daemon; returns once it is gone. */
  void crash();

  /** SIGTERM: the daemon closes and leaves every worker running (D4); returns once it is gone. */
  void sigterm();

  /** The daemon stops (SIGSTOP) for {@code ms} while its workers go on, then continues (SIGCONT). */
  void suspend(long ms);

  /** Whether a daemon serves. */
  boolean up();

  /** The pid of the daemon that serves (or served last). */
  long daemonPid();

  /** A control command, as {@code vigil} sends it; the reply's body. Only while {@link #up()}. */
  ObjectNode command(String op, ObjectNode args);

  /**
   * {@code shutdown{ifIdle}}; the reply's body once the daemon decided; when it shuts down, returns
   * once it is gone.
   */
  ObjectNode shutdown(boolean ifIdle);

  /** {@code kill -9} of the worker host of {@code run} (the rest of its process group lives on). */
  void killWorker(RunId run);

  /**
   * Tells the worker of {@code run} whose behaviour runs "until told" to end now as its behaviour
   * says; with {@code fork}, tells its grandchild instead.
   */
  void tell(RunId run, boolean fork);

  /** Whether a process of the worker of {@code run} lives (its host, or a process of its group). */
  boolean workerAlive(RunId run);

  /**
   * Whether the worker of {@code run} has begun its work (its host received its go), not only been told
   * to by the daemon's journal: a go still on its way when the daemon is killed never arrives.
   */
  default boolean workerBegan(RunId run) {
    return true;
  }

  /** {@code kill -9} of the service's worker. */
  void killService(String service);

  /** Whether a process of the service's latest worker lives. */
  boolean serviceWorkerAlive(String service);

  /** Queues one item of work of {@code ms} for the service's session. */
  void serviceWork(String service, long ms);

  /** Whether the service's latest busy-evidence record says busy (S3). */
  boolean busyRecord(String service);

  /** Lets {@code ms} pass. */
  void pass(long ms);

  /** Wall-clock now, ms. */
  long nowWallMs();

  /** Applies {@code f} to the store while no daemon runs (another daemon's verbs, reads). */
  <T> T store(Function<Coordination, T> f);

  /** The identity of a process that lives for the whole scenario (a live owner). */
  ProcessIdentity liveIdentity();

  /** An identity no live process has (a dead owner). */
  ProcessIdentity deadIdentity();

  /** A worker's hello for {@code run} with a token that is not its run's: the answer, as a reply kind. */
  String forgeHello(RunId run);

  /** What {@code daemon.json} holds: {@code pid} and {@code heartbeat_at}; empty when there is none. */
  Optional<JsonNode> statusFile();

  /** Starts a second daemon on the same home: the pid its refusal names, or empty when it started. */
  Optional<Long> secondDaemon();

  /**
   * {@code vigil up} of {@code build}, interactive (S8).
   *
   * @return exit code, the pid it printed (or -1) and what it told the user
   */
  Told up(String build);

  /** {@code vigil status} of {@code build} (S9): exit code and what it told the user. */
  Told clientStatus(String build);

  /** {@code vigil watch} of {@code build} for a while (S9): the pid of a daemon it relaunched, if any. */
  Optional<Long> watch(String build);

  /** Every journal event so far, in order. */
  List<ObjectNode> journal();

  /** Stops everything and returns the store as it was left. */
  Snapshot finish();

  @Override
  void close();

  /**
   * What a client command told the user.
   *
   * @param code exit code
   * @param pid  the pid it printed, or -1
   * @param told its message on stderr (one line), or empty
   */
  record Told(int code, long pid, String told) {}
}
