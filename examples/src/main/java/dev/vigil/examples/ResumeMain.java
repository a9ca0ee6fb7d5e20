package dev.vigil.examples;

import dev.vigil.coordination.Run;
import dev.vigil.coordination.Ticket;
import dev.vigil.launcher.Submitted;
import dev.vigil.launcher.Task;
import dev.vigil.launcher.Vigil;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A resumable worker type: {@link ChunkedSumWorker} adds up 1..100 in chunks of 10, fails on purpose after
 * chunk 3 on its first attempt, and its second attempt carries on from its last checkpoint. Arguments:
 * {@code [HOME]} (else a new temporary directory).
 */
public final class ResumeMain {
  public static void main(String[] args) throws Exception {
    Path home = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("vigil-resume-");
    Path work = Files.createTempDirectory("vigil-numbers-");
    Path numbers = Files.writeString(work.resolve("numbers.txt"),
        IntStream.rangeClosed(1, 100).mapToObj(Integer::toString).collect(Collectors.joining("\n")));
    Path classes = Path.of(ChunkedSumWorker.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    try (Vigil vigil = Vigil.builder().home(home)
        .resumableWorkerType("chunked-sum", ChunkedSumWorker.class.getName(), List.of(classes.toString())).start()) {
      Submitted s = vigil.submit(Task.worker("chunked-sum", new ChunkedSumWorker.Input(numbers.toString(), 10, 3,
          work.resolve("failed-once").toString())).attempts(3).build());
      Ticket done = vigil.await(s.id(), Duration.ofMinutes(2));
      List<Run> runs = vigil.runs(s.id());
      for (Run r : runs) {
        System.out.println(r.id() + ": " + r.verdict() + " (" + r.diagnosis() + ")");
      }
      System.out.println(done.id() + ": " + done.state() + ", "
          + vigil.runResult(runs.get(runs.size() - 1).id(), ChunkedSumWorker.Sum.class).orElseThrow());
    }
  }
}
