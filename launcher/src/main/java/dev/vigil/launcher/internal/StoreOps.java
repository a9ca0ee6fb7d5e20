package dev.vigil.launcher.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.coordination.h2.CoordinationStoreException;
import dev.vigil.coordination.h2.DamagedStoreException;
import dev.vigil.coordination.h2.H2Coordination;
import dev.vigil.coordination.h2.H2Maintenance;
import dev.vigil.coordination.h2.StoreCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The store commands' shared parts ({@code vigil store check|backup|restore|recover}): where the
 * work is done, the daemon's side of the two that run while it runs, and the words people read.
 *
 * <ol>
 *   <li>Whether a daemon runs is the daemon lock ({@code daemon.lock}, D2): a command that takes it
 *       holds it to the end, so no daemon starts on the home meanwhile, and works on the closed file.
 *   <li>When a daemon holds it, {@code check} and {@code backup} ask that daemon over its socket
 *       ({@code store-check}, {@code store-backup}; capability {@value #CAPABILITY}): it checks
 *       inside its own connection (a consistent snapshot, verbs go on) and backs up with every verb
 *       paused for the copy. {@code restore} and {@code recover} refuse (exit 3): they replace the file.
 * </ol>
 */
public final class StoreOps {
  /** The capability of a daemon that answers {@code store-check} and {@code store-backup}. */
  public static final String CAPABILITY = "store";
  /** The ops the daemon's store answers (not its engine). */
  public static final Set<String> OPS = Set.of("store-check", "store-backup");

  private static final Pattern RUN_DIRECTORY = Pattern.compile("t-([0-9]{1,18})\\.[0-9]+");

  private StoreOps() {}

  /** The one line of a daemon start on a damaged store (exit 2). */
  public static String damagedLine(DamagedStoreException e) {
    return "the store " + e.file() + " is damaged (" + e.reason() + "); run vigil store check for details, vigil store "
        + "recover to salvage it, or vigil store restore FILE from a backup";
  }

  /** Whether a daemon's last line is {@link #damagedLine}. */
  public static boolean isDamagedLine(String line) {
    return line.startsWith("the store ") && line.contains(" is damaged (") && line.endsWith("from a backup");
  }

  // ---- where the work is done

  /**
   * With no daemon on {@code home}: takes the daemon lock, runs {@code stopped}, releases it. With a
   * daemon: runs {@code running} on a connection to it (waiting up to {@code waitMs} for one that is
   * starting).
   *
   * @throws Client.Failure exit 2 when the home does not exist, 4 when a daemon holds the lock but
   *                        does not answer
   */
  public static <T> T stoppedOrRunning(Home home, long waitMs, Supplier<T> stopped, Function<Client, T> running) {
    if (!Files.isDirectory(home.dir())) {
      throw new Client.Failure(2, "there is no store at " + home.databaseFile() + " (no home " + home.dir() + ")");
    }
    Optional<DaemonLock> lock = tryLock(home);
    if (lock.isPresent()) {
      return holding(home, lock.get(), stopped);
    }
    try (Client c = Client.connect(home, false, waitMs)) {
      return running.apply(c);
    }
  }

  /**
   * Runs {@code work} holding the daemon lock (a home that does not exist yet needs none); when a
   * daemon holds it, refuses (exit 3) naming the daemon and what to do, since {@code doing}
   * replaces the store file that the daemon has open.
   */
  public static <T> T withTheDaemonStopped(Home home, String doing, String again, Supplier<T> work) {
    if (!Files.isDirectory(home.dir())) {
      return work.get();
    }
    Optional<DaemonLock> lock = tryLock(home);
    if (lock.isEmpty()) {
      String who = new StatusFile(home.statusFile()).read().map(s -> " (pid " + s.pid() + ")").orElse("");
      throw new Client.Failure(3, "refused: a daemon" + who + " runs on " + home.dir() + " and has the store open, so "
          + "it cannot " + doing + "; stop it first (vigil down), then run " + again + " again (nothing was changed)");
    }
    return holding(home, lock.get(), work);
  }

  private static Optional<DaemonLock> tryLock(Home home) {
    try {
      return DaemonLock.tryAcquire(home.lockFile());
    } catch (IOException e) {
      throw new Client.Failure(1, "cannot open " + home.lockFile() + ": " + e.getMessage());
    }
  }

  private static <T> T holding(Home home, DaemonLock lock, Supplier<T> work) {
    try (DaemonLock held = lock) {
      return work.get();
    } catch (IOException e) {
      throw new Client.Failure(1, "cannot release " + home.lockFile() + ": " + e.getMessage());
    }
  }

  /** Whether the daemon on the other end answers the store ops; else exit 3 naming what to do. */
  public static void requireStoreOps(Client c, String what, String again) {
    if (!c.capabilities().capabilities().contains(CAPABILITY)) {
      throw new Client.Failure(3, "refused: the running daemon (v" + c.capabilities().version() + ", pid "
          + c.capabilities().pid() + ") cannot " + what + " while it runs; stop it (vigil down) and run " + again
          + " again, or update it");
    }
  }

  /** The highest task number that has a run directory under {@code home}, 0 for none. */
  public static long highestTaskWithARunDirectory(Home home) {
    if (!Files.isDirectory(home.runs())) {
      return 0;
    }
    long max = 0;
    try (Stream<Path> s = Files.list(home.runs())) {
      for (Path p : s.toList()) {
        Matcher m = RUN_DIRECTORY.matcher(p.getFileName().toString());
        if (m.matches()) {
          max = Math.max(max, Long.parseLong(m.group(1)));
        }
      }
    } catch (IOException e) {
      return max;
    }
    return max;
  }

  // ---- the daemon's side

  /**
   * Answers a store op inside the daemon, on the connection's own thread (never the scheduling
   * thread): {@code store-check} checks the open store; {@code store-backup{file, force}} backs it up.
   */
  public static ObjectNode answer(H2Coordination store, String op, JsonNode args) {
    try {
      if (op.equals("store-check")) {
        return json(store.check());
      }
      Path file = Path.of(args.path("file").asText(""));
      boolean force = args.path("force").asBoolean(false);
      Optional<String> bad = badBackupTarget(file, force, store.file());
      if (bad.isPresent()) {
        return Wire.error("Invalid", bad.get());
      }
      H2Maintenance.Backup b = store.backup(file, force);
      ObjectNode o = Wire.JSON.createObjectNode();
      o.put("kind", "BackedUp");
      o.put("file", b.file().toString());
      o.put("bytes", b.bytes());
      o.put("schemaVersion", b.schemaVersion());
      return o;
    } catch (CoordinationStoreException | IllegalStateException e) {
      return Wire.error("Failed", Wire.oneLine(e.getMessage()));
    }
  }

  /**
   * What is wrong with a backup's target, if anything: it must be absolute, in a directory that
   * exists, not the store itself, and new unless forced.
   */
  public static Optional<String> badBackupTarget(Path file, boolean force, Path store) {
    if (!file.isAbsolute() || file.getFileName() == null) {
      return Optional.of("'" + file + "' is not a file path");
    }
    if (file.normalize().equals(store.toAbsolutePath().normalize()) || sameFile(file, store)) {
      return Optional.of(file + " is the store itself: write the backup elsewhere (nothing was written)");
    }
    Path dir = file.getParent();
    if (!Files.isDirectory(dir)) {
      return Optional.of("cannot write " + file + ": directory " + dir + " does not exist (nothing was written)");
    }
    if (Files.isDirectory(file)) {
      return Optional.of(file + " is a directory (nothing was written)");
    }
    if (Files.exists(file) && !force) {
      return Optional.of(file + " exists; add --force to replace it (nothing was written)");
    }
    return Optional.empty();
  }

  private static boolean sameFile(Path a, Path b) {
    try {
      return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
    } catch (IOException e) {
      return false;
    }
  }

  /** A check as a reply body. */
  public static ObjectNode json(StoreCheck c) {
    ObjectNode o = Wire.JSON.createObjectNode();
    o.put("kind", "StoreCheck");
    o.put("file", c.file().toString());
    o.put("healthy", c.healthy());
    o.put("schemaVersion", c.schemaVersion());
    ObjectNode rows = o.putObject("rows");
    c.rows().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> rows.put(e.getKey(), e.getValue()));
    ArrayNode problems = o.putArray("problems");
    for (StoreCheck.Problem p : c.problems()) {
      problems.addObject().put("kind", p.kind().name()).put("what", p.what());
    }
    return o;
  }

  /** The check a reply body holds. */
  public static StoreCheck checkOf(JsonNode o) {
    Map<String, Long> rows = new LinkedHashMap<>();
    o.path("rows").fields().forEachRemaining(e -> rows.put(e.getKey(), e.getValue().asLong()));
    List<StoreCheck.Problem> problems = new ArrayList<>();
    for (JsonNode p : o.path("problems")) {
      problems.add(new StoreCheck.Problem(StoreCheck.Kind.valueOf(p.path("kind").asText()), p.path("what").asText()));
    }
    return new StoreCheck(Path.of(o.path("file").asText()), o.path("schemaVersion").asInt(), rows, problems);
  }

  // ---- words

  /** What the store holds, like {@code tasks 42, runs 45, events 42}. */
  public static String holds(Map<String, Long> rows) {
    List<String> parts = new ArrayList<>();
    for (String t : List.of("TICKETS", "RUNS", "EVENTS")) {
      if (rows.containsKey(t)) {
        parts.add(StoreCheck.what(t) + " " + rows.get(t));
      }
    }
    return String.join(", ", parts);
  }

  /** Rows per table, in the order given, like {@code tasks 32, runs 32, events 32, lanes 1}. */
  public static String counts(Map<String, Long> rows) {
    List<String> parts = new ArrayList<>();
    rows.forEach((t, n) -> parts.add(StoreCheck.what(t) + " " + n));
    return String.join(", ", parts);
  }

  /** The lines {@code vigil store check} prints for {@code c}, checked {@code how}. */
  public static List<String> checkLines(StoreCheck c, String how) {
    List<String> out = new ArrayList<>();
    if (c.healthy()) {
      out.add("store " + c.file() + ": healthy (" + how + ")");
      out.add("  schema version " + c.schemaVersion() + "; " + holds(c.rows()) + "; every row and index entry was read");
      return out;
    }
    out.add("store " + c.file() + ": " + (c.damaged() ? "damaged" : c.newerSchema() ? "not checked" : "inconsistent")
        + " (" + how + ")");
    for (StoreCheck.Problem p : c.problems()) {
      String kind = switch (p.kind()) {
        case UNREADABLE -> "unreadable";
        case INCONSISTENT -> "inconsistent";
        case NEWER_SCHEMA -> "newer";
      };
      out.add("  " + kind + ": " + p.what());
    }
    if (!c.newerSchema()) {
      out.add("to salvage what can be read: vigil store recover (with the daemon stopped); or put a backup in its place: "
          + "vigil store restore FILE");
    }
    return out;
  }
}
