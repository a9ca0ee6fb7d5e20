package dev.vigil.coordination.postgres;

import dev.vigil.coordination.RetryPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How {@link PostgresCoordination#open} reaches and uses the server. Immutable; every value is
 * validated here and a bad one is rejected, never clamped. The password is never printed:
 * {@link #toString()} masks it, and it is handed to the driver as a connection property, never as
 * part of the URL.
 *
 * @param url            the JDBC URL, {@code jdbc:postgresql://host[:port]/database}, with no user or
 *                       password in it (they have fields of their own)
 * @param user           the database user
 * @param password       the user's password ({@code ""} for none, e.g. a trusted local server)
 * @param schema         the schema that holds Vigil's tables, created at the first open when absent:
 *                       several Vigil stores can share one database, one schema each
 * @param lockTimeout    how long one statement waits for a row lock before the server gives up
 *                       (SQLState 55P03); a verb then runs its whole transaction again, at most
 *                       {@value PostgresCoordination#CONFLICT_ATTEMPTS} times. 1 ms to 10 min.
 * @param connectTimeout how long a verb waits for a connection (a new one while the server is down)
 *                       before it fails as unavailable. 250 ms to 10 min.
 * @param poolSize       connections in the pool, 1 to 64: callers beyond this wait for a connection
 * @param retryPolicy    the one policy that settles runs (Q5)
 */
public record PostgresOptions(String url, String user, String password, String schema, Duration lockTimeout,
    Duration connectTimeout, int poolSize, RetryPolicy retryPolicy) {
  /** The default statement lock timeout: long beside a verb (about a millisecond), short beside a human. */
  public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(2);
  /** The default wait for a connection. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  /** The default pool size. */
  public static final int DEFAULT_POOL_SIZE = 4;
  /** The largest pool accepted. */
  public static final int MAX_POOL_SIZE = 64;
  /** The longest lock or connect timeout accepted. */
  public static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);
  /** The default schema. */
  public static final String DEFAULT_SCHEMA = "vigil";

  public PostgresOptions {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(lockTimeout, "lockTimeout");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(retryPolicy, "retryPolicy");
    if (!url.startsWith("jdbc:postgresql://")) {
      throw new IllegalArgumentException("url ('" + safeUrl(url) + "') must start with jdbc:postgresql://");
    }
    String lower = url.toLowerCase(Locale.ROOT);
    if (lower.contains("password=") || lower.contains("user=") || url.substring("jdbc:postgresql://".length())
        .contains("@")) {
      throw new IllegalArgumentException("url ('" + safeUrl(url) + "') must not carry a user or password: they have"
          + " fields of their own (the password read from a file)");
    }
    if (user.isBlank()) {
      throw new IllegalArgumentException("user must not be blank");
    }
    if (!schema.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new IllegalArgumentException("schema ('" + schema + "') must be a lower-case identifier: letters, digits"
          + " and _, at most 63, not starting with a digit");
    }
    if (lockTimeout.compareTo(Duration.ofMillis(1)) < 0 || lockTimeout.compareTo(MAX_TIMEOUT) > 0) {
      throw new IllegalArgumentException("lockTimeout (" + lockTimeout.toMillis() + "ms) must be between 1ms and "
          + MAX_TIMEOUT.toMillis() + "ms");
    }
    if (connectTimeout.compareTo(Duration.ofMillis(250)) < 0 || connectTimeout.compareTo(MAX_TIMEOUT) > 0) {
      throw new IllegalArgumentException("connectTimeout (" + connectTimeout.toMillis()
          + "ms) must be between 250ms and " + MAX_TIMEOUT.toMillis() + "ms");
    }
    if (poolSize < 1 || poolSize > MAX_POOL_SIZE) {
      throw new IllegalArgumentException("poolSize (" + poolSize + ") must be between 1 and " + MAX_POOL_SIZE);
    }
  }

  /** The schema {@value #DEFAULT_SCHEMA}, a 2 s lock timeout, a 5 s connect timeout, 4 connections, {@link RetryPolicy#DEFAULT}. */
  public static PostgresOptions of(String url, String user, String password) {
    return new PostgresOptions(url, user, password, DEFAULT_SCHEMA, DEFAULT_LOCK_TIMEOUT, DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_POOL_SIZE, RetryPolicy.DEFAULT);
  }

  /**
   * The password kept in {@code file}: its text without the line break that ends it. The message of
   * a failure names the file and the cause, never any of its content.
   *
   * @throws IllegalArgumentException when the file cannot be read or holds more than one line
   */
  public static String readPasswordFile(Path file) {
    Objects.requireNonNull(file, "passwordFile");
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      String why = e instanceof java.nio.file.NoSuchFileException ? "there is no such file"
          : e instanceof java.nio.file.AccessDeniedException ? "permission denied" : e.getClass().getSimpleName();
      throw new IllegalArgumentException("passwordFile (" + file + ") cannot be read: " + why);
    }
    String password = text.endsWith("\r\n") ? text.substring(0, text.length() - 2)
        : text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    if (password.indexOf('\n') >= 0 || password.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("passwordFile (" + file + ") must hold the password on one line");
    }
    return password;
  }

  public PostgresOptions withSchema(String s) {
    return new PostgresOptions(url, user, password, s, lockTimeout, connectTimeout, poolSize, retryPolicy);
  }

  public PostgresOptions withLockTimeout(Duration t) {
    return new PostgresOptions(url, user, password, schema, t, connectTimeout, poolSize, retryPolicy);
  }

  public PostgresOptions withConnectTimeout(Duration t) {
    return new PostgresOptions(url, user, password, schema, lockTimeout, t, poolSize, retryPolicy);
  }

  public PostgresOptions withPoolSize(int n) {
    return new PostgresOptions(url, user, password, schema, lockTimeout, connectTimeout, n, retryPolicy);
  }

  public PostgresOptions withRetryPolicy(RetryPolicy p) {
    return new PostgresOptions(url, user, password, schema, lockTimeout, connectTimeout, poolSize, p);
  }

  /** Where the store lives, for messages and logs: {@code host:port/database, schema S} (no password, no user). */
  public String where() {
    return safeUrl(url) + ", schema " + schema;
  }

  /** The URL without its query part, where a careless user might have put secrets. */
  private static String safeUrl(String url) {
    int q = url.indexOf('?');
    String bare = q < 0 ? url : url.substring(0, q);
    int at = bare.indexOf('@');
    return at < 0 ? bare : "jdbc:postgresql://…" + bare.substring(at);
  }

  /** Every field but the password, which is masked. */
  @Override
  public String toString() {
    return "PostgresOptions[url=" + safeUrl(url) + ", user=" + user + ", password=" + (password.isEmpty() ? "" : "****")
        + ", schema=" + schema + ", lockTimeout=" + lockTimeout + ", connectTimeout=" + connectTimeout + ", poolSize="
        + poolSize + ", retryPolicy=" + retryPolicy + "]";
  }
}
