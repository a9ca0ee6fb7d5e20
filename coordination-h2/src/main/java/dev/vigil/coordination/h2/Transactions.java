package dev.vigil.coordination.h2;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each verb as one transaction on one pooled connection (autocommit off): commit on return,
 * rollback on any failure. A failure is reported as what {@link Damage#diagnose} makes of it:
 * damage, an unavailable store, or broken infrastructure.
 *
 * <ol>
 *   <li>A lock conflict (SQLState HYT00 lock timeout, 40001 deadlock, 90131 concurrent update)
 *       rolls back and runs the whole transaction again, at most
 *       {@value H2Coordination#LOCK_TIMEOUT_ATTEMPTS} times in all; then the verb fails with a
 *       {@link CoordinationStoreException} (broken infrastructure, never a decision).
 *   <li>A body that finds its conditional update refused but the re-read row permitting it (a
 *       concurrent commit in between) throws {@link RaceLost}: the transaction runs again.
 *   <li>Any other failure rolls back and is reported; nothing is retried that might have committed.
 *   <li>In {@link H2Options.Durability#POWER} mode a committed decision that asks for it is forced
 *       to the device with {@code CHECKPOINT SYNC} before the verb returns.
 *   <li>After a committed write transaction, when the file has grown enough ({@link Compaction}),
 *       every verb is paused (the write side of the gate waits for those in flight), the database
 *       is shut down with {@code SHUTDOWN COMPACT} and reopened. If the compaction or the reopen
 *       fails, every later verb fails with that cause (a {@link StoreUnavailableException} when
 *       the environment failed, as in 7).
 *   <li>A failure that says the file is damaged ({@link Damage}) is a {@link DamagedStoreException};
 *       from then on no compaction runs, and the shutdown writes nothing more
 *       ({@code SHUTDOWN IMMEDIATELY}): a compaction would have to read the damaged data.
 *   <li>A failure of the environment ({@link Damage#diagnose}: no space left on device, an I/O
 *       error, a read-only file system, permission denied, or the database closed by H2 after
 *       such a failed write), met by a verb, by taking a connection or by forcing to the device,
 *       is a {@link StoreUnavailableException}, and the verb is not acknowledged. H2 closes the
 *       database when a write fails, so the verb then takes the write side of the gate (those in
 *       flight finish, and fail too) and lets go of the database ({@link Engine#abandon}: pool
 *       closed, {@code SHUTDOWN IMMEDIATELY}, nothing more written). Every later verb, reads
 *       included, fails with the same reason, also once the cause is gone; the shutdown writes
 *       nothing. A new open uses the file again and finds every decision acknowledged before.
 *   <li>{@link #exclusive} runs a body with every other verb paused, on a database that no
 *       transaction writes meanwhile (a backup copies the file then).
 * </ol>
 */
final class Transactions {
  private static final Logger LOG = LoggerFactory.getLogger(Transactions.class);
  /** Re-runs of a transaction that lost a race to a concurrent commit, before giving up. */
  static final int RACE_ATTEMPTS = 20;

  /** A transaction body; it may call {@code rollback} itself to discard what it did. */
  interface Body<T> {
    T run(Connection c) throws SQLException;
  }

  /** Thrown by a body whose conditional update lost to a commit it could not see: run it again. */
  static final class RaceLost extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RaceLost(String what) {
      super(what, null, false, false);
    }
  }

  private final DatabaseFile file;
  private final Supplier<Engine> reopen;
  private final Compaction compaction;
  private final H2Options.Durability durability;
  private final long lockTimeoutMs;
  private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
  /** The open database; replaced only under the write side of the gate. */
  private Engine engine;
  private boolean closed;
  /**
   * Why every verb fails: the compaction or reopen that failed, or the environment failure a verb
   * met ({@link StoreUnavailableException}); set only under the write side of the gate.
   */
  private RuntimeException broken;
  /** The first cause of an environment failure that a verb met (like {@code no space left on device}). */
  private final java.util.concurrent.atomic.AtomicReference<String> firstCause =
      new java.util.concurrent.atomic.AtomicReference<>();
  /** Set when a verb found the file damaged: no compaction from then on. */
  private volatile boolean damaged;
  private final java.util.concurrent.atomic.AtomicInteger compactions = new java.util.concurrent.atomic.AtomicInteger();

  /**
   * @param engine     the database as first opened
   * @param reopen     opens it again after a compaction
   * @param compaction when to compact, or {@code null} never to
   */
  Transactions(DatabaseFile file, Engine engine, Supplier<Engine> reopen, Compaction compaction, H2Options options) {
    this.file = file;
    this.engine = engine;
    this.reopen = reopen;
    this.compaction = compaction;
    this.durability = options.durability();
    this.lockTimeoutMs = options.lockTimeout().toMillis();
  }

  /** A read-only transaction. */
  <T> T read(String what, Body<T> body) {
    return run(what, false, r -> false, body);
  }

  /**
   * Runs {@code body} as one transaction.
   *
   * @param verb          names the verb in failure messages
   * @param forceToDevice which committed results {@code CHECKPOINT SYNC} follows in POWER mode
   */
  <T> T run(String verb, Predicate<? super T> forceToDevice, Body<T> body) {
    return run(verb, true, forceToDevice, body);
  }

  private <T> T run(String verb, boolean writes, Predicate<? super T> forceToDevice, Body<T> body) {
    T result;
    try {
      gate.readLock().lock();
      try {
        requireUsable(verb);
        result = attempt(verb, forceToDevice, body);
      } finally {
        gate.readLock().unlock();
      }
    } catch (StoreUnavailableException e) {
      throw abandon(e);
    }
    if (writes && compaction != null && !damaged && compaction.due()) {
      compact();
    }
    return result;
  }

  private <T> T attempt(String verb, Predicate<? super T> forceToDevice, Body<T> body) {
    int lockConflicts = 0;
    int races = 0;
    while (true) {
      Connection c = connection(verb);
      try {
        T result;
        try {
          result = body.run(c);
          c.commit();
        } catch (RaceLost e) {
          rollbackQuietly(c);
          if (++races >= RACE_ATTEMPTS) {
            throw new CoordinationStoreException(file + ": " + verb + " lost " + races
                + " races in a row to concurrent commits (" + e.getMessage() + ")");
          }
          LOG.debug("{}: {} lost a race ({}); running it again", file, verb, e.getMessage());
          continue;
        } catch (SQLException e) {
          rollbackQuietly(c);
          if (isLockConflict(e) && firstCause.get() == null && ++lockConflicts < H2Coordination.LOCK_TIMEOUT_ATTEMPTS) {
            LOG.warn("{}: {} hit a lock conflict ({}), attempt {} of {}; running it again", file, verb,
                e.getSQLState(), lockConflicts, H2Coordination.LOCK_TIMEOUT_ATTEMPTS);
            continue;
          }
          throw failure(verb, e, lockConflicts);
        } catch (RuntimeException | AssertionError e) {
          rollbackQuietly(c);
          if (firstCause.get() != null) {
            throw unavailable(verb + " failed", new Damage.Diagnosis.Unavailable(firstCause.get(), true), e);
          }
          throw e;
        } catch (Error e) {
          rollbackQuietly(c);
          throw e;
        }
        if (durability == H2Options.Durability.POWER && forceToDevice.test(result)) {
          forceToDevice(c, verb);
        }
        return result;
      } finally {
        closeQuietly(c);
      }
    }
  }

  /**
   * Runs {@code body} as one transaction while every other verb waits (the write side of the gate:
   * those in flight finish first, none starts until it returns), so nothing is written to the file
   * meanwhile.
   */
  <T> T exclusive(String what, Body<T> body) {
    gate.writeLock().lock();
    try {
      requireUsable(what);
      return attempt(what, r -> false, body);
    } catch (StoreUnavailableException e) {
      throw letGo(e);
    } finally {
      gate.writeLock().unlock();
    }
  }

  /**
   * Refuses a verb on a closed store, on one found unavailable, or on one whose reopen after a
   * compaction failed; under the gate.
   */
  private void requireUsable(String verb) {
    if (closed) {
      throw new IllegalStateException(file + ": the coordination store is closed (" + verb + ")");
    }
    if (broken instanceof StoreUnavailableException u) {
      throw unavailable(verb + " failed", u.reason(), u);
    }
    if (broken != null) {
      throw new CoordinationStoreException(file + ": unusable since its reopen after a compaction failed: "
          + broken.getMessage(), broken);
    }
  }

  /**
   * Pauses every verb (waits for those in flight), shuts the database down with
   * {@code SHUTDOWN COMPACT} and reopens it. A failure is logged and kept: the verb that
   * triggered the compaction committed already, every later one fails with it.
   */
  void compact() {
    gate.writeLock().lock();
    try {
      if (closed || broken != null) {
        return;
      }
      long t0 = System.nanoTime();
      try {
        engine.shutdownCompact(file);
        engine = reopen.get();
        if (compaction != null) { // a compaction asked for at a safe point (Q18) runs without the threshold too
          compaction.compacted();
        }
        compactions.incrementAndGet();
        LOG.debug("{}: compacted in {} ms", file, (System.nanoTime() - t0) / 1_000_000);
      } catch (RuntimeException e) {
        broken = Damage.diagnose(e) instanceof Damage.Diagnosis.Unavailable u
            ? unavailable("compaction or the reopen after it failed", u, e) : e;
        LOG.error("{}: compaction or the reopen after it failed; the store is unusable: {}", file, e.getMessage());
      }
    } finally {
      gate.writeLock().unlock();
    }
  }

  /**
   * Called by the verb that found the store unavailable, once it has left the gate: takes the
   * write side (the verbs in flight finish, and fail too), then lets go of the database. Returns
   * what the verb throws.
   */
  private StoreUnavailableException abandon(StoreUnavailableException e) {
    gate.writeLock().lock();
    try {
      return letGo(e);
    } finally {
      gate.writeLock().unlock();
    }
  }

  /**
   * Under the write side of the gate: keeps the failure as the answer to every later verb and lets
   * go of the database ({@link Engine#abandon}), which H2 has usually closed itself after the
   * failed write. Only a close and a new open use the file again. Returns {@code e} with the cause
   * that a verb in flight met, when {@code e} says only that H2 closed the database: every verb in
   * flight has reported its failure by the time the write side is held.
   */
  private StoreUnavailableException letGo(StoreUnavailableException e) {
    StoreUnavailableException told = withKnownCause(e);
    if (closed || broken != null) {
      return told;
    }
    broken = told;
    LOG.error("{}: the store is unavailable ({}); every verb fails until it is closed and opened again", file,
        told.reason());
    engine.abandon(file);
    return told;
  }

  /** {@code e}, or when it says only that H2 closed the database and a verb met the cause, {@code e} naming it. */
  private StoreUnavailableException withKnownCause(StoreUnavailableException e) {
    String cause = firstCause.get();
    if (cause == null || !e.reason().equals(Damage.CLOSED_ITSELF)) {
      return e;
    }
    String tail = UNAVAILABLE + e.reason() + ")";
    String m = e.getMessage();
    String what = m.endsWith(tail) ? m.substring(0, m.length() - tail.length()) : m + ": ";
    String reason = new Damage.Diagnosis.Unavailable(cause, true).reason();
    return new StoreUnavailableException(file.file, reason, what + UNAVAILABLE + reason + ")", e.getCause());
  }

  /**
   * Waits for transactions in flight, refuses new ones, closes the pool and shuts the database
   * down with {@code SHUTDOWN COMPACT}. Idempotent. A store found unavailable, or whose reopen
   * after a compaction failed, has let go of its database already: nothing is written then.
   */
  void shutdown() {
    gate.writeLock().lock();
    try {
      if (!closed) {
        closed = true;
        if (engine.reading) {
          engine.closeReading();
        } else if (broken == null && damaged) {
          engine.shutdownImmediately(file);
        } else if (broken == null) {
          engine.shutdownCompact(file);
        }
      }
    } finally {
      gate.writeLock().unlock();
    }
  }

  /** Compactions since open. */
  int compactions() {
    return compactions.get();
  }

  private Connection connection(String verb) {
    try {
      return engine.pool.getConnection();
    } catch (SQLException e) {
      if (Damage.diagnose(e) instanceof Damage.Diagnosis.Unavailable u) {
        throw unavailable(verb + " failed", u, e);
      }
      throw new CoordinationStoreException(file + ": no database connection for " + verb + ": " + oneLine(e), e);
    }
  }

  private void forceToDevice(Connection c, String verb) {
    try (Statement s = c.createStatement()) {
      s.execute("CHECKPOINT SYNC");
    } catch (SQLException e) {
      if (Damage.diagnose(e) instanceof Damage.Diagnosis.Unavailable u) {
        throw unavailable(verb + " committed, but could not be forced to the device, so it may not survive a power"
            + " loss", u, e);
      }
      throw new CoordinationStoreException(file + ": " + verb + " committed, but CHECKPOINT SYNC failed, so it may"
          + " not survive a power loss: " + oneLine(e), e);
    }
  }

  private static final String UNAVAILABLE = "the store is unavailable (";

  /**
   * The store is unavailable: {@code <file>: <what>: the store is unavailable (<reason>)}; the first
   * cause met is kept for {@link #withKnownCause}.
   */
  private StoreUnavailableException unavailable(String what, Damage.Diagnosis.Unavailable u, Throwable cause) {
    if (u.cause() != null) {
      firstCause.compareAndSet(null, u.cause());
    }
    return unavailable(what, u.reason(), cause);
  }

  private StoreUnavailableException unavailable(String what, String reason, Throwable cause) {
    return new StoreUnavailableException(file.file, reason, file + ": " + what + ": " + UNAVAILABLE + reason + ")",
        cause);
  }

  /**
   * What a verb's SQL failure is reported as. Once a verb has met a failure of the environment, H2
   * has closed the database, so any failure of a verb in flight (a lock timeout behind a
   * transaction that can no longer end, a closed session) is that unavailability.
   */
  private CoordinationStoreException failure(String verb, SQLException e, int lockConflicts) {
    Damage.Diagnosis diagnosis = Damage.diagnose(e);
    if (diagnosis instanceof Damage.Diagnosis.Other && firstCause.get() != null) {
      diagnosis = new Damage.Diagnosis.Unavailable(firstCause.get(), true);
    }
    if (diagnosis instanceof Damage.Diagnosis.Unavailable u) {
      LOG.error("{}: {} found the store unavailable ({}): {}", file, verb, u.reason(), oneLine(e));
      return unavailable(verb + " failed", u, e);
    }
    java.util.Optional<String> damage = diagnosis instanceof Damage.Diagnosis.Damaged d
        ? java.util.Optional.of(d.reason()) : java.util.Optional.empty();
    if (damage.isPresent()) {
      damaged = true;
      LOG.error("{}: {} found the file damaged ({}): {}", file, verb, damage.get(), oneLine(e));
      return new DamagedStoreException(file.file, damage.get(), file + ": " + verb + " failed: the store is damaged ("
          + damage.get() + "; H2: " + Damage.h2Detail(e) + ")", e);
    }
    if (isLockConflict(e)) {
      return new CoordinationStoreException(file + ": " + verb + " gave up after " + lockConflicts
          + " lock conflicts (lock timeout " + lockTimeoutMs + "ms): " + oneLine(e), e);
    }
    return new CoordinationStoreException(file + ": " + verb + " failed: " + oneLine(e), e);
  }

  static boolean isLockConflict(SQLException e) {
    String state = e.getSQLState();
    return "HYT00".equals(state) || "40001".equals(state) || e.getErrorCode() == 90131;
  }

  static boolean isDuplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState());
  }

  /** The first line of an exception's message, with its SQLState. */
  static String oneLine(SQLException e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return (nl < 0 ? m : m.substring(0, nl)).strip() + " (SQLState " + e.getSQLState() + ")";
  }

  /**
   * Rolls back after a failure, which is reported; a failure of the rollback itself is only logged.
   * On a database that H2 closed after a failed write, the rollback fails: with 90098, or (H2
   * 2.5.252 run with {@code -ea}) with an {@link AssertionError} of H2's own version bookkeeping.
   */
  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      LOG.warn("rollback failed: {}", oneLine(e));
    } catch (RuntimeException | AssertionError e) {
      LOG.warn("rollback failed: {}", e.toString());
    }
  }

  /** Returns the connection to the pool (HikariCP rolls back what is left); failures as {@link #rollbackQuietly}. */
  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      LOG.warn("closing a pooled connection failed: {}", oneLine(e));
    } catch (RuntimeException | AssertionError e) {
      LOG.warn("closing a pooled connection failed: {}", e.toString());
    }
  }
}
