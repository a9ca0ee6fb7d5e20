package dev.vigil.coordination.h2;

import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Exit;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Prerequisite;
import dev.vigil.coordination.ProcessIdentity;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.Verdict;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A child JVM for the crash and open tests (run with the test classpath).
 *
 * <ul>
 *   <li>{@code work <file> <round> <tuning> <paceMs>}: opens the database with the given
 *       {@link Tuning} and, until it is killed, pausing up to {@code paceMs} after each decision, submits, claims, starts, takes exits and finishes, printing each acknowledged
 *       decision as one flushed line: {@code SUBMIT t-N <payload>} (now and then a second ticket
 *       that waits for the first, Q14), {@code CLAIM t-N.k},
 *       {@code ABORT t-N.k}, {@code START t-N.k}, {@code EXIT t-N.k}, {@code FINISH t-N.k}.
 *   <li>{@code hold <file>}: opens the database, prints {@code OPEN} and sleeps.
 *   <li>{@code fire <file> <round>}: opens the database and, until it is killed, looks at its schedules
 *       ({@link H2SchedulesTest#addSchedules}) on a simulated clock that goes on from the latest decided
 *       fire, cancelling some of their tickets, and prints each acknowledged ticket of a fire as
 *       {@code FIRE <schedule> <fire ms> t-N}.
 *   <li>{@code questions <file> <round>}: asks, answers and applies questions ({@link ChildQuestions}).
 * </ul>
 */
public final class ChildDatabase {
  private ChildDatabase() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = System.out;
    Path file = Path.of(args[1]);
    if (args[0].equals("questions")) {
      ChildQuestions.run(file, Integer.parseInt(args[2]), out);
      return;
    }
    if (args[0].equals("hold")) {
      H2Coordination h2 = H2Coordination.open(file, H2Options.defaults());
      ack(out, "OPEN " + h2.file());
      Thread.sleep(120_000);
      return;
    }
    if (args[0].equals("fire")) {
      H2SchedulesTest.fireUntilKilled(file, Integer.parseInt(args[2]), out);
      return;
    }
    int round = Integer.parseInt(args[2]);
    Tuning tuning = Tuning.parse(args[3]);
    paceMs = Integer.parseInt(args[4]);
    H2Coordination h2 = H2Coordination.open(file, H2Options.defaults().withRetryPolicy(new RetryPolicy(0, 0)), tuning);
    ack(out, "OPEN round " + round);
    OwnerId owner = new OwnerId("d-crash-" + round);
    SplittableRandom rnd = new SplittableRandom(round);
    RunStart start = new RunStart(new ProcessIdentity("boot", ProcessHandle.current().pid(), 1, 1), "1.0.0",
        "cd".repeat(32), 0);
    List<Verdict> verdicts = List.of(Verdict.SUCCEEDED, Verdict.SUCCEEDED, Verdict.FAILED, Verdict.STALLED,
        Verdict.BLOCKED, Verdict.LOST);
    long now = 1_000;
    int compactions = 0;
    for (int i = 0; ; i++) {
      now++;
      String payload = "{\"round\":" + round + ",\"i\":" + i + "}";
      Ticket t = ((Submission.Accepted) h2.submit(NewTicket.of(Lane.DEFAULT, "command", payload), now)).ticket();
      ack(out, "SUBMIT " + t.id() + " " + payload);
      if (rnd.nextInt(3) == 0) { // Q14: a ticket that waits for this one, claimed by claimNext once it succeeded
        String waits = "{\"round\":" + round + ",\"i\":" + i + ",\"after\":\"" + t.id() + "\"}";
        Ticket d = ((Submission.Accepted) h2.submit(NewTicket.of(Lane.DEFAULT, "command", waits)
            .withAfter(List.of(new Prerequisite.Existing(t.id()))), now)).ticket();
        ack(out, "SUBMIT " + d.id() + " " + waits);
      }
      Claim.Granted g;
      if (rnd.nextBoolean()) {
        g = (Claim.Granted) h2.claim(t.id(), owner, now, 30_000);
      } else {
        g = h2.claimNext(Lane.DEFAULT, owner, now, 30_000, 1).granted().get(0);
      }
      RunId run = g.run().id();
      ack(out, "CLAIM " + run);
      if (rnd.nextInt(10) == 0) {
        h2.abortClaim(run, owner, "launch failed", now);
        ack(out, "ABORT " + run);
        continue;
      }
      if (!(h2.start(run, owner, start) instanceof Start.Started)) {
        throw new AssertionError("start of " + run);
      }
      ack(out, "START " + run);
      if (!(h2.takeExit(run, ExitOwner.supervisor(owner), RunExit.code(0, now)) instanceof Exit.Taken)) {
        throw new AssertionError("exit of " + run);
      }
      ack(out, "EXIT " + run);
      Verdict v = verdicts.get(rnd.nextInt(verdicts.size()));
      String result = v == Verdict.SUCCEEDED && rnd.nextBoolean() ? "{\"run\":\"" + run + "\",\"round\":" + round + "}"
          : null;
      Finish f = v == Verdict.STALLED ? Finish.stalled(ExitOwner.supervisor(owner), run, now, "quota")
          : v == Verdict.SUCCEEDED ? Finish.succeeded(ExitOwner.supervisor(owner), run, "round " + round, result)
          : Finish.as(ExitOwner.supervisor(owner), run, v, "round " + round);
      if (!(h2.finish(f, now) instanceof Settlement.Settled)) {
        throw new AssertionError("finish of " + run);
      }
      ack(out, "FINISH " + run + (result == null ? "" : " " + result));
      if (h2.compactions() > compactions) {
        compactions = h2.compactions();
        ack(out, "COMPACTIONS " + compactions);
      }
    }
  }

  private static int paceMs;
  private static final SplittableRandom PACE = new SplittableRandom();

  private static void ack(PrintStream out, String line) {
    out.println(line);
    out.flush();
    if (paceMs > 0) {
      try {
        Thread.sleep(PACE.nextInt(paceMs));
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }
}
