package dev.vigil.coordination.postgres;

import java.util.Objects;

/**
 * The server answered, and refused the store's configuration: the password, the user, or the
 * database the URL names. Trying again changes nothing until the configuration does; {@link #field()}
 * names the option to fix. The message names the server and the user, never the password.
 */
public final class PostgresRefusedException extends PostgresStoreException {
  private static final long serialVersionUID = 1L;

  private final String field;

  PostgresRefusedException(String field, String message, Throwable cause) {
    super(message, cause);
    this.field = Objects.requireNonNull(field, "field");
  }

  /** The option the server refused: {@code url} (no such database), {@code user} or {@code password}. */
  public String field() {
    return field;
  }
}
