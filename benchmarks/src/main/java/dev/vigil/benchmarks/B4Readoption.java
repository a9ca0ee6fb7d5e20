package dev.vigil.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

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
 */
public final class B4Readoption {
  public record Size(int live, double launchAllMs, int abandoned, int ranTwice, double idleRssMb, double liveRssMb,
      double hostRssMb, double hostPssMb, double readoptMs, double bootToSocketMs) {}

  public record Result(List<List<Size>> reps) {
    public List<Integer> lives() {
      return reps.get(0).stream().map(Size::live).toList();
    }

    public List<Size> of(int live) {
      return reps.stream().map(r -> r.stream().filter(s -> s.live() == live).findFirst().orElseThrow()).toList();
    }
  }

  private B4Readoption() {}

  public static Result measure(Options o) throws Exception {
    int[] lives = o.integers("live", new int[] {50, 150, 200}, new int[] {3});
    List<List<Size>> reps = new ArrayList<>();
    for (int i = 0; i < o.reps(); i++) {
      List<Size> rep = new ArrayList<>();
      for (int live : lives) {
        Size s = one(o, live);
        System.err.printf("B4 rep %d, %d live: all RUNNING in %.0f ms (%d abandoned), readopted %.0f ms after the new"
                + " daemon started; daemon RSS %.0f MB idle, %.0f MB live; host RSS %.1f MB PSS %.1f MB%n", i + 1, live,
            s.launchAllMs(), s.abandoned(), s.readoptMs(), s.idleRssMb(), s.liveRssMb(), s.hostRssMb(), s.hostPssMb());
        rep.add(s);
      }
      reps.add(rep);
    }
    return new Result(reps);
  }

  static Size one(Options o, int live) throws Exception {
    try (VigilHome home = VigilHome.create(o.dir(), "b4-" + live, live)) {
      long first = home.up();
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
      home.kill9(first);
      long upAt = System.nanoTime();
      long second = home.up();
      long answered = System.nanoTime();
      long startedAt = System.nanoTime() - Proc.ageNanos(second).orElseThrow();
      VigilHome.await(live + " runs readopted", () -> {
        List<JsonNode> runs = home.runs(true);
        return runs.size() >= live && runs.stream().allMatch(r -> r.path("state").asText().equals("RUNNING")
            && !r.path("owner").asText().equals(oldOwner));
      }, 25, 60_000L + live * 500L);
      long done = System.nanoTime();
      if (startedAt < upAt - 1_000_000_000L) {
        throw new IllegalStateException("the new daemon's start time reads before `vigil up` ran");
      }
      return new Size(live, launchAll, abandoned, ranTwice, idleRss, liveRss,
          hostRss.isEmpty() ? 0 : Stats.median(hostRss), hostPss.isEmpty() ? 0 : Stats.median(hostPss),
          (done - startedAt) / 1e6, (answered - startedAt) / 1e6);
    }
  }

  public static List<Report> report(Result r, Options o) {
    Report b4 = new Report("B4 re-adoption after kill -9 of the daemon (" + o.reps()
        + " interleaved repetitions, medians)", "live workers", "new daemon start → all readopted ms (max)",
        "start → socket answers ms", "launched at once → all RUNNING ms", "abandoned (handoff timeout)", "ran twice");
    Report b5 = new Report("B5 memory (medians)", "live runs", "daemon RSS idle MB", "daemon RSS with live runs MB",
        "worker host RSS MB", "worker host PSS MB");
    for (int live : r.lives()) {
      List<Size> s = r.of(live);
      b4.row(live, Stats.fmt(Stats.median(s.stream().map(Size::readoptMs).toList())) + " ("
              + Stats.fmt(Stats.max(s.stream().map(Size::readoptMs).toList())) + ")",
          Stats.median(s.stream().map(Size::bootToSocketMs).toList()),
          Stats.median(s.stream().map(Size::launchAllMs).toList()), s.stream().mapToInt(Size::abandoned).sum(),
          s.stream().mapToInt(Size::ranTwice).sum());
      b5.row(live, Stats.median(s.stream().map(Size::idleRssMb).toList()),
          Stats.median(s.stream().map(Size::liveRssMb).toList()), Stats.median(s.stream().map(Size::hostRssMb).toList()),
          Stats.median(s.stream().map(Size::hostPssMb).toList()));
    }
    b4.note("Readopted: every live run RUNNING under the new daemon's owner id, which readopt writes in the"
        + " transaction that re-arms the lease; the start is /proc/<pid>/stat field 22 (10 ms resolution).");
    b5.note("RSS from /proc/<pid>/status, worker host RSS and PSS from /proc/<pid>/smaps_rollup (up to 20 hosts).");
    return List.of(b4, b5);
  }
}
