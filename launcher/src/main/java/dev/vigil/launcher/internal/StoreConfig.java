package dev.vigil.launcher.internal;

import dev.vigil.coordination.RetryPolicy;
import dev.vigil.coordination.postgres.PostgresOptions;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Which store the daemon keeps its decisions in (DESIGN.md §11): the embedded H2 file under its home,
 * the default, or a PostgreSQL server that the daemons of several hosts share, one daemon per host.
 */
public sealed interface StoreConfig {
  /** The embedded H2 file {@code <home>/vigil.mv.db}: one host, one home. */
  record H2() implements StoreConfig {}

  /**
   * A PostgreSQL server. The password is never part of this value: it is read from
   * {@code passwordFile} each time the store is opened, so it is in no record, log or message.
   *
   * @param url          {@code jdbc:postgresql://host[:port]/database}, with no user or password in it
   * @param user         the database user
   * @param passwordFile the file holding the user's password on one line; empty for a server that asks none
   * @param schema       the schema of Vigil's tables (several stores can share a database, one schema each)
   * @param poolSize     connections each daemon keeps to the server
   */
  record Postgres(String url, String user, Optional<Path> passwordFile, String schema, int poolSize)
      implements StoreConfig {
    public Postgres {
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(user, "user");
      Objects.requireNonNull(passwordFile, "passwordFile");
      Objects.requireNonNull(schema, "schema");
      // the store's own rules, checked now with a stand-in password: a bad value is a configuration error
      new PostgresOptions(url, user, "", schema, PostgresOptions.DEFAULT_LOCK_TIMEOUT,
          PostgresOptions.DEFAULT_CONNECT_TIMEOUT, poolSize, RetryPolicy.DEFAULT);
    }

    /**
     * The options to open the store with, the password read from its file now (so that a changed password
     * is picked up by the next open).
     *
     * @throws IllegalArgumentException naming {@code passwordFile} when it cannot be read or is not one line
     */
    PostgresOptions options(RetryPolicy retry) {
      return options(retry, passwordFile.map(PostgresOptions::readPasswordFile).orElse(""));
    }

    /** Where the store lives, as people read it: server, database and schema; never a user or password. */
    String where() {
      return "PostgreSQL " + options(RetryPolicy.DEFAULT, "").where();
    }

    private PostgresOptions options(RetryPolicy retry, String password) {
      return new PostgresOptions(url, user, password, schema, PostgresOptions.DEFAULT_LOCK_TIMEOUT,
          PostgresOptions.DEFAULT_CONNECT_TIMEOUT, poolSize, retry);
    }
  }

  /** Whether daemons of several hosts may share this store, each with its own host id. */
  default boolean shared() {
    return this instanceof Postgres;
  }
}
