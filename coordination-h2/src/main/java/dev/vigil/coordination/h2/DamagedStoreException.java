package dev.vigil.coordination.h2;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The database file is damaged: H2 could not read part of it (a page that fails its checks, a file
 * cut short, a missing chunk, an overwritten header). Nothing was changed by the attempt that
 * found it. {@link H2Maintenance#check} says what is damaged, {@link H2Maintenance#recover}
 * salvages what can be read, {@link H2Maintenance#restore} puts a backup in its place.
 */
public final class DamagedStoreException extends CoordinationStoreException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final String reason;

  /**
   * @param file    the damaged database file
   * @param reason  what was found, in a few words (no file name)
   * @param message the one-line message, naming the file
   */
  DamagedStoreException(Path file, String reason, String message, Throwable cause) {
    super(message, cause);
    this.file = Objects.requireNonNull(file, "file");
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** The damaged database file. */
  public Path file() {
    return file;
  }

  /** What is damaged, in a few words, like {@code a page of its data cannot be read}. */
  public String reason() {
    return reason;
  }

  /** The first {@link DamagedStoreException} in {@code t}'s chain of causes, if any. */
  public static java.util.Optional<DamagedStoreException> in(Throwable t) {
    return in(t, DamagedStoreException.class);
  }
}
