package dev.vigil.worker.host;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.TicketId;
import dev.vigil.supervisor.engine.WorkerTypeSpec;
import dev.vigil.worker.process.LaunchSpec;
import dev.vigil.worker.process.LaunchedWorker;
import dev.vigil.worker.process.Processes;
import dev.vigil.worker.protocol.Message;
import dev.vigil.worker.protocol.RunToken;
import dev.vigil.worker.protocol.Subject;
import dev.vigil.worker.rundir.RunDirectory;
import dev.vigil.worker.testkit.TestDaemon;
import dev.vigil.worker.testkit.Workers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Measures the worker host (not a test): launch → reservation held, launch → {@code busy} (hello,
 * welcome with go, work admitted), and the host's resident set while it supervises a
 * {@code sleep} child. Usage: {@code StartupDriver [runs] [fast|default|FLAG,FLAG…]}; prints one line per run
 * and the p50/p95/max.
 */
public final class StartupDriver {
  private StartupDriver() {}

  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    List<String> flags = args.length > 1 && args[1].equals("default") ? List.of()
        : args.length > 1 && !args[1].equals("fast") ? List.of(args[1].split(",")) : WorkerArgs.FAST_START_FLAGS;
    Path home = Files.createTempDirectory("vigil-driver");
    ObjectMapper json = new ObjectMapper();
    List<Double> reserved = new ArrayList<>();
    List<Double> working = new ArrayList<>();
    List<Long> rss = new ArrayList<>();
    try (TestDaemon daemon = TestDaemon.start(home)) {
      for (int i = 0; i <= runs; i++) {
        RunId run = new RunId(new TicketId(i + 1), 1);
        Subject subject = new Subject.Run(run.toString());
        String token = daemon.register(subject);
        RunDirectory dir = RunDirectory.create(home, run.toString());
        dir.writePayload(json.readTree("{\"argv\":[\"sleep\",\"30\"]}"));
        Map<String, String> env = LaunchSpec.baseEnvironment();
        env.put(RunToken.ENV, token);
        WorkerArgs wa = WorkerArgs.task(home, run, 1, "command", WorkerTypeSpec.Command.DEFAULT, TestDaemon.BUILD);
        LaunchSpec spec = new LaunchSpec(wa.command(Workers.java(), flags, Workers.classpath()), env, dir.path(),
            dir.stdoutLog(), dir.stderrLog());

        long t0 = System.nanoTime();
        LaunchedWorker w = Processes.launch(spec);
        while (!dir.isReserved()) {
          if (!w.process().isAlive()) {
            throw new IllegalStateException("worker " + w.pid() + " died: " + Files.readString(dir.stderrLog()));
          }
          LockSupport.parkNanos(200_000);
        }
        double toReserved = (System.nanoTime() - t0) / 1e6;
        daemon.await(subject, Message.Busy.class, b -> !b.work().items().isEmpty(), 20_000);
        double toWorking = (System.nanoTime() - t0) / 1e6;
        Thread.sleep(1_000);
        long kb = rssKb(w.pid());
        Processes.stop(w.identity().orElseThrow(), 5_000).join();
        if (i == 0) {
          System.out.printf("warm-up: reserved %.0f ms, working %.0f ms, RSS %d KiB%n", toReserved, toWorking, kb);
          continue;
        }
        reserved.add(toReserved);
        working.add(toWorking);
        rss.add(kb);
        System.out.printf("run %2d: reserved %.0f ms, working %.0f ms, RSS %d KiB%n", i, toReserved, toWorking, kb);
      }
    }
    System.out.printf("flags %s%n", flags);
    System.out.printf("launch -> reservation held: p50 %.0f ms, p95 %.0f ms, max %.0f ms (n=%d)%n", pct(reserved, 50),
        pct(reserved, 95), Collections.max(reserved), reserved.size());
    System.out.printf("launch -> working (hello, go, busy): p50 %.0f ms, p95 %.0f ms%n", pct(working, 50), pct(working, 95));
    List<Double> mb = rss.stream().map(k -> k / 1024.0).toList();
    System.out.printf("worker-host RSS while working: p50 %.1f MiB, max %.1f MiB%n", pct(mb, 50), Collections.max(mb));
  }

  private static long rssKb(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no VmRSS for " + pid);
  }

  private static double pct(List<Double> xs, int p) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    return s.get(Math.min(s.size() - 1, (int) Math.ceil(p / 100.0 * s.size()) - 1));
  }
}
