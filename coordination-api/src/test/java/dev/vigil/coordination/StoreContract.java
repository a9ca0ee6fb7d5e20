package dev.vigil.coordination;

import dev.vigil.coordination.law.CoordinationInvariants;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every verb family's contract shares: a fresh store per test from {@link #create()}, the same
 * store as a restarted daemon finds it from {@link #reopen}, and {@link CoordinationInvariants}
 * checked on whatever the test left before it is disposed of.
 */
public abstract class StoreContract {
  protected Coordination c;

  protected abstract Coordination create() throws Exception;

  /** The same store as a restarted daemon finds it (the model: the same object). */
  protected abstract Coordination reopen(Coordination coordination) throws Exception;

  protected void dispose(Coordination coordination) throws Exception {}

  @BeforeEach
  void open() throws Exception {
    c = create();
  }

  @AfterEach
  void close() throws Exception {
    if (c != null) {
      CoordinationInvariants.check(c.store());
      dispose(c);
    }
  }
}
