package dev.vigil.coordination.law;

import dev.vigil.coordination.AbortClaim;
import dev.vigil.coordination.Action;
import dev.vigil.coordination.AdoptClaim;
import dev.vigil.coordination.Answering;
import dev.vigil.coordination.Applying;
import dev.vigil.coordination.Asking;
import dev.vigil.coordination.Checkpoint;
import dev.vigil.coordination.CheckpointRule;
import dev.vigil.coordination.Checkpointing;
import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Claims;
import dev.vigil.coordination.Control;
import dev.vigil.coordination.Compacted;
import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.MaintenanceRecord;
import dev.vigil.coordination.Pruning;
import dev.vigil.coordination.Retention;
import dev.vigil.coordination.Denials;
import dev.vigil.coordination.Event;
import dev.vigil.coordination.Events;
import dev.vigil.coordination.Exit;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.Prerequisites;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.NewQuestion;
import dev.vigil.coordination.Question;
import dev.vigil.coordination.QuestionId;
import dev.vigil.coordination.QuestionPlan;
import dev.vigil.coordination.Readopt;
import dev.vigil.coordination.Restore;
import dev.vigil.coordination.Renewal;
import dev.vigil.coordination.Retry;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunQuery;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Snapshot;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.StopRequest;
import dev.vigil.coordination.Store;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketMove;
import dev.vigil.coordination.TicketQuery;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.TranscriptEntry;
import dev.vigil.coordination.Verdict;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The reference model of {@link Coordination} and {@link Store}: plain maps, one lock, every law
 * checked in the most direct way. Written to be obviously right, not fast.
 *
 * <p>Every verb first asks {@link Denials} whether it is refused, and changes nothing when it is.
 * It keeps C1 (one lease per ticket and per run: leases are a map keyed by ticket, and a run's
 * lease is the one of its ticket that names it), C2 (claim checks state, parking and due time
 * before changing anything), C3 (renew only while {@code expiresAt > now}; only readopt and readoptAll, for
 * RUNNING runs, and adoptClaim, for CLAIMED runs from the owner that holds the lease, re-arm a
 * lapsed lease; a run's owner and its lease's owner move together), C6 (takeExit only from
 * RUNNING), C7 (leases removed only by finish and abortClaim), C8 (finish only from EXITED),
 * Q1/Q2/Q5/Q7/Q8 (through {@link RetryPolicy}), Q9 (parked tickets and lanes are never
 * claimed), Q12/Q13 (a stop intent is recorded on a live run; KILLED is the verdict of exactly the
 * killed runs, and no attempt is spent on them), Q14 (a claim asks {@link Prerequisites#met}; every
 * verb that moves a ticket walks its dependents with {@link Prerequisites#follow}), the event stream ({@link Events}: appended by
 * the decision it reports, numbered from 1 without gaps) and Q16 (a question is answered once and applied
 * once, its actions and its APPLIED state in one step under the one lock).
 */
public final class LeaseLaw implements Coordination, Store {
  /** Claims rolled back before a ticket is HELD ({@link RetryPolicy#MAX_SPAWN_FAILURES}). */
  public static final int MAX_SPAWN_FAILURES = RetryPolicy.MAX_SPAWN_FAILURES;

  private final RetryPolicy policy;
  private final SortedMap<TicketId, Ticket> tickets = new TreeMap<>();
  private final TreeMap<RunId, Run> runs = new TreeMap<>();
  private final SortedMap<TicketId, Lease> leases = new TreeMap<>();
  private final TreeSet<Lane> parkedLanes = new TreeSet<>();
  private final Map<String, TicketId> keys = new HashMap<>();
  private final SortedMap<OwnerId, Owner> owners = new TreeMap<>();
  private final List<Event> events = new ArrayList<>();
  private long lastSeq;
  /** The last event number issued (events of pruned tickets leave gaps, Q18). */
  private long eventSeq;
  /** Q18: runs whose directories are still to be removed, and each maintenance job's last line. */
  private final TreeSet<RunId> directoriesToRemove = new TreeSet<>();
  private final SortedMap<String, MaintenanceRecord> maintenance = new TreeMap<>();
  private final SortedMap<QuestionId, Question> questions = new TreeMap<>();
  private final Map<String, QuestionId> questionKeys = new HashMap<>();
  private final SortedMap<TicketId, Checkpoint> checkpoints = new TreeMap<>();
  /** Every service's kept transcript entries (S7), in id order. */
  private final List<TranscriptEntry> transcript = new ArrayList<>();
  private long transcriptSeq;

  public LeaseLaw(RetryPolicy policy) {
    this.policy = Objects.requireNonNull(policy, "policy");
  }

  public LeaseLaw() {
    this(RetryPolicy.DEFAULT);
  }

  @Override
  public Store store() {
    return this;
  }

  // ---- verbs ----

  @Override
  public synchronized Submission submit(NewTicket n, long nowMs) {
    return submitAll(List.of(n), nowMs).get(0);
  }

  /**
   * One submission after another, under the one lock: nothing else runs between them. The
   * prerequisites of all are checked first ({@link Prerequisites#check}), so a refusal changes nothing.
   */
  @Override
  public synchronized List<Submission> submitAll(List<NewTicket> batch, long nowMs) {
    List<NewTicket> all = List.copyOf(batch); // null list or null ticket: refused before anything changes
    Prerequisites.check(all, this::ticket);
    List<Submission> out = new ArrayList<>(all.size());
    List<TicketId> ids = new ArrayList<>(all.size());
    for (int i = 0; i < all.size(); i++) {
      Submission s = insert(all.get(i), i, ids, nowMs, null);
      ids.add(s instanceof Submission.Accepted a ? a.ticket().id() : ((Submission.Duplicate) s).existing().id());
      out.add(s);
    }
    return out;
  }

  /** Queues one ticket: READY, or HELD at once when a prerequisite holds it (Q14). */
  private Submission insert(NewTicket n, int index, List<TicketId> batch, long nowMs, TicketId retryOf) {
    if (n.key() != null && keys.containsKey(n.key())) {
      return new Submission.Duplicate(tickets.get(keys.get(n.key())));
    }
    List<TicketId> after = Prerequisites.resolve(n, index, batch, this::ticket);
    Ticket t = Ticket.submitted(new TicketId(++lastSeq), n, nowMs, retryOf, after);
    tickets.put(t.id(), t);
    if (n.key() != null) {
      keys.put(n.key(), t.id());
    }
    Optional<Ticket> held = Prerequisites.follow(t, prerequisitesOf(t));
    if (held.isPresent()) {
      tickets.put(t.id(), held.get());
      append(Events.ofHold(t, held.get(), nowMs));
      return new Submission.Accepted(held.get());
    }
    return new Submission.Accepted(t);
  }

  /** The tickets {@code t} waits for, as they are now. */
  private List<Ticket> prerequisitesOf(Ticket t) {
    return t.after().stream().map(tickets::get).toList();
  }

  /**
   * Q14: each dependent of {@code changed} follows its prerequisites ({@link Prerequisites#follow}),
   * and the dependents of each one that changed in turn. A dependent newly HELD gets a HELD event.
   */
  private void cascade(TicketId changed, long nowMs) {
    java.util.ArrayDeque<TicketId> work = new java.util.ArrayDeque<>(List.of(changed));
    while (!work.isEmpty()) {
      TicketId p = work.poll();
      for (Ticket d : List.copyOf(tickets.values())) {
        if (!d.after().contains(p)) {
          continue;
        }
        Ticket now = tickets.get(d.id());
        Optional<Ticket> next = Prerequisites.follow(now, prerequisitesOf(now));
        if (next.isPresent()) {
          tickets.put(d.id(), next.get());
          append(Events.ofHold(now, next.get(), nowMs));
          work.add(d.id());
        }
      }
    }
  }

  @Override
  public synchronized Retry retry(TicketId original, long nowMs) {
    Optional<Ticket> found = Optional.ofNullable(tickets.get(original));
    Optional<Retry.Denied> denial = Denials.retry(found);
    if (denial.isPresent()) {
      return denial.get();
    }
    Ticket t = found.get();
    Ticket fresh = Ticket.submitted(new TicketId(++lastSeq), t.resubmission(), nowMs, t.id(), t.after());
    Ticket before = t.state() == TicketState.HELD ? t.withState(TicketState.CANCELLED, null) : t;
    Ticket after = before.retriedAs(fresh.id());
    tickets.put(fresh.id(), fresh);
    tickets.put(after.id(), after);
    append(Events.ofRetry(t, after, nowMs));
    Optional<Ticket> held = Prerequisites.follow(fresh, prerequisitesOf(fresh));
    if (held.isPresent()) {
      tickets.put(fresh.id(), held.get());
      append(Events.ofHold(fresh, held.get(), nowMs));
      fresh = held.get();
    }
    if (Prerequisites.retryCarriesDependents(t)) {
      for (Ticket d : List.copyOf(tickets.values())) {
        if (d.after().contains(t.id()) && Prerequisites.movesToRetry(d)) {
          tickets.put(d.id(), d.waitingOnRetry(t.id(), fresh.id()));
        }
      }
    }
    cascade(fresh.id(), nowMs);
    cascade(t.id(), nowMs);
    return new Retry.Retried(fresh, after);
  }

  @Override
  public synchronized void registerOwner(Owner owner) {
    owners.put(owner.id(), owner);
  }

  @Override
  public synchronized Claim claim(TicketId ticket, OwnerId owner, long nowMs, long ttlMs) {
    return claim(ticket, owner, nowMs, ttlMs, false);
  }

  @Override
  public synchronized Claim claimByHand(TicketId ticket, OwnerId owner, long nowMs, long ttlMs) {
    return claim(ticket, owner, nowMs, ttlMs, true);
  }

  private Claim claim(TicketId id, OwnerId owner, long nowMs, long ttlMs, boolean byHand) {
    Lease.checkTtl(nowMs, ttlMs);
    Ticket t = tickets.get(id);
    Optional<Claim.Reason> denial = Denials.claim(Optional.ofNullable(t), leases.containsKey(id),
        t != null && parkedLanes.contains(t.lane()), nowMs, t != null && met(t));
    if (denial.isPresent()) {
      return new Claim.Denied(denial.get());
    }
    return grant(t, owner, nowMs, ttlMs, byHand);
  }

  private Claim.Granted grant(Ticket t, OwnerId owner, long nowMs, long ttlMs, boolean byHand) {
    RunId runId = new RunId(t.id(), runsOf(t.id()).size() + 1);
    Run run = Run.claimed(runId, t.attemptsUsed() + 1, owner, nowMs, byHand);
    Lease lease = new Lease(t.id(), runId, owner, nowMs + ttlMs);
    tickets.put(t.id(), t.withState(TicketState.LEASED, null));
    runs.put(runId, run);
    leases.put(t.id(), lease);
    return new Claim.Granted(run, lease);
  }

  @Override
  public synchronized Claims claimNext(Lane lane, OwnerId owner, long nowMs, long ttlMs, int max) {
    Lease.checkTtl(nowMs, ttlMs);
    if (max < 1) {
      throw new IllegalArgumentException("max (" + max + ") must be >= 1");
    }
    boolean laneParked = parkedLanes.contains(lane);
    List<Ticket> due = new ArrayList<>();
    for (Ticket t : tickets.values()) {
      if (t.lane().equals(lane)
          && Denials.claim(Optional.of(t), leases.containsKey(t.id()), laneParked, nowMs, met(t)).isEmpty()) {
        due.add(t);
      }
    }
    due.sort(CLAIM_ORDER);
    List<Claim.Granted> granted = new ArrayList<>();
    for (Ticket t : due.subList(0, Math.min(max, due.size()))) {
      granted.add(grant(t, owner, nowMs, ttlMs, false));
    }
    return new Claims(granted);
  }

  /** Q14: whether every prerequisite of {@code t} SUCCEEDED. */
  private boolean met(Ticket t) {
    return Prerequisites.met(prerequisitesOf(t).stream().map(Ticket::state).toList());
  }

  /** Highest priority first, then oldest, then lowest id. */
  public static final Comparator<Ticket> CLAIM_ORDER = Comparator.comparingInt(Ticket::priority).reversed()
      .thenComparingLong(Ticket::createdAtMs)
      .thenComparing(Ticket::id);

  @Override
  public synchronized Start start(RunId runId, OwnerId owner, RunStart start) {
    Objects.requireNonNull(start, "start");
    Run run = runs.get(runId);
    Optional<Start.Reason> denial = Denials.start(Optional.ofNullable(run), leaseOfRun(runId), owner);
    if (denial.isPresent()) {
      return new Start.Denied(denial.get());
    }
    Run started = run.started(start);
    runs.put(runId, started);
    return new Start.Started(started);
  }

  @Override
  public synchronized AbortClaim abortClaim(RunId runId, OwnerId owner, String why, long nowMs) {
    Objects.requireNonNull(why, "why");
    Run run = runs.get(runId);
    Optional<AbortClaim.Reason> denial = Denials.abortClaim(Optional.ofNullable(run), leaseOfRun(runId), owner);
    if (denial.isPresent()) {
      return new AbortClaim.Denied(denial.get());
    }
    Run abandoned = run.settled(Verdict.ABANDONED, why);
    runs.put(runId, abandoned);
    leases.remove(run.ticket());
    Ticket after = policy.abandon(tickets.get(run.ticket()), run.handStarted(), why, run.stopIntent());
    tickets.put(after.id(), after);
    append(Events.ofAbort(abandoned, after, nowMs));
    cascade(after.id(), nowMs);
    return new AbortClaim.Aborted(abandoned, after);
  }

  @Override
  public synchronized AdoptClaim adoptClaim(RunId runId, OwnerId newOwner, OwnerId deadOwner, long nowMs, long ttlMs) {
    Objects.requireNonNull(newOwner, "newOwner");
    Lease.checkTtl(nowMs, ttlMs);
    Run run = runs.get(runId);
    Optional<AdoptClaim.Reason> denial = Denials.adoptClaim(Optional.ofNullable(run), leaseOfRun(runId), deadOwner);
    if (denial.isPresent()) {
      return new AdoptClaim.Denied(denial.get());
    }
    Lease moved = moveTo(run, newOwner, nowMs + ttlMs);
    return new AdoptClaim.Adopted(runs.get(runId), moved);
  }

  @Override
  public synchronized Renewal renew(RunId runId, OwnerId owner, long nowMs, long ttlMs) {
    Lease.checkTtl(nowMs, ttlMs);
    Optional<Lease> found = leaseOfRun(runId);
    Optional<Renewal.Reason> denial = Denials.renew(found, owner, nowMs);
    if (denial.isPresent()) {
      return new Renewal.Denied(denial.get());
    }
    Lease lease = found.get();
    Lease renewed = new Lease(lease.ticket(), runId, owner, nowMs + ttlMs);
    leases.put(lease.ticket(), renewed);
    return new Renewal.Renewed(renewed);
  }

  @Override
  public synchronized int renewAll(OwnerId owner, long nowMs, long ttlMs) {
    Lease.checkTtl(nowMs, ttlMs);
    int n = 0;
    for (Lease lease : List.copyOf(leases.values())) {
      if (lease.owner().equals(owner) && lease.expiresAtMs() > nowMs) {
        leases.put(lease.ticket(), new Lease(lease.ticket(), lease.run(), owner, nowMs + ttlMs));
        n++;
      }
    }
    return n;
  }

  @Override
  public synchronized Readopt readopt(RunId runId, OwnerId owner, long nowMs, long ttlMs) {
    Objects.requireNonNull(owner, "owner");
    Lease.checkTtl(nowMs, ttlMs);
    Run run = runs.get(runId);
    Optional<Readopt.Reason> denial = Denials.readopt(Optional.ofNullable(run), leaseOfRun(runId));
    if (denial.isPresent()) {
      return new Readopt.Denied(denial.get());
    }
    Lease rearmed = moveTo(run, owner, nowMs + ttlMs);
    return new Readopt.Readopted(runs.get(runId), rearmed);
  }

  /** The single readopts in turn, under the one lock, so that no other verb falls between two of them. */
  @Override
  public synchronized List<Readopt> readoptAll(List<RunId> runIds, OwnerId owner, long nowMs, long ttlMs) {
    return Coordination.super.readoptAll(runIds, owner, nowMs, ttlMs);
  }

  /** The run and its lease change owner together (adoptClaim, readopt, readoptAll); returns the new lease. */
  private Lease moveTo(Run run, OwnerId owner, long expiresAtMs) {
    Lease lease = new Lease(run.ticket(), run.id(), owner, expiresAtMs);
    runs.put(run.id(), run.ownedBy(owner));
    leases.put(run.ticket(), lease);
    return lease;
  }

  @Override
  public synchronized Exit takeExit(RunId runId, ExitOwner claimant, RunExit exit) {
    Objects.requireNonNull(claimant, "claimant");
    Objects.requireNonNull(exit, "exit");
    Run run = runs.get(runId);
    Optional<Exit.Denied> denial = Denials.takeExit(Optional.ofNullable(run));
    if (denial.isPresent()) {
      return denial.get();
    }
    Run exited = run.exited(exit, claimant);
    runs.put(runId, exited);
    return new Exit.Taken(exited);
  }

  @Override
  public synchronized Settlement finish(Finish f, long nowMs) {
    Run run = runs.get(f.run());
    Optional<Settlement.Reason> denial = Denials.finish(Optional.ofNullable(run), f);
    if (denial.isPresent()) {
      return new Settlement.Denied(denial.get());
    }
    Ticket t = tickets.get(run.ticket());
    TicketMove move = policy.decide(t, run.handStarted(), f.verdict(), f.diagnosis(), f.stallUntilMs(), nowMs,
        run.stopIntent());
    Ticket after = move.applyTo(t);
    Run settled = run.settled(f.verdict(), f.diagnosis(), f.result());
    tickets.put(after.id(), after);
    runs.put(settled.id(), settled);
    leases.remove(run.ticket());
    List<RunId> superseded = new ArrayList<>();
    if (after.state() == TicketState.SUCCEEDED) {
      for (Run earlier : runsOf(run.ticket())) {
        if (earlier.verdict() == Verdict.BLOCKED || earlier.verdict() == Verdict.STALLED) {
          runs.put(earlier.id(), earlier.settled(Verdict.SUPERSEDED, earlier.diagnosis()));
          superseded.add(earlier.id());
        }
      }
    }
    append(Events.ofSettlement(settled, after, nowMs));
    cascade(after.id(), nowMs);
    return new Settlement.Settled(settled, after, superseded);
  }

  @Override
  public synchronized StopRequest requestStop(RunId runId, StopIntent intent, String note, long nowMs) {
    Objects.requireNonNull(note, "note");
    Run run = runs.get(runId);
    Optional<StopRequest.Reason> denial = Denials.requestStop(Optional.ofNullable(run), intent);
    if (denial.isPresent()) {
      return new StopRequest.Denied(denial.get());
    }
    StopIntent next = run.stopIntent() == null ? intent : run.stopIntent().then(intent);
    Run marked = run.withStopIntent(next);
    runs.put(runId, marked);
    StopRequest.Recorded r = new StopRequest.Recorded(marked, next != run.stopIntent());
    append(Events.ofStop(r, note, nowMs));
    return r;
  }

  @Override
  public synchronized Control park(TicketId id) {
    return apply(id, Denials::park, t -> t.withParked(true));
  }

  @Override
  public synchronized Control unpark(TicketId id) {
    return apply(id, Denials::park, t -> t.withParked(false));
  }

  @Override
  public synchronized Control hold(TicketId id, String reason, long nowMs) {
    Objects.requireNonNull(reason, "reason");
    Optional<Ticket> before = Optional.ofNullable(tickets.get(id));
    Control c = apply(id, Denials::hold,
        t -> t.state() == TicketState.HELD ? t : t.withState(TicketState.HELD, reason));
    if (c instanceof Control.Done d) {
      append(Events.ofHold(before.orElseThrow(), d.ticket(), nowMs));
      cascade(id, nowMs);
    }
    return c;
  }

  @Override
  public synchronized Control release(TicketId id, OptionalInt moreAttempts) {
    checkGrant(moreAttempts);
    Control c = apply(id, t -> Denials.release(t, moreAttempts, t.map(this::prerequisitesOf).orElse(List.of())),
        t -> t.withState(TicketState.READY, null).withSpawnFailures(0).withGranted(Denials.grantOf(t, moreAttempts)));
    if (c instanceof Control.Done) {
      cascade(id, 0); // a release only ends holds: no event is written, so no time is needed
    }
    return c;
  }

  /** A grant asked for is at least one attempt. */
  public static void checkGrant(OptionalInt moreAttempts) {
    Objects.requireNonNull(moreAttempts, "moreAttempts");
    if (moreAttempts.isPresent() && (moreAttempts.getAsInt() < 1 || moreAttempts.getAsInt() > NewTicket.MAX_ATTEMPTS)) {
      throw new IllegalArgumentException("moreAttempts (" + moreAttempts.getAsInt() + ") must be 1-"
          + NewTicket.MAX_ATTEMPTS);
    }
  }

  @Override
  public synchronized Control cancel(TicketId id, long nowMs) {
    Control c = apply(id, Denials::cancel, t -> t.withState(TicketState.CANCELLED, null));
    if (c instanceof Control.Done d) {
      append(Events.ofCancel(d.ticket(), nowMs));
      cascade(id, nowMs);
    }
    return c;
  }

  /** An operator verb: refused as {@code denials} says, else the ticket becomes {@code change(ticket)}. */
  private Control apply(TicketId id, Function<Optional<Ticket>, Optional<Control.Reason>> denials,
                        UnaryOperator<Ticket> change) {
    Optional<Ticket> t = Optional.ofNullable(tickets.get(id));
    Optional<Control.Reason> denial = denials.apply(t);
    if (denial.isPresent()) {
      return new Control.Denied(denial.get());
    }
    Ticket after = change.apply(t.get());
    tickets.put(after.id(), after);
    return new Control.Done(after);
  }

  @Override
  public synchronized boolean parkLane(Lane lane) {
    return parkedLanes.add(Objects.requireNonNull(lane, "lane"));
  }

  @Override
  public synchronized boolean unparkLane(Lane lane) {
    return parkedLanes.remove(Objects.requireNonNull(lane, "lane"));
  }

  @Override
  public synchronized Event serviceGivenUp(String service, String why, long nowMs) {
    Objects.requireNonNull(why, "why");
    append(List.of(Events.ofServiceGivenUp(service, why, nowMs)));
    long mark = 0;
    for (TranscriptEntry e : transcript) {
      if (e.service().equals(service)) {
        mark = e.outputAt();
      }
    }
    appendEntry(service, nowMs, TranscriptEntry.Kind.GIVEN_UP, why, mark, null);
    return events.get(events.size() - 1);
  }

  // ---- transcripts (S7) ----

  @Override
  public synchronized TranscriptEntry transcribe(String service, TranscriptEntry.Kind kind, String text, long outputAt,
                                                 long nowMs) {
    TranscriptEntry.checkLifecycle(service, kind, text, outputAt);
    return appendEntry(service, nowMs, kind, text, outputAt, null);
  }

  @Override
  public synchronized Restore restored(String service, String restoreId, String snapshot, long outputAt, long nowMs) {
    TranscriptEntry.checkRestore(service, restoreId, snapshot, outputAt);
    for (TranscriptEntry e : transcript) {
      if (e.service().equals(service) && restoreId.equals(e.restoreId())) {
        return new Restore.AlreadyStored(e);
      }
    }
    return new Restore.Added(appendEntry(service, nowMs, TranscriptEntry.Kind.RESTORED, snapshot, outputAt, restoreId));
  }

  /** Appends one entry, then deletes the service's entries past its bounds (newest kept). */
  private TranscriptEntry appendEntry(String service, long nowMs, TranscriptEntry.Kind kind, String text, long outputAt,
                                      String restoreId) {
    TranscriptEntry e = new TranscriptEntry(++transcriptSeq, service, nowMs, kind, TranscriptEntry.bounded(text),
        outputAt, restoreId);
    transcript.add(e);
    int lifecycle = 0;
    int restores = 0;
    for (int i = transcript.size() - 1; i >= 0; i--) {
      TranscriptEntry t = transcript.get(i);
      if (!t.service().equals(service)) {
        continue;
      }
      boolean restore = t.kind() == TranscriptEntry.Kind.RESTORED;
      int kept = restore ? ++restores : ++lifecycle;
      if (kept > (restore ? TranscriptEntry.KEEP_RESTORES : TranscriptEntry.KEEP_LIFECYCLE)) {
        transcript.remove(i);
      }
    }
    return e;
  }

  @Override
  public synchronized List<TranscriptEntry> transcript(String service, long afterId, int limit) {
    Objects.requireNonNull(service, "service");
    if (limit < 1) {
      throw new IllegalArgumentException("limit (" + limit + ") must be >= 1");
    }
    return transcript.stream().filter(e -> e.service().equals(service) && e.id() > afterId).limit(limit).toList();
  }

  private void append(List<Event.Draft> drafts) {
    for (Event.Draft d : drafts) {
      events.add(d.numbered(++eventSeq));
    }
  }

  // ---- maintenance (Q18) ----

  /**
   * Q18: decides by {@link Retention#decide} over every ticket (pinned: a question not yet applied is about
   * it) and, unless a dry run, deletes the chosen tickets, their runs, events and keys, lists their runs'
   * directories and records the job's line, under the one lock.
   */
  @Override
  public synchronized Pruning prune(Pruning.Request request, long nowMs) {
    Objects.requireNonNull(request, "request");
    Set<TicketId> asked = new java.util.HashSet<>();
    for (Question q : questions.values()) {
      if (q.state() != Question.State.APPLIED) {
        asked.addAll(Retention.namedBy(q.question()));
      }
    }
    Map<TicketId, Set<TicketId>> links = new HashMap<>();
    for (Ticket t : tickets.values()) {
      links.computeIfAbsent(t.id(), k -> new TreeSet<>()).addAll(Retention.namedBy(t));
    }
    List<Retention.Entry> entries = new ArrayList<>();
    for (Ticket t : tickets.values()) {
      entries.add(new Retention.Entry(t.id(), t.state(), Retention.endedAt(t, runsOf(t.id())), links.get(t.id()),
          asked.contains(t.id())));
    }
    Map<TicketId, Retention.Fate> fates = Retention.decide(entries, request.cutoffMs());
    List<TicketId> gone = Retention.pruned(fates);
    List<RunId> goneRuns = new ArrayList<>();
    for (TicketId t : gone) {
      runsOf(t).forEach(r -> goneRuns.add(r.id()));
    }
    TreeSet<RunId> dirs = new TreeSet<>(directoriesToRemove);
    dirs.addAll(goneRuns);
    Pruning p = new Pruning(request.dryRun(), request.cutoffMs(), gone, goneRuns, List.copyOf(dirs),
        Retention.kept(fates));
    if (request.dryRun()) {
      return p;
    }
    Set<TicketId> goneSet = new java.util.HashSet<>(gone);
    goneSet.forEach(tickets::remove);
    goneRuns.forEach(runs::remove);
    keys.values().removeIf(goneSet::contains);
    events.removeIf(e -> e.ticket() != null && goneSet.contains(e.ticket()));
    directoriesToRemove.addAll(goneRuns);
    maintenance.put(request.job(), new MaintenanceRecord(request.job(), nowMs, p.summary()));
    return p;
  }

  @Override
  public synchronized int directoriesRemoved(String job, List<RunId> removed, String summary, long nowMs) {
    MaintenanceRecord line = new MaintenanceRecord(job, nowMs, summary);
    int n = 0;
    for (RunId r : List.copyOf(removed)) {
      if (directoriesToRemove.remove(r)) {
        n++;
      }
    }
    maintenance.put(job, line);
    return n;
  }

  /** The model has no file: a compaction records its line and changes nothing. */
  @Override
  public synchronized Compacted compact(String job, long nowMs) {
    Compacted c = new Compacted(0, 0);
    maintenance.put(job, new MaintenanceRecord(job, nowMs, c.summary()));
    return c;
  }

  @Override
  public synchronized List<MaintenanceRecord> maintenanceRecords() {
    return List.copyOf(maintenance.values());
  }

  // ---- queries ----

  @Override
  public synchronized Optional<Ticket> ticket(TicketId id) {
    return Optional.ofNullable(tickets.get(id));
  }

  @Override
  public synchronized List<Run> runsOf(TicketId id) {
    // run ids sort by ticket, then number: a ticket's runs are one range of the map
    return new ArrayList<>(runs.subMap(new RunId(id, 1), true, new RunId(id, Integer.MAX_VALUE), true).values());
  }

  @Override
  public synchronized Optional<Run> run(RunId id) {
    return Optional.ofNullable(runs.get(id));
  }

  @Override
  public synchronized List<Ticket> tickets(TicketQuery query) {
    return tickets.values().stream().filter(query::matches).limit(query.limit()).toList();
  }

  @Override
  public synchronized List<Run> runs(RunQuery query) {
    return runs.values().stream().filter(query::matches).limit(query.limit()).toList();
  }

  @Override
  public synchronized List<Lease> leases() {
    return List.copyOf(leases.values());
  }

  @Override
  public synchronized Optional<Lease> lease(TicketId ticket) {
    return Optional.ofNullable(leases.get(ticket));
  }

  @Override
  public synchronized Map<TicketState, Integer> countsByState() {
    Map<TicketState, Integer> counts = new EnumMap<>(TicketState.class);
    for (TicketState s : TicketState.values()) {
      counts.put(s, 0);
    }
    for (Ticket t : tickets.values()) {
      counts.merge(t.state(), 1, Integer::sum);
    }
    return counts;
  }

  @Override
  public synchronized Set<Lane> parkedLanes() {
    return Set.copyOf(parkedLanes);
  }

  @Override
  public synchronized Optional<Owner> owner(OwnerId id) {
    return Optional.ofNullable(owners.get(id));
  }

  @Override
  public synchronized List<Owner> owners() {
    return List.copyOf(owners.values());
  }

  @Override
  public synchronized List<Event> events(long afterId, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit (" + limit + ") must be >= 1");
    }
    return events.stream().filter(e -> e.id() > afterId).limit(limit).toList();
  }

  @Override
  public synchronized Snapshot snapshot() {
    return Snapshot.of(List.copyOf(tickets.values()), List.copyOf(runs.values()), List.copyOf(leases.values()),
        parkedLanes, List.copyOf(owners.values()), List.copyOf(events));
  }

  // ---- questions (Q16) ----

  @Override
  public synchronized Asking ask(NewQuestion q, long nowMs) {
    Objects.requireNonNull(q, "question");
    QuestionId earlier = questionKeys.get(q.key());
    if (earlier != null) {
      return new Asking.Duplicate(questions.get(earlier));
    } else if (q.ticket() != null && !tickets.containsKey(q.ticket())) {
      return new Asking.Denied("ticket " + q.ticket());
    } else if (q.askedBy() != null && !runs.containsKey(q.askedBy())) {
      return new Asking.Denied("run " + q.askedBy());
    }
    Question asked = Question.asked(new QuestionId(questions.size() + 1), q, nowMs);
    questions.put(asked.id(), asked);
    questionKeys.put(q.key(), asked.id());
    append(List.of(Events.ofQuestion(asked)));
    return new Asking.Asked(asked);
  }

  @Override
  public synchronized Answering answer(QuestionId id, String option, long nowMs) {
    Objects.requireNonNull(option, "option");
    Question q = questions.get(id);
    if (q == null) {
      return new Answering.Denied(Answering.Reason.NOT_FOUND, null);
    } else if (q.state() != Question.State.OPEN) {
      return new Answering.Denied(Answering.Reason.ALREADY_ANSWERED, q);
    } else if (q.option(option).isEmpty()) {
      return new Answering.Denied(Answering.Reason.UNKNOWN_OPTION, q);
    }
    Question answered = q.answered(option, nowMs);
    questions.put(id, answered);
    return new Answering.Answered(answered);
  }

  @Override
  public synchronized Applying applyAnswer(QuestionId id, long nowMs) {
    Question q = questions.get(id);
    if (q == null) {
      return new Applying.Denied(Applying.Reason.NOT_FOUND);
    } else if (q.state() == Question.State.OPEN) {
      return new Applying.Denied(Applying.Reason.NOT_ANSWERED);
    } else if (q.state() == Question.State.APPLIED) {
      return new Applying.Denied(Applying.Reason.ALREADY_APPLIED);
    }
    QuestionPlan plan = QuestionPlan.decide(q.chosen().orElseThrow().actions(), this::ticket, parkedLanes);
    for (Action a : plan.done()) {
      perform(a, nowMs);
    }
    Question applied = q.applied(plan.outcome(), nowMs);
    questions.put(id, applied);
    return new Applying.Applied(applied, plan);
  }

  /** Does one action the plan decided to do; each is granted, since the plan asked the same {@link Denials}. */
  private void perform(Action a, long nowMs) {
    if (a instanceof Action.Release r) {
      requireDone(release(r.ticket(), OptionalInt.of(r.moreAttempts())), a);
    } else if (a instanceof Action.Cancel c) {
      requireDone(cancel(c.ticket(), nowMs), a);
    } else if (a instanceof Action.RetryNow r) {
      Ticket t = tickets.get(r.ticket());
      if (t.state() == TicketState.HELD) {
        t = ((Control.Done) requireDone(release(r.ticket()), a)).ticket();
      }
      tickets.put(t.id(), t.moved(t.state(), t.attemptsUsed(), Math.min(t.notBeforeMs(), nowMs), t.holdReason()));
    } else if (a instanceof Action.ParkLane p) {
      parkLane(p.lane());
    } else if (a instanceof Action.UnparkLane u) {
      unparkLane(u.lane());
    } else if (!(a instanceof Action.RestartService || a instanceof Action.StopService
        || a instanceof Action.ResetRestartBudget || a instanceof Action.Reply)) {
      throw new AssertionError(a);
    }
  }

  private static Control requireDone(Control c, Action a) {
    if (!(c instanceof Control.Done)) {
      throw new IllegalStateException(a.describe() + " was planned but refused: " + c);
    }
    return c;
  }

  @Override
  public synchronized Optional<Question> question(QuestionId id) {
    return Optional.ofNullable(questions.get(id));
  }

  @Override
  public synchronized Optional<Question> questionByKey(String key) {
    return Optional.ofNullable(questionKeys.get(key)).map(questions::get);
  }

  @Override
  public synchronized List<Question> questions(Set<Question.State> states) {
    return questions.values().stream().filter(q -> states.isEmpty() || states.contains(q.state())).toList();
  }

  // ---- checkpoints (Q17) ----

  @Override
  public synchronized Checkpointing keepCheckpoint(RunId run, long seq, String value, long nowMs) {
    Objects.requireNonNull(run, "run");
    Checkpoint.check(seq, value);
    Optional<Checkpoint> stored = Optional.ofNullable(checkpoints.get(run.ticket()));
    Optional<Checkpointing.Reason> refusal = CheckpointRule.refusal(run, seq, Optional.ofNullable(runs.get(run)), stored);
    if (refusal.isPresent()) {
      return new Checkpointing.Denied(refusal.get());
    }
    Checkpoint kept = new Checkpoint(run, seq, value, nowMs);
    checkpoints.put(run.ticket(), kept);
    return new Checkpointing.Kept(kept);
  }

  @Override
  public synchronized Optional<Checkpoint> checkpoint(TicketId ticket) {
    return Optional.ofNullable(checkpoints.get(ticket));
  }

  /** The lease that names the run, if any. */
  private Optional<Lease> leaseOfRun(RunId runId) {
    return Optional.ofNullable(leases.get(runId.ticket())).filter(l -> l.run().equals(runId));
  }

}
