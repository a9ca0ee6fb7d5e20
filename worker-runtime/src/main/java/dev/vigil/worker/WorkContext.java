package dev.vigil.worker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.coordination.TicketId;
import dev.vigil.supervisor.WorkSet;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the worker host gives a {@link WorkerType} for one run: ids, the payload, work declarations
 * that feed busy evidence (S3) and the run gate (S5), progress, quiesce and stop notifications, and
 * helpers that build an {@link Outcome}. Methods may be called from any thread.
 */
public interface WorkContext {
  /** The run's id: the name of its run directory, e.g. {@code t-12.1}. */
  String runId();

  /** The ticket of a task run; empty for a session's worker. */
  Optional<TicketId> ticketId();

  /** The session's name for a service worker; empty for a task run. */
  Optional<String> session();

  /** The attempt this run is, counting from 1. */
  int attempt();

  /** The payload given at submission (a JSON object; empty object when none was given). */
  JsonNode payload();

  /**
   * The payload bound to {@code type} (a record, a bean, a map…) as {@link JsonBinding} binds: records
   * and {@code java.time} values work as they are; a field {@code type} does not declare is refused
   * (annotate the type with {@code @JsonIgnoreProperties(ignoreUnknown = true)} to accept it), and so
   * is a missing or {@code null} value for a primitive.
   *
   * @throws PayloadBindingException with one line naming the type, the field and why, when the payload
   *                                 does not bind. Let it escape {@link WorkerType#run}: the run settles
   *                                 PERMANENT_FAILURE with that line, and no further attempt is spent on
   *                                 a payload that can never bind.
   */
  default <T> T payload(Class<T> type) {
    return JsonBinding.bind(payload(), type, "payload", PayloadBindingException::new);
  }

  /** The run directory (0700); a type may keep files of its own there. */
  Path runDirectory();

  /**
   * The directory recorded with the ticket at submission, where its command is to run; empty when
   * none was (a service, a ticket submitted without one).
   */
  default Optional<Path> workingDirectory() {
    return Optional.empty();
  }

  /**
   * The whole environment recorded with the ticket at submission, for its command; empty when none
   * was. Its values may be secrets: pass them to the command only, never to a log or a file.
   */
  default Optional<java.util.Map<String, String>> environment() {
    return Optional.empty();
  }

  /**
   * Reports how the process this run stands for ended (the built-in command type's child): its exit
   * code, or the signal that ended it (exactly one). The host writes it with the outcome, so that the
   * run shows the command's own exit, and exits with that status itself.
   */
  default void processEnded(Integer exitCode, Integer signal) {}

  /**
   * Declares a piece of work in flight until the returned handle is closed. It enters through the
   * run gate (S5): while the worker is quiesced this waits until the gate reopens (on release or
   * after the quiesce hold). The host keeps busy evidence from it (S3) and answers quiesce with
   * {@code busy} while any work is open. A task run is work for its whole length without this call.
   *
   * @param kind what the work is
   * @param id   its id, unique within its kind
   * @return the open work, or empty when a stop was requested (no new work after a stop)
   */
  Optional<Work> busy(WorkSet.Kind kind, String id) throws InterruptedException;

  /** {@link #busy(WorkSet.Kind, String)} for a background job. */
  default Optional<Work> busy(String id) throws InterruptedException {
    return busy(WorkSet.Kind.BACKGROUND_JOB, id);
  }

  /** Reports progress to the daemon (best effort; not written to disk). */
  void progress(String message);

  /**
   * Reports progress with a completed fraction.
   *
   * @param fraction in {@code [0, 1]}
   */
  void progress(String message, double fraction);

  /**
   * Says that this service worker starts over restored state: the snapshot named {@code snapshot} (a name the
   * type gives its saved state, like {@code counter-42} or a file name; 1-200 characters). The daemon keeps one
   * restore notice per worker process in the service's transcript, which {@code vigil attach} shows once per
   * view: saying it again, or to the next daemon after a restart, stores nothing more. Call it once the state
   * is loaded; best effort, never blocks (the notice reaches the daemon once it welcomed this worker).
   *
   * @throws IllegalArgumentException when {@code snapshot} is empty or longer than 200 characters
   * @throws IllegalStateException when this worker already reported another snapshot (a worker starts over one)
   * @throws UnsupportedOperationException when this context is not a service's worker (a task run)
   */
  default void restored(String snapshot) {
    throw new UnsupportedOperationException("only a service's worker reports a restored snapshot");
  }

  /**
   * Asks a person {@code question} and waits for the answer (Q16): the question is kept by the daemon in its
   * store, shown by {@code vigil questions} and answered with {@code vigil answer}; the daemon applies the
   * answer (with any actions of the chosen option) and hands the option's value back here. The run keeps its
   * slot and is busy meanwhile. The wait survives the daemon's restart: the worker asks again once the next
   * daemon welcomed it, and the daemon knows the question by the run and the question's number within it, so
   * it is asked once and answered once.
   *
   * @return the answer, or empty when a stop was requested before one came
   * @throws IllegalArgumentException when the question is malformed (no option, two of one name, a text over a line)
   * @throws UnsupportedOperationException when this context cannot ask (a service's worker)
   */
  default Optional<Question.Answer> ask(Question question) throws InterruptedException {
    throw new UnsupportedOperationException("this worker cannot ask a person");
  }

  /**
   * Saves {@code value} as this run's latest checkpoint (Q17): bound like a result to JSON
   * ({@link JsonBinding}), at most {@value dev.vigil.coordination.Checkpoint#MAX_BYTES} bytes, it is written to
   * {@code checkpoint.json} in the run directory and forced to the disk before this returns. From then on it
   * survives the worker's and the daemon's deaths: when the run ends, however it ends and whoever settles it,
   * the daemon stores it with the ticket before the run is settled, and the ticket's next attempt receives it
   * through {@link #previousCheckpoint()} when its worker type is resumable ({@code "resumable": true} in its
   * configuration). Each call replaces the one before.
   *
   * @throws IllegalArgumentException with one line when the value cannot be written as JSON or is too large
   * @throws java.io.UncheckedIOException when the disk refuses the write (the previous checkpoint stays)
   * @throws UnsupportedOperationException when this context cannot save checkpoints (a service's worker)
   */
  default void checkpoint(Object value) {
    throw new UnsupportedOperationException("this worker cannot save checkpoints");
  }

  /**
   * The checkpoint this attempt resumes from (Q17): the latest one an earlier attempt of this ticket saved
   * with {@link #checkpoint}, when the worker type is resumable; empty for the first attempt, for an attempt
   * after attempts that saved none, and always for a type that is not resumable.
   */
  default Optional<JsonNode> previousCheckpoint() {
    return Optional.empty();
  }

  /**
   * {@link #previousCheckpoint()} bound to {@code type} as {@link #payload(Class)} binds.
   *
   * @throws PayloadBindingException with one line naming the type, the field and why, when the checkpoint does
   *                                 not bind (a retry would only repeat it: the run settles PERMANENT_FAILURE)
   */
  default <T> Optional<T> previousCheckpoint(Class<T> type) {
    return previousCheckpoint().map(json -> JsonBinding.bind(json, type, "checkpoint", PayloadBindingException::new));
  }

  /**
   * A checkpoint's value as the JSON that is saved, checked against the bound: what {@link #checkpoint} writes.
   *
   * @throws IllegalArgumentException with one line when it cannot be written as JSON, is {@code null} or is too large
   */
  static JsonNode checkpointJson(Object value) {
    if (value == null) {
      throw new IllegalArgumentException("checkpoint refused: the value is null (save a value a later attempt can use)");
    }
    JsonNode json;
    try {
      json = JsonBinding.toJson(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("checkpoint refused: " + e.getMessage(), e);
    }
    int bytes = dev.vigil.worker.internal.Json.write(json).length;
    if (bytes > dev.vigil.coordination.Checkpoint.MAX_BYTES) {
      throw new IllegalArgumentException("checkpoint refused: it is " + bytes + " bytes of JSON, more than the "
          + dev.vigil.coordination.Checkpoint.MAX_BYTES + " a ticket keeps (keep large state in files of your own and"
          + " save where they are)");
    }
    return json;
  }

  /** Whether the daemon asked this worker to stop (a {@code stop} frame or a TERM). */
  boolean stopRequested();

  /** Waits up to {@code timeoutMs} for a stop request; true when one came. */
  boolean awaitStop(long timeoutMs) throws InterruptedException;

  /** Whether the run gate is closed because the worker answered {@code quiesced} (S5). */
  boolean quiesced();

  /** Adds a listener for quiesce, release and stop; called on the host's control thread, keep it short. */
  void addListener(Listener listener);

  /** Notifications from the host. */
  interface Listener {
    /** The worker was idle when asked to quiesce and closed its run gate (S5). */
    default void quiesced() {}

    /** The run gate reopened (release, or the quiesce hold passed). */
    default void released() {}

    /**
     * A stop was requested; the daemon KILLs the group after {@code graceMs}.
     *
     * @param graceMs time left before the KILL, ms
     */
    default void stopRequested(long graceMs) {}
  }

  /** A piece of work in flight; {@link #close()} ends it (idempotent). */
  interface Work extends AutoCloseable {
    @Override
    void close();
  }

  /** The work succeeded. */
  default Outcome succeeded() {
    return new Outcome.Succeeded("");
  }

  /** The work succeeded, with a detail (a success with a result: {@link Outcome#succeeded(Object)}). */
  default Outcome succeeded(String detail) {
    return new Outcome.Succeeded(detail);
  }

  /** The work failed and may be retried (Q1). */
  default Outcome failed(String detail) {
    return new Outcome.Failed(detail);
  }

  /** The machine hit a quota; run again at wall-clock {@code untilMs}, no attempt consumed (Q2). */
  default Outcome stalled(long untilMs) {
    return new Outcome.Stalled(untilMs, "");
  }

  /** {@link #stalled(long)} with a detail. */
  default Outcome stalled(long untilMs, String detail) {
    return new Outcome.Stalled(untilMs, detail);
  }

  /** The work cannot proceed for a reason outside it; the ticket is held for a human. */
  default Outcome blocked(String detail) {
    return new Outcome.Blocked(detail);
  }

  /** The work can never succeed. */
  default Outcome permanentFailure(String detail) {
    return new Outcome.PermanentFailure(detail);
  }
}
