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
 * rollback on any failure.
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
 *       is shut down with {@code SHUTDOWN COMPACT} and reopened. If the reopen fails, every
 *       later verb fails with that cause.
 *   <li>A failure that says the file is damaged ({@link Damage}) is a {@link DamagedStoreException};
 *       from then on no compaction runs, and the shutdown writes nothing more
 *       ({@code SHUTDOWN IMMEDIATELY}): a compaction would have to read the damaged data.
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
  private RuntimeException broken;
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
    gate.readLock().lock();
    try {
      requireUsable(verb);
      result = attempt(verb, forceToDevice, body);
    } finally {
      gate.readLock().unlock();
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
          if (isLockConflict(e) && ++lockConflicts < H2Coordination.LOCK_TIMEOUT_ATTEMPTS) {
            LOG.warn("{}: {} hit a lock conflict ({}), attempt {} of {}; running it again", file, verb,
                e.getSQLState(), lockConflicts, H2Coordination.LOCK_TIMEOUT_ATTEMPTS);
            continue;
          }
          throw failure(verb, e, lockConflicts);
        } catch (RuntimeException | Error e) {
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
    } finally {
      gate.writeLock().unlock();
    }
  }

  /** Refuses a verb on a closed store, or on one whose reopen after a compaction failed; under the gate. */
  private void requireUsable(String verb) {
    if (closed) {
      throw new IllegalStateException(file + ": the coordination store is closed (" + verb + ")");
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
        compaction.compacted();
        compactions.incrementAndGet();
        LOG.debug("{}: compacted in {} ms", file, (System.nanoTime() - t0) / 1_000_000);
      } catch (RuntimeException e) {
        broken = e;
        LOG.error("{}: compaction or the reopen after it failed; the store is unusable: {}", file, e.getMessage());
      }
    } finally {
      gate.writeLock().unlock();
    }
  }

  /**
   * Waits for transactions in flight, refuses new ones, closes the pool and shuts the database
   * down with {@code SHUTDOWN COMPACT}. Idempotent.
   */
  void shutdown() {
    gate.writeLock().lock();
    try {
      if (!closed) {
        closed = true;
        if (broken == null && damaged) {
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
      throw new CoordinationStoreException(file + ": no database connection for " + verb + ": " + oneLine(e), e);
    }
  }

  private void forceToDevice(Connection c, String verb) {
    try (Statement s = c.createStatement()) {
      s.execute("CHECKPOINT SYNC");
    } catch (SQLException e) {
      throw new CoordinationStoreException(file + ": " + verb + " committed, but CHECKPOINT SYNC failed, so it may"
          + " not survive a power loss: " + oneLine(e), e);
    }
  }

  private CoordinationStoreException failure(String verb, SQLException e, int lockConflicts) {
    java.util.Optional<String> damage = Damage.of(e);
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

  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      LOG.warn("rollback failed: {}", oneLine(e));
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      LOG.warn("closing a pooled connection failed: {}", oneLine(e));
    }
  }
}
