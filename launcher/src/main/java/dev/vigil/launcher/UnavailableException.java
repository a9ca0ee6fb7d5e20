package dev.vigil.launcher;

/**
 * Thrown by a {@link Vigil} call while the daemon's store is unavailable (a full disk, an I/O error):
 * the daemon runs, every worker runs on, and nothing is decided until the daemon has reopened the
 * store, which it does by itself (docs/LAWS.md D5). Nothing was changed by the call; call again
 * later. The message is one line naming the cause and the store's file.
 */
public final class UnavailableException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  UnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
