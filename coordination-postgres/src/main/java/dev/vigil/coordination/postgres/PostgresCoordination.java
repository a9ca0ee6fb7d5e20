package dev.vigil.coordination.postgres;

import dev.vigil.coordination.AbortClaim;
import dev.vigil.coordination.AdoptClaim;
import dev.vigil.coordination.Claim;
import dev.vigil.coordination.Claims;
import dev.vigil.coordination.Control;
import dev.vigil.coordination.Coordination;
import dev.vigil.coordination.Denials;
import dev.vigil.coordination.EndOf;
import dev.vigil.coordination.Event;
import dev.vigil.coordination.Events;
import dev.vigil.coordination.Exit;
import dev.vigil.coordination.ExitAndFinish;
import dev.vigil.coordination.ExitOwner;
import dev.vigil.coordination.Finish;
import dev.vigil.coordination.Lane;
import dev.vigil.coordination.Lease;
import dev.vigil.coordination.NewTicket;
import dev.vigil.coordination.Owner;
import dev.vigil.coordination.Prerequisites;
import dev.vigil.coordination.OwnerId;
import dev.vigil.coordination.Readopt;
import dev.vigil.coordination.Renewal;
import dev.vigil.coordination.Retry;
import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.Run;
import dev.vigil.coordination.RunExit;
import dev.vigil.coordination.RunId;
import dev.vigil.coordination.RunStart;
import dev.vigil.coordination.Settlement;
import dev.vigil.coordination.Start;
import dev.vigil.coordination.StartOf;
import dev.vigil.coordination.StopIntent;
import dev.vigil.coordination.StopRequest;
import dev.vigil.coordination.Store;
import dev.vigil.coordination.Submission;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketMove;
import dev.vigil.coordination.TicketState;
import dev.vigil.coordination.law.LeaseLaw;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Coordination} and {@link Store} on a PostgreSQL server through a small HikariCP pool,
 * shared by the daemons of several hosts. It returns exactly the decisions of the reference model
 * {@link LeaseLaw} (same denial reasons in the same order, same records, same numbering), as the H2
 * store does, and settles through the one {@link RetryPolicy} (Q5).
 *
 * <p>Every verb is one transaction at READ COMMITTED, and one conditional UPDATE whose row count is
 * the decision: 1 granted, 0 denied, anything else a bug. After a 0, the verb reads the current rows
 * in the same transaction and asks {@link Denials}, the model's own function, why; when the rows read
 * permit the verb (a concurrent commit in between) the transaction runs again. The conditions on the
 * updated row itself carry the decision: PostgreSQL, when an UPDATE waited for a row lock, evaluates
 * its WHERE again on the row as the other transaction committed it, and skips the row when it no
 * longer matches. A run's owner and its lease's owner always agree, so verbs that compare an owner
 * compare the run's. Why READ COMMITTED and not SERIALIZABLE: every decision rests on rows the verb
 * locks (the ticket, the run, the lane, a counter) and re-reads after the lock, as in the H2 store;
 * SERIALIZABLE would add aborts on the hot counter rows and no law.
 *
 * <p>How the laws are carried:
 * <ul>
 *   <li>C1, C2: {@code claim} is one conditional {@code UPDATE tickets SET state='LEASED' WHERE id=?
 *       AND state='READY' AND parked=FALSE AND not_before_ms<=? AND} lane unparked. The run and
 *       lease inserts follow in the same transaction; {@code leases.ticket_id} PRIMARY KEY and
 *       {@code leases.run_id} UNIQUE stand behind it, and a duplicate key (SQLState 23505) becomes
 *       {@code Denied(LEASED)}, never an exception.
 *   <li>Q9: claims of a lane first lock the lane's row {@code FOR SHARE} (claims in one lane do not
 *       wait for each other), and {@code parkLane} updates it, which waits for every claim holding
 *       that lock: once {@code parkLane} returns, no claim in that lane is granted.
 *   <li>{@code claimNext} locks due tickets in {@link LeaseLaw#CLAIM_ORDER} with
 *       {@code SELECT … FOR NO KEY UPDATE SKIP LOCKED LIMIT max} before their conditional updates, so a
 *       ticket held by another transaction is passed over, never waited for and never granted twice.
 *   <li>C3: {@code renew} is one conditional update on owner and {@code expires_at_ms > now};
 *       {@code renewAll} is one statement. {@code adoptClaim} is one conditional update of a
 *       CLAIMED run still owned by the named dead owner, and {@code readopt} of a RUNNING run that
 *       holds a lease; each then moves the lease to the new owner in the same transaction.
 *   <li>Q3: {@code start} and {@code abortClaim} are conditional updates of a CLAIMED run owned
 *       (lease included) by the caller's named owner.
 *   <li>C6: {@code takeExit} is one conditional update on {@code state='RUNNING'}.
 *   <li>C7, C8, Q1, Q2, Q5, Q7, Q8: {@code finish} is a conditional update on
 *       {@code state='EXITED'} and the exit owner, then the ticket move of
 *       {@link RetryPolicy#decide} applied by {@link TicketMove#applyTo}, the lease delete and the
 *       supersede of earlier BLOCKED and STALLED runs, in one transaction.
 *   <li>Q12, Q13: {@code requestStop} is one conditional update of a run that is CLAIMED (kills
 *       only) or RUNNING; {@code finish} reads the run's intent in its transaction, so KILLED is
 *       granted exactly for killed runs and the ticket moves as the kill said.
 *   <li>Q14: the claim statements also require that no {@code ticket_after} row of the ticket names a
 *       prerequisite that is not SUCCEEDED, in the same statement; the verbs that move a ticket then
 *       walk its dependents with {@link Prerequisites#follow}, in the same transaction and in the
 *       model's order.
 *   <li>Events: every verb that reports a decision appends its events ({@link Events}) in its own
 *       transaction, numbered by the {@code event_seq} counter row: its lock, held to the commit,
 *       orders the writers, so ids have no gaps and become visible in id order.
 * </ul>
 *
 * <p>Durability is the server's: a verb returns after its commit, which PostgreSQL has written to its
 * log (forced to the device unless the server runs with {@code synchronous_commit} off).
 *
 * <p>When the server cannot be reached or drops the connection, the verb that meets it throws
 * {@link PostgresUnavailableException} and was not acknowledged; the store stays open and works
 * again once the server answers (the pool opens new connections). A conflict past its retries, or
 * any other failure of the server, is a plain {@link PostgresStoreException}. No message or log
 * line carries the password.
 *
 * <p>Threads: every method may be called from any thread.
 */
public final class PostgresCoordination implements Coordination, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresCoordination.class);

  /** The channel of the server's notifications that a ticket became READY; the payload names the schema. */
  public static final String CHANNEL = "vigil";
  /** How many times a verb runs its transaction when each attempt meets a conflict (40001, 40P01, 55P03). */
  public static final int CONFLICT_ATTEMPTS = 5;
  /** How long the driver waits for the server to answer one statement before it takes the connection for lost, seconds. */
  static final int SOCKET_TIMEOUT_SECONDS = 60;

  private static final String TERMINAL = "('SUCCEEDED', 'FAILED', 'CANCELLED')";
  /**
   * Q14 in SQL, {@link Prerequisites#met}: no prerequisite of the row's ticket is other than
   * SUCCEEDED (a probe of {@code ticket_after}'s primary key and of each prerequisite's row).
   */
  private static final String PREREQUISITES_MET = " AND NOT EXISTS (SELECT 1 FROM ticket_after a JOIN tickets p"
      + " ON p.id = a.prerequisite_id WHERE a.ticket_id = tickets.id AND p.state <> 'SUCCEEDED')";
  private static final String CLAIM_UPDATE = "UPDATE tickets SET state = 'LEASED' WHERE id = ? AND state = 'READY'"
      + " AND parked = FALSE AND not_before_ms <= ?"
      + " AND NOT EXISTS (SELECT 1 FROM lanes l WHERE l.name = tickets.lane AND l.parked)" + PREREQUISITES_MET;

  private final String where;
  private final String schema;
  private final Transactions tx;
  private final PostgresStore store;
  private final RetryPolicy policy;
  private final PostgresOptions options;
  private final List<NewWorkListener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

  private PostgresCoordination(PostgresOptions options, String where, String schema, Transactions tx,
                               RetryPolicy policy) {
    this.options = options;
    this.where = where;
    this.schema = schema;
    this.tx = tx;
    this.store = new PostgresStore(tx);
    this.policy = policy;
  }

  /**
   * Opens the Vigil store in {@code options.schema()} of the database {@code options.url()} names.
   *
   * <ol>
   *   <li>A pool of at most {@code poolSize} connections is opened with the user and password as
   *       connection properties (never in the URL, so never in a message), autocommit off, READ
   *       COMMITTED, the schema as the search path, {@code lock_timeout} set and the application name
   *       {@code vigil/<schema>} (so {@code pg_stat_activity} shows whose sessions they are); the first connection
   *       is made now, so an unreachable server or refused credentials fail the open.
   *   <li>Under the schema's advisory lock, the schema is created when absent and forward-only
   *       migrations bring it to the current version ({@link Schema}); a schema that holds other
   *       tables, or one written by a newer schema version, is refused without being changed.
   * </ol>
   *
   * <p>{@link #close()} closes the pool. A process that dies without it leaves nothing to repair: the
   * server rolls back the transactions of its connections.
   *
   * @throws PostgresUnavailableException if the server cannot be reached
   * @throws PostgresRefusedException     if the server refused the password, the user or the database
   *                                      ({@link PostgresRefusedException#field()} names which)
   * @throws PostgresStoreException       if the store cannot be opened for another reason; the one-line
   *                                      message names the server and the cause, never the password
   */
  public static PostgresCoordination open(PostgresOptions options) {
    Objects.requireNonNull(options, "options");
    String where = options.where();
    HikariConfig config = new HikariConfig();
    config.setPoolName("vigil-postgres");
    config.setJdbcUrl(options.url());
    config.setUsername(options.user());
    config.setPassword(options.password());
    config.setAutoCommit(false);
    config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    config.setMaximumPoolSize(options.poolSize());
    config.setMinimumIdle(1);
    config.setConnectionTimeout(options.connectTimeout().toMillis());
    config.setValidationTimeout(Math.min(options.connectTimeout().toMillis(), 5_000));
    config.setInitializationFailTimeout(1); // one attempt: a refused password is not asked again and again
    config.addDataSourceProperty("currentSchema", options.schema());
    config.addDataSourceProperty("options", "-c lock_timeout=" + options.lockTimeout().toMillis());
    config.addDataSourceProperty("ApplicationName", "vigil/" + options.schema()); // pg_stat_activity names the store
    config.addDataSourceProperty("tcpKeepAlive", "true");
    config.addDataSourceProperty("socketTimeout", Integer.toString(SOCKET_TIMEOUT_SECONDS));
    config.addDataSourceProperty("connectTimeout",
        Long.toString(Math.max(1, options.connectTimeout().toSeconds())));
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(config);
    } catch (HikariPool.PoolInitializationException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      String state = cause instanceof SQLException s ? String.valueOf(s.getSQLState()) : "";
      if (state.equals("28P01") || state.equals("28000") || state.equals("3D000")) {
        String field = state.equals("28P01") ? "password" : state.equals("28000") ? "user" : "url";
        String why = switch (field) {
          case "password" -> "the server refused the password of user " + options.user();
          case "user" -> "the server refused user " + options.user() + " (no such role, or not allowed to connect)";
          default -> "the server has no such database";
        };
        throw new PostgresRefusedException(field, "cannot open " + where + ": " + why + " (SQLState " + state + ")",
            cause);
      }
      if (cause instanceof SQLException s && Transactions.isConnectionFailure(s)) {
        String reason = Transactions.reason(s);
        throw new PostgresUnavailableException(reason, false, "cannot open " + where + ": " + reason + " ("
            + Transactions.oneLine(s) + ")", s);
      }
      throw new PostgresStoreException("cannot open " + where + ": " + cause.getMessage(), cause);
    } catch (RuntimeException e) {
      throw new PostgresStoreException("cannot open " + where + ": " + e.getMessage(), e);
    }
    try {
      Transactions transactions = new Transactions(pool, where);
      int version = transactions.run("open", c -> Schema.migrate(c, options.schema(), where));
      LOG.info("opened {} (schema version {}, lock timeout {} ms, pool {})", where, version,
          options.lockTimeout().toMillis(), options.poolSize());
      return new PostgresCoordination(options, where, options.schema(), transactions, options.retryPolicy());
    } catch (RuntimeException | Error e) {
      pool.close();
      throw e;
    }
  }

  /** Closes the pool after the verbs in flight return. Idempotent; any later verb throws {@link IllegalStateException}. */
  @Override
  public void close() {
    listeners.forEach(NewWorkListener::close);
    tx.shutdown();
  }

  /**
   * Calls {@code onNewWork} (on a thread of this store's, which it must not hold up) whenever a ticket
   * of this store became READY through any client, this one included: a submission, a retry, a
   * release, a rollback. A hint for a daemon to look at the queue at once, carried by the server's
   * notifications over a connection of its own; while that connection is lost, nothing is called until
   * it is back, and then once. Stopped by {@link #close()}.
   */
  public void onNewWork(Runnable onNewWork) {
    listeners.add(NewWorkListener.start(options, onNewWork));
  }

  @Override
  public Store store() {
    return store;
  }

  /** The schema that holds this store's tables. */
  public String schema() {
    return schema;
  }

  // ---- submit, owners ----

  @Override
  public Submission submit(NewTicket n, long nowMs) {
    Objects.requireNonNull(n, "ticket");
    return tx.run("submit", c -> {
      check(c, List.of(n));
      return insert(c, n, 0, List.of(), nowMs);
    });
  }

  /** Each ticket as {@link #submit} queues it, in one transaction (the counter row stays locked throughout). */
  @Override
  public List<Submission> submitAll(List<NewTicket> tickets, long nowMs) {
    List<NewTicket> all = List.copyOf(tickets); // null list or null ticket: refused before anything changes
    if (all.isEmpty()) {
      return List.of();
    }
    return tx.run("submitAll", c -> {
      check(c, all);
      List<Submission> out = new ArrayList<>(all.size());
      List<TicketId> ids = new ArrayList<>(all.size());
      for (int i = 0; i < all.size(); i++) {
        Submission s = insert(c, all.get(i), i, ids, nowMs);
        ids.add(s instanceof Submission.Accepted a ? a.ticket().id() : ((Submission.Duplicate) s).existing().id());
        out.add(s);
      }
      return out;
    });
  }

  /**
   * Queues one ticket inside the caller's transaction: the single insert path of {@link #submit}
   * and {@link #submitAll}.
   */
  /** A single ticket waiting for nothing of a batch (a schedule's fire), in the caller's transaction. */
  static Submission insert(Connection c, NewTicket n, long nowMs) throws SQLException {
    return insert(c, n, 0, List.of(), nowMs);
  }

  private static Submission insert(Connection c, NewTicket n, int index, List<TicketId> batch, long nowMs)
      throws SQLException {
    // Ticket numbers come from one counter row; its lock also serialises submissions, so the
    // idempotency check below sees every earlier ticket (and every earlier one of this transaction).
    long seq = next(c, "ticket_seq");
    if (n.key() != null) {
      Optional<Long> existing = longs(c, "SELECT id FROM tickets WHERE idempotency_key = ?", n.key()).stream()
          .findFirst();
      if (existing.isPresent()) {
        // give the number back: a duplicate creates nothing, and earlier inserts of a batch stay
        requireOne(update(c, "UPDATE counters SET issued = issued - 1 WHERE name = 'ticket_seq'"), "ticket counter");
        return new Submission.Duplicate(Rows.ticket(c, new TicketId(existing.get())).orElseThrow());
      }
    }
    List<TicketId> after = Lookup.of(c, l -> Prerequisites.resolve(n, index, batch, l));
    Ticket t = Ticket.submitted(new TicketId(seq), n, nowMs, null, after);
    insertTicket(c, t, n.key());
    return new Submission.Accepted(holdAtBirth(c, t, nowMs));
  }

  /** Refuses a batch whose prerequisites name no ticket or a later place ({@link Prerequisites#check}). */
  private static void check(Connection c, List<NewTicket> batch) throws SQLException {
    Lookup.of(c, l -> {
      Prerequisites.check(batch, l);
      return null;
    });
  }

  /**
   * A ticket just inserted READY, HELD at once when a prerequisite holds it (Q14, with its HELD
   * event), as the model's submission does; returns it as it is then.
   */
  private static Ticket holdAtBirth(Connection c, Ticket t, long nowMs) throws SQLException {
    Optional<Ticket> held = Prerequisites.follow(t, prerequisitesOf(c, t));
    if (held.isEmpty()) {
      return t;
    }
    writeFollowed(c, held.get());
    append(c, Events.ofHold(t, held.get(), nowMs));
    return held.get();
  }

  /** The tickets {@code t} waits for, as they are now. */
  private static List<Ticket> prerequisitesOf(Connection c, Ticket t) throws SQLException {
    List<Ticket> out = new ArrayList<>(t.after().size());
    for (TicketId p : t.after()) {
      out.add(Rows.ticket(c, p).orElseThrow());
    }
    return out;
  }

  /** Whether every prerequisite of ticket {@code id} SUCCEEDED (Q14), as {@link #PREREQUISITES_MET} asks. */
  private static boolean met(Connection c, TicketId id) throws SQLException {
    return Prerequisites.met(strings(c, "SELECT p.state FROM ticket_after a JOIN tickets p ON p.id = a.prerequisite_id"
        + " WHERE a.ticket_id = ?", id.seq()).stream().map(TicketState::valueOf).toList());
  }

  /** Writes the state, hold reason and dependency hold {@link Prerequisites#follow} decided. */
  private static void writeFollowed(Connection c, Ticket after) throws SQLException {
    requireOne(update(c, "UPDATE tickets SET state = ?, hold_reason = ?, held_for = ? WHERE id = ?"
        + " AND state IN ('READY', 'HELD')", after.state().name(), after.holdReason(),
        after.heldFor() == null ? null : after.heldFor().seq(), after.id().seq()), "dependency hold of " + after.id());
  }

  /**
   * Q14: each dependent of {@code changed} follows its prerequisites ({@link Prerequisites#follow}),
   * in id order, and the dependents of each one that changed in turn, as the model does; a dependent
   * newly HELD gets a HELD event.
   */
  private static void cascade(Connection c, TicketId changed, long nowMs) throws SQLException {
    java.util.ArrayDeque<TicketId> work = new java.util.ArrayDeque<>(List.of(changed));
    while (!work.isEmpty()) {
      TicketId p = work.poll();
      for (long d : longs(c, "SELECT ticket_id FROM ticket_after WHERE prerequisite_id = ? ORDER BY ticket_id",
          p.seq())) {
        Ticket now = lockedTicket(c, new TicketId(d));
        Optional<Ticket> next = Prerequisites.follow(now, prerequisitesOf(c, now));
        if (next.isPresent()) {
          writeFollowed(c, next.get());
          append(c, Events.ofHold(now, next.get(), nowMs));
          work.add(now.id());
        }
      }
    }
  }

  /** Reads tickets for a pure function inside the caller's transaction. */
  private static final class Lookup {
    /** A failed read, carried out of the function and thrown again as it was. */
    private static final class Failed extends RuntimeException {
      Failed(SQLException e) {
        super(e);
      }
    }

    interface Body<T> {
      T apply(java.util.function.Function<TicketId, Optional<Ticket>> lookup);
    }

    static <T> T of(Connection c, Body<T> body) throws SQLException {
      try {
        return body.apply(id -> {
          try {
            return Rows.ticket(c, id);
          } catch (SQLException e) {
            throw new Failed(e);
          }
        });
      } catch (Failed f) {
        throw (SQLException) f.getCause();
      }
    }
  }

  /**
   * Inserts a new READY ticket (its lane row if new, its label rows), as every submission does: a
   * single {@code submit}, a retry, each ticket of a batch. A duplicate key (a concurrent insert of
   * the same number or idempotency key) is a lost race: the transaction runs again.
   */
  static void insertTicket(Connection c, Ticket t, String key) throws SQLException {
    try {
      update(c, "INSERT INTO lanes(name, parked) VALUES (?, FALSE) ON CONFLICT (name) DO NOTHING", t.lane().name());
      try (PreparedStatement p = c.prepareStatement("INSERT INTO tickets(" + Rows.TICKET_COLUMNS
          + ", idempotency_key) VALUES (?, ?, ?, ?, 'READY', 0, ?, ?, ?, ?, FALSE, NULL, 0, ?, ?, ?, ?, 0, ?, NULL, ?)")) {
        p.setLong(1, t.id().seq());
        p.setString(2, t.lane().name());
        p.setString(3, t.type());
        p.setString(4, t.payload());
        p.setInt(5, t.maxAttempts());
        p.setInt(6, t.priority());
        p.setLong(7, t.notBeforeMs());
        p.setLong(8, t.createdAtMs());
        p.setString(9, t.spec().workDir());
        p.setString(10, t.spec().env() == null ? null : Rows.encode(t.spec().env().variables()));
        p.setLong(11, t.spec().timeoutMs());
        p.setString(12, Rows.encode(t.labels()));
        if (t.retryOf() == null) {
          p.setNull(13, java.sql.Types.BIGINT);
        } else {
          p.setLong(13, t.retryOf().seq());
        }
        p.setString(14, key);
        p.executeUpdate();
      }
      for (Map.Entry<String, String> l : t.labels().entrySet()) {
        update(c, "INSERT INTO ticket_labels(ticket_id, label, label_value) VALUES (?, ?, ?)", t.id().seq(), l.getKey(),
            l.getValue());
      }
      for (TicketId p : t.after()) {
        update(c, "INSERT INTO ticket_after(ticket_id, prerequisite_id) VALUES (?, ?)", t.id().seq(), p.seq());
      }
    } catch (SQLException e) {
      if (Transactions.isDuplicateKey(e)) {
        throw new Transactions.RaceLost("submit met a concurrent insert: " + Transactions.oneLine(e));
      }
      throw e;
    }
  }

  @Override
  public Retry retry(TicketId original, long nowMs) {
    Objects.requireNonNull(original, "original");
    return tx.run("retry", c -> {
      long seq = next(c, "ticket_seq");
      Optional<Ticket> found = lockedTicketIfAny(c, original); // its state decides the CANCELLED event
      Optional<Retry.Denied> denial = Denials.retry(found);
      if (denial.isPresent()) {
        c.rollback();
        return denial.get();
      }
      Ticket t = found.get();
      Ticket fresh = Ticket.submitted(new TicketId(seq), t.resubmission(), nowMs, t.id(), t.after());
      insertTicket(c, fresh, null);
      int n = update(c, "UPDATE tickets SET retried_as = ?, state = CASE WHEN state = 'HELD' THEN 'CANCELLED' ELSE state"
          + " END, hold_reason = NULL, held_for = NULL WHERE id = ? AND retried_as IS NULL AND state IN ('HELD', "
          + TERMINAL.substring(1), seq, original.seq());
      if (n == 0) {
        throw new Transactions.RaceLost("retry of " + original + " met a concurrent change");
      }
      requireOne(n, "retry of " + original);
      Ticket after = Rows.ticket(c, original).orElseThrow();
      append(c, Events.ofRetry(t, after, nowMs));
      fresh = holdAtBirth(c, fresh, nowMs);
      if (Prerequisites.retryCarriesDependents(t)) {
        // Q14: the dependents that have not run wait for the retry instead (held_for first: the rows follow)
        String notRun = " AND ticket_id IN (SELECT id FROM tickets WHERE state IN ('READY', 'HELD'))";
        update(c, "UPDATE tickets SET held_for = ? WHERE held_for = ? AND state IN ('READY', 'HELD')", seq,
            original.seq());
        update(c, "UPDATE ticket_after SET prerequisite_id = ? WHERE prerequisite_id = ?" + notRun, seq, original.seq());
      }
      cascade(c, fresh.id(), nowMs);
      cascade(c, original, nowMs);
      return new Retry.Retried(fresh, after);
    });
  }

  /** Appends {@code drafts} to the event stream, numbered by the {@code event_seq} counter (locked by the update). */
  static List<Event> append(Connection c, List<Event.Draft> drafts) throws SQLException {
    List<Event> out = new ArrayList<>(drafts.size());
    for (Event.Draft d : drafts) {
      Event e = d.numbered(next(c, "event_seq"));
      try (PreparedStatement p = c.prepareStatement("INSERT INTO events(" + Rows.EVENT_COLUMNS
          + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
        p.setLong(1, e.id());
        p.setLong(2, e.atMs());
        p.setString(3, e.kind().name());
        if (e.ticket() == null) {
          p.setNull(4, java.sql.Types.BIGINT);
        } else {
          p.setLong(4, e.ticket().seq());
        }
        p.setString(5, e.run() == null ? null : e.run().toString());
        p.setString(6, e.service());
        p.setString(7, e.verdict() == null ? null : e.verdict().name());
        p.setString(8, e.ticketState() == null ? null : e.ticketState().name());
        p.setString(9, e.text());
        p.executeUpdate();
      }
      out.add(e);
    }
    return out;
  }

  @Override
  public Event serviceGivenUp(String service, String why, long nowMs) {
    Objects.requireNonNull(why, "why");
    Event.Draft d = Events.ofServiceGivenUp(service, why, nowMs);
    return tx.run("serviceGivenUp", c -> {
      Event e = append(c, List.of(d)).get(0);
      PostgresTranscripts.givenUp(c, service, why, nowMs); // S7: in the transaction of its event
      return e;
    });
  }

  // ---- transcripts (S7) ----

  @Override
  public dev.vigil.coordination.TranscriptEntry transcribe(String service, dev.vigil.coordination.TranscriptEntry.Kind kind,
                                                           String text, long outputAt, long nowMs) {
    dev.vigil.coordination.TranscriptEntry.checkLifecycle(service, kind, text, outputAt);
    return tx.run("transcribe", c -> PostgresTranscripts.transcribe(c, service, kind, text, outputAt, nowMs));
  }

  @Override
  public dev.vigil.coordination.Restore restored(String service, String restoreId, String snapshot, long outputAt,
                                                 long nowMs) {
    dev.vigil.coordination.TranscriptEntry.checkRestore(service, restoreId, snapshot, outputAt);
    return tx.run("restored", c -> PostgresTranscripts.restored(c, service, restoreId, snapshot, outputAt, nowMs));
  }

  @Override
  public void registerOwner(Owner owner) {
    Objects.requireNonNull(owner, "owner");
    tx.run("registerOwner", c -> {
      try (PreparedStatement p = c.prepareStatement(
          "INSERT INTO owners(" + Rows.OWNER_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (owner_id)"
              + " DO UPDATE SET host = EXCLUDED.host, boot_id = EXCLUDED.boot_id, pid = EXCLUDED.pid,"
              + " start_ticks = EXCLUDED.start_ticks, pgid = EXCLUDED.pgid, build = EXCLUDED.build,"
              + " started_at_ms = EXCLUDED.started_at_ms, host_id = EXCLUDED.host_id")) {
        p.setString(1, owner.id().value());
        p.setString(2, owner.host());
        p.setString(3, owner.identity().bootId());
        p.setLong(4, owner.identity().pid());
        p.setLong(5, owner.identity().startTicks());
        p.setLong(6, owner.identity().pgid());
        p.setString(7, owner.build());
        p.setLong(8, owner.startedAtMs());
        p.setString(9, owner.hostId());
        p.executeUpdate();
      }
      return null;
    });
  }

  // ---- claims (C1, C2, Q9) ----

  @Override
  public Claim claim(TicketId ticket, OwnerId owner, long nowMs, long ttlMs) {
    return claim(ticket, owner, nowMs, ttlMs, false);
  }

  @Override
  public Claim claimByHand(TicketId ticket, OwnerId owner, long nowMs, long ttlMs) {
    return claim(ticket, owner, nowMs, ttlMs, true);
  }

  private Claim claim(TicketId id, OwnerId owner, long nowMs, long ttlMs, boolean byHand) {
    Objects.requireNonNull(id, "ticket");
    Objects.requireNonNull(owner, "owner");
    Lease.checkTtl(nowMs, ttlMs);
    return tx.run(byHand ? "claimByHand" : "claim", c -> {
      List<String> lane = strings(c, "SELECT lane FROM tickets WHERE id = ?", id.seq());
      if (lane.isEmpty()) {
        return new Claim.Denied(Claim.Reason.NOT_FOUND);
      }
      boolean laneParked = lockLane(c, lane.get(0));
      int n = update(c, CLAIM_UPDATE, id.seq(), nowMs);
      if (n == 0) {
        return new Claim.Denied(Denials.claim(Rows.ticket(c, id), Rows.leaseOfTicket(c, id).isPresent(), laneParked,
            nowMs, met(c, id)).orElseThrow(raced("claim of " + id)));
      }
      requireOne(n, "claim of " + id);
      try {
        return grant(c, id, owner, nowMs, ttlMs, byHand);
      } catch (SQLException e) {
        if (Transactions.isDuplicateKey(e)) {
          // a lease row stands in the way: ask why with that lease counted (LEASED, or NOT_FOUND)
          c.rollback();
          return new Claim.Denied(Denials.claim(Rows.ticket(c, id), true, laneParked, nowMs, met(c, id)).orElseThrow());
        }
        throw e;
      }
    });
  }

  /**
   * Locks the lane's row {@code FOR SHARE} for the rest of the transaction (Q9); true when the lane is
   * parked. Claims share the lock, so they do not wait for each other; {@code parkLane}'s update waits
   * for all of them, and a claim that comes after it reads the lane parked.
   */
  private static boolean lockLane(Connection c, String lane) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT parked FROM lanes WHERE name = ? FOR SHARE")) {
      p.setString(1, lane);
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  /** Inserts the CLAIMED run and its lease for a ticket this transaction just moved to LEASED. */
  private static Claim.Granted grant(Connection c, TicketId id, OwnerId owner, long nowMs, long ttlMs, boolean byHand)
      throws SQLException {
    Ticket t = Rows.ticket(c, id).orElseThrow();
    int number = (int) longs(c, "SELECT COUNT(*) FROM runs WHERE ticket_id = ?", id.seq()).get(0).longValue() + 1;
    RunId runId = new RunId(id, number);
    Run run = Run.claimed(runId, t.attemptsUsed() + 1, owner, nowMs, byHand);
    Lease lease = new Lease(id, runId, owner, nowMs + ttlMs);
    update(c, "INSERT INTO runs(run_id, ticket_id, number, attempt, state, owner_id, claimed_at_ms, hand_started)"
        + " VALUES (?, ?, ?, ?, 'CLAIMED', ?, ?, ?)", runId.toString(), id.seq(), number, run.attempt(),
        owner.value(), nowMs, byHand);
    update(c, "INSERT INTO leases(ticket_id, run_id, owner_id, expires_at_ms) VALUES (?, ?, ?, ?)", id.seq(),
        runId.toString(), owner.value(), lease.expiresAtMs());
    return new Claim.Granted(run, lease);
  }

  @Override
  public Claims claimNext(Lane lane, OwnerId owner, long nowMs, long ttlMs, int max) {
    Objects.requireNonNull(lane, "lane");
    Objects.requireNonNull(owner, "owner");
    Lease.checkTtl(nowMs, ttlMs);
    if (max < 1) {
      throw new IllegalArgumentException("max (" + max + ") must be >= 1");
    }
    return tx.run("claimNext", c -> {
      if (lockLane(c, lane.name())) {
        return Claims.NONE;
      }
      try {
        return claimBatch(c, lane, owner, nowMs, ttlMs, max);
      } catch (SQLException e) {
        if (!Transactions.isDuplicateKey(e)) {
          throw e;
        }
        // a lease row stands in the way of one of them: claim one ticket at a time, passing that one
        c.rollback();
        if (lockLane(c, lane.name())) {
          return Claims.NONE;
        }
        return claimOneByOne(c, lane, owner, nowMs, ttlMs, max);
      }
    });
  }

  /**
   * claimNext in a few statements: the due tickets locked and read at once ({@code FOR NO KEY UPDATE
   * SKIP LOCKED}: a ticket another transaction holds is passed, and PostgreSQL checks the condition
   * again on a row that changed before it was locked), moved to LEASED in one batch, their run counts
   * in one query, their runs and leases
   * inserted in two batches. A duplicate key (a lease row that should not be there) fails the batch;
   * the caller then rolls back and claims one by one.
   */
  private static Claims claimBatch(Connection c, Lane lane, OwnerId owner, long nowMs, long ttlMs, int max)
      throws SQLException {
    List<Ticket> due = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT " + Rows.TICKET_READ + " FROM tickets WHERE lane = ?"
        + " AND state = 'READY' AND parked = FALSE AND not_before_ms <= ?" + PREREQUISITES_MET
        + " ORDER BY priority DESC, created_at_ms, id LIMIT ? FOR NO KEY UPDATE OF tickets SKIP LOCKED")) {
      p.setString(1, lane.name());
      p.setLong(2, nowMs);
      p.setInt(3, max);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          due.add(Rows.ticket(rs));
        }
      }
    }
    if (due.isEmpty()) {
      return Claims.NONE;
    }
    List<Ticket> leased = new ArrayList<>(due.size());
    try (PreparedStatement p = c.prepareStatement(CLAIM_UPDATE)) {
      for (Ticket t : due) {
        p.setLong(1, t.id().seq());
        p.setLong(2, nowMs);
        p.addBatch();
      }
      int[] n = p.executeBatch();
      for (int i = 0; i < n.length; i++) {
        if (n[i] == 1) {
          leased.add(due.get(i));
        }
      }
    }
    if (leased.isEmpty()) {
      return Claims.NONE;
    }
    Map<Long, Integer> runsSoFar = new java.util.HashMap<>();
    try (PreparedStatement p = c.prepareStatement("SELECT ticket_id, COUNT(*) FROM runs WHERE ticket_id = ANY(?)"
        + " GROUP BY ticket_id")) {
      p.setArray(1, c.createArrayOf("bigint", leased.stream().map(t -> t.id().seq()).toArray(Long[]::new)));
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          runsSoFar.put(rs.getLong(1), rs.getInt(2));
        }
      }
    }
    List<Claim.Granted> granted = new ArrayList<>(leased.size());
    try (PreparedStatement runs = c.prepareStatement("INSERT INTO runs(run_id, ticket_id, number, attempt, state,"
        + " owner_id, claimed_at_ms, hand_started) VALUES (?, ?, ?, ?, 'CLAIMED', ?, ?, FALSE)");
        PreparedStatement leases = c.prepareStatement(
            "INSERT INTO leases(ticket_id, run_id, owner_id, expires_at_ms) VALUES (?, ?, ?, ?)")) {
      for (Ticket t : leased) {
        int number = runsSoFar.getOrDefault(t.id().seq(), 0) + 1;
        RunId runId = new RunId(t.id(), number);
        Run run = Run.claimed(runId, t.attemptsUsed() + 1, owner, nowMs, false);
        Lease lease = new Lease(t.id(), runId, owner, nowMs + ttlMs);
        runs.setString(1, runId.toString());
        runs.setLong(2, t.id().seq());
        runs.setInt(3, number);
        runs.setInt(4, run.attempt());
        runs.setString(5, owner.value());
        runs.setLong(6, nowMs);
        runs.addBatch();
        leases.setLong(1, t.id().seq());
        leases.setString(2, runId.toString());
        leases.setString(3, owner.value());
        leases.setLong(4, lease.expiresAtMs());
        leases.addBatch();
        granted.add(new Claim.Granted(run, lease));
      }
      runs.executeBatch();
      leases.executeBatch(); // a batch failure carries the SQLState of the statement that failed

    }
    return new Claims(granted);
  }

  /** claimNext one ticket at a time, each under a savepoint: the way around a lease row in the way. */
  private static Claims claimOneByOne(Connection c, Lane lane, OwnerId owner, long nowMs, long ttlMs, int max)
      throws SQLException {
    {
      List<Claim.Granted> granted = new ArrayList<>();
      Set<Long> passed = new LinkedHashSet<>();
      while (granted.size() < max) {
        int limit = max - granted.size() + passed.size();
        List<Long> due = longs(c, "SELECT id FROM tickets WHERE lane = ? AND state = 'READY' AND parked = FALSE"
            + " AND not_before_ms <= ?" + PREREQUISITES_MET + " ORDER BY priority DESC, created_at_ms, id LIMIT ?", lane.name(), nowMs, limit);
        List<Long> fresh = due.stream().filter(id -> !passed.contains(id)).toList();
        if (fresh.isEmpty()) {
          break;
        }
        for (long seq : fresh) {
          if (granted.size() == max) {
            break;
          }
          if (longs(c, "SELECT id FROM tickets WHERE id = ? FOR NO KEY UPDATE SKIP LOCKED", seq).isEmpty()) {
            passed.add(seq);
            continue;
          }
          Savepoint before = c.setSavepoint();
          try {
            if (update(c, CLAIM_UPDATE, seq, nowMs) == 1) {
              granted.add(grant(c, new TicketId(seq), owner, nowMs, ttlMs, false));
            } else {
              passed.add(seq);
            }
          } catch (SQLException e) {
            if (!Transactions.isDuplicateKey(e)) {
              throw e;
            }
            c.rollback(before);
            passed.add(seq);
          }
        }
        if (due.size() < limit) {
          break;
        }
      }
      return new Claims(granted);
    }
  }

  // ---- start and abort (Q3) ----

  @Override
  public Start start(RunId runId, OwnerId owner, RunStart start) {
    Objects.requireNonNull(runId, "run");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(start, "start");
    return tx.run("start",
        c -> startsIn(c, owner, List.of(new StartOf(runId, start))).get(0));
  }

  /**
   * Every start in one transaction: the conditional updates in one JDBC batch (the server runs a
   * batch's statements in order, so a run named twice is started by the first), then each decision read as
   * {@link #start} reads it.
   */
  @Override
  public List<Start> startAll(OwnerId owner, List<StartOf> starts) {
    Objects.requireNonNull(owner, "owner");
    List<StartOf> all = List.copyOf(starts);
    if (all.isEmpty()) {
      return List.of();
    }
    return tx.run("startAll", c -> startsIn(c, owner, all));
  }

  /** The starts' body, in the caller's transaction. */
  private static List<Start> startsIn(Connection c, OwnerId owner, List<StartOf> starts) throws SQLException {
    int[] n;
    try (PreparedStatement p = c.prepareStatement("UPDATE runs SET state = 'RUNNING', boot_id = ?, pid = ?,"
        + " start_ticks = ?, pgid = ?, build = ?, token_hash = ?, started_at_ms = ?, timeout_ms = ?"
        + " WHERE run_id = ? AND state = 'CLAIMED' AND started_at_ms IS NULL AND owner_id = ?"
        + " AND EXISTS (SELECT 1 FROM leases l WHERE l.run_id = runs.run_id AND l.owner_id = ?)")) {
      for (StartOf s : starts) {
        RunStart start = s.start();
        p.setString(1, start.identity().bootId());
        p.setLong(2, start.identity().pid());
        p.setLong(3, start.identity().startTicks());
        p.setLong(4, start.identity().pgid());
        p.setString(5, start.build());
        p.setString(6, start.tokenHash());
        p.setLong(7, start.startedAtMs());
        p.setLong(8, start.timeoutMs());
        p.setString(9, s.run().toString());
        p.setString(10, owner.value());
        p.setString(11, owner.value());
        p.addBatch();
      }
      n = p.executeBatch();
    }
    List<Start> out = new ArrayList<>(starts.size());
    for (int i = 0; i < n.length; i++) {
      RunId runId = starts.get(i).run();
      if (n[i] == 1) {
        out.add(new Start.Started(Rows.run(c, runId).orElseThrow()));
        continue;
      }
      requireZero(n[i], "start of " + runId);
      out.add(new Start.Denied(Denials.start(Rows.run(c, runId), Rows.leaseOfRun(c, runId), owner)
          .orElseThrow(raced("start of " + runId))));
    }
    return out;
  }

  /**
   * Rolls back a claim whose worker never started, as {@link LeaseLaw#abortClaim} does: granted only
   * for a CLAIMED run whose lease {@code owner} holds; the run is SETTLED as ABANDONED with
   * {@code why} as its diagnosis, the lease deleted, and the ticket READY with one more spawn
   * failure, or HELD after {@link RetryPolicy#MAX_SPAWN_FAILURES} (or at once for a hand-started
   * claim, Q8).
   */
  @Override
  public AbortClaim abortClaim(RunId runId, OwnerId owner, String why, long nowMs) {
    Objects.requireNonNull(runId, "run");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(why, "why");
    return tx.run("abortClaim", c -> {
      int n = update(c, "UPDATE runs SET state = 'SETTLED', verdict = 'ABANDONED', diagnosis = ?"
          + " WHERE run_id = ? AND state = 'CLAIMED' AND owner_id = ?"
          + " AND EXISTS (SELECT 1 FROM leases l WHERE l.run_id = runs.run_id AND l.owner_id = ?)", why,
          runId.toString(), owner.value(), owner.value());
      if (n == 0) {
        return new AbortClaim.Denied(Denials.abortClaim(Rows.run(c, runId), Rows.leaseOfRun(c, runId), owner)
            .orElseThrow(raced("abort of " + runId)));
      }
      requireOne(n, "abort of " + runId);
      Run abandoned = Rows.run(c, runId).orElseThrow();
      Ticket t = lockedTicket(c, runId.ticket());
      requireOne(update(c, "DELETE FROM leases WHERE ticket_id = ? AND run_id = ?", runId.ticket().seq(),
          runId.toString()), "lease of the aborted run " + runId);
      Ticket after = policy.abandon(t, abandoned.handStarted(), why, abandoned.stopIntent());
      requireOne(update(c, "UPDATE tickets SET state = ?, hold_reason = ?, spawn_failures = ?"
          + " WHERE id = ? AND state = 'LEASED'", after.state().name(), after.holdReason(), after.spawnFailures(),
          after.id().seq()), "ticket of the aborted run " + runId + " (must be LEASED)");
      append(c, Events.ofAbort(abandoned, after, nowMs));
      cascade(c, after.id(), nowMs);
      return new AbortClaim.Aborted(abandoned, after);
    });
  }

  /**
   * Takes over a CLAIMED run from the owner the caller proved dead, as {@link LeaseLaw#adoptClaim}
   * does: one conditional update of the run on its state and its owner (whose lease it is), then the
   * lease moved to {@code newOwner} with expiry {@code nowMs + ttlMs}, in one transaction.
   */
  @Override
  public AdoptClaim adoptClaim(RunId runId, OwnerId newOwner, OwnerId deadOwner, long nowMs, long ttlMs) {
    Objects.requireNonNull(runId, "run");
    Objects.requireNonNull(newOwner, "newOwner");
    Objects.requireNonNull(deadOwner, "deadOwner");
    Lease.checkTtl(nowMs, ttlMs);
    return tx.run("adoptClaim", c -> {
      int n = update(c, "UPDATE runs SET owner_id = ? WHERE run_id = ? AND state = 'CLAIMED' AND owner_id = ?"
          + " AND EXISTS (SELECT 1 FROM leases l WHERE l.run_id = runs.run_id AND l.owner_id = ?)", newOwner.value(),
          runId.toString(), deadOwner.value(), deadOwner.value());
      if (n == 0) {
        return new AdoptClaim.Denied(Denials.adoptClaim(Rows.run(c, runId), Rows.leaseOfRun(c, runId), deadOwner)
            .orElseThrow(raced("adoption of " + runId)));
      }
      requireOne(n, "adoption of " + runId);
      requireOne(update(c, "UPDATE leases SET owner_id = ?, expires_at_ms = ? WHERE run_id = ? AND owner_id = ?",
          newOwner.value(), nowMs + ttlMs, runId.toString(), deadOwner.value()), "lease of the adopted run " + runId);
      return new AdoptClaim.Adopted(Rows.run(c, runId).orElseThrow(), Rows.leaseOfRun(c, runId).orElseThrow());
    });
  }

  // ---- renew and readopt (C3, C4) ----

  @Override
  public Renewal renew(RunId runId, OwnerId owner, long nowMs, long ttlMs) {
    Objects.requireNonNull(runId, "run");
    Objects.requireNonNull(owner, "owner");
    Lease.checkTtl(nowMs, ttlMs);
    return tx.run("renew", c -> {
      int n = update(c, "UPDATE leases SET expires_at_ms = ? WHERE run_id = ? AND owner_id = ? AND expires_at_ms > ?",
          nowMs + ttlMs, runId.toString(), owner.value(), nowMs);
      if (n == 1) {
        return new Renewal.Renewed(Rows.leaseOfRun(c, runId).orElseThrow());
      }
      requireZero(n, "renewal of " + runId);
      return new Renewal.Denied(Denials.renew(Rows.leaseOfRun(c, runId), owner, nowMs)
          .orElseThrow(raced("renewal of " + runId)));
    });
  }

  @Override
  public int renewAll(OwnerId owner, long nowMs, long ttlMs) {
    Objects.requireNonNull(owner, "owner");
    Lease.checkTtl(nowMs, ttlMs);
    return tx.run("renewAll", c -> update(c,
        "UPDATE leases SET expires_at_ms = ? WHERE owner_id = ? AND expires_at_ms > ?", nowMs + ttlMs, owner.value(),
        nowMs));
  }

  @Override
  public Readopt readopt(RunId runId, OwnerId owner, long nowMs, long ttlMs) {
    Objects.requireNonNull(runId, "run");
    Objects.requireNonNull(owner, "owner");
    Lease.checkTtl(nowMs, ttlMs);
    return tx.run("readopt", c -> readoptsIn(c, List.of(runId), owner, nowMs + ttlMs).get(0));
  }

  /** Every readoption in one transaction ({@link #readoptsIn}). */
  @Override
  public List<Readopt> readoptAll(List<RunId> runs, OwnerId owner, long nowMs, long ttlMs) {
    Objects.requireNonNull(owner, "owner");
    Lease.checkTtl(nowMs, ttlMs);
    List<RunId> all = List.copyOf(runs);
    if (all.isEmpty()) {
      return List.of();
    }
    return tx.run("readoptAll", c -> readoptsIn(c, all, owner, nowMs + ttlMs));
  }

  /**
   * The readoptions' body, in the caller's transaction, in four statements whatever the number of runs:
   * the runs named that are RUNNING with a lease change owner (one conditional update), their leases
   * move with them and expire at {@code expiresAtMs} (one update), then the runs and the leases named are
   * read back once, and each decision is {@link Denials#readopt} of what was read (so a run named twice is
   * readopted twice, to the same lease, as readopt called twice decides). Readopting changes nothing a
   * denial looks at, so the decisions are those of readopt for each run in turn. When the rows read permit
   * more readoptions than the updates made, a concurrent commit came in between: the transaction runs again.
   */
  private static List<Readopt> readoptsIn(Connection c, List<RunId> runs, OwnerId owner, long expiresAtMs)
      throws SQLException {
    String[] ids = runs.stream().map(RunId::toString).distinct().toArray(String[]::new);
    int moved = update(c, "UPDATE runs SET owner_id = ? WHERE run_id = ANY(?) AND state = 'RUNNING'"
        + " AND EXISTS (SELECT 1 FROM leases l WHERE l.run_id = runs.run_id)", owner.value(), ids);
    int rearmed = moved == 0 ? 0 : update(c, "UPDATE leases SET owner_id = ?, expires_at_ms = ? WHERE run_id = ANY(?)"
        + " AND EXISTS (SELECT 1 FROM runs r WHERE r.run_id = leases.run_id AND r.state = 'RUNNING')", owner.value(),
        expiresAtMs, ids);
    Map<RunId, Run> read = Rows.runsNamed(c, ids);
    Map<RunId, Lease> leases = Rows.leasesOfRunsNamed(c, ids);
    Map<RunId, Readopt> decided = new java.util.HashMap<>();
    int granted = 0;
    for (String id : ids) {
      RunId r = RunId.parse(id);
      Optional<Readopt.Reason> denial = Denials.readopt(Optional.ofNullable(read.get(r)),
          Optional.ofNullable(leases.get(r)));
      decided.put(r, denial.isPresent() ? new Readopt.Denied(denial.get()) : new Readopt.Readopted(read.get(r), leases.get(r)));
      granted += denial.isPresent() ? 0 : 1;
    }
    if (granted != moved || granted != rearmed) {
      throw new Transactions.RaceLost("readoption of " + ids.length + " runs moved " + moved + " runs and " + rearmed
          + " leases, but the rows read now permit " + granted);
    }
    return runs.stream().map(decided::get).toList();
  }

  // ---- exit and settlement (C6, C7, C8, Q1, Q2, Q5, Q7, Q8) ----

  @Override
  public Exit takeExit(RunId runId, ExitOwner claimant, RunExit exit) {
    Objects.requireNonNull(runId, "run");
    Objects.requireNonNull(claimant, "claimant");
    Objects.requireNonNull(exit, "exit");
    return tx.run("takeExit", c -> exitIn(c, runId, claimant, exit));
  }

  /** takeExit's body, in the caller's transaction. */
  private static Exit exitIn(Connection c, RunId runId, ExitOwner claimant, RunExit exit) throws SQLException {
    {
      int n;
      try (PreparedStatement p = c.prepareStatement("UPDATE runs SET state = 'EXITED', exit_code = ?,"
          + " exit_signal = ?, exit_at_ms = ?, exit_role = ?, exit_owner_id = ? WHERE run_id = ? AND state = 'RUNNING'")) {
        Rows.setNullableInt(p, 1, exit.exitCode());
        Rows.setNullableInt(p, 2, exit.signal());
        p.setLong(3, exit.atMs());
        p.setString(4, claimant.role().name());
        p.setString(5, claimant.owner().value());
        p.setString(6, runId.toString());
        n = p.executeUpdate();
      }
      if (n == 1) {
        return new Exit.Taken(Rows.run(c, runId).orElseThrow());
      }
      requireZero(n, "exit of " + runId);
      return Denials.takeExit(Rows.run(c, runId)).orElseThrow(raced("exit of " + runId));
    }
  }

  @Override
  public Settlement finish(Finish f, long nowMs) {
    Objects.requireNonNull(f, "finish");
    return tx.run("finish", c -> finishIn(c, f, nowMs));
  }

  /**
   * takeExit then, when the exit was taken, finish, in one transaction: one commit, and no crash
   * between the two (a finish refused commits the exit alone, as the two verbs called in turn do).
   */
  @Override
  public ExitAndFinish takeExitAndFinish(RunId runId, ExitOwner claimant, RunExit exit, Finish f, long nowMs) {
    ExitAndFinish.check(runId, claimant, f);
    Objects.requireNonNull(exit, "exit");
    return tx.run("takeExitAndFinish",
        c -> {
          Exit e = exitIn(c, runId, claimant, exit);
          if (!(e instanceof Exit.Taken)) {
            return new ExitAndFinish(e, Optional.empty());
          }
          return new ExitAndFinish(e, Optional.of(finishIn(c, f, nowMs)));
        });
  }

  /**
   * Every {@code takeExitAndFinish} in one transaction, in turn: one commit for all of them (a
   * finish refused commits its exit alone, as the single verb does).
   */
  @Override
  public List<ExitAndFinish> takeExitAndFinishAll(List<EndOf> ends, long nowMs) {
    List<EndOf> all = List.copyOf(ends);
    if (all.isEmpty()) {
      return List.of();
    }
    return tx.run("takeExitAndFinishAll", c -> {
          List<ExitAndFinish> out = new ArrayList<>(all.size());
          for (EndOf e : all) {
            Exit taken = exitIn(c, e.run(), e.claimant(), e.exit());
            out.add(new ExitAndFinish(taken, taken instanceof Exit.Taken ? Optional.of(finishIn(c, e.finish(), nowMs))
                : Optional.empty()));
          }
          return out;
        });
  }

  /** finish's body, in the caller's transaction. */
  private Settlement finishIn(Connection c, Finish f, long nowMs) throws SQLException {
    RunId runId = f.run();
    {
      int n = update(c, "UPDATE runs SET state = 'SETTLED', verdict = ?, diagnosis = ? WHERE run_id = ?"
          + " AND state = 'EXITED' AND (? OR (exit_role = ? AND exit_owner_id = ?))"
          + " AND (COALESCE(stop_intent, 'TIMEOUT') <> 'TIMEOUT') = ?", f.verdict().name(), f.diagnosis(),
          runId.toString(), f.exitOwnerDead(), f.claimant().role().name(), f.claimant().owner().value(),
          f.verdict() == dev.vigil.coordination.Verdict.KILLED);
      if (n == 0) {
        return new Settlement.Denied(Denials.finish(Rows.run(c, runId), f).orElseThrow(raced("finish of " + runId)));
      }
      requireOne(n, "finish of " + runId);
      if (f.result() != null) {
        requireOne(update(c, "INSERT INTO run_results(run_id, result) VALUES (?, ?)", runId.toString(), f.result()),
            "result of " + runId);
      }
      Run settled = Rows.run(c, runId).orElseThrow();
      Ticket t = lockedTicket(c, runId.ticket());
      TicketMove move = policy.decide(t, settled.handStarted(), f.verdict(), f.diagnosis(), f.stallUntilMs(), nowMs,
          settled.stopIntent());
      Ticket after = move.applyTo(t);
      requireOne(update(c, "UPDATE tickets SET state = ?, attempts_used = ?, not_before_ms = ?, hold_reason = ?"
          + " WHERE id = ? AND state = 'LEASED'", after.state().name(), after.attemptsUsed(), after.notBeforeMs(),
          after.holdReason(), after.id().seq()), "ticket of the finished run " + runId + " (must be LEASED)");
      requireOne(update(c, "DELETE FROM leases WHERE ticket_id = ? AND run_id = ?", runId.ticket().seq(),
          runId.toString()), "lease of the finished run " + runId);
      List<RunId> superseded = new ArrayList<>();
      if (after.state() == TicketState.SUCCEEDED) {
        for (String id : strings(c, "SELECT run_id FROM runs WHERE ticket_id = ? AND verdict IN ('BLOCKED', 'STALLED')"
            + " ORDER BY number", runId.ticket().seq())) {
          superseded.add(RunId.parse(id));
        }
        update(c, "UPDATE runs SET verdict = 'SUPERSEDED' WHERE ticket_id = ? AND verdict IN ('BLOCKED', 'STALLED')",
            runId.ticket().seq());
      }
      append(c, Events.ofSettlement(settled, after, nowMs));
      cascade(c, after.id(), nowMs);
      return new Settlement.Settled(settled, after, superseded);
    }
  }

  @Override
  public StopRequest requestStop(RunId runId, StopIntent intent, String note, long nowMs) {
    Objects.requireNonNull(runId, "run");
    Objects.requireNonNull(intent, "intent");
    Objects.requireNonNull(note, "note");
    return tx.run("requestStop", c -> {
      Optional<Run> before = lockedRun(c, runId);
      Optional<StopRequest.Reason> denial = Denials.requestStop(before, intent);
      if (denial.isPresent()) {
        return new StopRequest.Denied(denial.get());
      }
      StopIntent was = before.get().stopIntent();
      StopIntent next = was == null ? intent : was.then(intent);
      int n = update(c, "UPDATE runs SET stop_intent = ? WHERE run_id = ? AND state IN ('CLAIMED', 'RUNNING')",
          next.name(), runId.toString());
      requireOne(n, "stop request of " + runId);
      StopRequest.Recorded r = new StopRequest.Recorded(Rows.run(c, runId).orElseThrow(), next != was);
      append(c, Events.ofStop(r, note, nowMs));
      return r;
    });
  }

  /** Locks the run's row for the rest of the transaction, then reads it (empty when there is none). */
  private static Optional<Run> lockedRun(Connection c, RunId id) throws SQLException {
    if (strings(c, "SELECT run_id FROM runs WHERE run_id = ? FOR NO KEY UPDATE", id.toString()).isEmpty()) {
      return Optional.empty();
    }
    return Rows.run(c, id);
  }

  /**
   * Locks the ticket's row for the rest of the transaction ({@code FOR NO KEY UPDATE}: rows that refer
   * to the ticket can still be inserted meanwhile), then reads it; every settlement takes this lock.
   */
  private static Ticket lockedTicket(Connection c, TicketId id) throws SQLException {
    requireOne(longs(c, "SELECT id FROM tickets WHERE id = ? FOR NO KEY UPDATE", id.seq()).size(), "lock of " + id);
    return Rows.ticket(c, id).orElseThrow();
  }

  // ---- operator verbs (Q8, Q9) ----

  @Override
  public Control park(TicketId id) {
    return setParked(id, true);
  }

  @Override
  public Control unpark(TicketId id) {
    return setParked(id, false);
  }

  private Control setParked(TicketId id, boolean parked) {
    Objects.requireNonNull(id, "ticket");
    return tx.run(parked ? "park" : "unpark", c -> {
      int n = update(c, "UPDATE tickets SET parked = ? WHERE id = ? AND state NOT IN " + TERMINAL, parked, id.seq());
      if (n == 1) {
        return new Control.Done(Rows.ticket(c, id).orElseThrow());
      }
      requireZero(n, "park of " + id);
      return new Control.Denied(Denials.park(Rows.ticket(c, id)).orElseThrow(raced("park of " + id)));
    });
  }

  @Override
  public Control hold(TicketId id, String reason, long nowMs) {
    Objects.requireNonNull(id, "ticket");
    Objects.requireNonNull(reason, "reason");
    return tx.run("hold", c -> {
      int n = update(c, "UPDATE tickets SET state = 'HELD', hold_reason = ? WHERE id = ? AND state = 'READY'", reason,
          id.seq());
      if (n == 1) {
        Ticket after = Rows.ticket(c, id).orElseThrow();
        append(c, Events.ofHold(after.withState(TicketState.READY, null), after, nowMs));
        cascade(c, id, nowMs);
        return new Control.Done(after);
      }
      requireZero(n, "hold of " + id);
      Optional<Ticket> t = Rows.ticket(c, id);
      Optional<Control.Reason> denial = Denials.hold(t);
      if (denial.isPresent()) {
        return new Control.Denied(denial.get());
      } else if (t.get().state() == TicketState.HELD) {
        return new Control.Done(t.get());
      }
      throw new Transactions.RaceLost("hold of " + id + " refused, but the ticket reads READY");
    });
  }

  @Override
  public Control release(TicketId id, OptionalInt moreAttempts) {
    Objects.requireNonNull(id, "ticket");
    LeaseLaw.checkGrant(moreAttempts);
    return tx.run("release", c -> {
      Optional<Ticket> before = lockedTicketIfAny(c, id);
      Optional<Control.Reason> denial = Denials.release(before, moreAttempts,
          before.isPresent() ? prerequisitesOf(c, before.get()) : List.of());
      if (denial.isPresent()) {
        return new Control.Denied(denial.get());
      }
      int grant = Denials.grantOf(before.get(), moreAttempts);
      requireOne(update(c, "UPDATE tickets SET state = 'READY', hold_reason = NULL, held_for = NULL, spawn_failures = 0,"
          + " attempts_granted = attempts_granted + ? WHERE id = ? AND state = 'HELD'", grant, id.seq()),
          "release of " + id);
      Ticket after = Rows.ticket(c, id).orElseThrow();
      cascade(c, id, 0); // a release only ends holds: no event is written, so no time is needed
      return new Control.Done(after);
    });
  }

  /** Locks the ticket's row for the rest of the transaction, then reads it (empty when there is none). */
  private static Optional<Ticket> lockedTicketIfAny(Connection c, TicketId id) throws SQLException {
    if (longs(c, "SELECT id FROM tickets WHERE id = ? FOR NO KEY UPDATE", id.seq()).isEmpty()) {
      return Optional.empty();
    }
    return Rows.ticket(c, id);
  }

  @Override
  public Control cancel(TicketId id, long nowMs) {
    Objects.requireNonNull(id, "ticket");
    return tx.run("cancel", c -> {
      int n = update(c, "UPDATE tickets SET state = 'CANCELLED', hold_reason = NULL, held_for = NULL"
          + " WHERE id = ? AND state IN ('READY', 'HELD')", id.seq());
      if (n == 1) {
        Ticket after = Rows.ticket(c, id).orElseThrow();
        append(c, Events.ofCancel(after, nowMs));
        cascade(c, id, nowMs);
        return new Control.Done(after);
      }
      requireZero(n, "cancel of " + id);
      return new Control.Denied(Denials.cancel(Rows.ticket(c, id)).orElseThrow(raced("cancel of " + id)));
    });
  }

  @Override
  public boolean parkLane(Lane lane) {
    Objects.requireNonNull(lane, "lane");
    return tx.run("parkLane", c -> {
      List<Boolean> row = new ArrayList<>();
      try (PreparedStatement p = c.prepareStatement("SELECT parked FROM lanes WHERE name = ? FOR NO KEY UPDATE")) {
        p.setString(1, lane.name());
        try (ResultSet rs = p.executeQuery()) {
          while (rs.next()) {
            row.add(rs.getBoolean(1));
          }
        }
      }
      if (!row.isEmpty()) {
        return !row.get(0) && update(c, "UPDATE lanes SET parked = TRUE WHERE name = ?", lane.name()) == 1;
      }
      if (update(c, "INSERT INTO lanes(name, parked) VALUES (?, TRUE) ON CONFLICT (name) DO NOTHING", lane.name()) == 0) {
        throw new Transactions.RaceLost("parkLane met a concurrent insert of lane " + lane);
      }
      return true;
    });
  }

  @Override
  public boolean unparkLane(Lane lane) {
    Objects.requireNonNull(lane, "lane");
    return tx.run("unparkLane",
        c -> update(c, "UPDATE lanes SET parked = FALSE WHERE name = ? AND parked", lane.name()) == 1);
  }

  // ---- questions (Q16) ----

  @Override
  public dev.vigil.coordination.Asking ask(dev.vigil.coordination.NewQuestion question, long nowMs) {
    Objects.requireNonNull(question, "question");
    return tx.run("ask", c -> PostgresQuestions.ask(c, question, nowMs, PostgresCoordination::append));
  }

  @Override
  public dev.vigil.coordination.Answering answer(dev.vigil.coordination.QuestionId id, String option, long nowMs) {
    Objects.requireNonNull(id, "question");
    Objects.requireNonNull(option, "option");
    return tx.run("answer", c -> PostgresQuestions.answer(c, id, option, nowMs));
  }

  @Override
  public dev.vigil.coordination.Applying applyAnswer(dev.vigil.coordination.QuestionId id, long nowMs) {
    Objects.requireNonNull(id, "question");
    return tx.run("applyAnswer", c -> PostgresQuestions.apply(c, id, nowMs, PostgresCoordination::append));
  }

  // ---- checkpoints (Q17) ----

  @Override
  public dev.vigil.coordination.Checkpointing keepCheckpoint(RunId run, long seq, String value, long nowMs) {
    Objects.requireNonNull(run, "run");
    dev.vigil.coordination.Checkpoint.check(seq, value);
    return tx.run("keepCheckpoint", c -> PostgresCheckpoints.keep(c, run, seq, value, nowMs));
  }

  // ---- maintenance (Q18) ----

  @Override
  public dev.vigil.coordination.Pruning prune(dev.vigil.coordination.Pruning.Request request, long nowMs) {
    Objects.requireNonNull(request, "request");
    return tx.run("prune", c -> PostgresRetention.prune(c, request, nowMs));
  }

  @Override
  public int directoriesRemoved(String job, List<dev.vigil.coordination.RunId> runs, String summary, long nowMs) {
    List<dev.vigil.coordination.RunId> all = List.copyOf(runs);
    Objects.requireNonNull(summary, "summary");
    return tx.run("directoriesRemoved", c -> PostgresRetention.directoriesRemoved(c, job, all, summary, nowMs));
  }

  /**
   * The store's side of a compaction on PostgreSQL: {@code VACUUM (ANALYZE)} of every table of the
   * schema (space of deleted and updated rows made reusable, statistics refreshed; verbs go on
   * meanwhile, as the server's autovacuum does), then the job's line. The sizes reported are those of
   * the schema's tables with their indexes, bytes. It changes no decision.
   */
  @Override
  public dev.vigil.coordination.Compacted compact(String job, long nowMs) {
    new dev.vigil.coordination.MaintenanceRecord(job, nowMs, ""); // checks the name before anything is done
    long before = tx.read("compact", PostgresCoordination::tableBytes);
    List<String> tables = tx.read("compact", PostgresCoordination::tables);
    tx.autocommit("compact", c -> {
      for (String table : tables) {
        try (java.sql.Statement s = c.createStatement()) {
          s.execute("VACUUM (ANALYZE) " + table);
        }
      }
      return null;
    });
    dev.vigil.coordination.Compacted done = new dev.vigil.coordination.Compacted(before,
        tx.read("compact", PostgresCoordination::tableBytes));
    tx.run("compact", c -> {
      PostgresRetention.record(c, new dev.vigil.coordination.MaintenanceRecord(job, nowMs, done.summary()));
      return done;
    });
    return done;
  }

  /** The tables of the store's schema (the search path's first), in name order. */
  private static List<String> tables(Connection c) throws SQLException {
    return strings(c, "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = current_schema()"
        + " ORDER BY tablename");
  }

  /** The bytes of the schema's tables with their indexes and TOAST. */
  private static long tableBytes(Connection c) throws SQLException {
    return longs(c, "SELECT COALESCE(SUM(pg_total_relation_size(format('%I.%I', schemaname, tablename))), 0)"
        + " FROM pg_tables WHERE schemaname = current_schema()").get(0);
  }

  @Override
  public List<dev.vigil.coordination.MaintenanceRecord> maintenanceRecords() {
    return tx.read("maintenanceRecords", PostgresRetention::records);
  }

  // ---- JDBC helpers ----

  /**
   * The next number of {@code counter}, in one statement ({@code UPDATE … RETURNING}): the row stays
   * locked to the commit, so numbers have no gap and the writers are ordered by it.
   */
  static long next(Connection c, String counter) throws SQLException {
    List<Long> n = longs(c, "UPDATE counters SET issued = issued + 1 WHERE name = ? RETURNING issued", counter);
    requireOne(n.size(), "counter " + counter);
    return n.get(0);
  }

  static int update(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement p = c.prepareStatement(sql)) {
      bind(p, args);
      return p.executeUpdate();
    }
  }

  static List<Long> longs(Connection c, String sql, Object... args) throws SQLException {
    List<Long> out = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement(sql)) {
      bind(p, args);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getLong(1));
        }
      }
    }
    return out;
  }

  private static List<String> strings(Connection c, String sql, Object... args) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement(sql)) {
      bind(p, args);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  private static void bind(PreparedStatement p, Object... args) throws SQLException {
    for (int i = 0; i < args.length; i++) {
      Object a = args[i];
      if (a == null) {
        p.setNull(i + 1, java.sql.Types.NULL); // the server infers the column's type
      } else if (a instanceof String s) {
        p.setString(i + 1, s);
      } else if (a instanceof Long l) {
        p.setLong(i + 1, l);
      } else if (a instanceof Integer n) {
        p.setInt(i + 1, n);
      } else if (a instanceof Boolean b) {
        p.setBoolean(i + 1, b);
      } else if (a instanceof Long[] array) { // for = ANY(?)
        p.setArray(i + 1, p.getConnection().createArrayOf("bigint", array));
      } else if (a instanceof String[] array) {
        p.setArray(i + 1, p.getConnection().createArrayOf("varchar", array));
      } else {
        throw new IllegalArgumentException("cannot bind " + a.getClass());
      }
    }
  }

  /**
   * The failure of a verb whose conditional update touched no row while the rows it then read permit
   * the verb: a concurrent commit came in between, so the transaction runs again.
   */
  private static Supplier<Transactions.RaceLost> raced(String what) {
    return () -> new Transactions.RaceLost(what + " refused, but the rows read now permit it");
  }

  /** A conditional write that must have touched exactly one row; anything else is a bug. */
  static void requireOne(int rows, String what) {
    if (rows != 1) {
      throw new IllegalStateException(what + " touched " + rows + " rows, expected 1: the store is inconsistent");
    }
  }

  private static void requireZero(int rows, String what) {
    if (rows != 0) {
      throw new IllegalStateException(what + " touched " + rows + " rows, expected 0 or 1: the store is inconsistent");
    }
  }


  /** Q15: the recurring schedules of this store, fired in its transactions ({@link PostgresSchedules}). */
  public dev.vigil.coordination.schedule.Schedules schedules() {
    return new PostgresSchedules(tx);
  }

  @Override
  public String toString() {
    return "PostgresCoordination[" + where + "]";
  }
}
