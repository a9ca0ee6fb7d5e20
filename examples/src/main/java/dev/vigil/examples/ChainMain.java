package dev.vigil.examples;

import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.launcher.Task;
import dev.vigil.launcher.Vigil;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Tasks that wait for others: on a home directory (the first argument, else a new temporary one), in a
 * new temporary working directory, a build, a test after it and a package after the test run in that
 * order; then a step that fails on its only attempt holds the one queued after it, which names it,
 * until the failed step is retried.
 */
public final class ChainMain {
  public static void main(String[] args) throws Exception {
    Path home = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("vigil-chain-");
    Path work = Files.createTempDirectory("vigil-chain-work-");
    try (Vigil vigil = Vigil.builder().home(home).start()) {
      TicketId build = vigil.submit(step(work, "echo build >> steps").build()).id();
      TicketId test = vigil.submit(step(work, "echo test >> steps").after(build).build()).id();
      TicketId pack = vigil.submit(step(work, "echo package >> steps").after(test).build()).id();
      vigil.await(pack, Duration.ofMinutes(2));
      System.out.println("ran in order: " + String.join(", ", Files.readAllLines(work.resolve("steps"))));

      TicketId flaky = vigil.submit(step(work, "test -e go && echo deploy >> steps").attempts(1).build()).id();
      TicketId notify = vigil.submit(step(work, "echo notify >> steps").after(flaky).build()).id();
      Ticket held = vigil.await(notify, Duration.ofMinutes(2));
      System.out.println(notify + " " + held.state() + ": " + held.holdReason());
      Files.createFile(work.resolve("go"));
      vigil.retry(flaky);
      Ticket done = vigil.await(notify, Duration.ofMinutes(2));
      System.out.println(notify + " " + done.state() + " after " + vigil.ticket(notify).orElseThrow().after());
      System.out.println("all steps: " + String.join(", ", Files.readAllLines(work.resolve("steps"))));
    }
  }

  private static Task.Builder step(Path work, String shell) {
    return Task.command("sh", "-c", shell).workDir(work);
  }
}
