package dev.vigil.supervisor.engine;

import dev.vigil.coordination.Action;
import dev.vigil.coordination.Applying;
import dev.vigil.coordination.Asking;
import dev.vigil.coordination.NewQuestion;
import dev.vigil.coordination.Question;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import java.util.Set;

/**
 * The daemon's side of questions (Q16): it asks about every HELD ticket (not one held for a prerequisite), and applies every ANSWERED
 * question, only here and only through {@code applyAnswer}, which moves it to APPLIED in the transaction of
 * its ticket and lane actions. A client's answer only records it (the deputy never acts), so an answer
 * given while no daemon ran, or just before one died, is applied by the next step of the next daemon,
 * once.
 *
 * <p>After the commit the daemon carries out the answer's service actions (restart, stop, reset of the
 * restart budget). A daemon that dies between that commit and those actions does not carry them out: the
 * store cannot hold a service's worker, and a restarted daemon starts its {@code always} services anyway.
 *
 * <p>It runs when something may have changed: at boot, after a client command, after an exit or a
 * reconcile pass that changed the store; never on an idle beat.
 */
final class QuestionDesk {
  private final Ctx ctx;
  private final Services services;

  QuestionDesk(Ctx ctx, Services services) {
    this.ctx = ctx;
    this.services = services;
  }

  /** Asks about new holds, then applies every answered question; true when it changed the store. */
  boolean step(long nowMonoMs, long nowWallMs) {
    boolean changed = false;
    for (Ticket t : ctx.store.tickets(TicketQuery.all().inState(TicketState.HELD))) {
      if (t.heldFor() != null) {
        continue; // held for a prerequisite (Q14): the question is about that one, and this one goes on with it
      }
      int runs = ctx.store.runsOf(t.id()).size();
      if (ctx.store.questionByKey(DaemonQuestions.heldKey(t, runs)).isEmpty()) {
        changed |= ask(ctx, DaemonQuestions.held(t, runs), nowWallMs);
      }
    }
    for (Question q : ctx.store.questions(Set.of(Question.State.ANSWERED))) {
      Applying a = ctx.coordination.applyAnswer(q.id(), nowWallMs);
      if (a instanceof Applying.Applied applied) {
        changed = true;
        ctx.record(new EngineEvent.QuestionApplied(q.id().toString(), q.answer(), applied.question().outcome()));
        tellAsker(applied.question());
        for (Action action : applied.plan().done()) {
          serviceAction(action, nowMonoMs);
        }
      } else if (!(a instanceof Applying.Denied)) {
        throw new AssertionError(a);
      }
    }
    return changed;
  }

  /**
   * A worker of {@code run} asks its {@code seq}-th question (again, after a reconnect: the same key names
   * the same question). An answer applied already is handed to it at once; else when applied.
   */
  void onAsk(dev.vigil.coordination.RunId run, WorkerMessage.Ask ask, long nowWallMs) {
    NewQuestion q;
    try {
      q = NewQuestion.byWorker(run, askKey(run, ask.seq()), ask.text(), ask.options());
    } catch (IllegalArgumentException e) {
      ctx.record(new EngineEvent.VerbDenied(run, "ask", e.getMessage())); // the worker's host checks first
      return;
    }
    ask(ctx, q, nowWallMs);
    ctx.store.questionByKey(q.key()).filter(x -> x.state() == Question.State.APPLIED).ifPresent(this::tellAsker);
  }

  /** The key of a worker's question: its run and its number within the run. */
  static String askKey(dev.vigil.coordination.RunId run, long seq) {
    return "run:" + run + ":" + seq;
  }

  /** Hands an applied answer to the worker that asked, when one did and is connected (it asks again otherwise). */
  private void tellAsker(Question q) {
    dev.vigil.coordination.RunId run = q.question().askedBy();
    String prefix = run == null ? null : "run:" + run + ":";
    if (prefix == null || !q.question().key().startsWith(prefix)) {
      return;
    }
    long seq = Long.parseLong(q.question().key().substring(prefix.length()));
    ctx.channel.send(new WorkerKey.Task(run), new ToWorker.Answer(seq, q.answer(), q.reply().orElse(null)));
  }

  /** Asks {@code q} unless its key was asked before; true when it was asked now. */
  static boolean ask(Ctx ctx, NewQuestion q, long nowWallMs) {
    Asking a = ctx.coordination.ask(q, nowWallMs);
    if (a instanceof Asking.Asked asked) {
      String about = q.ticket() != null ? q.ticket().toString() : q.service() != null ? "service " + q.service() : "";
      ctx.record(new EngineEvent.QuestionAsked(asked.question().id().toString(), about, q.text()));
      return true;
    } else if (a instanceof Asking.Denied d) {
      ctx.record(new EngineEvent.QuestionAsked("none", d.missing(), "refused: no such " + d.missing()));
    }
    return false;
  }

  private void serviceAction(Action action, long nowMonoMs) {
    if (action instanceof Action.RestartService r) {
      services.restart(r.service(), nowMonoMs);
    } else if (action instanceof Action.StopService s) {
      services.stop(s.service(), nowMonoMs);
    } else if (action instanceof Action.ResetRestartBudget r) {
      services.resetBudget(r.service());
    }
  }
}
