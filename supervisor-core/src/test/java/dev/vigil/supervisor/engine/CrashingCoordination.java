package dev.vigil.supervisor.engine;

import dev.vigil.coordination.AbortClaim;
import dev.vigil.coordination.AdoptClaim;
import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Claims;
import dev.vigil.coordination.Control;
import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.Exit;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Readopt;
import dev.vigil.coordination.Renewal;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.Store;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.TicketId;
import java.util.function.Supplier;

/**
 * A {@link Coordination} that ends the daemon at a chosen verb: the n-th verb from now throws
 * {@link SimulatedCrash}, either before it reaches the store or after it committed (the daemon
 * died before it saw the decision). Queries never crash.
 *
 * <p>It also fails as a store does when its disk is full or its device fails (D5): from a chosen
 * verb on, which commits nothing, every verb throws {@link SimulatedStoreFailure}, and every query
 * too, until the simulation says the store works again. A store that {@linkplain #opened opened}
 * while it still fails answers queries and fails at the first write (a new owner's registration).
 */
final class CrashingCoordination implements Coordination {
  /** What a store that failed throws (the daemon's {@code CoordinationStoreException}): no process dies of it. */
  static final class SimulatedStoreFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SimulatedStoreFailure(String where) {
      super("simulated store failure " + where, null, false, false);
    }
  }

  private final Coordination inner;
  private final Store reads;
  private int countdown = -1;
  private boolean afterCommit;
  private String lastCrash;
  private int outageCountdown = -1;
  private boolean down;
  private boolean readsFail;
  private String lastFailure;
  /** Q16: how often the store granted each question's apply (committed, whether or not the daemon saw it). */
  private final java.util.Map<dev.vigil.coordination.QuestionId, Integer> applies = new java.util.TreeMap<>();
  private final java.util.Map<String, Integer> batchesOfSeveral = new java.util.TreeMap<>();

  /** S7: how often the store added each restore's notice ("service/restoreId"), committed whether or not the daemon saw it. */
  private final java.util.Map<String, Integer> restoresAdded = new java.util.TreeMap<>();

  CrashingCoordination(Coordination inner) {
    this.inner = inner;
    this.reads = failingReads(inner.store());
  }

  /** The {@code n}-th verb from now (1 = the next) crashes, before or after it commits. */
  void arm(int n, boolean afterCommit) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be >= 1");
    }
    this.countdown = n;
    this.afterCommit = afterCommit;
  }

  /** No verb crashes, and no verb starts a store failure, until the next arm; the last crash is forgotten. */
  void disarm() {
    countdown = -1;
    lastCrash = null;
    outageCountdown = -1;
  }

  /** The {@code n}-th verb from now (1 = the next) fails before it commits, and the store fails from then on. */
  void armOutage(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be >= 1");
    }
    this.outageCountdown = n;
  }

  /** Whether the store fails now (every verb; every query unless it {@linkplain #opened opened}). */
  boolean down() {
    return down;
  }

  /** The store works again (its disk has room, its device answers). */
  void storeWorks() {
    down = false;
    readsFail = false;
  }

  /** The store opened though it still fails: queries are answered, the first write fails (a disk that is full). */
  void opened() {
    readsFail = false;
  }

  /** The store is closed again after a failed reopen: while it fails, queries fail too. */
  void closed() {
    readsFail = down;
  }

  /** Where the store failed last ("name before commit", or "query name"), or null. */
  String lastFailure() {
    return lastFailure;
  }

  /** Q16: each question's granted applies so far. */
  java.util.Map<dev.vigil.coordination.QuestionId, Integer> applies() {
    return java.util.Collections.unmodifiableMap(applies);
  }

  /** S7: each restore's added notices so far, by "service/restoreId". */
  java.util.Map<String, Integer> restoresAdded() {
    return java.util.Collections.unmodifiableMap(restoresAdded);
  }

  boolean armed() {
    return countdown > 0;
  }

  /** The verb that crashed since the last {@link #disarm} ("name before|after commit"), or null. */
  String lastCrash() {
    return lastCrash;
  }

  private <T> T verb(String name, Supplier<T> call) {
    if (outageCountdown > 0 && --outageCountdown == 0) {
      outageCountdown = -1;
      down = true;
      readsFail = true;
    }
    if (down) {
      lastFailure = name + " before commit";
      throw new SimulatedStoreFailure("at " + lastFailure);
    }
    if (countdown > 0 && --countdown == 0) {
      countdown = -1;
      lastCrash = name + (afterCommit ? " after commit" : " before commit");
      if (afterCommit) {
        call.get();
      }
      throw new SimulatedCrash("at " + lastCrash);
    }
    return call.get();
  }

  @Override
  public Store store() {
    return reads;
  }

  private <T> T query(String name, Supplier<T> call) {
    if (down && readsFail) {
      lastFailure = "query " + name;
      throw new SimulatedStoreFailure("at " + lastFailure);
    }
    return call.get();
  }

  /** The store's queries, failing while the store fails (unless it opened). */
  private Store failingReads(Store s) {
    return new Store() {
      @Override
      public java.util.Optional<dev.vigil.coordination.Checkpoint> checkpoint(dev.vigil.coordination.TicketId ticket) {
        return query("checkpoint", () -> s.checkpoint(ticket));
      }

      @Override
      public java.util.List<dev.vigil.coordination.TranscriptEntry> transcript(String service, long afterId, int limit) {
        return query("transcript", () -> s.transcript(service, afterId, limit));
      }

      @Override
      public java.util.Optional<dev.vigil.coordination.Question> question(dev.vigil.coordination.QuestionId id) {
        return query("question", () -> s.question(id));
      }

      @Override
      public java.util.Optional<dev.vigil.coordination.Question> questionByKey(String key) {
        return query("questionByKey", () -> s.questionByKey(key));
      }

      @Override
      public java.util.List<dev.vigil.coordination.Question> questions(
          java.util.Set<dev.vigil.coordination.Question.State> states) {
        return query("questions", () -> s.questions(states));
      }

      @Override
      public java.util.Optional<dev.vigil.coordination.Ticket> ticket(TicketId id) {
        return query("ticket", () -> s.ticket(id));
      }

      @Override
      public java.util.List<dev.vigil.coordination.Run> runsOf(TicketId id) {
        return query("runsOf", () -> s.runsOf(id));
      }

      @Override
      public java.util.Optional<dev.vigil.coordination.Run> run(RunId id) {
        return query("run", () -> s.run(id));
      }

      @Override
      public java.util.List<dev.vigil.coordination.Ticket> tickets(dev.vigil.coordination.TicketQuery q) {
        return query("tickets", () -> s.tickets(q));
      }

      @Override
      public java.util.List<dev.vigil.coordination.Run> runs(dev.vigil.coordination.RunQuery q) {
        return query("runs", () -> s.runs(q));
      }

      @Override
      public java.util.List<dev.vigil.coordination.Lease> leases() {
        return query("leases", s::leases);
      }

      @Override
      public java.util.Optional<dev.vigil.coordination.Lease> lease(TicketId t) {
        return query("lease", () -> s.lease(t));
      }

      @Override
      public java.util.Map<dev.vigil.coordination.TicketState, Integer> countsByState() {
        return query("countsByState", s::countsByState);
      }

      @Override
      public java.util.Set<Lane> parkedLanes() {
        return query("parkedLanes", s::parkedLanes);
      }

      @Override
      public java.util.Optional<Owner> owner(OwnerId id) {
        return query("owner", () -> s.owner(id));
      }

      @Override
      public java.util.List<Owner> owners() {
        return query("owners", s::owners);
      }

      @Override
      public java.util.List<dev.vigil.coordination.Event> events(long afterId, int limit) {
        return query("events", () -> s.events(afterId, limit));
      }

      @Override
      public dev.vigil.coordination.Snapshot snapshot() {
        return query("snapshot", s::snapshot);
      }
    };
  }

  @Override
  public Submission submit(NewTicket ticket, long nowMs) {
    return verb("submit", () -> inner.submit(ticket, nowMs));
  }

  @Override
  public java.util.List<Submission> submitAll(java.util.List<NewTicket> tickets, long nowMs) {
    return verb("submitAll", () -> inner.submitAll(tickets, nowMs));
  }

  @Override
  public void registerOwner(Owner owner) {
    verb("registerOwner", () -> {
      inner.registerOwner(owner);
      return null;
    });
  }

  @Override
  public Claim claim(TicketId ticket, OwnerId owner, long nowMs, long ttlMs) {
    return verb("claim", () -> inner.claim(ticket, owner, nowMs, ttlMs));
  }

  @Override
  public Claim claimByHand(TicketId ticket, OwnerId owner, long nowMs, long ttlMs) {
    return verb("claimByHand", () -> inner.claimByHand(ticket, owner, nowMs, ttlMs));
  }

  @Override
  public Claims claimNext(Lane lane, OwnerId owner, long nowMs, long ttlMs, int max) {
    return verb("claimNext", () -> inner.claimNext(lane, owner, nowMs, ttlMs, max));
  }

  @Override
  public Start start(RunId run, OwnerId owner, RunStart start) {
    return verb("start", () -> inner.start(run, owner, start));
  }

  /**
   * The single verbs in turn, each of which may crash or fail as any verb does (a crash between two
   * leaves a prefix of the batch committed, which the H2 store never does: it commits all or none, one
   * of the histories simulated here).
   */
  @Override
  public java.util.List<Start> startAll(OwnerId owner, java.util.List<dev.vigil.coordination.StartOf> starts) {
    if (starts.size() > 1) {
      batchesOfSeveral.merge("startAll", 1, Integer::sum);
    }
    return Coordination.super.startAll(owner, starts);
  }

  /** As {@link #startAll}: {@code takeExitAndFinish} for each in turn. */
  @Override
  public java.util.List<dev.vigil.coordination.ExitAndFinish> takeExitAndFinishAll(
      java.util.List<dev.vigil.coordination.EndOf> ends, long nowMs) {
    if (ends.size() > 1) {
      batchesOfSeveral.merge("takeExitAndFinishAll", 1, Integer::sum);
    }
    return Coordination.super.takeExitAndFinishAll(ends, nowMs);
  }

  /** As {@link #startAll}: {@code readopt} for each in turn. */
  @Override
  public java.util.List<Readopt> readoptAll(java.util.List<RunId> runs, OwnerId owner, long nowMs, long ttlMs) {
    if (runs.size() > 1) {
      batchesOfSeveral.merge("readoptAll", 1, Integer::sum);
    }
    return Coordination.super.readoptAll(runs, owner, nowMs, ttlMs);
  }

  /** How many calls of each batch verb named more than one run (passes that grouped their starts or ends). */
  java.util.Map<String, Integer> batchesOfSeveral() {
    return java.util.Collections.unmodifiableMap(batchesOfSeveral);
  }

  @Override
  public AbortClaim abortClaim(RunId run, OwnerId owner, String why, long nowMs) {
    return verb("abortClaim", () -> inner.abortClaim(run, owner, why, nowMs));
  }

  @Override
  public AdoptClaim adoptClaim(RunId run, OwnerId newOwner, OwnerId deadOwner, long nowMs, long ttlMs) {
    return verb("adoptClaim", () -> inner.adoptClaim(run, newOwner, deadOwner, nowMs, ttlMs));
  }

  @Override
  public Renewal renew(RunId run, OwnerId owner, long nowMs, long ttlMs) {
    return verb("renew", () -> inner.renew(run, owner, nowMs, ttlMs));
  }

  @Override
  public int renewAll(OwnerId owner, long nowMs, long ttlMs) {
    return verb("renewAll", () -> inner.renewAll(owner, nowMs, ttlMs));
  }

  @Override
  public Readopt readopt(RunId run, OwnerId owner, long nowMs, long ttlMs) {
    return verb("readopt", () -> inner.readopt(run, owner, nowMs, ttlMs));
  }

  @Override
  public Exit takeExit(RunId run, ExitOwner claimant, RunExit exit) {
    return verb("takeExit", () -> inner.takeExit(run, claimant, exit));
  }

  @Override
  public Settlement finish(Finish finish, long nowMs) {
    return verb("finish", () -> inner.finish(finish, nowMs));
  }

  @Override
  public Control park(TicketId ticket) {
    return verb("park", () -> inner.park(ticket));
  }

  @Override
  public Control unpark(TicketId ticket) {
    return verb("unpark", () -> inner.unpark(ticket));
  }

  @Override
  public Control hold(TicketId ticket, String reason, long nowMs) {
    return verb("hold", () -> inner.hold(ticket, reason, nowMs));
  }

  @Override
  public Control release(TicketId ticket, java.util.OptionalInt moreAttempts) {
    return verb("release", () -> inner.release(ticket, moreAttempts));
  }

  @Override
  public dev.vigil.coordination.Retry retry(TicketId original, long nowMs) {
    return verb("retry", () -> inner.retry(original, nowMs));
  }

  @Override
  public dev.vigil.coordination.StopRequest requestStop(RunId run, dev.vigil.coordination.StopIntent intent,
                                                       String note, long nowMs) {
    return verb("requestStop", () -> inner.requestStop(run, intent, note, nowMs));
  }

  @Override
  public dev.vigil.coordination.Event serviceGivenUp(String service, String why, long nowMs) {
    return verb("serviceGivenUp", () -> inner.serviceGivenUp(service, why, nowMs));
  }

  @Override
  public Control cancel(TicketId ticket, long nowMs) {
    return verb("cancel", () -> inner.cancel(ticket, nowMs));
  }

  @Override
  public boolean parkLane(Lane lane) {
    return verb("parkLane", () -> inner.parkLane(lane));
  }

  @Override
  public boolean unparkLane(Lane lane) {
    return verb("unparkLane", () -> inner.unparkLane(lane));
  }

  @Override
  public dev.vigil.coordination.Checkpointing keepCheckpoint(RunId run, long seq, String value, long nowMs) {
    return verb("keepCheckpoint", () -> inner.keepCheckpoint(run, seq, value, nowMs));
  }

  @Override
  public dev.vigil.coordination.Asking ask(dev.vigil.coordination.NewQuestion question, long nowMs) {
    return verb("ask", () -> inner.ask(question, nowMs));
  }

  @Override
  public dev.vigil.coordination.Answering answer(dev.vigil.coordination.QuestionId id, String option, long nowMs) {
    return verb("answer", () -> inner.answer(id, option, nowMs));
  }

  @Override
  public dev.vigil.coordination.Applying applyAnswer(dev.vigil.coordination.QuestionId id, long nowMs) {
    return verb("applyAnswer", () -> {
      dev.vigil.coordination.Applying a = inner.applyAnswer(id, nowMs);
      if (a instanceof dev.vigil.coordination.Applying.Applied) {
        applies.merge(id, 1, Integer::sum);
      }
      return a;
    });
  }

  @Override
  public dev.vigil.coordination.TranscriptEntry transcribe(String service, dev.vigil.coordination.TranscriptEntry.Kind kind,
                                                           String text, long outputAt, long nowMs) {
    return verb("transcribe", () -> inner.transcribe(service, kind, text, outputAt, nowMs));
  }

  @Override
  public dev.vigil.coordination.Restore restored(String service, String restoreId, String snapshot, long outputAt,
                                                 long nowMs) {
    return verb("restored", () -> {
      dev.vigil.coordination.Restore r = inner.restored(service, restoreId, snapshot, outputAt, nowMs);
      if (r instanceof dev.vigil.coordination.Restore.Added) {
        restoresAdded.merge(service + "/" + restoreId, 1, Integer::sum);
      }
      return r;
    });
  }

  @Override
  public dev.vigil.coordination.Pruning prune(dev.vigil.coordination.Pruning.Request request, long nowMs) {
    return verb("prune", () -> {
      dev.vigil.coordination.Pruning p = inner.prune(request, nowMs);
      if (!p.dryRun()) {
        pruned.addAll(p.tickets());
      }
      return p;
    });
  }

  @Override
  public int directoriesRemoved(String job, java.util.List<dev.vigil.coordination.RunId> runs, String summary, long nowMs) {
    return verb("directoriesRemoved", () -> inner.directoriesRemoved(job, runs, summary, nowMs));
  }

  @Override
  public dev.vigil.coordination.Compacted compact(String job, long nowMs) {
    return verb("compact", () -> inner.compact(job, nowMs));
  }

  @Override
  public java.util.List<dev.vigil.coordination.MaintenanceRecord> maintenanceRecords() {
    if (readsFail) {
      throw new SimulatedStoreFailure("at maintenanceRecords (a read)");
    }
    return inner.maintenanceRecords();
  }

  /** Q18: every ticket a committed prune deleted, across crashes. */
  final java.util.Set<dev.vigil.coordination.TicketId> pruned = new java.util.TreeSet<>();
}
