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
import java.util.Map;
import java.util.Optional;

/**
 * A custom worker type with a typed payload and result: {@link WordCountWorker} is registered with
 * the embedded Vigil, given an {@link WordCountWorker.Input} record, and its {@link WordCountWorker.Counts}
 * record is read back from its run. A second task whose payload does not bind fails at once, naming
 * the field. Arguments: {@code [HOME]} (else a new temporary directory).
 *
 * <p>The type's classpath is where this class was loaded from (this module's jar or classes
 * directory): a worker host gets Vigil's own classpath plus the entries its type names.
 */
public final class TypedWorkerMain {
  public static void main(String[] args) throws Exception {
    Path home = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("vigil-typed-");
    Path text = Files.writeString(Files.createTempDirectory("vigil-text-").resolve("poem.txt"),
        "so much depends\nupon\na red wheel barrow\n");
    Path classes = Path.of(WordCountWorker.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    try (Vigil vigil = Vigil.builder().home(home)
        .workerType("word-count", WordCountWorker.class.getName(), List.of(classes.toString())).start()) {
      Submitted good = vigil.submit(Task.worker("word-count", new WordCountWorker.Input(text.toString())).build());
      Submitted bad = vigil.submit(Task.worker("word-count", Map.of("path", text.toString())).build());

      Ticket done = vigil.await(good.id(), Duration.ofMinutes(2));
      Run last = vigil.runs(good.id()).get(done.attemptsUsed() - 1);
      Optional<WordCountWorker.Counts> counts = vigil.runResult(last.id(), WordCountWorker.Counts.class);
      System.out.println(done.id() + ": " + done.state() + ", "
          + counts.map(Object::toString).orElse("no result: " + last.diagnosis()));

      Ticket refused = vigil.await(bad.id(), Duration.ofMinutes(2));
      List<Run> badRuns = vigil.runs(bad.id());
      System.out.println(refused.id() + ": " + refused.state() + " after " + refused.attemptsUsed() + " attempt(s): "
          + badRuns.get(badRuns.size() - 1).diagnosis());
    }
  }
}
