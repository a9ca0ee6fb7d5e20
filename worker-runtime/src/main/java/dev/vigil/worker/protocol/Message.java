package dev.vigil.worker.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.worker.Outcome;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * Every frame of the socket protocol (DESIGN.md §6), one record per op. On the wire each is one line
 * of JSON {@code {"v":1,"op":"<op>", …fields}}; {@link #op()} names it. Which side may send which
 * message is fixed: {@link ToDaemon} from workers and clients, {@link FromDaemon} from the daemon.
 */
public sealed interface Message {
  /** The op on the wire. */
  String op();

  /** A frame a worker or a client sends to the daemon. */
  sealed interface ToDaemon extends Message {}

  /** A frame from a worker, accepted only after its {@link Hello} proved its token (C9). */
  sealed interface FromWorker extends ToDaemon {}

  /** A frame from a control client, accepted only after its {@link ClientHello}. */
  sealed interface FromClient extends ToDaemon {}

  /** A frame the daemon sends to a worker or a client. */
  sealed interface FromDaemon extends Message {}

  // ------------------------------------------------------------------ worker → daemon

  /**
   * {@code hello{run|session, token, build, pid}}: a worker introduces itself. The token is checked
   * against the stored hash of the subject's token; a token of another run is denied (C9).
   */
  record Hello(Subject subject, String token, String build, long pid) implements FromWorker {
    public Hello {
      Objects.requireNonNull(subject, "subject");
      Objects.requireNonNull(token, "token");
      Objects.requireNonNull(build, "build");
      if (pid <= 0) {
        throw new IllegalArgumentException("pid (" + pid + ") must be > 0");
      }
    }

    @Override
    public String op() {
      return "hello";
    }

    @Override
    public String toString() {
      return "Hello[" + subject + ", token=…, build=" + build + ", pid=" + pid + "]";
    }
  }

  /** {@code busy{work:[{kind,id}…]}}: work in flight (busy evidence, S3); also the busy answer to {@code quiesce} (S5). */
  record Busy(WorkSet work) implements FromWorker {
    public Busy {
      Objects.requireNonNull(work, "work");
    }

    @Override
    public String op() {
      return "busy";
    }
  }

  /** {@code idle}: the worker has no work in flight. */
  record Idle() implements FromWorker {
    @Override
    public String op() {
      return "idle";
    }
  }

  /** {@code progress{message, fraction?}}: fraction in {@code [0,1]} when present. */
  record Progress(String message, OptionalDouble fraction) implements FromWorker {
    public Progress {
      Objects.requireNonNull(message, "message");
      Objects.requireNonNull(fraction, "fraction");
      if (fraction.isPresent() && !(fraction.getAsDouble() >= 0 && fraction.getAsDouble() <= 1)) {
        throw new IllegalArgumentException("fraction (" + fraction.getAsDouble() + ") must be in [0, 1]");
      }
    }

    @Override
    public String op() {
      return "progress";
    }
  }

  /**
   * {@code outcome{verdict, detail, untilMs?}}: sent only after {@code outcome.json} is durable
   * (effect before receipt); {@code untilMs} is present exactly for STALLED. A success's result is not
   * sent: the daemon settles from {@code outcome.json}, which holds it, so a report carries none.
   */
  record OutcomeReport(Outcome outcome) implements FromWorker {
    public OutcomeReport {
      Objects.requireNonNull(outcome, "outcome");
      if (outcome instanceof Outcome.Succeeded s && s.result() != null) {
        outcome = new Outcome.Succeeded(s.detail());
      }
    }

    @Override
    public String op() {
      return "outcome";
    }
  }

  /** {@code quiesced}: the worker was idle, closed its run gate and answers quiesce (S5). */
  record Quiesced() implements FromWorker {
    @Override
    public String op() {
      return "quiesced";
    }
  }

  /**
   * {@code ask{seq, text, options}}: the worker asks a person (Q16); {@code seq} numbers its questions from 1
   * within its run, so that asking again after a reconnect names the same question. {@code options} is the
   * text of {@code QuestionOption.encodeAll}.
   */
  record Ask(long seq, String text, List<dev.vigil.coordination.QuestionOption> options) implements FromWorker {
    public Ask {
      Objects.requireNonNull(text, "text");
      options = List.copyOf(options);
      if (seq < 1) {
        throw new IllegalArgumentException("seq (" + seq + ") must be >= 1");
      }
    }

    @Override
    public String op() {
      return "ask";
    }
  }

  /**
   * {@code restored{restoreId, snapshot}}: a service's worker started over a restored snapshot (S7); said again,
   * with the same id, after every welcome, as the daemon stores one notice per restore.
   */
  record Restored(String restoreId, String snapshot) implements FromWorker {
    public Restored {
      Objects.requireNonNull(restoreId, "restoreId");
      Objects.requireNonNull(snapshot, "snapshot");
      dev.vigil.coordination.TranscriptEntry.checkRestore("-", restoreId, snapshot, 0);
    }

    @Override
    public String op() {
      return "restored";
    }
  }

  // ------------------------------------------------------------------ client → daemon

  /** {@code hello{version, build, protocol, interactive}}: a control client introduces itself. */
  record ClientHello(String version, String build, long protocol, boolean interactive) implements FromClient {
    public ClientHello {
      Objects.requireNonNull(version, "version");
      Objects.requireNonNull(build, "build");
    }

    @Override
    public String op() {
      return "hello";
    }
  }

  /**
   * A control command (DESIGN.md §6): one of {@link #OPS}; its fields, other than {@code v} and
   * {@code op}, are passed as {@code args} for the daemon to validate.
   */
  record Command(String op, ObjectNode args) implements FromClient {
    /**
     * The command ops. {@code store-check} and {@code store-backup} are answered by the daemon's
     * store itself, not by its engine (a daemon that has them says {@code store} among its capabilities);
     * the {@code schedule-…} ops are those of recurring schedules; {@code prune}, {@code prune-done},
     * {@code compact} and {@code maintenance} those of maintenance jobs (Q18).
     */
    public static final Set<String> OPS = Set.of("submit", "submit-all", "status", "list", "runs", "show", "park",
        "unpark", "hold", "release", "cancel", "run", "pause", "resume", "start-service", "stop-service",
        "kill", "retry", "events", "store-check", "store-backup", "restart",
        "schedule-add", "schedule-list", "schedule-pause", "schedule-resume", "schedule-rm", "questions", "answer",
        "transcript", "prune", "prune-done", "compact", "maintenance", "hosts", "release-host");

    /** The longest frame the daemon reads, bytes (a command must fit in one, with its envelope). */
    public static final int MAX_FRAME_BYTES = FrameIO.MAX_FRAME;

    public Command {
      Objects.requireNonNull(op, "op");
      Objects.requireNonNull(args, "args");
      if (!OPS.contains(op)) {
        throw new IllegalArgumentException("unknown command '" + op + "'");
      }
      args = args.deepCopy();
      args.remove("v");
      args.remove("op");
    }
  }

  /** {@code shutdown{ifIdle}}: replacement asks the daemon to exit only if every worker quiesces (S5, S8). */
  record Shutdown(boolean ifIdle) implements FromClient {
    @Override
    public String op() {
      return "shutdown";
    }
  }

  // ------------------------------------------------------------------ daemon → worker / client

  /**
   * {@code welcome{build, go}}: the daemon accepts a worker. With {@code go} false the worker waits;
   * it begins user work only after a welcome with {@code go} true, sent once {@code start} is
   * recorded (Q3).
   */
  record Welcome(String build, boolean go) implements FromDaemon {
    public Welcome {
      Objects.requireNonNull(build, "build");
    }

    @Override
    public String op() {
      return "welcome";
    }
  }

  /**
   * {@code answer{seq, option, reply?}}: the daemon applied the answer to the worker's question {@code seq}
   * (Q16); {@code reply} is the chosen option's value as JSON text, absent when it has none.
   */
  record Answer(long seq, String option, String reply) implements FromDaemon {
    public Answer {
      Objects.requireNonNull(option, "option");
    }

    @Override
    public String op() {
      return "answer";
    }
  }

  /** {@code adopt-denied{reason}}: the daemon will not adopt this worker (e.g. another build, S6). */
  record AdoptDenied(String reason) implements FromDaemon {
    public AdoptDenied {
      Objects.requireNonNull(reason, "reason");
    }

    @Override
    public String op() {
      return "adopt-denied";
    }
  }

  /** {@code quiesce}: answer {@code quiesced} when idle, {@code busy} otherwise (S5). */
  record Quiesce() implements FromDaemon {
    @Override
    public String op() {
      return "quiesce";
    }
  }

  /** {@code release}: reopen the run gate now (S5). */
  record Release() implements FromDaemon {
    @Override
    public String op() {
      return "release";
    }
  }

  /** {@code stop{graceMs}}: finish up; the group is KILLed after {@code graceMs}. */
  record Stop(long graceMs) implements FromDaemon {
    public Stop {
      if (graceMs < 0) {
        throw new IllegalArgumentException("graceMs (" + graceMs + ") must be >= 0");
      }
    }

    @Override
    public String op() {
      return "stop";
    }
  }

  /**
   * {@code capabilities{capabilities:[…], build, version, protocol, pid}}: the daemon's answer to a
   * client hello; {@code pid} is the daemon's own process.
   */
  record Capabilities(List<String> capabilities, String build, String version, long protocol, long pid)
      implements FromDaemon {
    public Capabilities {
      capabilities = List.copyOf(capabilities);
      Objects.requireNonNull(build, "build");
      Objects.requireNonNull(version, "version");
      if (pid <= 0) {
        throw new IllegalArgumentException("pid (" + pid + ") must be > 0");
      }
    }

    @Override
    public String op() {
      return "capabilities";
    }
  }

  /** {@code reply{…}}: the daemon's answer to a command; its fields are the daemon's to define. */
  record Reply(ObjectNode body) implements FromDaemon {
    public Reply {
      Objects.requireNonNull(body, "body");
      body = body.deepCopy();
      body.remove("v");
      body.remove("op");
    }

    @Override
    public String op() {
      return "reply";
    }
  }

  /** {@code error{reason}}: the frame just received was refused and changed nothing. */
  record Error(String reason) implements FromDaemon {
    private static final String TOO_LONG = " bytes is longer than the protocol allows";

    public Error {
      Objects.requireNonNull(reason, "reason");
    }

    /** The error that goes instead of an {@code op} frame of {@code bytes} bytes, too long to send. */
    public static Error tooLong(String op, long bytes) {
      return new Error(op + " of " + bytes + TOO_LONG + " (" + FrameIO.MAX_FRAME
          + " bytes): ask for less (e.g. filter by state or lane)");
    }

    /** Whether an error's reason says that the answer was too long to send (see {@link #tooLong}). */
    public static boolean isTooLong(String reason) {
      return reason != null && reason.contains(TOO_LONG);
    }

    @Override
    public String op() {
      return "error";
    }
  }
}
