package dev.vigil.supervisor;

import java.util.Objects;

/**
 * A decision and the state that follows it. The caller acts on {@link #decision()} and keeps
 * {@link #next()} in place of the state it called; the state it called is left unchanged.
 *
 * @param next     the state after the event
 * @param decision what the caller must do
 * @param <S>      the state type
 * @param <D>      the decision type (a sealed interface of records)
 */
public record Step<S, D>(S next, D decision) {
  public Step {
    Objects.requireNonNull(next, "next");
    Objects.requireNonNull(decision, "decision");
  }
}
