package dev.vigil.coordination.h2;

import dev.vigil.coordination.RetryPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * How {@link H2Coordination#open} runs the database. Immutable; every value is validated here and
 * a bad one is rejected, never clamped.
 *
 * @param durability  what an acknowledged decision survives (see {@link Durability})
 * @param lockTimeout how long one statement waits for a row lock before H2 gives up (SQLState
 *                    HYT00); a verb retries its whole transaction {@value H2Coordination#LOCK_TIMEOUT_ATTEMPTS}
 *                    times before it fails. 1 ms to 10 min.
 * @param poolSize    connections in the pool, 1 to 64: callers beyond this wait for a connection
 * @param retryPolicy the one policy that settles runs (Q5)
 * @param fileSystem  the H2 file system the database file is reached through, as the prefix of its
 *                    JDBC URL ({@code ""} for the default one; else a registered
 *                    {@code org.h2.store.fs.FilePath} scheme and a colon, like {@code "nio:"}): a
 *                    test puts a wrapper here that fails writes on demand
 */
public record H2Options(Durability durability, Duration lockTimeout, int poolSize, RetryPolicy retryPolicy,
    String fileSystem) {
  /** The default statement lock timeout: long beside a verb (about a millisecond), short beside a human. */
  public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(2);
  /** The default pool size. */
  public static final int DEFAULT_POOL_SIZE = 4;
  /** The longest lock timeout accepted. */
  public static final Duration MAX_LOCK_TIMEOUT = Duration.ofMinutes(10);
  /** The largest pool accepted. */
  public static final int MAX_POOL_SIZE = 64;

  /** What an acknowledged decision survives. */
  public enum Durability {
    /**
     * Every commit is written to the file before the verb returns ({@code WRITE_DELAY=0}): an
     * acknowledged decision survives {@code kill -9} of the JVM, not a power loss or OS crash
     * (the data may still be in the OS page cache).
     */
    PROCESS,
    /**
     * As {@link #PROCESS}, and after every granted claim, start and finish the file is also forced
     * to the device ({@code CHECKPOINT SYNC}): those decisions survive a power loss or OS crash.
     * Costs one device sync per such verb.
     */
    POWER
  }

  public H2Options {
    Objects.requireNonNull(durability, "durability");
    Objects.requireNonNull(lockTimeout, "lockTimeout");
    Objects.requireNonNull(retryPolicy, "retryPolicy");
    if (lockTimeout.compareTo(Duration.ofMillis(1)) < 0) {
      throw new IllegalArgumentException("lockTimeout (" + lockTimeout.toMillis() + "ms) must be >= 1ms");
    }
    if (lockTimeout.compareTo(MAX_LOCK_TIMEOUT) > 0) {
      throw new IllegalArgumentException(
          "lockTimeout (" + lockTimeout.toMillis() + "ms) must be <= " + MAX_LOCK_TIMEOUT.toMillis() + "ms");
    }
    if (poolSize < 1 || poolSize > MAX_POOL_SIZE) {
      throw new IllegalArgumentException("poolSize (" + poolSize + ") must be between 1 and " + MAX_POOL_SIZE);
    }
    Objects.requireNonNull(fileSystem, "fileSystem");
    if (!fileSystem.isEmpty() && !fileSystem.matches("[A-Za-z][A-Za-z0-9]*:")) {
      throw new IllegalArgumentException("fileSystem ('" + fileSystem + "') must be empty or a file system scheme"
          + " and a colon, like 'nio:'");
    }
  }

  /** As the full constructor, on the default file system. */
  public H2Options(Durability durability, Duration lockTimeout, int poolSize, RetryPolicy retryPolicy) {
    this(durability, lockTimeout, poolSize, retryPolicy, "");
  }

  /** PROCESS durability, a 2 s lock timeout, 4 connections, {@link RetryPolicy#DEFAULT}. */
  public static H2Options defaults() {
    return new H2Options(Durability.PROCESS, DEFAULT_LOCK_TIMEOUT, DEFAULT_POOL_SIZE, RetryPolicy.DEFAULT);
  }

  public H2Options withDurability(Durability d) {
    return new H2Options(d, lockTimeout, poolSize, retryPolicy, fileSystem);
  }

  public H2Options withLockTimeout(Duration t) {
    return new H2Options(durability, t, poolSize, retryPolicy, fileSystem);
  }

  public H2Options withPoolSize(int n) {
    return new H2Options(durability, lockTimeout, n, retryPolicy, fileSystem);
  }

  public H2Options withRetryPolicy(RetryPolicy p) {
    return new H2Options(durability, lockTimeout, poolSize, p, fileSystem);
  }

  /** The same options on the H2 file system {@code prefix} (see the record's {@code fileSystem}). */
  public H2Options withFileSystem(String prefix) {
    return new H2Options(durability, lockTimeout, poolSize, retryPolicy, prefix);
  }
}
