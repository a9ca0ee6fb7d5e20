package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.worker.Outcome;
import dev.vigil.worker.WorkContext;
import dev.vigil.worker.WorkerType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The worker of the built-in maintenance jobs (Q18, {@link MaintenanceJobs}): a worker process like any
 * task's, so the daemon's own thread never removes a directory. Payload {@code {"job": "retention" | "prune"
 * | "compact", "olderThanMs": N}}.
 *
 * <ol>
 *   <li>A prune ({@code retention} by its schedule, {@code prune} by hand) asks its daemon over the control
 *       socket to prune: the store deletes the tickets the rule allows and lists their run directories, in
 *       one transaction, and answers every directory still listed (this prune's and those of an earlier job
 *       cut by a crash).
 *   <li>It removes each listed directory under the home's {@code runs/} (one already gone is no error),
 *       then tells the daemon which it removed, which records them and the job's line.
 *   <li>A compaction asks the daemon to compact the store at a safe point.
 * </ol>
 *
 * When its daemon is gone (a restart, a {@code kill -9}), it waits for the next one (which adopts it)
 * and asks again: every step is idempotent, so the job finishes once whatever falls between.
 */
public final class MaintenanceWorker implements WorkerType {
  /** How long it waits for a daemon to answer before the run fails (and the ticket is tried again), ms. */
  static final long DAEMON_WAIT_MS = 10 * 60_000L;
  /** Pause between two tries to reach a daemon, ms. */
  static final long RETRY_MS = 500;

  @Override
  public String name() {
    return MaintenanceJobs.TYPE;
  }

  @Override
  public Outcome run(WorkContext context) throws Exception {
    Home home = new Home(context.runDirectory().toAbsolutePath().getParent().getParent());
    JsonNode p = context.payload();
    String job = p.path("job").asText("");
    if (job.equals("compact")) {
      ObjectNode r = call(context, home, "compact", Wire.JSON.createObjectNode().put("job", "compact"));
      if (r == null) {
        return context.stalled(System.currentTimeMillis(), "stopped before the daemon answered");
      }
      r.remove("kind");
      return Outcome.succeeded(r, "store compacted: " + r.path("bytesBefore").asLong() + " bytes before, "
          + r.path("bytesAfter").asLong() + " after");
    } else if (!job.equals("retention") && !job.equals("prune")) {
      return context.permanentFailure("job '" + job + "' is not a maintenance job (retention, prune or compact)");
    }
    ObjectNode a = Wire.JSON.createObjectNode().put("job", job);
    if (p.has("olderThanMs")) {
      a.put("olderThanMs", p.path("olderThanMs").asLong());
    }
    ObjectNode r = call(context, home, "prune", a);
    if (r == null) {
      return context.stalled(System.currentTimeMillis(), "stopped before the daemon answered");
    }
    JsonNode pruning = r.path("pruning");
    long pauseMs = p.path("pauseBeforeRemovalMs").asLong(0); // lets a test kill the daemon here
    if (pauseMs > 0 && context.awaitStop(pauseMs)) {
      return context.stalled(System.currentTimeMillis(), "stopped before removing run directories");
    }
    List<String> removed = new ArrayList<>();
    long bytes = 0;
    Path runs = home.runs().toAbsolutePath().normalize();
    for (JsonNode d : pruning.path("directories")) {
      Path dir = runs.resolve(dev.vigil.coordination.RunId.parse(d.asText()).toString()).normalize();
      if (!dir.getParent().equals(runs)) {
        throw new IllegalStateException("run directory " + dir + " is not under " + runs);
      }
      bytes += removeTree(dir);
      removed.add(d.asText());
    }
    String summary = count(pruning.path("tickets").size(), "task", "tasks") + " and "
        + count(pruning.path("runs").size(), "run", "runs") + " deleted; "
        + count(removed.size(), "run directory", "run directories") + " removed (" + bytes + " bytes)";
    ObjectNode done = Wire.JSON.createObjectNode().put("job", job).put("summary", summary);
    ArrayNode list = done.putArray("runs");
    removed.forEach(list::add);
    if (call(context, home, "prune-done", done) == null) {
      return context.stalled(System.currentTimeMillis(), "stopped before its removals were recorded");
    }
    ObjectNode result = Wire.JSON.createObjectNode();
    result.set("tickets", pruning.path("tickets"));
    result.set("runs", pruning.path("runs"));
    result.set("directories", list);
    result.put("bytes", bytes);
    result.set("kept", pruning.path("kept"));
    return Outcome.succeeded(result, summary);
  }

  /**
   * The daemon's answer to {@code op}, asked again of the next daemon while none answers; null when the
   * worker was asked to stop meanwhile.
   *
   * @throws IllegalStateException when no daemon answered within {@link #DAEMON_WAIT_MS}, or it refused
   */
  private static ObjectNode call(WorkContext context, Home home, String op, ObjectNode args) throws InterruptedException {
    long deadline = System.nanoTime() + DAEMON_WAIT_MS * 1_000_000;
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      if (context.stopRequested()) {
        return null;
      }
      Optional<Client> c = Optional.empty();
      try {
        c = Client.tryConnect(home, false);
        if (c.isPresent()) {
          ObjectNode reply = c.get().call(op, args);
          if (!reply.path("kind").asText().equals("Unavailable")) {
            return Client.ok(reply);
          }
          last = new IllegalStateException(reply.path("message").asText());
        }
      } catch (Client.Failure e) {
        if (e.exitCode() != Client.NO_DAEMON && e.exitCode() != Client.STORE_UNAVAILABLE && !(e instanceof Client.NotAnswering)) {
          throw new IllegalStateException(op + ": " + e.getMessage(), e);
        }
        last = e;
      } catch (RuntimeException e) { // the daemon died in the middle of the call
        last = e;
      } finally {
        c.ifPresent(Client::close);
      }
      if (context.awaitStop(RETRY_MS)) {
        return null;
      }
    }
    throw new IllegalStateException(op + ": no daemon answered within " + DAEMON_WAIT_MS / 1000 + " s"
        + (last == null ? "" : " (" + last.getMessage() + ")"));
  }

  private static String count(int n, String one, String many) {
    return n + " " + (n == 1 ? one : many);
  }

  /** Removes {@code dir} and everything under it; returns the bytes of the files removed (0 when it was gone). */
  static long removeTree(Path dir) {
    if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    long[] bytes = {0};
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
          bytes[0] += attrs.size();
          Files.deleteIfExists(f);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path f, IOException e) throws IOException {
          if (e instanceof NoSuchFileException) {
            return FileVisitResult.CONTINUE;
          }
          throw e;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
          if (e != null && !(e instanceof NoSuchFileException)) {
            throw e;
          }
          Files.deleteIfExists(d);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (NoSuchFileException e) {
      return bytes[0];
    } catch (IOException e) {
      throw new UncheckedIOException(dir + ": cannot remove it", e);
    }
    return bytes[0];
  }
}
