package dev.vigil.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.coordination.RunId;
import dev.vigil.supervisor.WorkSet;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code scripted} worker type of the bridge scenarios: it does what its payload says for the
 * how-many-th run of its ticket it is (a task) or for the how-many-th launch it is (a service), as a
 * {@link Behaviour}.
 *
 * <pre>{@code
 * {"runs": {"1": "exit 1 after 300ms", "*": "exit 0 after 300ms"}}       a task
 * {"launches": {"1": "crash after 200ms", "*": "serve"}}                 a service
 * }</pre>
 *
 * <p>A service worker counts its launches in {@code launches} in its session directory, and serves
 * work items from {@code inbox/} there: each file holds a duration in ms; the worker takes the
 * oldest, works on it as a run (S3, S5) and deletes it when done, so an item whose worker
 * died stays for the next worker (the session's durable queue).
 */
public final class ScriptedWorker implements WorkerType {
  /** The type's name in configurations and submissions. */
  public static final String NAME = "scripted";
  /** The session directory's queue of work items. */
  public static final String INBOX = "inbox";
  /** The session directory's launch counter. */
  static final String LAUNCHES = "launches";
  /** The file in the run directory that tells a run "until told" to end. */
  public static final String TOLD = "told";
  /** The file this worker writes in its run directory as its work begins (its host was told go). */
  public static final String BEGUN = "begun";
  /** The file in the run directory that tells a grandchild "until told" to end. */
  public static final String FORK_TOLD = "fork-told";
  /** Pause between looks at an empty inbox or for a file that tells, ms. */
  private static final long POLL_MS = 50;

  @Override
  public String name() {
    return NAME;
  }

  /** The behaviour for the {@code n}-th run or launch in {@code table} ({@code "*"} for the rest). */
  public static Behaviour pick(JsonNode payload, String table, int n, Behaviour dflt) {
    JsonNode t = payload.path(table);
    JsonNode b = t.has(Integer.toString(n)) ? t.get(Integer.toString(n)) : t.get("*");
    return b == null || !b.isTextual() ? dflt : Behaviour.parse(b.asText());
  }

  @Override
  public Outcome run(WorkContext ctx) throws Exception {
    if (ctx.session().isPresent()) {
      return serve(ctx);
    }
    Behaviour b = pick(ctx.payload(), "runs", RunId.parse(ctx.runId()).number(), Behaviour.exit(0, 0));
    try {
      Files.writeString(ctx.runDirectory().resolve(BEGUN), "");
    } catch (java.io.IOException e) {
      // the scenario then waits for the file in vain and says so
    }
    if (b.ignoreTerm()) {
      ignoreTerm();
    }
    if (b.ending() == Behaviour.Ending.HANG) {
      while (true) {
        Thread.sleep(60_000);
      }
    }
    if (b.untilTold()) {
      Path told = ctx.runDirectory().resolve(TOLD);
      while (!Files.exists(told)) {
        Thread.sleep(POLL_MS);
      }
    } else if (b.forkMs() >= 0) {
      Thread.sleep(b.afterMs() / 3);
      fork(ctx.runDirectory(), b);
      Thread.sleep(b.afterMs() - b.afterMs() / 3);
    } else {
      Thread.sleep(b.afterMs());
    }
    return switch (b.ending()) {
      case EXIT -> b.code() == 0 ? ctx.succeeded("exit code 0")
          : b.code() == Behaviour.STALL_CODE ? ctx.stalled(System.currentTimeMillis() + b.stallForMs(), "exit code 75")
          : ctx.failed("exit code " + b.code());
      case STALL -> ctx.stalled(System.currentTimeMillis() + b.stallForMs(), "stalled");
      case BLOCKED -> ctx.blocked("blocked");
      case PERMANENT -> ctx.permanentFailure("permanent");
      case NO_OUTCOME -> {
        Runtime.getRuntime().halt(1);
        throw new AssertionError("halted");
      }
      case CRASH -> {
        killSelf();
        throw new AssertionError("killed");
      }
      case HANG, SERVE -> throw new AssertionError(b);
    };
  }

  private Outcome serve(WorkContext ctx) throws Exception {
    Path dir = ctx.runDirectory();
    int launch = countLaunch(dir.resolve(LAUNCHES));
    Behaviour b = pick(ctx.payload(), "launches", launch, Behaviour.serve());
    if (b.ending() == Behaviour.Ending.CRASH) {
      Thread.sleep(b.afterMs());
      killSelf();
    } else if (b.ending() != Behaviour.Ending.SERVE) {
      throw new IllegalArgumentException("a service worker serves or crashes, not " + b);
    }
    Path inbox = dir.resolve(INBOX);
    Files.createDirectories(inbox);
    while (!ctx.stopRequested()) {
      Optional<Path> item = oldest(inbox);
      if (item.isEmpty()) {
        ctx.awaitStop(POLL_MS);
        continue;
      }
      Optional<WorkContext.Work> work = ctx.busy(WorkSet.Kind.RUN, item.get().getFileName().toString());
      if (work.isEmpty()) {
        break;
      }
      try {
        long ms = Long.parseLong(Files.readString(item.get(), StandardCharsets.UTF_8).trim());
        if (ctx.awaitStop(ms)) {
          break; // stopped mid-item: the item stays queued for the next worker
        }
        Files.delete(item.get());
      } finally {
        work.get().close();
      }
    }
    return ctx.succeeded("served");
  }

  private static int countLaunch(Path counter) throws IOException {
    int n = Files.exists(counter) ? Integer.parseInt(Files.readString(counter, StandardCharsets.UTF_8).trim()) : 0;
    Files.writeString(counter, Integer.toString(n + 1), StandardCharsets.UTF_8);
    return n + 1;
  }

  private static Optional<Path> oldest(Path inbox) throws IOException {
    List<Path> items = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(inbox, "*.item")) {
      s.forEach(items::add);
    }
    return items.stream().sorted().findFirst();
  }

  /** A grandchild in this process group, in the run directory: it outlives this host by D, or until told. */
  private static void fork(Path dir, Behaviour b) throws IOException {
    String script = b.forkMs() == Behaviour.TOLD ? "while [ ! -e " + FORK_TOLD + " ]; do sleep 0.05; done"
        : "sleep " + String.format(java.util.Locale.ROOT, "%.3f", (b.afterMs() - b.afterMs() / 3 + b.forkMs()) / 1000.0);
    new ProcessBuilder("sh", "-c", script).directory(dir.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD).redirectInput(new File("/dev/null")).start();
  }

  /** The host ignores TERM from now on (only KILL ends it), as a process stuck in a signal-blind state. */
  private static void ignoreTerm() throws ReflectiveOperationException {
    Class<?> signal = Class.forName("sun.misc.Signal");
    Class<?> handler = Class.forName("sun.misc.SignalHandler");
    Constructor<?> make = signal.getConstructor(String.class);
    Object ignore = handler.getField("SIG_IGN").get(null);
    Method handle = signal.getMethod("handle", signal, handler);
    handle.invoke(null, make.newInstance("TERM"), ignore);
  }

  private static void killSelf() throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start().waitFor();
    Thread.sleep(5_000);
    Runtime.getRuntime().halt(137);
  }
}
