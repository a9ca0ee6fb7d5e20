package dev.vigil.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * B4 and B5 on one home per size ({@code --live 50,150,200}; smoke 3), interleaved per repetition:
 * <ol>
 *   <li>{@code vigil up}; after 3 s idle, the daemon's RSS (B5 idle);
 *   <li>{@code live} × {@code sleep 3600} submitted at once (lane concurrency = live): time until every
 *       run is RUNNING, and whether any run was abandoned (a handoff timeout) or a ticket ran twice;
 *   <li>after 2 s, the daemon's RSS and the worker hosts' RSS and PSS ({@code smaps_rollup}; the median
 *       of up to 20 hosts) (B5);
 *   <li>{@code kill -9} of the daemon, {@code vigil up} again: the time from the new daemon's start
 *       ({@code /proc/<pid>/stat} field 22) until every run is RUNNING under the new owner, which
 *       {@code readopt} sets in the same transaction that re-arms the lease (B4);
 *   <li>every daemon and worker started is ended by its pid.
 * </ol>
 *
 * <p>{@code --max-starting N} writes {@code maxStarting} into the configuration (default: the daemon's own,
 * 4 per processor).
 *
 * <p>Each size runs twice per repetition ({@code --daemon-archive both}, the default; smoke {@code off}):
 * with the daemon's class archive, which the driver waits for before the {@code kill -9} (the first daemon
 * writes it in the background a few seconds after it serves), and with {@code VIGIL_CDS=off} for both
 * daemons, alternately. Off means no class archive at all: the worker hosts of those runs start without
 * theirs too, so B5's host figures are those of the runs with archives.
 */
public final class B4Readoption {
  public record Size(int live, boolean archive, double launchAllMs, int abandoned, int ranTwice, double idleRssMb, double liveRssMb,
      double hostRssMb, double hostPssMb, double readoptMs, double bootToSocketMs, double journalReadoptMs) {}

  public record Result(List<List<Size>> reps) {
    public List<Integer> lives() {
      return reps.get(0).stream().map(Size::live).distinct().toList();
    }

    /** The modes measured: with the daemon's class archive (true), without (false). */
    public List<Boolean> archives() {
      return reps.get(0).stream().map(Size::archive).distinct().toList();
    }

    public List<Size> of(int live, boolean archive) {
      return reps.stream().map(r -> r.stream().filter(s -> s.live() == live && s.archive() == archive).findFirst()
          .orElseThrow()).toList();
    }
  }

  private B4Readoption() {}

  public static Result measure(Options o) throws Exception {
    int[] lives = o.integers("live", new int[] {50, 150, 200}, new int[] {3});
    String mode = o.named().getOrDefault("daemon-archive", o.smoke() ? "off" : "both");
    List<Boolean> archives = switch (mode) {
      case "both" -> List.of(true, false);
      case "on" -> List.of(true);
      case "off" -> List.of(false);
      default -> throw new IllegalArgumentException("--daemon-archive must be both, on or off, not '" + mode + "'");
    };
    List<List<Size>> reps = new ArrayList<>();
    for (int i = 0; i < o.reps(); i++) {
      List<Size> rep = new ArrayList<>();
      for (int live : lives) {
        List<Boolean> order = new ArrayList<>(archives);
        if (i % 2 == 1) {
          java.util.Collections.reverse(order);
        }
        for (boolean archive : order) {
          Size s = one(o, live, archive);
          System.err.printf("B4 rep %d, %d live, %s: all RUNNING in %.0f ms (%d abandoned), readopted %.0f ms after"
                  + " the new daemon started (seen %.0f ms); daemon RSS %.0f MB idle, %.0f MB live; host RSS %.1f MB"
                  + " PSS %.1f MB%n", i + 1, live, archive ? "daemon class archive" : "no daemon class archive",
              s.launchAllMs(), s.abandoned(), s.journalReadoptMs(), s.readoptMs(), s.idleRssMb(), s.liveRssMb(),
              s.hostRssMb(), s.hostPssMb());
          rep.add(s);
        }
      }
      reps.add(rep);
    }
    return new Result(reps);
  }

  static Size one(Options o, int live, boolean archive) throws Exception {
    Map<String, String> env = Map.of("VIGIL_CDS", archive ? "on" : "off");
    int maxStarting = Integer.parseInt(o.named().getOrDefault("max-starting", "0"));
    try (VigilHome home = VigilHome.create(o.dir(), "b4-" + live + (archive ? "-cds" : ""), live, maxStarting)) {
      long first = home.up(env);
      home.tickets();
      Thread.sleep(o.smoke() ? 1_000 : 3_000);
      double idleRss = Proc.statusKb(first, "VmRSS").orElse(0L) / 1024.0;
      long t0 = System.nanoTime();
      for (int i = 0; i < live; i++) {
        home.submit("sleep", "3600");
      }
      List<List<JsonNode>> seen = new ArrayList<>(List.of(List.of()));
      VigilHome.await(live + " runs RUNNING", () -> {
        List<JsonNode> runs = home.runs(true);
        seen.set(0, runs);
        return runs.stream().filter(r -> r.path("state").asText().equals("RUNNING")).count() >= live;
      }, 50, 60_000L + live * 1_000L);
      double launchAll = (System.nanoTime() - t0) / 1e6;
      List<JsonNode> all = home.runs(false);
      int abandoned = (int) all.stream().filter(r -> r.path("verdict").asText().equals("ABANDONED")).count();
      int ranTwice = all.size() - live;
      String oldOwner = seen.get(0).get(0).path("owner").asText();
      Thread.sleep(2_000);
      double liveRss = Proc.statusKb(first, "VmRSS").orElse(0L) / 1024.0;
      List<Double> hostRss = new ArrayList<>();
      List<Double> hostPss = new ArrayList<>();
      for (JsonNode r : seen.get(0).subList(0, Math.min(20, seen.get(0).size()))) {
        Proc.memory(r.path("pid").asLong()).ifPresent(m -> {
          hostRss.add(m.rssKb() / 1024.0);
          hostPss.add(m.pssKb() / 1024.0);
        });
      }
      if (archive) {
        VigilHome.await("the daemon's class archive", () -> daemonArchive(home.dir()), 200, 120_000L);
      }
      home.kill9(first);
      long upAt = System.nanoTime();
      long second = home.up(env);
      if (archive != mapsDaemonArchive(second)) {
        throw new IllegalStateException("the new daemon " + (archive ? "does not map" : "maps") + " a class archive");
      }
      long answered = System.nanoTime();
      long startedAt = System.nanoTime() - Proc.ageNanos(second).orElseThrow();
      long startedAtWallMs = System.currentTimeMillis() - (System.nanoTime() - startedAt) / 1_000_000;
      VigilHome.await(live + " runs readopted", () -> {
        List<JsonNode> runs = home.runs(true);
        return runs.size() >= live && runs.stream().allMatch(r -> r.path("state").asText().equals("RUNNING")
            && !r.path("owner").asText().equals(oldOwner));
      }, 25, 60_000L + live * 500L);
      long done = System.nanoTime();
      if (startedAt < upAt - 1_000_000_000L) {
        throw new IllegalStateException("the new daemon's start time reads before `vigil up` ran");
      }
      return new Size(live, archive, launchAll, abandoned, ranTwice, idleRss, liveRss,
          hostRss.isEmpty() ? 0 : Stats.median(hostRss), hostPss.isEmpty() ? 0 : Stats.median(hostPss),
          (done - startedAt) / 1e6, (answered - startedAt) / 1e6,
          lastReadoptWallMs(home.dir(), second, live) - startedAtWallMs);
    }
  }

  /**
   * The wall-clock ms the daemon {@code pid} recorded its last re-adoption in the journal
   * ({@code logs/journal.jsonl}: a {@code Recovered} event with action {@code READOPT} by its owner,
   * {@code d-<host>-<pid>-...}), written once the transaction that re-armed the lease committed; it must
   * have recorded {@code live} of them.
   */
  private static long lastReadoptWallMs(Path home, long pid, int live) throws IOException {
    long last = -1;
    int n = 0;
    for (String line : Files.readAllLines(home.resolve("logs/journal.jsonl"))) {
      if (line.contains("\"event\":\"Recovered\"") && line.contains("\"action\":\"READOPT\"")) {
        JsonNode e = VigilHome.JSON.readTree(line);
        if (e.path("by").asText().matches("d-.*-" + pid + "-[0-9]+")) {
          last = Math.max(last, e.path("at").asLong());
          n++;
        }
      }
    }
    if (n != live) {
      throw new IllegalStateException("the journal has " + n + " re-adoptions by pid " + pid + ", not " + live);
    }
    return last;
  }

  /** Whether the home's daemon class archive is in place. */
  private static boolean daemonArchive(Path home) {
    try (DirectoryStream<Path> s = Files.newDirectoryStream(home.resolve("cds"), "daemon-*.jsa")) {
      return s.iterator().hasNext();
    } catch (IOException e) {
      return false;
    }
  }

  /** Whether process {@code pid} maps a daemon class archive ({@code /proc/<pid>/maps}). */
  private static boolean mapsDaemonArchive(long pid) throws IOException {
    return Files.readAllLines(Path.of("/proc/" + pid + "/maps")).stream().anyMatch(l -> l.contains("/cds/daemon-"));
  }

  public static List<Report> report(Result r, Options o) {
    Report b4 = new Report("B4 re-adoption after kill -9 of the daemon (" + o.reps()
        + " interleaved repetitions, medians)", "live workers", "class archives (daemon's and hosts')",
        "new daemon start → last re-adoption in its journal ms (max)", "new daemon start → all readopted ms (max)",
        "start → socket answers ms", "launched at once → all RUNNING ms", "abandoned (handoff timeout)", "ran twice");
    Report b5 = new Report("B5 memory (medians)", "live runs", "class archives (daemon's and hosts')", "daemon RSS idle MB",
        "daemon RSS with live runs MB", "worker host RSS MB", "worker host PSS MB");
    for (int live : r.lives()) {
      for (boolean archive : r.archives()) {
        List<Size> s = r.of(live, archive);
        String mode = archive ? "yes" : "no";
        b4.row(live, mode, Stats.fmt(Stats.median(s.stream().map(Size::journalReadoptMs).toList())) + " ("
                + Stats.fmt(Stats.max(s.stream().map(Size::journalReadoptMs).toList())) + ")",
            Stats.fmt(Stats.median(s.stream().map(Size::readoptMs).toList())) + " ("
                + Stats.fmt(Stats.max(s.stream().map(Size::readoptMs).toList())) + ")",
            Stats.median(s.stream().map(Size::bootToSocketMs).toList()),
            Stats.median(s.stream().map(Size::launchAllMs).toList()), s.stream().mapToInt(Size::abandoned).sum(),
            s.stream().mapToInt(Size::ranTwice).sum());
        b5.row(live, mode, Stats.median(s.stream().map(Size::idleRssMb).toList()),
            Stats.median(s.stream().map(Size::liveRssMb).toList()), Stats.median(s.stream().map(Size::hostRssMb).toList()),
            Stats.median(s.stream().map(Size::hostPssMb).toList()));
      }
    }
    b4.note("Readopted: every live run RUNNING under the new daemon's owner id, which readopt writes in the"
        + " transaction that re-arms the lease; the start is /proc/<pid>/stat field 22 (10 ms resolution). The"
        + " journal column is when the daemon recorded its last re-adoption (each is recorded after its"
        + " transaction committed); the next column is when the driver first saw them all through the socket,"
        + " which the daemon opens once recovery is over, polling every 25 ms with a listing of every live run.");
    b5.note("RSS from /proc/<pid>/status, worker host RSS and PSS from /proc/<pid>/smaps_rollup (up to 20 hosts).");
    return List.of(b4, b5);
  }
}
