package dev.vigil.worker.protocol;

import java.util.Objects;

/** What a worker speaks for: one task run or one session. Its token is valid for it alone (C9). */
public sealed interface Subject {
  /** The id: a run id or a session name. */
  String id();

  /** A task run, e.g. {@code t-12.1}. */
  record Run(String id) implements Subject {
    public Run {
      Objects.requireNonNull(id, "id");
      if (id.isBlank()) {
        throw new IllegalArgumentException("run id must not be blank");
      }
    }
  }

  /** A session (service) by name. */
  record Session(String id) implements Subject {
    public Session {
      Objects.requireNonNull(id, "id");
      if (id.isBlank()) {
        throw new IllegalArgumentException("session name must not be blank");
      }
    }
  }
}
